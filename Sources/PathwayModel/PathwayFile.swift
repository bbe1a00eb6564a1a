import Core
import Foundation

/// Loads a pathway map of any supported format, plain or gzip: Escher JSON (a JSON array),
/// Molshot JSON (a JSON object), KGML, SBGN-ML, GPML and SBML with the Layout package (by the
/// XML root element).
public enum PathwayFile {
    /// A map without positions is laid out with `layout`; with `relayout`, every map is (its own
    /// positions, compartments and free text left out).
    public static func load(path: String, maxBytes: Int = 256 << 20, layout: PathwayLayout = PathwayLayout(),
                            relayout: Bool = false) throws -> PathwayMap {
        let bytes = try FileInput.read(path: path, limit: maxBytes)
        trace("pathway: file read")
        return try parse(bytes, file: path, layout: layout, relayout: relayout)
    }

    public static func parse(_ data: Data, file: String, layout: PathwayLayout = PathwayLayout()) throws -> PathwayMap {
        try parse([UInt8](data), file: file, layout: layout)
    }

    public static func parse(_ data: [UInt8], file: String, layout: PathwayLayout = PathwayLayout(), relayout: Bool = false) throws -> PathwayMap {
        guard let first = data.first(where: { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }) else {
            throw PathwayError(file: file, "is empty")
        }
        var map: PathwayMap
        if first == UInt8(ascii: "[") || first == UInt8(ascii: "{") {
            let json: Any
            do { json = try JSONText.parse(data) } catch {
                throw PathwayError(file: file, "not valid JSON (\(error))")
            }
            trace("pathway: JSON parsed")
            // Escher's maps are an array [header, body]; its builder's maps from before schema 1-0-0 a body alone.
            map = first == UInt8(ascii: "[") || EscherReader.isBuilderMap(json) ? try EscherReader.read(json, file: file)
                : try PathwayJSONReader.read(json, file: file)
        } else if first == UInt8(ascii: "<") {
            let root = try XMLElementNode.parse(Data(data), file: file)
            switch root.name {
            case "pathway": map = try KGMLReader.read(root, file: file)
            case "sbgn": map = try SBGNReader.read(root, file: file)
            case "Pathway": map = try GPMLReader.read(root, file: file)
            case "sbml": map = try SBMLLayoutReader.read(root, file: file)
            default: throw PathwayError(file: file, at: root.place, "not a pathway format Molshot reads (KGML, SBGN-ML, GPML, SBML with a layout)")
            }
        } else {
            throw PathwayError(file: file, "not a pathway file: expected JSON (Escher, Molshot) or XML (KGML, SBGN-ML, GPML, SBML)")
        }
        // A map of only compartments, shapes or labels is drawn as it is (its tool opens it).
        guard !map.nodes.isEmpty || !map.edges.isEmpty || !map.compartments.isEmpty || !map.texts.isEmpty else {
            throw PathwayError(file: file, "the map has nothing to draw: no nodes, lines, compartments, shapes or labels")
        }
        if (relayout || map.needsLayout) && map.nodes.isEmpty {
            throw PathwayError(file: file, "the map has no nodes to lay out")
        }
        if relayout && !map.needsLayout { map = map.unplaced() }
        if map.needsLayout { map = layout.laidOut(map) }
        // Places past what a Double holds once added up (a size of 1e308 beside another) leave no
        // picture, tile or JSON to make: said here, for every front end.
        // A layout's arithmetic on such sizes can leave a place not a number, which min and max pass over.
        let b = map.bounds
        guard b.min.x.isFinite, b.min.y.isFinite, b.max.x.isFinite, b.max.y.isFinite,
              (b.max.x - b.min.x).isFinite, (b.max.y - b.min.y).isFinite,
              map.nodes.allSatisfy({ !$0.center.x.isNaN && !$0.center.y.isNaN }) else {
            throw PathwayError(file: file, "the map's extent is not a finite number: its places or sizes reach past what can be drawn")
        }
        return map
    }
}

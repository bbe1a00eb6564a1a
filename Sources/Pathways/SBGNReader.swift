import Core

/// Reads SBGN-ML (Process Description): glyphs by class (simple chemicals as ellipses,
/// macromolecules and complexes as round rectangles, processes as small squares, compartments as
/// boxes behind everything) and arcs by class (production arrows, catalysis circles, inhibition
/// bars, stimulation open arrows), with the points the file gives.
enum SBGNReader {
    static func read(_ root: XMLElementNode, file: String) throws -> PathwayMap {
        guard root.name == "sbgn", let mapElement = root.child("map") else {
            throw PathwayError(file: file, at: root.place, "an SBGN-ML file is <sbgn> holding a <map>")
        }
        var map = PathwayMap()
        map.format = "sbgn"
        map.title = mapElement.attributes["id"] ?? ""
        var owner: [String: String] = [:]  // port id -> glyph id
        for glyph in mapElement.all("glyph") {
            guard let id = glyph.attributes["id"] else { throw PathwayError(file: file, at: glyph.place, "a glyph without an id") }
            let cls = glyph.attributes["class"] ?? ""
            guard let box = glyph.child("bbox"), let x = box.double("x"), let y = box.double("y"), let w = box.double("w"),
                  let h = box.double("h") else {
                throw PathwayError(file: file, at: glyph.place, "a glyph needs a <bbox> with x, y, w and h")
            }
            let label = glyph.child("label")?.attributes["text"] ?? ""
            for port in glyph.all("port") { if let p = port.attributes["id"] { owner[p] = id } }
            let center = SIMD2(x + w / 2, y + h / 2)
            switch cls {
            case "compartment":
                map.compartments.append(PathwayMap.Compartment(id: id, name: label, origin: SIMD2(x, y), size: SIMD2(w, h),
                                                               color: Color(rgb: 0x9AA5B1)))
            case "process", "omitted process", "uncertain process", "association", "dissociation":
                map.nodes.append(PathwayMap.Node(id: id, name: label, kind: .reaction, center: center, size: SIMD2(w, h),
                                                 shape: cls == "association" || cls == "dissociation" ? .ellipse : .process,
                                                 fill: cls == "association" ? .black : .white, stroke: .black))
            case "simple chemical", "source and sink", "perturbing agent":
                map.nodes.append(PathwayMap.Node(id: id, name: label, kind: .metabolite, center: center, size: SIMD2(w, h), shape: .ellipse,
                                                 fill: Color(rgb: 0xFFF5D6), stroke: .black, label: label, fontSize: min(14, h * 0.3)))
            case "macromolecule", "nucleic acid feature", "complex", "macromolecule multimer", "complex multimer",
                 "simple chemical multimer", "nucleic acid feature multimer":
                map.nodes.append(PathwayMap.Node(id: id, name: label, kind: .geneProduct, center: center, size: SIMD2(w, h),
                                                 shape: .roundRectangle, fill: Color(rgb: 0xDCEBFA), stroke: .black, label: label,
                                                 fontSize: min(14, h * 0.3)))
            default:
                map.nodes.append(PathwayMap.Node(id: id, name: label, kind: .other, center: center, size: SIMD2(w, h), shape: .rectangle,
                                                 fill: .white, stroke: .black, label: label, fontSize: min(14, h * 0.3)))
            }
        }
        let glyphs = Set(map.nodes.map(\.id) + map.compartments.map(\.id))
        func resolve(_ ref: String?, _ arc: XMLElementNode, _ what: String) throws -> String {
            guard let ref else { throw PathwayError(file: file, at: arc.place, "an arc without a \(what)") }
            if glyphs.contains(ref) { return ref }
            if let g = owner[ref] { return g }
            throw PathwayError(file: file, at: arc.place, "the \(what) \(ref) is not a glyph or port of the map")
        }
        for arc in mapElement.all("arc") {
            let from = try resolve(arc.attributes["source"], arc, "source"), to = try resolve(arc.attributes["target"], arc, "target")
            guard let s = arc.child("start"), let sx = s.double("x"), let sy = s.double("y"), let e = arc.child("end"),
                  let ex = e.double("x"), let ey = e.double("y") else {
                throw PathwayError(file: file, at: arc.place, "an arc needs <start> and <end> with x and y")
            }
            var segments: [PathwayMap.Segment] = arc.all("next").compactMap { n in
                guard let x = n.double("x"), let y = n.double("y") else { return nil }
                return .line(to: SIMD2(x, y))
            }
            segments.append(.line(to: SIMD2(ex, ey)))
            let (kind, head): (PathwayMap.EdgeKind, PathwayMap.Head)
            switch arc.attributes["class"] ?? "" {
            case "consumption": (kind, head) = (.substrate, .none)
            case "production": (kind, head) = (.product, .arrow)
            case "catalysis": (kind, head) = (.catalysis, .circle)
            case "inhibition": (kind, head) = (.inhibition, .bar)
            case "stimulation", "necessary stimulation", "modulation": (kind, head) = (.stimulation, .openArrow)
            default: (kind, head) = (.plain, .none)
            }
            map.edges.append(PathwayMap.Edge(id: arc.attributes["id"] ?? "\(from)->\(to)", from: from, to: to, kind: kind,
                                             start: SIMD2(sx, sy), segments: segments, head: head, width: 1.5))
        }
        return map
    }
}

import Core
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// What an EMDB entry's header says about its primary map: the contour level its authors (or
/// EMDB's annotators) recommend, the entry's ID, and the models fitted to it.
///
/// Read from the header EMDB distributes beside each map: the XML of schema v3
/// (`emd-NNNN-v30.xml`: `<emd emdb_id="EMD-NNNN"><map>…<contour_list><contour primary="true">
/// <level>0.03</level>`), of schema v1.9 (`emd-NNNN.xml`: `<emdEntry accessCode="EMD-NNNN"><map>…
/// <contourLevel source="author">0.03</contourLevel>`), or the JSON of EMDB's entry API (the v3
/// names: `map.contour_list.contour[]`). Only the primary map's contour counts (half maps and
/// additional maps carry their own, under `interpretation`).
public struct EMDBHeader: Sendable, Equatable {
    /// EMD-NNNN, where the header names it.
    public var id: String?
    /// The primary map's recommended contour level, in the map's values.
    public var recommendedLevel: Double?
    /// Who recommended it (AUTHOR, EMDB, ANNOTATOR, SOFTWARE), where said.
    public var levelSource: String?
    /// PDB IDs of the models fitted to the map (v3 `crossreferences/pdb_list`, v1.9 `fittedPDBEntryId`).
    public var fittedModels: [String] = []

    public init(id: String? = nil, recommendedLevel: Double? = nil, levelSource: String? = nil, fittedModels: [String] = []) {
        self.id = id
        self.recommendedLevel = recommendedLevel
        self.levelSource = levelSource
        self.fittedModels = fittedModels
    }

    /// A header's bytes: real ones are tens of kilobytes; past this it is not a header.
    public static let maxBytes = 16 << 20

    public static func load(path: String) throws -> EMDBHeader {
        try parse(try FileInput.inflatedIfGzip(try FileInput.readAll(path: path, limit: maxBytes), source: path, limit: maxBytes), file: path)
    }

    public static func parse(_ bytes: [UInt8], file: String) throws -> EMDBHeader {
        guard let first = bytes.first(where: { !($0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || $0 == 0xEF || $0 == 0xBB || $0 == 0xBF) }) else {
            throw InputFileError(file: file, message: "is empty: an EMDB header is XML (emd-NNNN-v30.xml) or the entry API's JSON")
        }
        if first == UInt8(ascii: "{") || first == UInt8(ascii: "[") { return try parseJSON(bytes, file: file) }
        guard first == UInt8(ascii: "<") else {
            throw InputFileError(file: file, message: "is not an EMDB header: neither XML (emd-NNNN-v30.xml) nor the entry API's JSON")
        }
        // Foundation's parser ends the process on names that are not UTF-8 (found by fuzzing); EMDB's headers are UTF-8.
        guard String(validating: bytes, as: UTF8.self) != nil else {
            throw InputFileError(file: file, message: "is not UTF-8 text: not an EMDB header")
        }
        var bytes = bytes
        switch bytes.withUnsafeBytes({ XMLPreflight.check($0) }) {
        case .unchanged: break
        case .changed(let safe): bytes = safe
        case .refused(let why): throw InputFileError(file: file, line: why.line, message: why.message)
        }
        let reader = HeaderXMLReader()
        let parser = XMLParser(data: Data(bytes))
        parser.shouldResolveExternalEntities = false
        parser.delegate = reader
        if !parser.parse() && !reader.stopped {
            let why = parser.parserError.map { " (\(($0 as NSError).localizedDescription))" } ?? ""
            throw InputFileError(file: file, line: parser.lineNumber, message: "is not well-formed XML\(why)")
        }
        if let problem = reader.problem { throw InputFileError(file: file, line: reader.problemLine, message: problem) }
        if let open = reader.open { throw InputFileError(file: file, message: "is not well-formed XML: it ends inside <\(Excerpt.of(open))>") }
        guard reader.root == "emd" || reader.root == "emdEntry" else {
            throw InputFileError(file: file, message: "is XML but not an EMDB header (its root is <\(Excerpt.of(reader.root ?? ""))>, not <emd> or <emdEntry>)")
        }
        var header = EMDBHeader(id: reader.id, fittedModels: reader.fitted)
        if let chosen = reader.contours.first(where: \.primary) ?? reader.contours.first {
            header.recommendedLevel = chosen.level
            header.levelSource = chosen.source
        }
        return header
    }

    static func parseJSON(_ bytes: [UInt8], file: String) throws -> EMDBHeader {
        let object: Any
        do { object = try JSONSerialization.jsonObject(with: Data(bytes)) } catch {
            throw InputFileError(file: file, message: "is not valid JSON (\((error as NSError).localizedDescription))")
        }
        guard let entry = object as? [String: Any] else { throw InputFileError(file: file, message: "is JSON but not an EMDB entry (not an object)") }
        var header = EMDBHeader()
        header.id = entry["emdb_id"] as? String
        let map = entry["map"] as? [String: Any]
        let list = (map?["contour_list"] as? [String: Any])?["contour"]
        let contours = (list as? [[String: Any]]) ?? ((list as? [String: Any]).map { [$0] } ?? [])
        func level(_ c: [String: Any]) -> Double? {
            let v = (c["level"] as? Double) ?? (c["level"] as? String).flatMap(Double.init)
            return v.flatMap { $0.isFinite ? $0 : nil }
        }
        func isPrimary(_ c: [String: Any]) -> Bool { (c["primary"] as? Bool) ?? ((c["primary"] as? String)?.lowercased() == "true") }
        if let c = contours.first(where: { isPrimary($0) && level($0) != nil }) ?? contours.first(where: { level($0) != nil }) {
            header.recommendedLevel = level(c)
            header.levelSource = c["source"] as? String
        }
        if let pdbs = ((entry["crossreferences"] as? [String: Any])?["pdb_list"] as? [String: Any])?["pdb_reference"] as? [[String: Any]] {
            header.fittedModels = pdbs.compactMap { $0["pdb_id"] as? String }
        }
        return header
    }

    /// The header of the map at `mapPath`, where EMDB's layout puts it: for `emd_NNNN.map.gz`,
    /// `emd-NNNN-v30.xml`, `emd-NNNN.xml` or `emd-NNNN.json` in the map's folder or in `../header/`
    /// (the archive's `EMD-NNNN/map/` and `EMD-NNNN/header/`). Nil where the name carries no EMDB
    /// number or no such file exists.
    public static func path(beside mapPath: String) -> String? {
        guard let number = emdbNumber(in: (mapPath as NSString).lastPathComponent) else { return nil }
        let folder = (mapPath as NSString).deletingLastPathComponent
        let folders = [folder, ((folder as NSString).deletingLastPathComponent as NSString).appendingPathComponent("header")]
        let names = ["emd-\(number)-v30.xml", "emd-\(number).xml", "emd_\(number)-v30.xml", "emd_\(number).xml", "emd-\(number)-v19.xml",
                     "emd-\(number).json", "EMD-\(number).json", "emd_\(number).json"]
        for f in folders {
            for n in names {
                let p = f.isEmpty ? n : (f as NSString).appendingPathComponent(n)
                if FileManager.default.fileExists(atPath: p) { return p }
            }
        }
        return nil
    }

    /// The header beside the map at `mapPath` (`path(beside:)`), read, with its path; nil where there is none.
    public static func beside(_ mapPath: String) throws -> (path: String, header: EMDBHeader)? {
        guard let path = path(beside: mapPath) else { return nil }
        return (path, try load(path: path))
    }

    /// The EMDB number a file name carries (`emd_8249.map.gz`, `EMD-8249.mrc`): nil where none.
    public static func emdbNumber(in name: String) -> String? {
        let lower = name.lowercased()
        guard lower.hasPrefix("emd_") || lower.hasPrefix("emd-") else { return nil }
        let digits = lower.dropFirst(4).prefix { $0.isASCII && $0.isNumber }
        return (4...8).contains(digits.count) ? String(digits) : nil
    }
}

/// Streams an EMDB header's XML for the few elements read; the rest passes by.
private final class HeaderXMLReader: NSObject, XMLParserDelegate {
    struct Contour {
        var primary: Bool
        var level: Double?
        var source: String?
    }
    var root: String?
    var id: String?
    var contours: [(primary: Bool, level: Double, source: String?)] = []
    var fitted: [String] = []
    var problem: String?
    var problemLine = 0
    var stopped = false
    /// The innermost element still open at the end: the document was cut short.
    var open: String? { path.last }
    private var path: [String] = []
    private var text = ""
    private var contour: Contour?
    private var v19Source: String?
    private var elements = 0

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
        elements += 1
        // A header holds some thousands of elements; a document of millions, or nested hundreds
        // deep, is not one and is not walked further.
        if elements > 2_000_000 || path.count > 256 {
            problem = elements > 2_000_000 ? "holds over 2,000,000 elements: not an EMDB header" : "nests elements over 256 deep: not an EMDB header"
            problemLine = parser.lineNumber
            stopped = true
            parser.abortParsing()
            return
        }
        let local = name.split(separator: ":").last.map(String.init) ?? name
        if path.isEmpty {
            root = local
            id = attributes["emdb_id"] ?? attributes["accessCode"]
        }
        path.append(local)
        text = ""
        // The primary map is the root's own <map>: <emd><map> (v3), <emdEntry><map> (v1.9).
        if path.count == 4, path[1] == "map", local == "contour" {
            contour = Contour(primary: attributes["primary"]?.lowercased() == "true" || attributes["primary"] == "1")
        }
        if path.count == 3, path[1] == "map", local == "contourLevel" { v19Source = attributes["source"] }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if text.utf8.count < 4096 { text += string }
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        let local = path.last ?? name
        let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if path.count == 5, path[1] == "map", path[3] == "contour" {
            if local == "level" { contour?.level = Double(value).flatMap { $0.isFinite ? $0 : nil } }
            if local == "source" { contour?.source = value }
        }
        if path.count == 4, path[1] == "map", local == "contour", let c = contour {
            if let level = c.level { contours.append((c.primary, level, c.source)) }
            contour = nil
        }
        if path.count == 3, path[1] == "map", local == "contourLevel", let level = Double(value), level.isFinite {
            contours.append((true, level, v19Source))
        }
        // v3: <crossreferences><pdb_list><pdb_reference><pdb_id>; v1.9: <fittedPDBEntryId>.
        if (local == "pdb_id" && path.contains("pdb_list")) || local == "fittedPDBEntryId", !value.isEmpty, value.count <= 12, fitted.count < 1000,
           !fitted.contains(value.uppercased()) {
            fitted.append(value.uppercased())
        }
        path.removeLast()
        text = ""
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) {}
}

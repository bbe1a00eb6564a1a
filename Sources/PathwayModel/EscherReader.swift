import Core
import Foundation

/// Reads Escher maps (JSON `[header, body]`, schema 1-0-0): metabolite nodes as circles, mid- and
/// multimarkers as the points reaction segments meet at, segments as straight lines or cubic
/// Beziers (`b1`, `b2`) with arrowheads where they reach a product (or any participant of a
/// reversible reaction), reaction and metabolite labels where the map puts them, text labels.
///
/// Read leniently where Escher is, each leniency said once in the map's warnings: the builder
/// maps from before schema 1-0-0 (a bare body object, no header: `abbreviation`, `direction`,
/// `metabolite_name`, `metabolite_simpheny_id`, no stoichiometry, so a segment reaching a metabolite
/// is a product's), nodes of a type the schema does not have (`reaction` and others: read as the
/// marker their segments meet at), and `segments` given as an array instead of an object.
enum EscherReader {
    static let reactionColor = Color(rgb: 0x334E75)
    static let metaboliteFill = Color(rgb: 0xE0865B)
    static let metaboliteStroke = Color(rgb: 0xA24510)

    /// Escher's builder map from before schema 1-0-0: a body object alone, its nodes and
    /// reactions objects (Molshot's own JSON has arrays there).
    static func isBuilderMap(_ json: Any) -> Bool {
        guard let body = json as? [String: Any] else { return false }
        return body["nodes"] is [String: Any] && body["reactions"] is [String: Any]
    }

    static func read(_ json: Any, file: String) throws -> PathwayMap {
        func fail(_ key: String, _ message: String) -> PathwayError { PathwayError(file: file, at: key, message) }
        var warnings: [String] = []
        let header: [String: Any], body: [String: Any]
        if let top = json as? [Any], top.count == 2, let h = top[0] as? [String: Any], let b = top[1] as? [String: Any] {
            (header, body) = (h, b)
        } else if isBuilderMap(json), let b = json as? [String: Any] {
            (header, body) = ([:], b)
            warnings.append("\(file): an Escher map from before schema 1-0-0 (no header): read with its old keys (abbreviation, direction, metabolite_name)")
        } else {
            throw PathwayError(file: file, "an Escher map is a JSON array of a header object and a body object")
        }
        guard let nodes = body["nodes"] as? [String: Any] else { throw fail("nodes", "missing or not an object") }
        guard let reactions = body["reactions"] as? [String: Any] else { throw fail("reactions", "missing or not an object") }
        func number(_ object: [String: Any], _ key: String, _ path: String) throws -> Double {
            guard let v = JSONText.number(object[key]), v.isFinite else { throw fail("\(path).\(key)", "missing or not a number") }
            return v
        }
        func point(_ value: Any?, _ path: String) throws -> SIMD2<Double>? {
            guard let o = value as? [String: Any] else { return nil }
            return SIMD2(try number(o, "x", path), try number(o, "y", path))
        }

        var map = PathwayMap()
        map.format = "escher"
        map.title = header["map_name"] as? String ?? ""
        var metaboliteOf: [String: String] = [:]  // node id -> bigg id
        var otherTypes: [String: Int] = [:]
        var segmentArrays = 0
        for id in nodes.keys.sorted(by: { (Int($0) ?? 0, $0) < (Int($1) ?? 0, $1) }) {
            guard let n = nodes[id] as? [String: Any] else { throw fail("nodes.\(id)", "not an object") }
            let path = "nodes.\(id)"
            let center = SIMD2(try number(n, "x", path), try number(n, "y", path))
            let type = n["node_type"] as? String ?? ""
            if type == "metabolite" {
                let primary = n["node_is_primary"] as? Bool ?? false
                let r = primary ? 20.0 : 12.0
                let bigg = n["bigg_id"] as? String ?? n["metabolite_simpheny_id"] as? String ?? id
                metaboliteOf[id] = bigg
                var label: SIMD2<Double>? = nil
                if let x = JSONText.number(n["label_x"]), let y = JSONText.number(n["label_y"]) { label = SIMD2(x, y) }
                var node = PathwayMap.Node(id: id, name: n["name"] as? String ?? n["metabolite_name"] as? String ?? bigg, kind: .metabolite, center: center,
                                           size: SIMD2(2 * r, 2 * r), shape: .ellipse, fill: metaboliteFill, stroke: metaboliteStroke,
                                           label: bigg, labelPosition: label, fontSize: 20, textColor: .black)
                node.labelFromStart = label != nil
                map.nodes.append(node)
            } else if type == "midmarker" || type == "multimarker" {
                map.nodes.append(PathwayMap.Node(id: id, kind: .marker, center: center, size: .zero, shape: .none))
            } else {
                // Escher itself draws any other node as a point its segments meet at.
                otherTypes[type.isEmpty ? "(none)" : type, default: 0] += 1
                map.nodes.append(PathwayMap.Node(id: id, kind: .marker, center: center, size: .zero, shape: .none))
            }
        }
        for (type, count) in otherTypes.sorted(by: { $0.key < $1.key }) {
            warnings.append("\(file): \(count) node\(count == 1 ? "" : "s") of node_type \(type) (not metabolite, midmarker or multimarker): read as markers")
        }
        let centers = Dictionary(uniqueKeysWithValues: map.nodes.map { ($0.id, $0.center) })
        for rid in reactions.keys.sorted(by: { (Int($0) ?? 0, $0) < (Int($1) ?? 0, $1) }) {
            guard let r = reactions[rid] as? [String: Any] else { throw fail("reactions.\(rid)", "not an object") }
            let path = "reactions.\(rid)"
            let bigg = r["bigg_id"] as? String ?? r["abbreviation"] as? String ?? rid
            let reversible = r["reversibility"] as? Bool ?? ((r["direction"] as? String)?.lowercased() == "reversible")
            var coefficients: [String: Double] = [:]
            let stoichiometry = r["metabolites"] is [[String: Any]]
            for m in r["metabolites"] as? [[String: Any]] ?? [] {
                if let b = m["bigg_id"] as? String { coefficients[b] = JSONText.number(m["coefficient"]) ?? 0 }
            }
            if let x = JSONText.number(r["label_x"]), let y = JSONText.number(r["label_y"]) {
                // A reaction is tapped and colored through its label node.
                var node = PathwayMap.Node(id: "reaction:\(rid)", name: r["name"] as? String ?? bigg, kind: .reaction, center: SIMD2(x, y),
                                           size: .zero, shape: .none, label: bigg, labelPosition: SIMD2(x, y), fontSize: 30,
                                           textColor: reactionColor)
                node.labelFromStart = true
                map.nodes.append(node)
            }
            let segments: [String: Any]
            if let object = r["segments"] as? [String: Any] {
                segments = object
            } else if let array = r["segments"] as? [Any] {
                segmentArrays += 1
                segments = Dictionary(uniqueKeysWithValues: array.enumerated().map { (String($0.offset), $0.element) })
            } else {
                throw fail("\(path).segments", "missing or not an object")
            }
            for sid in segments.keys.sorted(by: { (Int($0) ?? 0, $0) < (Int($1) ?? 0, $1) }) {
                guard let s = segments[sid] as? [String: Any] else { throw fail("\(path).segments.\(sid)", "not an object") }
                let spath = "\(path).segments.\(sid)"
                guard let from = JSONText.id(s["from_node_id"]) else {
                    throw fail("\(spath).from_node_id", "missing")
                }
                guard let to = JSONText.id(s["to_node_id"]) else {
                    throw fail("\(spath).to_node_id", "missing")
                }
                guard let a = centers[from] else { throw fail("\(spath).from_node_id", "\(from) is not a node of the map") }
                guard let b = centers[to] else { throw fail("\(spath).to_node_id", "\(to) is not a node of the map") }
                let segment: PathwayMap.Segment
                if let c1 = try point(s["b1"], "\(spath).b1"), let c2 = try point(s["b2"], "\(spath).b2") {
                    segment = .cubic(c1: c1, c2: c2, to: b)
                } else {
                    segment = .line(to: b)
                }
                // Without stoichiometry (the old builder maps) a segment drawn toward a metabolite
                // reaches a product, one drawn from it leaves a substrate.
                func produced(_ node: String) -> Bool {
                    guard let m = metaboliteOf[node] else { return false }
                    return stoichiometry ? (coefficients[m] ?? 0) > 0 : node == to
                }
                func head(_ node: String) -> PathwayMap.Head {
                    guard metaboliteOf[node] != nil else { return .none }
                    return produced(node) || reversible ? .arrow : .none
                }
                let kind: PathwayMap.EdgeKind = metaboliteOf[to] != nil ? (produced(to) ? .product : .substrate) : .plain
                map.edges.append(PathwayMap.Edge(id: "\(rid).\(sid)", from: from, to: to, kind: kind, start: a, segments: [segment],
                                                 head: head(to), tail: head(from), color: reactionColor, width: 10,
                                                 reaction: "reaction:\(rid)"))
            }
        }
        for (id, value) in (body["text_labels"] as? [String: Any] ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard let t = value as? [String: Any], let text = t["text"] as? String else { throw fail("text_labels.\(id)", "needs text, x and y") }
            map.texts.append(PathwayMap.Text(text: text, center: SIMD2(try number(t, "x", "text_labels.\(id)"),
                                                                       try number(t, "y", "text_labels.\(id)")), fontSize: 40))
        }
        if let c = body["canvas"] as? [String: Any] {
            map.canvas = (SIMD2(try number(c, "x", "canvas"), try number(c, "y", "canvas")),
                          SIMD2(try number(c, "width", "canvas"), try number(c, "height", "canvas")))
        }
        if segmentArrays > 0 {
            warnings.append("\(file): \(segmentArrays) reaction\(segmentArrays == 1 ? " lists" : "s list") segments as an array (the schema has an object): read in order")
        }
        map.warnings += warnings
        return map
    }
}

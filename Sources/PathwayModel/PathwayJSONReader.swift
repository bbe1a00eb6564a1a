import Core
import Foundation

/// Reads Molshot's own pathway JSON (schema: `Assets/schemas/pathway.schema.json`), what a user
/// writes by hand or generates:
/// `{"title", "nodes": [{"id", "label", "kind", "x", "y", "width", "height", "shape", "fill", "stroke", "dashed", "bold", "italic"}],
///   "edges": [{"id", "from", "to", "kind", "points": [[x, y], ...] or "controls": [[x1, y1], [x2, y2]] (a cubic Bezier),
///              "color", "width", "dashed"}],
///   "compartments": [{"id", "name", "x", "y", "width", "height", "color"}], "texts": [{"text", "x", "y", "size", "bold", "italic"}]}`.
/// Errors name the key (`nodes[3].x`).
enum PathwayJSONReader {
    static func read(_ json: Any, file: String) throws -> PathwayMap {
        func fail(_ key: String, _ message: String) -> PathwayError { PathwayError(file: file, at: key, message) }
        guard let root = json as? [String: Any] else { throw PathwayError(file: file, "a Molshot pathway is a JSON object") }
        // A graph without any positions is laid out; one with some is a mistake where one is missing.
        let placed = (root["nodes"] as? [Any] ?? []).contains { ($0 as? [String: Any])?["x"] != nil || ($0 as? [String: Any])?["y"] != nil }
        /// A true/false key, false when absent.
        func flag(_ o: [String: Any], _ key: String, _ path: String) throws -> Bool {
            guard let v = o[key] else { return false }
            guard let b = v as? Bool else { throw fail("\(path).\(key)", "must be true or false") }
            return b
        }
        func number(_ o: [String: Any], _ key: String, _ path: String, default value: Double? = nil) throws -> Double {
            if o[key] == nil, let value { return value }
            if o[key] == nil && (key == "x" || key == "y") && !placed { return 0 }
            guard let v = JSONText.number(o[key]), v.isFinite else {
                if o[key] == nil && (key == "x" || key == "y") {
                    throw fail("\(path).\(key)", "missing: give every node x and y, or none (then the graph is laid out)")
                }
                throw fail("\(path).\(key)", "missing or not a number")
            }
            return v
        }
        func color(_ o: [String: Any], _ key: String, _ path: String) throws -> Color? {
            guard let text = o[key] as? String else { return nil }
            guard let c = Color(parsing: text) else { throw fail("\(path).\(key)", "must be #RRGGBB, #RRGGBBAA or a color name (got \(text))") }
            return c
        }
        var map = PathwayMap()
        map.format = "molshot"
        map.title = root["title"] as? String ?? ""
        guard let nodes = root["nodes"] as? [Any] else { throw fail("nodes", "missing or not a list") }
        // No nodes: compartments and text alone are drawn where they are.
        map.needsLayout = !placed && !nodes.isEmpty
        var ids = Set<String>()
        for (i, value) in nodes.enumerated() {
            let path = "nodes[\(i)]"
            guard let n = value as? [String: Any] else { throw fail(path, "not an object") }
            guard let id = JSONText.id(n["id"]) else { throw fail("\(path).id", "missing") }
            guard ids.insert(id).inserted else { throw fail("\(path).id", "\(id) is used twice") }
            let kindText = n["kind"] as? String ?? "metabolite"
            guard let kind = PathwayMap.NodeKind(rawValue: kindText) else {
                throw fail("\(path).kind", "must be one of \(PathwayMap.NodeKind.allCases.map(\.rawValue).joined(separator: ", ")) (got \(kindText))")
            }
            let shapeText = n["shape"] as? String ?? (kind == .metabolite ? "ellipse" : kind == .reaction ? "process" : "round-rectangle")
            guard let shape = PathwayMap.Shape(rawValue: shapeText) else {
                throw fail("\(path).shape", "must be one of \(PathwayMap.Shape.allCases.map(\.rawValue).joined(separator: ", ")) (got \(shapeText))")
            }
            let small = kind == .reaction ? 10.0 : kind == .metabolite ? 30.0 : 60.0
            let w = try number(n, "width", path, default: small), h = try number(n, "height", path, default: kind == .geneProduct ? 24 : small)
            let label = n["label"] as? String ?? id
            var node = PathwayMap.Node(id: id, name: label, kind: kind, center: SIMD2(try number(n, "x", path), try number(n, "y", path)),
                                       size: SIMD2(w, h), shape: shape,
                                       fill: try color(n, "fill", path) ?? (kind == .metabolite ? Color(rgb: 0xE0865B) : .white),
                                       stroke: try color(n, "stroke", path) ?? .black, label: kind == .reaction ? "" : label,
                                       fontSize: try number(n, "fontSize", path, default: 12))
            node.dashed = try flag(n, "dashed", path)
            node.bold = try flag(n, "bold", path)
            node.italic = try flag(n, "italic", path)
            map.nodes.append(node)
        }
        let centers = Dictionary(uniqueKeysWithValues: map.nodes.map { ($0.id, $0.center) })
        for (i, value) in (root["edges"] as? [Any] ?? []).enumerated() {
            let path = "edges[\(i)]"
            guard let e = value as? [String: Any] else { throw fail(path, "not an object") }
            guard let from = e["from"] as? String else { throw fail("\(path).from", "missing") }
            guard let to = e["to"] as? String else { throw fail("\(path).to", "missing") }
            guard let a = centers[from] else { throw fail("\(path).from", "\(from) is not a node") }
            guard let b = centers[to] else { throw fail("\(path).to", "\(to) is not a node") }
            let kindText = e["kind"] as? String ?? "plain"
            guard let kind = PathwayMap.EdgeKind(rawValue: kindText) else {
                throw fail("\(path).kind", "must be one of \(PathwayMap.EdgeKind.allCases.map(\.rawValue).joined(separator: ", ")) (got \(kindText))")
            }
            var segments: [PathwayMap.Segment] = []
            for (k, p) in (e["points"] as? [Any] ?? []).enumerated() {
                guard let xy = p as? [Any], xy.count == 2, let x = JSONText.number(xy[0]), let y = JSONText.number(xy[1]) else {
                    throw fail("\(path).points[\(k)]", "must be [x, y]")
                }
                segments.append(.line(to: SIMD2(x, y)))
            }
            if let controls = e["controls"] {
                // One cubic Bezier from the source to the target through two control points.
                guard segments.isEmpty, let c = (controls as? [Any])?.compactMap({ ($0 as? [Any])?.compactMap(JSONText.number) }), c.count == 2,
                      c.allSatisfy({ $0.count == 2 }) else {
                    throw fail("\(path).controls", "must be [[x1, y1], [x2, y2]], without points")
                }
                segments.append(.cubic(c1: SIMD2(c[0][0], c[0][1]), c2: SIMD2(c[1][0], c[1][1]),
                                       to: b))
            } else {
                segments.append(.line(to: b))
            }
            let head: PathwayMap.Head = [.product: .arrow, .catalysis: .circle, .inhibition: .bar, .stimulation: .openArrow][kind] ?? .none
            map.edges.append(PathwayMap.Edge(id: e["id"] as? String ?? "\(from)->\(to)", from: from, to: to, kind: kind, start: a,
                                             segments: segments, head: head, color: try color(e, "color", path) ?? Color(rgb: 0x334E75),
                                             width: try number(e, "width", path, default: 2), dashed: e["dashed"] as? Bool ?? false))
        }
        for (i, value) in (root["compartments"] as? [Any] ?? []).enumerated() {
            let path = "compartments[\(i)]"
            guard let c = value as? [String: Any] else { throw fail(path, "not an object") }
            map.compartments.append(PathwayMap.Compartment(id: c["id"] as? String ?? "\(i)", name: c["name"] as? String ?? "",
                                                           origin: SIMD2(try number(c, "x", path), try number(c, "y", path)),
                                                           size: SIMD2(try number(c, "width", path), try number(c, "height", path)),
                                                           color: try color(c, "color", path) ?? Color(rgb: 0x9AA5B1)))
        }
        for (i, value) in (root["texts"] as? [Any] ?? []).enumerated() {
            let path = "texts[\(i)]"
            guard let t = value as? [String: Any], let text = t["text"] as? String else { throw fail(path, "needs text, x and y") }
            var free = PathwayMap.Text(text: text, center: SIMD2(try number(t, "x", path), try number(t, "y", path)),
                                       fontSize: try number(t, "size", path, default: 14))
            free.bold = try flag(t, "bold", path)
            free.italic = try flag(t, "italic", path)
            map.texts.append(free)
        }
        return map
    }
}

import Core
import Foundation

/// Writes a map as Molshot's own pathway JSON (what `PathwayJSONReader` reads back): every node
/// with its place, size, shape and colours, every edge as the points it is drawn through (curves
/// flattened), compartments and free text. A map read from any format, or laid out by Molshot,
/// can so be kept, edited, or measured by other tools.
public enum PathwayJSONWriter {
    /// Throws, naming `file` and the node or edge, where a place is not a finite number (a map
    /// laid out from sizes near the largest Double): JSON has no such numbers.
    public static func data(_ map: PathwayMap, file: String = "map") throws -> Data {
        if let n = map.nodes.first(where: { !($0.center.x.isFinite && $0.center.y.isFinite && $0.size.x.isFinite && $0.size.y.isFinite) }) {
            throw PathwayError(file: file, at: "node \(n.id)", "its place or size is not a finite number")
        }
        if let e = map.edges.first(where: { !$0.polyline(pieces: 8).allSatisfy { $0.x.isFinite && $0.y.isFinite } }) {
            throw PathwayError(file: file, at: "edge \(e.id)", "a point of it is not a finite number")
        }
        func hex(_ c: Color?) -> String? { c.map { String(format: "#%06X", $0.rgb) } }
        func point(_ p: SIMD2<Double>) -> [Double] { [rounded(p.x), rounded(p.y)] }
        var nodes: [[String: Any]] = []
        for n in map.nodes {
            var o: [String: Any] = ["id": n.id, "label": n.label, "kind": n.kind.rawValue, "x": rounded(n.center.x), "y": rounded(n.center.y),
                                    "width": rounded(n.size.x), "height": rounded(n.size.y), "shape": n.shape.rawValue]
            if let f = hex(n.fill) { o["fill"] = f }
            if let s = hex(n.stroke) { o["stroke"] = s }
            if n.dashed { o["dashed"] = true }
            if n.bold { o["bold"] = true }
            if n.italic { o["italic"] = true }
            nodes.append(o)
        }
        var edges: [[String: Any]] = []
        for e in map.edges {
            var o: [String: Any] = ["id": e.id, "kind": e.kind.rawValue, "points": e.polyline(pieces: 8).map(point),
                                    "color": hex(e.color)!, "width": rounded(e.width)]
            if let f = e.from { o["from"] = f }
            if let t = e.to { o["to"] = t }
            if e.dashed { o["dashed"] = true }
            edges.append(o)
        }
        let compartments: [[String: Any]] = map.compartments.map { c in
            ["id": c.id, "name": c.name, "x": rounded(c.origin.x), "y": rounded(c.origin.y), "width": rounded(c.size.x),
             "height": rounded(c.size.y), "color": hex(c.color)!]
        }
        let texts: [[String: Any]] = map.texts.map { t in
            var o: [String: Any] = ["text": t.text, "x": rounded(t.center.x), "y": rounded(t.center.y), "size": rounded(t.fontSize)]
            if t.bold { o["bold"] = true }
            if t.italic { o["italic"] = true }
            return o
        }
        let root: [String: Any] = ["title": map.title, "nodes": nodes, "edges": edges, "compartments": compartments, "texts": texts]
        return try JSONSerialization.data(withJSONObject: root, options: [.sortedKeys])
    }

    /// Two decimals; a number too large for them to matter is left as it is (times 100 it could overflow).
    static func rounded(_ v: Double) -> Double { abs(v) < 1e13 ? (v * 100).rounded() / 100 : v }
}

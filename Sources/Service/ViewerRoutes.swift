import Core
import Foundation
import Hummingbird
import Pathways

extension MolshotService {
    /// `GET /v1/pathways/{id}`: what a viewer of the tile pyramid needs: the map's title, its
    /// bounds and, per level, the scale (pixels per map unit) and the grid of tiles. A pixel (px,
    /// py) of level z lies at map point bounds.min + (px, py) / scale.
    func pathwayInfo(_ id: String) async throws -> Response {
        let entry = try await pathway(id).entry
        let p = entry.pyramid
        // Levels down to about two pixels per map unit: deeper ones only enlarge.
        let deepest = min(12, TilePyramid(map: entry.map, tileSize: 256).levels)
        let levels = (0...deepest).map { z -> [String: Any] in
            let g = p.grid(level: z)
            return ["z": z, "scale": p.scale(level: z), "columns": g.columns, "rows": g.rows]
        }
        let b = p.bounds
        return Self.response(Array(Self.jsonLine([
            "id": id, "title": entry.map.title, "format": entry.map.format, "nodes": entry.map.nodes.count, "tileSize": p.tileSize,
            "bounds": ["x": b.min.x, "y": b.min.y, "width": b.max.x - b.min.x, "height": b.max.y - b.min.y], "levels": levels,
        ]).utf8), type: "application/json")
    }

    /// `GET /v1/pathways/{id}/node?x=&y=&tolerance=`: the node a tap at a map point hits (the
    /// smallest where several overlap), as `replay --pathway --log` reports it; 404 for none.
    func pathwayNode(_ request: Request, id: String) async throws -> Response {
        let map = try await pathway(id).entry.map
        func number(_ name: String, _ fallback: Double?) throws -> Double {
            guard let text = Self.parameter(request, name) else {
                if let fallback { return fallback }
                throw HTTPError(.badRequest, message: "parameter \(name) is needed: a number in map units")
            }
            guard let v = Double(text), v.isFinite else { throw HTTPError(.badRequest, message: "parameter \(name) must be a number (got \(text))") }
            return v
        }
        let point = SIMD2(try number("x", nil), try number("y", nil))
        let tolerance = max(0, min(try number("tolerance", 4), 1000))
        guard let node = PathwayHit.node(at: point, in: map, tolerance: tolerance) else {
            throw HTTPError(.notFound, message: "no node at \(point.x), \(point.y)")
        }
        let edges = map.edges.filter { $0.from == node.id || $0.to == node.id }
        let neighbours = Set(edges.flatMap { [$0.from, $0.to].compactMap { $0 } }).subtracting([node.id]).sorted()
        return Self.response(Array(Self.jsonLine([
            "id": node.id, "name": node.name, "kind": node.kind.rawValue, "label": node.label,
            "x": node.center.x, "y": node.center.y, "width": node.size.x, "height": node.size.y, "neighbours": neighbours,
        ]).utf8), type: "application/json")
    }
}

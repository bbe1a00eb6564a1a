import Core
import Foundation
import Hummingbird
import Imaging
import PathwayModel
import Pathways

/// The pathway maps' routes: the list, a map's facts, nodes by name or place, pictures and tiles.
struct PathwayController: ServiceController {
    let configuration: ServiceConfiguration
    let maps: MapStore
    let pictures: PictureMaker

    var routes: [ServiceRoute] {
        [
            .init(.get, "/v1/pathways", .read) { _, _ in try await listPathways() },
            .init(.get, "/v1/pathways/:id", .read) { _, c in try await pathwayInfo(try HTTPAnswer.path(c, "id")) },
            .init(.get, "/v1/pathways/:id/nodes", .read, query: ["query", "limit"]) { r, c in try await pathwayNodes(r, id: try HTTPAnswer.path(c, "id")) },
            .init(.get, "/v1/pathways/:id/node", .read, query: ["x", "y", "tolerance"]) { r, c in try await pathwayNode(r, id: try HTTPAnswer.path(c, "id")) },
            .init(.get, "/v1/pathways/:id/image", .read, query: ["relations", "size", "region", "scale", "theme"]) { r, c in
                try await pathwayImage(r, id: try HTTPAnswer.path(c, "id"))
            },
            .init(.get, "/v1/pathways/:id/tiles/:z/:x/:y", .read) { r, c in
                // Not whole numbers in range: no such tile (404), as a static tile server answers.
                guard let z = Int(try HTTPAnswer.path(c, "z")), let x = Int(try HTTPAnswer.path(c, "x")) else {
                    throw HTTPError(.notFound, message: "tiles are {z}/{x}/{y}.png with whole numbers")
                }
                return try await pathwayTile(r, id: try HTTPAnswer.path(c, "id"), z: z, x: x, y: try HTTPAnswer.path(c, "y"))
            },
        ]
    }

    /// The viewer's tiles: the standard theme, with labels too small to read raised to 9 px, the
    /// most connected nodes first, as many as fit (an overview names its hubs).
    static var tileTheme: PathwayTheme {
        var theme = PathwayTheme(.standard)
        theme.raisedLabels = 9
        return theme
    }

    /// `GET /v1/pathways`: every map by id, with its file and its title, sorted by title.
    func listPathways() async throws -> Response {
        struct Entry: Encodable { var id: String; var file: String; var title: String }
        let entries = await maps.listed().map { id, listed in Entry(id: id, file: (listed.path as NSString).lastPathComponent, title: listed.title) }
        return try HTTPAnswer.json(["pathways": entries.sorted { ($0.title.lowercased(), $0.id) < ($1.title.lowercased(), $1.id) }])
    }

    func pathway(_ id: String) async throws -> (path: String, entry: MapCache.Entry) { try await maps.map(id) }

    /// A strong ETag for a picture of the map `checksum` names drawn as `what` says, and the
    /// headers it goes with; `matched` when `If-None-Match` names it (answer 304, draw nothing).
    func pictureTag(_ request: Request, checksum: String, what: String) -> (headers: HTTPFields, matched: Bool) {
        let etag = "\"" + SHA256.hex(Array("\(ImageCache.drawing)|\(checksum)|\(what)".utf8)).prefix(32) + "\""
        let headers: HTTPFields = [.eTag: etag, .cacheControl: (configuration.tokenToRead ? "private" : "public") + ", max-age=3600",
                                   .vary: "Authorization"]
        return (headers, HTTPAnswer.matches(request.headers[.ifNoneMatch], etag))
    }

    func pathwayImage(_ request: Request, id: String) async throws -> Response {
        let entry = try await pathway(id).entry
        let tag = pictureTag(request, checksum: entry.checksum,
                             what: HTTPAnswer.query(request).sorted { $0.0 < $1.0 }.map { "\($0.0)=\($0.1)" }.joined(separator: "&"))
        if tag.matched { return Response(status: .notModified, headers: tag.headers) }
        var r = PathwayRequest()
        do { r.relations = try ValueText.flag(HTTPAnswer.parameter(request, "relations") ?? "false", field: "relations") } catch { throw HTTPAnswer.badRequest(error) }
        let loaded = try await pathway(id).entry.map
        let map = r.relations ? loaded.showingRelations() : loaded
        r.size = HTTPAnswer.parameter(request, "size")
        r.region = HTTPAnswer.parameter(request, "region")
        if let s = HTTPAnswer.parameter(request, "scale") {
            do { r.scale = Double(try ValueText.number(s, field: "scale", positive: true)) } catch { throw HTTPAnswer.badRequest(error) }
        }
        if let t = HTTPAnswer.parameter(request, "theme") {
            guard let name = PathwayTheme.Name(rawValue: t) else { throw HTTPError(.badRequest, message: "parameter theme must be standard, dark or print (got \(t))") }
            r.theme = PathwayTheme(name)
        }
        return HTTPAnswer.response(try await pictures.pathwayPNG(map, request: r), type: "image/png", headers: tag.headers)
    }

    /// One 256-pixel tile of the pyramid `molshot pathway --tiles` writes, drawn when asked.
    func pathwayTile(_ request: Request, id: String, z: Int, x: Int, y: String) async throws -> Response {
        guard y.hasSuffix(".png"), let yi = Int(y.dropLast(4)) else { throw HTTPError(.notFound, message: "tiles are {z}/{x}/{y}.png") }
        let (path, entry) = try await pathway(id)
        guard (0...12).contains(z) else { throw HTTPError(.notFound, message: "no level \(z): levels are 0 to 12") }
        let tag = pictureTag(request, checksum: entry.checksum, what: "tile \(z)/\(x)/\(y)")
        if tag.matched { return Response(status: .notModified, headers: tag.headers) }
        let pyramid = entry.pyramid, map = entry.map
        let (columns, rows) = pyramid.grid(level: z)
        guard (0..<columns).contains(x), (0..<rows).contains(yi) else { throw HTTPError(.notFound, message: "no tile \(z)/\(x)/\(yi)") }
        let scale = pyramid.scale(level: z)
        let corner = pyramid.bounds.min * scale + SIMD2(Double(x * 256), Double(yi * 256))
        let png = try await pictures.draw { renderers in
            // A level's scene (the whole map's triangles and labels) serves all its tiles.
            let theme = Self.tileTheme
            let scene = try renderers.tileScene("\(path)|\(z)") { try renderers.pathways.scene(map, scale: scale, theme: theme) }
            return try PNGEncoder.flat.encode(try renderers.pathways.draw(scene, corner: corner, width: 256, height: 256, theme: theme))
        }
        return HTTPAnswer.response(png, type: "image/png", headers: tag.headers)
    }

    /// `GET /v1/pathways/{id}`: what a viewer of the tile pyramid needs: the map's title, its
    /// bounds and, per level, the scale (pixels per map unit) and the grid of tiles. A pixel (px,
    /// py) of level z lies at map point bounds.min + (px, py) / scale.
    func pathwayInfo(_ id: String) async throws -> Response {
        let (path, entry) = try await pathway(id)
        let p = entry.pyramid
        // Levels down to about two pixels per map unit: deeper ones only enlarge.
        let deepest = min(12, TilePyramid(map: entry.map, tileSize: 256).levels)
        let levels = (0...deepest).map { z -> [String: Any] in
            let g = p.grid(level: z)
            return ["z": z, "scale": p.scale(level: z), "columns": g.columns, "rows": g.rows]
        }
        let b = p.bounds
        return try HTTPAnswer.json(object: [
            "id": id, "title": PathwayTitle.shown(entry.map.title, file: path), "format": entry.map.format, "nodes": entry.map.nodes.count, "tileSize": p.tileSize,
            "bounds": ["x": b.min.x, "y": b.min.y, "width": b.max.x - b.min.x, "height": b.max.y - b.min.y], "levels": levels,
        ])
    }

    /// `GET /v1/pathways/{id}/node?x=&y=&tolerance=`: the node a tap at a map point hits (the
    /// smallest where several overlap), as `replay --pathway --log` reports it; 404 for none.
    func pathwayNode(_ request: Request, id: String) async throws -> Response {
        let map = try await pathway(id).entry.map
        func number(_ name: String, _ fallback: Double?) throws -> Double {
            guard let text = HTTPAnswer.parameter(request, name) else {
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
        let byID = Dictionary(map.nodes.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        // A marker (the point Escher's segments meet at) stands for its reaction: the reaction is the neighbour.
        let ends = edges.flatMap { e in [e.from, e.to].compactMap { $0 }.map { end in
            byID[end]?.kind == .marker ? (e.reaction.flatMap { byID[$0] != nil ? $0 : nil } ?? end) : end } }
        let neighbours = Set(ends).subtracting([node.id]).sorted()
        var fields = Self.nodeFields(node)
        fields["neighbours"] = neighbours
        // The neighbours as a reader wants them: by name, with their kind.
        func title(_ n: PathwayMap.Node) -> String { n.name.isEmpty ? n.label : n.name }
        fields["linked"] = neighbours.map { id -> [String: Any] in
            guard let n = byID[id] else { return ["id": id] }
            var name = title(n)
            // A reaction without a name is read by what it turns into what.
            if name.isEmpty && n.kind == .reaction {
                let names = { (ids: [String?]) in ids.compactMap { $0.flatMap { byID[$0] }.map(title) }.filter { !$0.isEmpty } }
                // Enzymes and regulators are not what it consumes.
                let flows = map.edges.filter { ![.catalysis, .inhibition, .stimulation].contains($0.kind) }
                let inputs = names(flows.filter { $0.to == id }.map(\.from)), outputs = names(flows.filter { $0.from == id }.map(\.to))
                // Drawn with arrows at both ends (a reversible step), all its species are outputs.
                name = inputs.isEmpty ? outputs.joined(separator: " ⇌ ")
                    : "\(inputs.joined(separator: " + ")) → \(outputs.joined(separator: " + "))"
            }
            return ["id": id, "name": name.isEmpty ? id : name, "kind": n.kind.rawValue]
        }
        return try HTTPAnswer.json(object: fields)
    }

    static func nodeFields(_ node: PathwayMap.Node) -> [String: Any] {
        ["id": node.id, "name": node.name, "kind": node.kind.rawValue, "label": node.label,
         "x": node.center.x, "y": node.center.y, "width": node.size.x, "height": node.size.y]
    }

    /// `GET /v1/pathways/{id}/nodes?query=TEXT&limit=N`: nodes whose name, label or id holds the
    /// text (any case), those that begin with it first, at most `limit` (20).
    func pathwayNodes(_ request: Request, id: String) async throws -> Response {
        let map = try await pathway(id).entry.map
        guard let query = HTTPAnswer.parameter(request, "query")?.lowercased(), !query.isEmpty, query.count <= ServiceLimits.searchLength.value else {
            throw HTTPError(.badRequest, message: "parameter query is needed: part of a node's name (at most \(ServiceLimits.searchLength.value) characters)")
        }
        let asked = HTTPAnswer.parameter(request, "limit") ?? "20"
        guard let number = Int(asked), number >= 1 else {
            throw HTTPError(.badRequest, message: "parameter limit must be a whole number from 1 (got \(Excerpt.of(asked)))")
        }
        let limit = min(number, ServiceLimits.nodeResults.value)
        let found = map.nodes.compactMap { node -> (Int, PathwayMap.Node)? in
            let texts = [node.name, node.label, node.id].map { $0.lowercased() }
            if texts.contains(where: { $0.hasPrefix(query) }) { return (0, node) }
            return texts.contains(where: { $0.contains(query) }) ? (1, node) : nil
        }.sorted { ($0.0, $0.1.name, $0.1.id) < ($1.0, $1.1.name, $1.1.id) }.prefix(limit)
        return try HTTPAnswer.json(object: ["nodes": found.map { Self.nodeFields($0.1) }])
    }
}

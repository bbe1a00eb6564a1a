import Core
import Foundation
import Graphics
import Hummingbird
import Imaging
import Library
import NIOCore
import PathwayModel
import Pathways

/// The read protocol of the openBIS iPad app (`ipad-read-service-v1`), as `POST /v1/entities`:
/// a JSON body with `requestKey` (CLIENT_PREFS, CATEGORIES, ROOT, DRILL or DETAIL, the last two
/// with `entities: [{"PERM_ID", "REFCON"}]`) answered by a table model, `{"columns": [..],
/// "rows": [[..]]}`, one string a cell; REFCON, CHILDREN, PROPERTIES and IMAGES are JSON text, as
/// the app expects. Categories are Molecules and Pathways; a molecule's children are its chains
/// and ligands, a pathway's its compartments. Private molecules are seen by their token only.
public struct EntityTable: Codable, Sendable, Equatable {
    public var columns: [String]
    public var rows: [[String]]
}

/// The entity read protocol of the openBIS iPad app (`POST /v1/entities`): the library's
/// molecules, their chains and ligands, and the pathway maps, as categories, drill-downs and details.
struct EntityController: ServiceController {
    let auth: Auth
    let access: MoleculeAccess
    let pictures: PictureMaker
    let maps: MapStore
    let uploads: BodyReader
    let address: PublicAddress

    var routes: [ServiceRoute] {
        [.init(.post, "/v1/entities", .read) { r, _ in try await entities(r) }]
    }

    static let clientPreferences: [(String, String)] = [
        ("ROOT_SET_REFRESH_INTERVAL", "3600"),
        // How images come unless a request says (`"IMAGES": "URL"` or `"DATA"`).
        ("IMAGES", "URL"),
    ]

    /// An iPad entity.
    struct Entity {
        var permId: String
        var category: String
        var header: String
        var summary: String
        var children: [String] = []
        var identifier: String
        var properties: [(String, String)] = []
        var rootLevel = false
        /// What the images show, drawn only for DETAIL.
        var images: [(slot: String, image: EntityImage)] = []
        var refcon: [String: String]
    }

    enum EntityImage {
        case molecule(MoleculeRecord, settings: [(String, String)])
        case pathway(id: String, size: Int)
    }

    func entities(_ request: Request) async throws -> Response {
        let body = try await uploads.bytes(of: request, what: "an entity request: {\"requestKey\": \"CATEGORIES\"}")
        // Image URLs start with the server's own address, never with what the request's Host says.
        return try HTTPAnswer.json(try await entityTable(Array(buffer: body), viewer: auth.viewer(request), base: address.url))
    }

    /// The answer to one request body, for `viewer`; image URLs start with `base`.
    func entityTable(_ body: [UInt8], viewer: MoleculeLibrary.Viewer, base: String) async throws -> EntityTable {
        guard let object = (try? JSONText.parse(body)) as? [String: Any] else {
            throw HTTPError(.badRequest, message: "the body must be a JSON object with requestKey")
        }
        guard let key = object["requestKey"] as? String else { throw HTTPError(.badRequest, message: "requestKey is needed: CLIENT_PREFS, CATEGORIES, ROOT, DRILL or DETAIL") }
        if let images = object["IMAGES"], !(images is String) { throw HTTPError(.badRequest, message: "IMAGES must be URL or DATA") }
        let form = (object["IMAGES"] as? String) ?? Self.clientPreferences.first { $0.0 == "IMAGES" }!.1
        guard form == "URL" || form == "DATA" else { throw HTTPError(.badRequest, message: "IMAGES must be URL or DATA (got \(form))") }
        // Entities, where given, are what the protocol says whatever the key: objects with text
        // PERM_ID and REFCON (the app's REFCON is JSON text).
        if let given = object["entities"] {
            guard let list = given as? [Any] else { throw HTTPError(.badRequest, message: "entities must be a list of {\"PERM_ID\": .., \"REFCON\": ..}") }
            for (i, item) in list.enumerated() {
                guard let e = item as? [String: Any] else { throw HTTPError(.badRequest, message: "entities[\(i)] must be an object") }
                guard e["PERM_ID"] != nil else { throw HTTPError(.badRequest, message: "entities[\(i)].PERM_ID is needed") }
                for field in ["PERM_ID", "REFCON"] where e[field] != nil && !(e[field] is String) {
                    throw HTTPError(.badRequest, message: "entities[\(i)].\(field) must be text")
                }
            }
        }
        func asked() throws -> [String] {
            guard let list = object["entities"] as? [[String: Any]] else {
                throw HTTPError(.badRequest, message: "entities is needed for \(key): a list of {\"PERM_ID\": .., \"REFCON\": ..}")
            }
            // Each entity once, and a bounded number of them: one molecule named 1,500 times with
            // IMAGES: DATA made a 2.8 GB answer of a 135 KB body.
            let limit = ServiceLimits.entities
            var seen = Set<String>(), ids: [String] = []
            for (i, e) in list.enumerated() {
                guard let id = e["PERM_ID"] as? String else { throw HTTPError(.badRequest, message: "entities[\(i)].PERM_ID is needed") }
                if seen.insert(id).inserted { ids.append(id) }
                guard ids.count <= limit.value else {
                    throw HTTPError(.contentTooLarge, message: "entities names more than \(limit.value) entities, the most one request asks for")
                }
            }
            return ids
        }
        let navigation = ["PERM_ID", "REFCON", "CATEGORY", "SUMMARY_HEADER", "SUMMARY", "CHILDREN"]
        switch key {
        case "CLIENT_PREFS":
            return EntityTable(columns: ["KEY", "VALUE"], rows: Self.clientPreferences.map { [$0.0, $0.1] })
        case "CATEGORIES":
            return try await table(try await categories(viewer), columns: ["PERM_ID", "REFCON", "SUMMARY_HEADER", "SUMMARY", "CHILDREN"], form: form, base: base)
        case "ROOT":
            var all: [Entity] = []
            for c in try await categories(viewer) {
                for child in c.children { if let e = try await entity(child, viewer: viewer) { all.append(e) } }
            }
            for i in all.indices { all[i].rootLevel = true }
            return try await table(all, columns: navigation + ["ROOT_LEVEL"], form: form, base: base)
        case "DRILL":
            // The entities, their children and their children's children, each once.
            var seen = Set<String>(), out: [Entity] = []
            var level = try asked()
            for _ in 0..<3 {
                var next: [String] = []
                for id in level where seen.insert(id).inserted {
                    guard let e = try await entity(id, viewer: viewer) else {
                        if out.isEmpty && next.isEmpty { throw HTTPError(.notFound, message: "no entity \(id)") }
                        continue
                    }
                    out.append(e)
                    next += e.children
                }
                level = next
            }
            return try await table(out, columns: navigation, form: form, base: base)
        case "DETAIL":
            var found: [Entity] = []
            for id in try asked() {
                guard let e = try await entity(id, viewer: viewer) else { throw HTTPError(.notFound, message: "no entity \(id)") }
                found.append(e)
            }
            return try await table(found, columns: ["PERM_ID", "REFCON", "SUMMARY_HEADER", "SUMMARY", "IDENTIFIER", "IMAGES", "PROPERTIES"],
                                   form: form, base: base)
        default:
            throw HTTPError(.badRequest, message: "requestKey must be CLIENT_PREFS, CATEGORIES, ROOT, DRILL or DETAIL (got \(key))")
        }
    }

    private func categories(_ viewer: MoleculeLibrary.Viewer) async throws -> [Entity] {
        let molecules = try await access.reading { try $0.list(offset: 0, limit: 100_000, viewer: viewer).molecules }
        let pathways = await maps.listed().keys.sorted()
        return [
            Entity(permId: "MOLECULES", category: "", header: "Molecules", summary: "\(molecules.count) structures in the library",
                   children: molecules.map { "MOLECULE:\($0.id)" }, identifier: "/molecules", refcon: ["kind": "category"]),
            Entity(permId: "PATHWAYS", category: "", header: "Pathways", summary: "\(pathways.count) pathway maps",
                   children: pathways.map { "PATHWAY:\($0)" }, identifier: "/pathways", refcon: ["kind": "category"]),
        ]
    }

    /// The entity a PERM_ID names, nil where there is none or `viewer` may not see it.
    private func entity(_ permId: String, viewer: MoleculeLibrary.Viewer) async throws -> Entity? {
        let parts = permId.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        switch parts[0] {
        case "MOLECULES", "PATHWAYS":
            return try await categories(viewer).first { $0.permId == permId }
        case "MOLECULE", "CHAIN", "LIGAND":
            guard parts.count >= 2, let id = Int(parts[1]) else { return nil }
            let found: (MoleculeRecord, [String: String], (chains: [(id: String, residues: Int, atoms: Int)], ligands: [(name: String, copies: Int)]))?
            found = try await access.reading { lib in
                guard let r = try lib.record(id: id), try lib.isVisible(r.id, to: viewer) else { return nil }
                return (r, try lib.metadata(of: r.id), try lib.composition(of: r.id))
            }
            guard let (r, metadata, composition) = found else { return nil }
            let refcon = ["kind": parts[0].lowercased(), "molecule": "\(r.id)"]
            let chainIds = composition.chains.map { "CHAIN:\(r.id):\($0.id)" }, ligandIds = composition.ligands.map { "LIGAND:\(r.id):\($0.name)" }
            switch parts[0] {
            case "MOLECULE":
                var properties: [(String, String)] = [("format", r.format), ("atoms", "\(r.atoms)"), ("bonds", "\(r.bonds)"),
                                                       ("chains", "\(r.chains)"), ("residues", "\(r.residues)"), ("models", "\(r.models)")]
                if let p = r.pdbId { properties.append(("PDB ID", p)) }
                if let m = r.method { properties.append(("method", m)) }
                if let res = r.resolution { properties.append(("resolution", "\(res) Å")) }
                properties += metadata.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
                return Entity(permId: permId, category: "Molecules", header: r.name, summary: r.title ?? "\(r.atoms) atoms, \(r.format)",
                              children: chainIds + ligandIds, identifier: "/molecules/\(r.id)", properties: properties,
                              images: [("MARQUEE", .molecule(r, settings: [("size", "512")])),
                                       ("TILED", .molecule(r, settings: [("size", "160"), ("mode", "ball-and-stick")])),
                                       ("TILED", .molecule(r, settings: [("size", "160"), ("mode", "spacefill")]))],
                              refcon: refcon)
            case "CHAIN":
                guard parts.count == 3, let c = composition.chains.first(where: { $0.id == parts[2] }) else { return nil }
                return Entity(permId: permId, category: "Chains", header: "\(r.name) chain \(c.id)", summary: "\(c.residues) residues, \(c.atoms) atoms",
                              identifier: "/molecules/\(r.id)/chains/\(c.id)", properties: [("residues", "\(c.residues)"), ("atoms", "\(c.atoms)")],
                              images: [("MARQUEE", .molecule(r, settings: [("size", "512"), ("color", "chain")]))],
                              refcon: refcon.merging(["chain": c.id]) { a, _ in a })
            default:
                guard parts.count == 3, let l = composition.ligands.first(where: { $0.name == parts[2] }) else { return nil }
                return Entity(permId: permId, category: "Ligands", header: "\(r.name) ligand \(l.name)", summary: "\(l.copies) \(l.copies == 1 ? "copy" : "copies")",
                              identifier: "/molecules/\(r.id)/ligands/\(l.name)", properties: [("copies", "\(l.copies)")],
                              images: [("MARQUEE", .molecule(r, settings: [("size", "512"), ("mode", "ball-and-stick")]))],
                              refcon: refcon.merging(["ligand": l.name]) { a, _ in a })
            }
        case "PATHWAY", "COMPARTMENT":
            guard parts.count >= 2, await maps.listed()[parts[1]] != nil else { return nil }
            let id = parts[1]
            // Read once and kept, as the image and tile routes keep it.
            let map = try await maps.map(id).entry.map
            if parts[0] == "PATHWAY" {
                let kinds = Dictionary(grouping: map.nodes, by: \.kind).mapValues(\.count)
                var properties: [(String, String)] = [("format", map.format), ("nodes", "\(map.nodes.count)"), ("edges", "\(map.edges.count)"),
                                                       ("compartments", "\(map.compartments.count)")]
                properties += kinds.sorted { $0.key.rawValue < $1.key.rawValue }.map { ("\($0.key.rawValue) nodes", "\($0.value)") }
                return Entity(permId: permId, category: "Pathways", header: map.title.isEmpty ? id : map.title,
                              summary: "\(map.nodes.count) nodes, \(map.edges.count) edges", children: map.compartments.map { "COMPARTMENT:\(id):\($0.id)" },
                              identifier: "/pathways/\(id)", properties: properties,
                              images: [("MARQUEE", .pathway(id: id, size: 1024)), ("TILED", .pathway(id: id, size: 256))],
                              refcon: ["kind": "pathway", "pathway": id])
            }
            guard parts.count == 3, let c = map.compartments.first(where: { $0.id == parts[2] }) else { return nil }
            let inside = map.nodes.filter { n in
                n.center.x >= c.origin.x && n.center.y >= c.origin.y && n.center.x <= c.origin.x + c.size.x && n.center.y <= c.origin.y + c.size.y
            }
            return Entity(permId: permId, category: "Compartments", header: c.name.isEmpty ? c.id : c.name, summary: "\(inside.count) nodes inside",
                          identifier: "/pathways/\(id)/compartments/\(c.id)", properties: [("nodes", "\(inside.count)")],
                          images: [("MARQUEE", .pathway(id: id, size: 1024))], refcon: ["kind": "compartment", "pathway": id, "compartment": c.id])
        default:
            return nil
        }
    }

    private func table(_ entities: [Entity], columns: [String], form: String, base: String) async throws -> EntityTable {
        func json(_ value: Any) -> String {
            String(decoding: (try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data(), as: UTF8.self)
        }
        var rows: [[String]] = []
        // The answer's size as it grows, refused past the limit before more is drawn or kept.
        let limit = ServiceLimits.entityAnswerBytes.value
        var bytes = 0
        let tooLarge = HTTPError(.contentTooLarge, message: "the answer would be larger than \(limit >> 20) MiB (entity answer bytes): "
                                 + "ask for fewer entities, or for IMAGES: URL")
        func count(_ row: [String]) throws {
            bytes += row.reduce(16) { $0 + $1.utf8.count + 4 }
            guard bytes <= limit else { throw tooLarge }
        }
        for e in entities {
            var row: [String] = []
            for column in columns {
                switch column {
                case "PERM_ID": row.append(e.permId)
                case "REFCON": row.append(json(e.refcon))
                case "CATEGORY": row.append(e.category)
                case "SUMMARY_HEADER": row.append(e.header)
                case "SUMMARY": row.append(e.summary)
                case "CHILDREN": row.append(json(e.children))
                case "IDENTIFIER": row.append(e.identifier)
                case "PROPERTIES": row.append(json(e.properties.map { ["key": $0.0, "label": $0.0, "value": $0.1] }))
                case "ROOT_LEVEL": row.append(e.rootLevel ? "true" : "")
                case "IMAGES":
                    var marquee: Any = NSNull(), tiled: [Any] = []
                    // Images drawn one after another: stopped at the first that takes the answer past the limit.
                    var drawn = 0
                    for (slot, image) in e.images {
                        let spec = try await imageSpec(image, form: form, base: base)
                        drawn += ((spec["DATA"] as? [String: Any])?["BASE64"] as? String)?.utf8.count ?? 0
                        guard bytes + drawn <= limit else { throw tooLarge }
                        if slot == "MARQUEE" { marquee = spec } else { tiled.append(spec) }
                    }
                    row.append(json(["MARQUEE": marquee, "TILED": tiled]))
                default: row.append("")
                }
            }
            try count(row)
            rows.append(row)
        }
        return EntityTable(columns: columns, rows: rows)
    }

    /// `{"URL": ...}` or `{"DATA": {"BASE64": ..., "FORMAT": "PNG"}}`.
    private func imageSpec(_ image: EntityImage, form: String, base: String) async throws -> [String: Any] {
        switch image {
        case .molecule(let record, let settings):
            let id = record.id
            if form == "URL" {
                let query = settings.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
                return ["URL": "\(base)/v1/molecules/\(id)/image?\(query)"]
            }
            let png = try await pictures.png(content: ImageCache.content(library: record), settings: settings, subject: .library(id))
            return ["DATA": ["BASE64": Data(png).base64EncodedString(), "FORMAT": "PNG"]]
        case .pathway(let id, let size):
            if form == "URL" { return ["URL": "\(base)/v1/pathways/\(id)/image?size=\(size)"] }
            let map = try await maps.map(id).entry.map
            var r = PathwayRequest()
            r.size = "\(size)"
            let png = try await pictures.pathwayPNG(map, request: r)
            return ["DATA": ["BASE64": Data(png).base64EncodedString(), "FORMAT": "PNG"]]
        }
    }
}

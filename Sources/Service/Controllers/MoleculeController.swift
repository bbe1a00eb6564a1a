import Core
import Foundation
import Hummingbird
import Library
import MoleculeView
import Structure
import Thumbnails

/// The molecule library's routes: the list, a molecule's details, sequence, image set and
/// picture, imports and removals.
struct MoleculeController: ServiceController {
    let configuration: ServiceConfiguration
    let auth: Auth
    let access: MoleculeAccess
    let pictures: PictureMaker
    let thumbnails: ThumbnailStore
    let uploads: BodyReader

    var routes: [ServiceRoute] {
        [
            .init(.get, "/v1/molecules", .read, query: ["offset", "limit", "query", "sort"]) { r, _ in try await listMolecules(r) },
            .init(.post, "/v1/molecules", .write, query: ["name", "private"]) { r, _ in try await importMolecule(r) },
            .init(.get, "/v1/molecules/:id", .read) { r, c in try await molecule(r, try HTTPAnswer.path(c, "id")) },
            .init(.delete, "/v1/molecules/:id", .write) { r, c in try await removeMolecule(r, try HTTPAnswer.path(c, "id")) },
            .init(.get, "/v1/molecules/:id/sequence", .read) { r, c in try await moleculeSequence(r, try HTTPAnswer.path(c, "id")) },
            .init(.get, "/v1/molecules/:id/file", .read, query: ["download"]) { r, c in try await moleculeFile(r, try HTTPAnswer.path(c, "id")) },
            .init(.get, "/v1/molecules/:id/images", .read, query: ["size"]) { r, c in try await moleculeImages(r, try HTTPAnswer.path(c, "id")) },
            // `try`: the viewer's retry after a 503 (a cache-buster; drawn the same).
            .init(.get, "/v1/molecules/:id/image", .read, query: pictureParameters + ["try"]) { r, c in try await moleculeImage(r, id: try HTTPAnswer.path(c, "id")) },
        ]
    }

    /// Longest search text (SQLite refuses LIKE patterns past 50,000 bytes; no name is this long).
    static let maxQuery = ServiceLimits.searchLength.value

    func listMolecules(_ request: Request) async throws -> Response {
        func number(_ key: String, _ fallback: Int, _ range: ClosedRange<Int>) throws -> Int {
            guard let text = HTTPAnswer.parameter(request, key) else { return fallback }
            do { return try ValueText.integer(text, field: key, in: range) } catch { throw HTTPAnswer.badRequest(error) }
        }
        let offset = try number("offset", 0, 0...Int.max), limit = try number("limit", 50, 1...1000)
        let viewer = try auth.viewer(request), query = HTTPAnswer.parameter(request, "query")
        if let query, query.count > Self.maxQuery {
            throw HTTPError(.badRequest, message: "parameter query is longer than \(Self.maxQuery) characters")
        }
        let sort = HTTPAnswer.parameter(request, "sort") ?? "id"
        guard let order = MoleculeLibrary.ListOrder(rawValue: sort) else {
            throw HTTPError(.badRequest, message: "parameter sort must be one of \(MoleculeLibrary.ListOrder.allCases.map(\.rawValue).joined(separator: ", ")) (got \(sort))")
        }
        let (total, molecules) = try await access.reading { try $0.list(offset: offset, limit: limit, query: query, order: order, viewer: viewer) }
        // Each with the thumbnail `molshot thumbnails` made of its file, where there is one.
        struct Entry: Encodable {
            var record: MoleculeRecord
            var thumbnail: String?
            func encode(to encoder: Encoder) throws {
                try record.encode(to: encoder)
                enum Keys: String, CodingKey { case thumbnail }
                var c = encoder.container(keyedBy: Keys.self)
                try c.encodeIfPresent(thumbnail, forKey: .thumbnail)
            }
        }
        struct Page: Encodable { var total: Int; var molecules: [Entry] }
        let shown = await thumbnails.shown()
        return try HTTPAnswer.json(Page(total: total, molecules: molecules.map {
            Entry(record: $0.withoutServerDetails, thumbnail: shown[$0.checksum].map { "/v1/thumbnails/" + $0 })
        }))
    }

    /// A molecule's record with what its file says and what it is made of: chains (by entity,
    /// with their sequences), ligands with their chemical names, entities, assemblies (the atoms
    /// each draws), modified residues.
    func molecule(_ request: Request, _ reference: String) async throws -> Response {
        let r = try await access.record(reference, viewer: auth.viewer(request))
        struct Chain: Encodable { var id: String; var residues: Int; var atoms: Int; var entity: String?; var sequence: String? }
        struct Ligand: Encodable { var name: String; var copies: Int; var chemicalName: String? }
        struct Detail: Encodable {
            var record: MoleculeRecord
            var metadata: [String: String]
            var chains: [Chain]
            var ligands: [Ligand]
            var summary: StructureSummary
            func encode(to encoder: Encoder) throws {
                try record.encode(to: encoder)
                enum Keys: String, CodingKey { case metadata, chainList, ligands, entities, assemblies, modifiedResidues }
                var c = encoder.container(keyedBy: Keys.self)
                try c.encode(metadata, forKey: .metadata)
                try c.encode(chains, forKey: .chainList)
                try c.encode(ligands, forKey: .ligands)
                try c.encode(summary.entities, forKey: .entities)
                try c.encode(summary.assemblies, forKey: .assemblies)
                try c.encode(summary.modifiedResidues, forKey: .modifiedResidues)
            }
        }
        let (metadata, composition, structure) = try await access.reading {
            (try $0.metadata(of: r.id), try $0.composition(of: r.id), try $0.load(String(r.id)).structure)
        }
        let summary = StructureSummary(file: r.name, structure: structure, bonds: [])
        let byChain = Dictionary(summary.chains.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        return try HTTPAnswer.json(Detail(record: r.withoutServerDetails, metadata: metadata,
                                    chains: composition.chains.map { Chain(id: $0.id, residues: $0.residues, atoms: $0.atoms, entity: byChain[$0.id]?.entity,
                                                                           sequence: byChain[$0.id]?.sequence) },
                                    ligands: composition.ligands.map { Ligand(name: $0.name, copies: $0.copies, chemicalName: structure.componentNames[$0.name]) },
                                    summary: summary))
    }

    /// Imports the body into the library for the token's owner (`private=true` keeps it theirs).
    func importMolecule(_ request: Request) async throws -> Response {
        let owner: String? = try auth.writer(request)
        let body = try await uploads.bytes(of: request, what: "a structure file")
        guard let name = HTTPAnswer.parameter(request, "name") else { throw HTTPError(.badRequest, message: "parameter name is needed: the file's name, like 1crn.pdb") }
        let isPrivate: Bool
        do { isPrivate = try ValueText.flag(HTTPAnswer.parameter(request, "private") ?? "false", field: "private") } catch { throw HTTPAnswer.badRequest(error) }
        let stem = name.split(separator: "/").last.map(String.init) ?? name
        let bytes = Array(buffer: body), configuration = configuration, perception = pictures.perception
        let source = "upload:\(owner ?? "")/\(stem)"
        let outcome: MoleculeLibrary.ImportOutcome
        if pictures.workers.processes.isEmpty {
            // No render process (a service made in a test, without an executable): read here, off
            // the threads that answer requests, on a connection of its own.
            outcome = try await access.writing { lib -> MoleculeLibrary.ImportOutcome in
                do {
                    return try lib.importBytes(bytes, source: source, name: MoleculeLibrary.name(forPath: stem),
                                               maxBytes: configuration.maxBodyBytes * 8, perception: perception, owner: owner,
                                               isPrivate: isPrivate, maxAtoms: configuration.maxAtoms)
                } catch { throw HTTPAnswer.badRequest(error) }
            }
        } else {
            outcome = try await pictures.importedElsewhere(bytes, source: source, name: MoleculeLibrary.name(forPath: stem), owner: owner, isPrivate: isPrivate)
        }
        switch outcome {
        case .added(let r):
            var response = try HTTPAnswer.json(r.withoutServerDetails)
            response.status = .created
            response.headers[.location] = "/v1/molecules/\(r.id)"
            return response
        case .duplicate(let r), .anotherSource(let r):
            // The same file (or the same structure in another file), public or this token's own:
            // a private copy of someone else's is never one (the upload is kept apart), so this
            // tells nothing of others.
            return try HTTPAnswer.json(r.withoutServerDetails)
        }
    }

    /// Removes a molecule the token imported.
    func removeMolecule(_ request: Request, _ reference: String) async throws -> Response {
        let who: String? = try auth.writer(request)
        let r = try await access.record(reference, viewer: .reader(who))
        let fileGone = try await access.writing { lib -> Bool in
            guard try lib.owner(of: r.id) == who else { throw HTTPError(.forbidden, message: "molecule \(r.id) was not imported with this token") }
            _ = try lib.remove(id: r.id)
            return try lib.record(checksum: r.checksum) == nil
        }
        // Thumbnails of a file no molecule holds any longer go with it: a private molecule's
        // would otherwise become everyone's.
        if fileGone { await thumbnails.remove(checksum: r.checksum) }
        return Response(status: .noContent)
    }

    /// `GET /v1/molecules/{id}/sequence`: each polymer chain's sequence with its secondary
    /// structure (`ChainSequence`), read from the library's copy on the file-reading gate.
    func moleculeSequence(_ request: Request, _ reference: String) async throws -> Response {
        let r = try await access.record(reference, viewer: auth.viewer(request))
        let chains = try await access.reading { ChainSequence.of(try $0.load(String(r.id)).structure) }
        struct Answer: Encodable { var chains: [ChainSequence] }
        return try HTTPAnswer.json(Answer(chains: chains))
    }
    /// `GET /v1/molecules/{id}/images?size=N`: the entry's image set as `molshot images` makes it
    /// (`EntryImages`): each image's caption with a link to the image route drawing it (cached
    /// there, with its ETag), at `size` (512 by default, at most `--max-side`).
    func moleculeImages(_ request: Request, _ reference: String) async throws -> Response {
        let r = try await access.record(reference, viewer: auth.viewer(request))
        let asked = HTTPAnswer.parameter(request, "size") ?? "512"
        let side: (width: Int, height: Int)
        do { side = try ValueText.size(asked, field: "size", maximumSide: configuration.maxSide) } catch { throw HTTPAnswer.badRequest(error) }
        let structure = try await access.reading { try $0.load(String(r.id)).structure }
        let id = EntryImages.entryID(structure, source: r.name)
        let planned = EntryImages.plannedWithSettings(structure, id: id, options: EntryImages.Options())
        func escaped(_ text: String) -> String {
            text.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")) ?? text
        }
        struct Item: Encodable {
            var name: String
            var kind: String
            var text: String
            var assembly: String
            var entity: String?
            var entityName: String?
            var ligand: String?
            var ligandName: String?
            var legend: [EntryImages.LegendItem]
            var image: String
        }
        let items = planned.map { caption, settings -> Item in
            let query = (settings + [("size", "\(side.width)x\(side.height)")]).map { "\($0.0)=\(escaped($0.1))" }.joined(separator: "&")
            return Item(name: "\(id)_\(caption.name)_front", kind: caption.kind, text: caption.text + ".", assembly: caption.assembly,
                        entity: caption.entity, entityName: caption.entityName, ligand: caption.ligand, ligandName: caption.ligandName,
                        legend: caption.legend, image: "/v1/molecules/\(r.id)/image?\(query)")
        }
        struct Answer: Encodable { var entry: String; var images: [Item] }
        return try HTTPAnswer.json(Answer(entry: id, images: items))
    }
    /// A library molecule's picture with a strong ETag (what it draws: the molecule's file, the
    /// settings and the drawing version, as the image cache keys it) and `Cache-Control`; a request
    /// whose `If-None-Match` names it is answered 304 before anything is read or drawn.
    func moleculeImage(_ request: Request, id: String) async throws -> Response {
        let r = try await access.record(id, viewer: auth.viewer(request))
        let content = ImageCache.content(library: r)
        let view = try pictures.renderRequest(HTTPAnswer.query(request), defaultSize: "512", annotated: true)
        let etag = "\"" + ImageCache.key(content: content, settings: view.pictureKey).prefix(32) + "\""
        let headers = try await cacheHeaders(etag: etag, of: r)
        if HTTPAnswer.matches(request.headers[.ifNoneMatch], etag) {
            return Response(status: .notModified, headers: headers)
        }
        var response = try HTTPAnswer.image(try await pictures.png(content: content, settings: HTTPAnswer.query(request), subject: .library(r.id)), json: false)
        for field in headers { response.headers[field.name] = field.value }
        return response
    }

    /// A molecule's picture's or file's ETag, `Cache-Control` and `Vary`: shared caches only where
    /// no token is needed to read and the molecule is no one's private copy (a private molecule's
    /// answer fetched with `?ticket=` is its owner's still).
    func cacheHeaders(etag: String, of r: MoleculeRecord) async throws -> HTTPFields {
        let isPrivate = try await access.privateOwners(checksum: r.checksum) != nil
        return [.eTag: etag, .cacheControl: (auth.shared && !isPrivate ? "public" : "private") + ", max-age=300", .vary: "Authorization"]
    }

    /// `GET /v1/molecules/{id}/file`: the file the molecule was read from, as it was (inflated
    /// where it was gzip), typed by its format; `download=true` asks a browser to save it under
    /// its name. Its ETag is the file's checksum: a client that has it gets 304.
    func moleculeFile(_ request: Request, _ reference: String) async throws -> Response {
        let r = try await access.record(reference, viewer: auth.viewer(request))
        let download: Bool
        do { download = try ValueText.flag(HTTPAnswer.parameter(request, "download") ?? "false", field: "download") } catch { throw HTTPAnswer.badRequest(error) }
        let etag = "\"\(r.checksum)\""
        var headers = try await cacheHeaders(etag: etag, of: r)
        if HTTPAnswer.matches(request.headers[.ifNoneMatch], etag) { return Response(status: .notModified, headers: headers) }
        let bytes = try await access.reading { try $0.original(id: r.id) }
        if download {
            // The name as the library keeps it, with the format's extension; quotes and controls left out.
            let name = String(r.name.unicodeScalars.filter { $0.value >= 0x20 && $0 != "\"" && $0 != "\\" && $0.value < 0x7F }.map(Character.init))
            headers[.contentDisposition] = "attachment; filename=\"\(name.isEmpty ? "molecule" : name).\(r.format)\""
        }
        return HTTPAnswer.response(bytes, type: Self.mediaType(format: r.format), headers: headers)
    }

    /// The chemical MIME types of the formats the library keeps (text/plain where there is none).
    static func mediaType(format: String) -> String {
        switch format {
        case "pdb", "pqr": "chemical/x-pdb"
        case "cif": "chemical/x-mmcif"
        case "sdf", "mol": "chemical/x-mdl-sdfile"
        case "mol2": "chemical/x-mol2"
        case "xyz": "chemical/x-xyz"
        case "bcif": "application/octet-stream"
        default: "text/plain; charset=utf-8"
        }
    }
}

import CMemory
import Core
import Foundation
import Hummingbird
import Library
import MoleculeView
import NIOCore
import Structure

extension MolshotService {
    // MARK: Molecules

    /// Runs `body` with the library's write connection on the blocking pool; 403 where the
    /// library is read-only, the library's errors answered as `badRequest` says.
    func writing<T: Sendable>(_ body: @escaping @Sendable (MoleculeLibrary) throws -> T) async throws -> T {
        guard !library.isReadOnly else { throw HTTPError(.forbidden, message: "this server's library is read-only") }
        do { return try await library.write(body) } catch { throw Self.badRequest(error) }
    }

    /// Whether `viewer` may see the molecule with this checksum (or none is in the library).
    func isVisible(checksum: String, to viewer: MoleculeLibrary.Viewer) async throws -> Bool {
        guard let kept = try await privateOwners(checksum: checksum) else { return true }
        if case .reader(let name) = viewer { return name != nil && kept.contains(name) }
        return true
    }

    /// The owners of private copies of the molecule with this checksum; nil where none is private.
    /// Read at most once a second for all requests.
    func privateOwners(checksum: String) async throws -> [String?]? {
        let now = Double(DispatchTime.now().uptimeNanoseconds) / 1e9
        var owners = privates.withLock { now - $0.read > 1 ? nil : $0.owners }
        if owners == nil {
            let read = try await reading { try $0.privateChecksums() }
            privates.withLock { $0 = (now, read) }
            owners = read
        }
        return owners?[checksum]
    }

    /// Runs `body` with one of the library's read connections on the blocking pool (opening the
    /// database for each request cost more than the request; WAL lets each read see the latest
    /// commit); the library's errors answered as `badRequest` says.
    func reading<T: Sendable>(_ body: @escaping @Sendable (MoleculeLibrary) throws -> T) async throws -> T {
        do { return try await library.read(body) } catch { throw Self.badRequest(error) }
    }

    /// Longest search text (SQLite refuses LIKE patterns past 50,000 bytes; no name is this long).
    static let maxQuery = ServiceLimits.searchLength.value

    func listMolecules(_ request: Request) async throws -> Response {
        func number(_ key: String, _ fallback: Int, _ range: ClosedRange<Int>) throws -> Int {
            guard let text = Self.parameter(request, key) else { return fallback }
            do { return try ValueText.integer(text, field: key, in: range) } catch { throw Self.badRequest(error) }
        }
        let offset = try number("offset", 0, 0...Int.max), limit = try number("limit", 50, 1...1000)
        let viewer = try viewer(request), query = Self.parameter(request, "query")
        if let query, query.count > Self.maxQuery {
            throw HTTPError(.badRequest, message: "parameter query is longer than \(Self.maxQuery) characters")
        }
        let sort = Self.parameter(request, "sort") ?? "id"
        guard let order = MoleculeLibrary.ListOrder(rawValue: sort) else {
            throw HTTPError(.badRequest, message: "parameter sort must be one of \(MoleculeLibrary.ListOrder.allCases.map(\.rawValue).joined(separator: ", ")) (got \(sort))")
        }
        let (total, molecules) = try await reading { try $0.list(offset: offset, limit: limit, query: query, order: order, viewer: viewer) }
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
        return try Self.json(Page(total: total, molecules: molecules.map {
            Entry(record: $0.withoutServerDetails, thumbnail: thumbnailName(checksum: $0.checksum).map { "/v1/thumbnails/" + $0 })
        }))
    }

    /// The molecule `reference` names, if `viewer` may see it; a private molecule of someone else
    /// is "not there", as one that does not exist.
    func record(_ reference: String, viewer: MoleculeLibrary.Viewer) async throws -> MoleculeRecord {
        let notFound = HTTPError(.notFound, message: "no molecule \(reference)")
        return try await reading { lib in
            if let id = Int(reference) {
                guard let r = try lib.record(id: id), try lib.isVisible(r.id, to: viewer) else { throw notFound }
                return r
            }
            // Among the molecules this caller may see only: another's private upload of the same
            // name neither hides a public one nor shows that it is there.
            let visible = try lib.records(named: reference).filter { try lib.isVisible($0.id, to: viewer) }
            guard let first = visible.first else { throw notFound }
            guard visible.count == 1 else {
                throw HTTPError(.badRequest, message: "the name \(reference) matches molecules \(visible.map { String($0.id) }.joined(separator: ", ")): give the id")
            }
            return first
        }
    }

    /// A molecule's record with what its file says and what it is made of: chains (by entity,
    /// with their sequences), ligands with their chemical names, entities, assemblies (the atoms
    /// each draws), modified residues.
    func molecule(_ request: Request, _ reference: String) async throws -> Response {
        let r = try await record(reference, viewer: viewer(request))
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
        let (metadata, composition, structure) = try await reading {
            (try $0.metadata(of: r.id), try $0.composition(of: r.id), try $0.load(String(r.id)).structure)
        }
        let summary = StructureSummary(file: r.name, structure: structure, bonds: [])
        let byChain = Dictionary(summary.chains.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        return try Self.json(Detail(record: r.withoutServerDetails, metadata: metadata,
                                    chains: composition.chains.map { Chain(id: $0.id, residues: $0.residues, atoms: $0.atoms, entity: byChain[$0.id]?.entity,
                                                                           sequence: byChain[$0.id]?.sequence) },
                                    ligands: composition.ligands.map { Ligand(name: $0.name, copies: $0.copies, chemicalName: structure.componentNames[$0.name]) },
                                    summary: summary))
    }

    /// Imports the body into the library for the token's owner (`private=true` keeps it theirs).
    func importMolecule(_ request: Request) async throws -> Response {
        let owner: String? = try writer(request)
        let body = try await bytes(of: request, what: "a structure file")
        guard let name = Self.parameter(request, "name") else { throw HTTPError(.badRequest, message: "parameter name is needed: the file's name, like 1crn.pdb") }
        let isPrivate: Bool
        do { isPrivate = try ValueText.flag(Self.parameter(request, "private") ?? "false", field: "private") } catch { throw Self.badRequest(error) }
        let stem = name.split(separator: "/").last.map(String.init) ?? name
        let bytes = Array(buffer: body), configuration = configuration, perception = perception
        let source = "upload:\(owner ?? "")/\(stem)"
        let outcome: MoleculeLibrary.ImportOutcome
        if workers.processes.isEmpty {
            // No render process (a service made in a test, without an executable): read here, off
            // the threads that answer requests, on a connection of its own.
            outcome = try await writing { lib -> MoleculeLibrary.ImportOutcome in
                do {
                    return try lib.importBytes(bytes, source: source, name: MoleculeLibrary.name(forPath: stem),
                                               maxBytes: configuration.maxBodyBytes * 8, perception: perception, owner: owner,
                                               isPrivate: isPrivate, maxAtoms: configuration.maxAtoms)
                } catch { throw Self.badRequest(error) }
            }
        } else {
            outcome = try await importedElsewhere(bytes, source: source, name: MoleculeLibrary.name(forPath: stem), owner: owner, isPrivate: isPrivate)
        }
        privates.withLock { $0.read = -1 }
        switch outcome {
        case .added(let r):
            var response = try Self.json(r.withoutServerDetails)
            response.status = .created
            response.headers[.location] = "/v1/molecules/\(r.id)"
            return response
        case .duplicate(let r), .anotherSource(let r):
            // The same file (or the same structure in another file), public or this token's own:
            // a private copy of someone else's is never one (the upload is kept apart), so this
            // tells nothing of others.
            return try Self.json(r.withoutServerDetails)
        }
    }

    /// Seconds a render process may take to read a file for the library before it is killed.
    static let importSeconds = 120.0

    /// An import whose file is read in a render process, which hands back the compact model and
    /// the kept original; this process only hashes the bytes, decodes Molshot's own compact model
    /// and stores the rows. A file already there (the same bytes, in the importer's scope) is not
    /// read at all.
    func importedElsewhere(_ bytes: [UInt8], source: String, name: String, owner: String?, isPrivate: Bool) async throws -> MoleculeLibrary.ImportOutcome {
        guard !library.isReadOnly else { throw HTTPError(.forbidden, message: "this server's library is read-only") }
        let file = try await heavy { MoleculeLibrary.ImportedFile(bytes, source: source, name: name, owner: owner, isPrivate: isPrivate) }
        if let existing = try await reading({ try $0.existing(file) }) { return .duplicate(existing) }
        let worker = try workers.take(forSession: false, queued: self.worker.queued, limit: configuration.renderQueue)
        defer { workers.done(worker, session: false) }
        guard let process = workers.process(worker) else { throw HTTPError(.internalServerError, message: "no render process to read the file") }
        let (wire, blob) = try await workers.tried(in: process, megabytes: configuration.renderProcessMegabytes, doing: "reading") {
            try await $0.prepare(bytes, source: source, seconds: Self.importSeconds)
        }
        let prepared = try await heavy { try MoleculeLibrary.PreparedImport(file: file, wire: wire, blob: blob) }
        return try await writing { try $0.importPrepared(prepared) }
    }

    /// Removes a molecule the token imported.
    func removeMolecule(_ request: Request, _ reference: String) async throws -> Response {
        let who: String? = try writer(request)
        let r = try await record(reference, viewer: .reader(who))
        let fileGone = try await writing { lib -> Bool in
            guard try lib.owner(of: r.id) == who else { throw HTTPError(.forbidden, message: "molecule \(r.id) was not imported with this token") }
            _ = try lib.remove(id: r.id)
            return try lib.record(checksum: r.checksum) == nil
        }
        privates.withLock { $0.read = -1 }
        // Thumbnails of a file no molecule holds any longer go with it: a private molecule's
        // would otherwise become everyone's.
        if fileGone { removeThumbnails(checksum: r.checksum) }
        return Response(status: .noContent)
    }

    /// Removes the thumbnails of the file with this checksum from `--thumbnails` and from memory.
    func removeThumbnails(checksum: String) {
        guard let folder = configuration.thumbnails else { return }
        let prefix = checksum + "-"
        thumbnailFiles.withLock { kept in
            for name in kept.files.keys where name.hasPrefix(prefix) {
                kept.total -= kept.files.removeValue(forKey: name)?.bytes.readableBytes ?? 0
                kept.order.removeAll { $0 == name }
            }
        }
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where name.hasPrefix(prefix) {
            do { try FileManager.default.removeItem(atPath: (folder as NSString).appendingPathComponent(name)) } catch {
                LogWriter.shared.write("error: cannot remove the thumbnail \(name) of a removed molecule: \(error)\n")
            }
        }
    }

    /// A library molecule's picture with a strong ETag (what it draws: the molecule's file, the
    /// settings and the drawing version, as the image cache keys it) and `Cache-Control`; a request
    /// whose `If-None-Match` names it is answered 304 before anything is read or drawn.
    func moleculeImage(_ request: Request, id: String) async throws -> Response {
        let r = try await record(id, viewer: viewer(request))
        let content = ImageCache.content(library: r)
        let view = try renderRequest(Self.query(request), defaultSize: "512", annotated: true)
        let etag = "\"" + ImageCache.key(content: content, settings: view.canonical).prefix(32) + "\""
        // Shared caches only where no token is needed to read and the molecule is no one's private
        // copy: a private molecule's picture fetched with `?ticket=` is its owner's still.
        let shared = !configuration.tokenToRead, isPrivate = try await privateOwners(checksum: r.checksum) != nil
        let headers: HTTPFields = [.eTag: etag, .cacheControl: (shared && !isPrivate ? "public" : "private") + ", max-age=300",
                                   .vary: "Authorization"]
        if Self.matches(request.headers[.ifNoneMatch], etag) {
            return Response(status: .notModified, headers: headers)
        }
        var response = try await image(content: content, subject: .library(r.id), request: request, json: false)
        for field in headers { response.headers[field.name] = field.value }
        return response
    }

    /// Whether an `If-None-Match` value names `etag` (a list, weak forms, or `*`).
    static func matches(_ ifNoneMatch: String?, _ etag: String) -> Bool {
        guard let ifNoneMatch else { return false }
        return ifNoneMatch.split(separator: ",").contains { item in
            let t = item.trimmingCharacters(in: .whitespaces)
            return t == "*" || t == etag || (t.hasPrefix("W/") && t.dropFirst(2) == etag)
        }
    }

    /// A structure file in the body (any format the readers take, gzip too), options in the query.
    func renderUpload(_ request: Request) async throws -> Response {
        let body = try await bytes(of: request, what: "a structure file")
        let name = Self.parameter(request, "name") ?? Self.parameter(request, "format").map { "upload.\($0)" } ?? "upload"
        let wantsJSON = request.headers[.accept]?.contains("application/json") == true
        let bytes = Array(buffer: body)
        return try await image(content: ImageCache.content(upload: bytes), subject: .upload(bytes, name: name), request: request, json: wantsJSON)
    }

    /// From the cache, or drawn by a render worker: 503 when the render queue is full, 400 for a
    /// bad parameter or file.
    func image(content: String, subject: ImageSubject, request: Request, json: Bool) async throws -> Response {
        try Self.imageResponse(try await png(content: content, settings: Self.query(request), subject: subject), json: json)
    }

    /// The PNG of a structure with render settings (the query's names and forms; 512 px unless
    /// `size` is given): from the cache, or drawn by the least loaded render worker. `content`
    /// names what is drawn (`ImageCache.content`).
    func png(content: String, settings: [(String, String)], subject: ImageSubject) async throws -> [UInt8] {
        let view = try renderRequest(settings, defaultSize: "512", annotated: true)
        let key = ImageCache.key(content: content, settings: view.canonical)
        if let png = cache?.get(key) { return png }
        let png = try await drawn(view, settings: Self.pictureSettings(settings, defaultSize: "512"), subject: subject)
        cache?.put(key, png)
        return png
    }

    /// The picture `view` (from `settings`) asks for of `subject`: in a render process, or read and
    /// prepared here off the threads that answer requests and drawn on this process's render thread.
    private func drawn(_ view: RenderRequest, settings: [(String, String)], subject: ImageSubject) async throws -> [UInt8] {
        // Its memory first: pictures made at once stay within the server's picture memory.
        let memory = try reserveMemory(Self.bytes(view))
        defer { memory.release() }
        let worker = try workers.take(forSession: false, queued: self.worker.queued, limit: configuration.renderQueue)
        defer { workers.done(worker, session: false) }
        let seconds = configuration.renderSeconds
        if let process = workers.process(worker) {
            // The process keeps the same deadline for its work and stops it there.
            // A process that ends under it (and whatever else it held) is tried once more alone.
            let workers = workers, megabytes = configuration.renderProcessMegabytes
            return try await withRenderDeadline {
                try await workers.tried(in: process, megabytes: megabytes, doing: "reading or drawing") {
                    try await $0.draw(settings: settings, subject: subject, seconds: seconds)
                }
            }
        }
        let perception = perception, limits = limits
        // The deadline covers the whole picture, reading and preparing, drawing, encoding, and the
        // work stops at it wherever it has got to (`WorkDeadline`).
        let deadline = WorkDeadline(seconds: seconds)
        return try await withRenderDeadline(late: deadline.cancel) {
            let (picture, atoms) = try await self.heavy {
                try WorkDeadline.with(deadline) { try limits.picture(subject, view, perception: perception) }
            }
            // Drawn on the render thread; smoothed and encoded off it, while it draws the next. The
            // deadline around all of it is this one (`draw` would start a second timer inside it).
            try self.checkRenderQueue()
            let drawn = try await self.worker.draw { renderers in try WorkDeadline.with(deadline) { try picture.draw(renderers.molecules) } }
            let png = try await Self.finishing { try WorkDeadline.with(deadline) { try picture.png(drawn) } }
            // The large structure's arrays are freed by now: give their pages back rather than keep them.
            if atoms >= PictureLimits.largeStructure { _ = molshot_trim_heap() }
            return png
        }
    }

    static func imageResponse(_ png: [UInt8], json: Bool) throws -> Response {
        if json {
            // The openBIS image form.
            struct Image: Encodable { var DATA: Payload }
            struct Payload: Encodable { var BASE64: String; var FORMAT: String }
            return try Self.json(Image(DATA: Payload(BASE64: Data(png).base64EncodedString(), FORMAT: "PNG")))
        }
        return Self.response(png, type: "image/png")
    }
}

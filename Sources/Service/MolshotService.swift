import CMemory
import Core
import Foundation
import Graphics
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Imaging
import Library
import MoleculeView
import NIOCore
import Pathways
import Structure

/// `molshot serve`: images of the molecule library, of uploaded structures and of pathway maps,
/// and the thumbnails `molshot thumbnails` made, over HTTP. Routes are thin: each turns its query
/// into the request type the CLI uses (`RenderRequest`, `PathwayRequest`) and calls the same core.
/// One thread owns the GL context (`RenderWorker`); requests wait in a bounded queue in front of
/// it and get 503 with Retry-After when it is full.
public final class MolshotService: Sendable {
    public let configuration: ServiceConfiguration
    public let metrics = ServiceMetrics()
    let worker: RenderWorker<ServiceRenderers>
    let perception: Handed<BondPerception>
    let maps = MapCache()
    let cache: ImageCache?
    let reader = Locked<MoleculeLibrary?>(nil)
    /// Thumbnails by file name, with their ETags, bounded in bytes (the files never change: their
    /// names hold what is in them).
    let thumbnailFiles = Locked<(files: [String: (bytes: ByteBuffer, etag: String)], order: [String], total: Int)>(([:], [], 0))
    static let thumbnailMemory = 64 << 20
    /// Private molecules' checksums and owners, read again when a second old.
    let privates = Locked<(read: Double, owners: [String: [String?]])>((-1, [:]))
    /// Live sessions (`LiveRoute.swift`).
    let sessions = LiveSessions()
    /// Requests reading files off the answering threads (`heavy`): `heavyWork` at once, as many
    /// as the render queue holds waiting.
    let heavyGate: WorkGate

    /// Opens the library (which must be there: a mistyped `--db` is an error, not a new empty
    /// library), so that a file that is not one fails here, at start-up, and not in every request.
    public init(configuration: ServiceConfiguration) throws {
        self.configuration = configuration
        let library = try MoleculeLibrary(path: configuration.database, create: false)
        perception = Handed(value: try BondPerception.standard())
        cache = try configuration.cache.map { try ImageCache(directory: $0, maxBytes: configuration.cacheBytes) }
        worker = RenderWorker(capacity: configuration.renderQueue, name: "molshot-serve-draw") { try ServiceRenderers() }
        heavyGate = WorkGate(slots: Self.heavyWork, waiting: configuration.renderQueue)
        let worker = worker, cache = cache
        metrics.queueDepth = { worker.queued }
        metrics.cacheCounts = { (cache?.hits ?? 0, cache?.misses ?? 0) }
        let sessions = sessions
        metrics.liveSessions = { sessions.count }
        reader.withLock { $0 = library }
    }

    /// The port the server listens on (the configuration's, or the one `--port 0` was given).
    let listeningPort = Locked(0)

    /// Where clients reach this server: `--public-url`, else its host and port.
    var publicURL: String {
        if let url = configuration.publicURL { return url }
        let port = listeningPort.withLock { $0 }
        return "http://\(configuration.host):\(port == 0 ? configuration.port : port)"
    }

    /// The application, listening where the configuration says; `listening` hears the port.
    public func application(listening: @escaping @Sendable (Int) -> Void = { _ in }) -> some ApplicationProtocol {
        let listeningPort = listeningPort
        return Application(router: router(),
                    server: server(),
                    configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "molshot",
                                         availableConnectionsDelegate: MaximumAvailableConnections(configuration.maxConnections)),
                    onServerRunning: { channel in
                        let port = channel.localAddress?.port ?? 0
                        listeningPort.withLock { $0 = port }
                        listening(port)
                    })
    }

    func router() -> Router<MolshotRequestContext> {
        let router = Router(context: MolshotRequestContext.self, options: .autoGenerateHeadEndpoints)
        router.middlewares.add(RequestGate(tokens: configuration.tokens, tokenToRead: configuration.tokenToRead, metrics: metrics))
        // The web viewer: plain files from Assets/web at /.
        if let web = try? Resources.asset("web") {
            router.middlewares.add(WebFiles(files: FileMiddleware(web.path, searchForIndexHtml: true)))
        }
        for route in Self.routes {
            let handle = route.handle
            router.on(RouterPath(route.path), method: route.method) { request, context in try await handle(self, request, context) }
        }
        return router
    }

    // MARK: Answers

    static func response(_ bytes: [UInt8], type: String, status: HTTPResponse.Status = .ok, headers more: HTTPFields = [:]) -> Response {
        var headers = more
        headers[.contentType] = type
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    static func json<T: Encodable>(_ value: T) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return response(Array(try encoder.encode(value)), type: "application/json")
    }

    /// A 400 that names the parameter, from the same errors the CLI reports as `--name ...`.
    static func badRequest(_ error: Error) -> HTTPError {
        if let e = error as? RequestError { return HTTPError(.badRequest, message: "parameter \(e.field) \(e.message)") }
        if let e = error as? any Fault, e.kind != .machine { return HTTPError(.badRequest, message: e.description) }
        // Not a request's fault: logged in full, answered without the server's details.
        LogWriter.shared.write("error: \(error)\n")
        return HTTPError(.internalServerError, message: "the server failed to answer this request")
    }

    /// The query's parameters; an empty one counts as not given (`?pan=` is no pan).
    static func query(_ request: Request) -> [(String, String)] {
        request.uri.queryParameters.filter { !$0.value.isEmpty }.map { (String($0.key), String($0.value)) }
    }

    /// One query parameter, nil when absent or empty.
    static func parameter(_ request: Request, _ name: String) -> String? {
        request.uri.queryParameters.get(name).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The request's body, up to the limit (413 past it), not empty (400).
    func bytes(of request: Request, what: String) async throws -> ByteBuffer {
        let limit = configuration.maxBodyBytes
        // A length past the limit is refused before a byte is read (a client may never send it).
        if let length = request.headers[.contentLength], (Int(length) ?? Int.max) > limit {
            throw HTTPError(.contentTooLarge, message: "the body is larger than \(limit) bytes")
        }
        let body: ByteBuffer
        do {
            body = try await Self.withDeadline(seconds: configuration.bodySeconds) { [request] in
                var request = request
                return try await request.collectBody(upTo: limit)
            }
        } catch is DeadlinePassed {
            throw HTTPError(.requestTimeout, headers: [.connection: "close"], message: "the body did not arrive within \(Int(configuration.bodySeconds)) s")
        } catch {
            throw HTTPError(.contentTooLarge, message: "the body is larger than \(limit) bytes")
        }
        guard body.readableBytes > 0 else { throw HTTPError(.badRequest, message: "the body is empty: send \(what)") }
        return body
    }

    // MARK: Tokens

    /// Who is asking: nil for no token; 403 for a token that is not one of ours, and 401 for none
    /// where one is needed. `RequestGate` asks it for every route the table guards.
    static func caller(_ request: Request, tokens: Tokens, needed: Bool) throws -> String? {
        guard let header = request.headers[.authorization] else {
            if needed { throw HTTPError(.unauthorized, headers: [.wwwAuthenticate: "Bearer"], message: "this needs a bearer token") }
            return nil
        }
        guard header.lowercased().hasPrefix("bearer "), let name = tokens.name(of: String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces)) else {
            throw HTTPError(.forbidden, message: "the token is not one this server knows")
        }
        return name
    }

    /// The token's owner, for routes that write (the route table made sure there is one).
    func writer(_ request: Request) throws -> String {
        guard let name = try Self.caller(request, tokens: configuration.tokens, needed: true) else {
            throw HTTPError(.unauthorized, headers: [.wwwAuthenticate: "Bearer"], message: "this needs a bearer token")
        }
        return name
    }

    func viewer(_ request: Request) throws -> MoleculeLibrary.Viewer {
        .reader(try Self.caller(request, tokens: configuration.tokens, needed: configuration.tokenToRead))
    }

    // MARK: Molecules

    /// A connection of its own, for writes (imports and removals); 403 where the library is read-only.
    func library() throws -> MoleculeLibrary {
        let lib: MoleculeLibrary
        do { lib = try MoleculeLibrary(path: configuration.database, create: false) } catch { throw Self.badRequest(error) }
        guard !lib.isReadOnly else { throw HTTPError(.forbidden, message: "this server's library is read-only") }
        return lib
    }

    /// Whether `viewer` may see the molecule with this checksum (or none is in the library).
    func isVisible(checksum: String, to viewer: MoleculeLibrary.Viewer) throws -> Bool {
        let now = Double(DispatchTime.now().uptimeNanoseconds) / 1e9
        let owners: [String: [String?]] = try privates.withLock { p in
            if now - p.read > 1 { p = (now, try reading { try $0.privateChecksums() }) }
            return p.owners
        }
        guard let kept = owners[checksum] else { return true }
        if case .reader(let name) = viewer { return name != nil && kept.contains(name) }
        return true
    }

    /// Reads go through one connection kept open, one at a time: opening the database for each
    /// request cost more than the request (WAL lets each read see the latest commit).
    func reading<T>(_ body: (MoleculeLibrary) throws -> T) throws -> T {
        try reader.withLock { (kept: inout MoleculeLibrary?) in
            if kept == nil {
                do { kept = try MoleculeLibrary(path: configuration.database, create: false) } catch { throw Self.badRequest(error) }
            }
            return try body(kept!)
        }
    }

    /// Longest search text (SQLite refuses LIKE patterns past 50,000 bytes; no name is this long).
    static let maxQuery = 1000

    func listMolecules(_ request: Request) throws -> Response {
        func number(_ key: String, _ fallback: Int, _ range: ClosedRange<Int>) throws -> Int {
            guard let text = Self.parameter(request, key) else { return fallback }
            do { return try ValueText.integer(text, field: key, in: range) } catch { throw Self.badRequest(error) }
        }
        let offset = try number("offset", 0, 0...Int.max), limit = try number("limit", 50, 1...1000)
        let viewer = try viewer(request), query = Self.parameter(request, "query")
        if let query, query.count > Self.maxQuery {
            throw HTTPError(.badRequest, message: "parameter query is longer than \(Self.maxQuery) characters")
        }
        let (total, molecules) = try reading { try $0.list(offset: offset, limit: limit, query: query, viewer: viewer) }
        struct Page: Encodable { var total: Int; var molecules: [MoleculeRecord] }
        return try Self.json(Page(total: total, molecules: molecules))
    }

    /// The molecule `reference` names, if `viewer` may see it; a private molecule of someone else
    /// is "not there", as one that does not exist.
    func record(_ reference: String, viewer: MoleculeLibrary.Viewer) throws -> MoleculeRecord {
        let notFound = HTTPError(.notFound, message: "no molecule \(reference)")
        return try reading { lib in
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

    /// A molecule's record with what its file says and what it is made of.
    func molecule(_ request: Request, _ reference: String) throws -> Response {
        let r = try record(reference, viewer: viewer(request))
        struct Chain: Encodable { var id: String; var residues: Int; var atoms: Int }
        struct Ligand: Encodable { var name: String; var copies: Int }
        struct Detail: Encodable {
            var record: MoleculeRecord
            var metadata: [String: String]
            var chains: [Chain]
            var ligands: [Ligand]
            func encode(to encoder: Encoder) throws {
                try record.encode(to: encoder)
                enum Keys: String, CodingKey { case metadata, chainList, ligands }
                var c = encoder.container(keyedBy: Keys.self)
                try c.encode(metadata, forKey: .metadata)
                try c.encode(chains, forKey: .chainList)
                try c.encode(ligands, forKey: .ligands)
            }
        }
        let (metadata, composition) = try reading { (try $0.metadata(of: r.id), try $0.composition(of: r.id)) }
        return try Self.json(Detail(record: r, metadata: metadata, chains: composition.chains.map { Chain(id: $0.id, residues: $0.residues, atoms: $0.atoms) },
                                    ligands: composition.ligands.map { Ligand(name: $0.name, copies: $0.copies) }))
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
        // Read and written off the threads that answer requests (`heavy`), on a connection of its own.
        let outcome = try await heavy { () -> Handed<MoleculeLibrary.ImportOutcome> in
            let lib = try self.library()
            do {
                return Handed(value: try lib.importBytes(bytes, source: "upload:\(owner ?? "")/\(stem)", name: MoleculeLibrary.name(forPath: stem),
                                                         maxBytes: configuration.maxBodyBytes * 8, perception: perception.value, owner: owner,
                                                         isPrivate: isPrivate, maxAtoms: configuration.maxAtoms))
            } catch { throw Self.badRequest(error) }
        }.value
        privates.withLock { $0.read = -1 }
        switch outcome {
        case .added(let r):
            var response = try Self.json(r)
            response.status = .created
            response.headers[.location] = "/v1/molecules/\(r.id)"
            return response
        case .duplicate(let r):
            // The same file, public or this token's own: a private copy of someone else's is
            // never a duplicate (the upload is kept apart), so this tells nothing of others.
            return try Self.json(r)
        }
    }

    /// Removes a molecule the token imported.
    func removeMolecule(_ request: Request, _ reference: String) throws -> Response {
        let who: String? = try writer(request)
        let r = try record(reference, viewer: .reader(who))
        let lib = try library()
        guard try lib.owner(of: r.id) == who else { throw HTTPError(.forbidden, message: "molecule \(r.id) was not imported with this token") }
        _ = try lib.remove(id: r.id)
        privates.withLock { $0.read = -1 }
        // Thumbnails of a file no molecule holds any longer go with it: a private molecule's
        // would otherwise become everyone's.
        if try lib.record(checksum: r.checksum) == nil { removeThumbnails(checksum: r.checksum) }
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

    func moleculeImage(_ request: Request, id: String) async throws -> Response {
        let r = try record(id, viewer: viewer(request))
        let database = configuration.database
        return try await image(content: ImageCache.content(library: r), request: request, json: false) {
            // Read only when the picture is not in the cache.
            do { return try MoleculeSource(libraryPath: database).load("lib:\(r.id)").structure } catch { throw Self.badRequest(error) }
        }
    }

    /// A structure file in the body (any format the readers take, gzip too), options in the query.
    func renderUpload(_ request: Request) async throws -> Response {
        let body = try await bytes(of: request, what: "a structure file")
        let name = Self.parameter(request, "name") ?? Self.parameter(request, "format").map { "upload.\($0)" } ?? "upload"
        var reading = StructureFile.Options()
        reading.maxBytes = configuration.maxBodyBytes * 8
        let options = reading
        let wantsJSON = request.headers[.accept]?.contains("application/json") == true
        let bytes = Array(buffer: body)
        return try await image(content: ImageCache.content(upload: bytes), request: request, json: wantsJSON) {
            do { return try StructureFile.decode(bytes, source: name, options: options) } catch { throw Self.badRequest(error) }
        }
    }

    /// From the cache, or drawn on the render thread from what `load` reads: 503 when the render
    /// queue is full, 400 for a bad parameter or file.
    func image(content: String, request: Request, json: Bool, load: @escaping @Sendable () throws -> Structure) async throws -> Response {
        let pairs = Self.query(request).filter { RenderRequest.field($0.0) != nil }
        return try Self.imageResponse(try await png(content: content, settings: pairs, load: load), json: json)
    }

    /// The PNG of a structure with render settings (the query's names and forms; 512 px unless
    /// `size` is given): from the cache, or drawn on the render thread from what `load` reads.
    /// `content` names what is drawn (`ImageCache.content`).
    func png(content: String, settings: [(String, String)], load: @escaping @Sendable () throws -> Structure) async throws -> [UInt8] {
        var pairs = settings
        if !pairs.contains(where: { $0.0 == "size" }) { pairs.insert(("size", "512"), at: 0) }
        let view: RenderRequest
        do {
            view = try RenderRequest(pairs)
            _ = try view.singleMode()
        } catch { throw Self.badRequest(error) }
        guard view.width <= configuration.maxSide, view.height <= configuration.maxSide else {
            throw HTTPError(.badRequest, message: "parameter size is larger than this server's \(configuration.maxSide) pixels a side")
        }
        let key = ImageCache.key(content: content, settings: view.canonical)
        if let png = cache?.get(key) { return png }
        let (png, atoms) = try await drawn(view, load: load)
        cache?.put(key, png)
        // The large structure's arrays are freed by now: give their pages back rather than keep them.
        if atoms >= Self.largeStructure { _ = molshot_trim_heap() }
        return png
    }

    /// The picture `view` asks for of what `load` reads, drawn on the render thread, and how many atoms it had.
    private func drawn(_ view: RenderRequest, load: @escaping @Sendable () throws -> Structure) async throws -> (png: [UInt8], atoms: Int) {
        // Reading (gunzip included) and building geometry off the threads that answer requests.
        let perception = perception
        let (structure, picture) = try await heavy { () -> Handed<(Structure, MoleculePicture)> in
            let structure = try load()
            try self.checkSize(structure)
            do {
                return Handed(value: (structure, try MoleculePicture(structure, mode: try view.singleMode(), request: view, perception: perception.value)))
            } catch { throw Self.badRequest(error) }
        }.value
        let png = try await draw { renderers in try picture.png(try picture.draw(renderers.molecules)) }
        return (png, atomsDrawn(structure))
    }

    /// Runs `work` (reading a file, building geometry) on a thread outside Swift's cooperative
    /// pool, whose few threads answer every request: a gzip bomb being read does not stall
    /// `/healthz`. At most `heavyWork` run at once and `--render-queue` wait; past that, 503.
    func heavy<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        let gate = heavyGate
        do { try await gate.enter() } catch {
            throw HTTPError(.serviceUnavailable, headers: [.retryAfter: "1"], message: "too many files are being read; try again in a second")
        }
        return try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result { try work() })
                gate.leave()
            }.start()
        }
    }

    /// Files read at once for requests (each may take up to 8x `--max-body` unpacked).
    static let heavyWork = 4

    /// Atoms past which memory is given back to the system after a picture.
    static let largeStructure = 200_000

    func atomsDrawn(_ structure: Structure) -> Int { structure.models.first?.atoms.count ?? 0 }

    /// 413 for a structure with more atoms than this server draws (images, sessions, replays).
    func checkSize(_ structure: Structure) throws {
        let atoms = atomsDrawn(structure)
        guard atoms <= configuration.maxAtoms else {
            throw HTTPError(.contentTooLarge, message: "\(atoms) atoms is more than this server's \(configuration.maxAtoms)")
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

    /// 503 with Retry-After when `--render-queue` jobs wait already (pictures and replays alike).
    func checkRenderQueue() throws {
        guard worker.queued < configuration.renderQueue else {
            throw HTTPError(.serviceUnavailable, headers: [.retryAfter: "1"], message: "the render queue is full; try again in a second")
        }
    }

    /// Runs `job` on the render thread, or answers 503 when too many wait already or when it
    /// takes longer than the render time limit (the drawing goes on; its picture is dropped).
    func draw(_ job: @escaping @Sendable (ServiceRenderers) throws -> [UInt8]) async throws -> [UInt8] {
        try checkRenderQueue()
        let worker = worker, limit = configuration.renderSeconds
        do {
            return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[UInt8], Error>) in
                let once = Once()
                Task {
                    let result = await Result(catching: { try await worker.perform(job) })
                    if once.claim() { continuation.resume(with: result) }
                }
                Task {
                    try? await Task.sleep(nanoseconds: UInt64(limit * 1e9))
                    if once.claim() {
                        continuation.resume(throwing: HTTPError(.serviceUnavailable, headers: [.retryAfter: "5"],
                                                                message: "the picture took longer than this server's \(limit) s to draw"))
                    }
                }
            }
        } catch let e as HTTPError { throw e } catch { throw Self.badRequest(error) }
    }

    // MARK: Thumbnails

    /// A thumbnail file by name, as a static file server gives it: immutable (its name holds the
    /// structure's checksum and the settings), strong ETag, 304 on If-None-Match, byte ranges.
    func thumbnail(_ request: Request, name: String) throws -> Response {
        guard let folder = configuration.thumbnails else { throw HTTPError(.notFound, message: "this server serves no thumbnails") }
        // Letters, digits and ._- only (checked on bytes: Character properties cost more than the rest of the request).
        guard name.hasSuffix(".png"), !name.hasPrefix("."), name.utf8.allSatisfy({ b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2E || b == 0x5F || b == 0x2D
        }) else {
            throw HTTPError(.notFound, message: "no thumbnail \(name)")
        }
        let path = (folder as NSString).appendingPathComponent(name)
        // A private molecule's thumbnails are as absent as the molecule.
        let checksum = String(name.prefix(16))
        let viewer = try viewer(request)
        guard try isVisible(checksum: checksum, to: viewer) else { throw HTTPError(.notFound, message: "no thumbnail \(name)") }
        // Kept as the buffer a response sends, so that serving one copies nothing.
        let (buffer, etag) = try thumbnailFiles.withLock { kept -> (ByteBuffer, String) in
            if let f = kept.files[name] { return (f.bytes, f.etag) }
            guard let data = FileManager.default.contents(atPath: path) else { throw HTTPError(.notFound, message: "no thumbnail \(name)") }
            let bytes = [UInt8](data), etag = "\"\(FNV1a.hex(FNV1a.hash(bytes), digits: 16))\""
            let buffer = ByteBuffer(bytes: bytes)
            kept.files[name] = (buffer, etag)
            kept.order.append(name)
            kept.total += bytes.count
            while kept.total > Self.thumbnailMemory, let first = kept.order.first {
                kept.order.removeFirst()
                kept.total -= kept.files.removeValue(forKey: first)?.bytes.readableBytes ?? 0
            }
            return (buffer, etag)
        }
        var headers: HTTPFields = [.eTag: etag, .cacheControl: "public, max-age=31536000, immutable", .acceptRanges: "bytes"]
        // If-None-Match compares weakly (RFC 9110 13.1.2): W/"x" matches "x".
        if let match = request.headers[.ifNoneMatch], match.split(separator: ",").contains(where: { tag in
            let t = tag.trimmingCharacters(in: .whitespaces)
            return t == "*" || t == etag || (t.hasPrefix("W/") && t.dropFirst(2) == etag)
        }) {
            return Response(status: .notModified, headers: headers)
        }
        if let range = request.headers[.range] {
            let length = buffer.readableBytes
            guard let (from, to) = Self.byteRange(range, length: length) else {
                headers[.contentRange] = "bytes */\(length)"
                return Response(status: .rangeNotSatisfiable, headers: headers)
            }
            headers[.contentRange] = "bytes \(from)-\(to)/\(length)"
            headers[.contentType] = "image/png"
            return Response(status: .partialContent, headers: headers, body: .init(byteBuffer: buffer.getSlice(at: buffer.readerIndex + from, length: to - from + 1)!))
        }
        headers[.contentType] = "image/png"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: buffer))
    }

    /// `bytes=A-B`, `bytes=A-` or `bytes=-N` within `length`, as inclusive offsets.
    static func byteRange(_ text: String, length: Int) -> (Int, Int)? {
        guard text.hasPrefix("bytes="), !text.contains(","), length > 0 else { return nil }
        let spec = text.dropFirst(6).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard spec.count == 2 else { return nil }
        if spec[0].isEmpty {
            guard let n = Int(spec[1]), n > 0 else { return nil }
            return (max(0, length - n), length - 1)
        }
        guard let from = Int(spec[0]), from < length else { return nil }
        let to = spec[1].isEmpty ? length - 1 : min(Int(spec[1]) ?? -1, length - 1)
        return to >= from ? (from, to) : nil
    }

    // MARK: Pathways

    func pathwayFiles() throws -> [String: String] {
        guard let folder = configuration.pathways else { return [:] }
        var out: [String: String] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where !name.hasPrefix(".") && !name.hasSuffix(".tsv") {
            var id = name
            for ext in [".gz", ".json", ".xml", ".kgml", ".sbgn", ".gpml", ".sbml"] where id.lowercased().hasSuffix(ext) { id = String(id.dropLast(ext.count)) }
            out[id] = (folder as NSString).appendingPathComponent(name)
        }
        return out
    }

    func listPathways() throws -> Response {
        struct Entry: Encodable { var id: String; var file: String }
        return try Self.json(["pathways": try pathwayFiles().sorted { $0.key < $1.key }.map { Entry(id: $0.key, file: ($0.value as NSString).lastPathComponent) }])
    }

    func pathway(_ id: String) async throws -> (path: String, entry: MapCache.Entry) {
        guard let path = try pathwayFiles()[id] else { throw HTTPError(.notFound, message: "no pathway \(id)") }
        do { return (path, try await maps.entry(path)) } catch { throw Self.badRequest(error) }
    }

    func pathwayImage(_ request: Request, id: String) async throws -> Response {
        let map = Handed(value: try await pathway(id).entry.map)
        var r = PathwayRequest()
        r.size = Self.parameter(request, "size")
        r.region = Self.parameter(request, "region")
        if let s = Self.parameter(request, "scale") {
            do { r.scale = Double(try ValueText.number(s, field: "scale", positive: true)) } catch { throw Self.badRequest(error) }
        }
        if let t = Self.parameter(request, "theme") {
            guard let name = PathwayTheme.Name(rawValue: t) else { throw HTTPError(.badRequest, message: "parameter theme must be standard, dark or print (got \(t))") }
            r.theme = PathwayTheme(name)
        }
        return Self.response(try await pathwayPNG(map.value, request: r), type: "image/png")
    }

    /// The PNG `request` asks for of `map`: 400 for a bad parameter or a size over `--max-side`.
    func pathwayPNG(_ map: PathwayMap, request: PathwayRequest) async throws -> [UInt8] {
        let maxSide = configuration.maxSide, map = Handed(value: map)
        // Triangles and labels off the threads that answer requests, as files are read.
        let picture = try await heavy { () throws -> PathwayPicture in
            do {
                let frame = try request.frame(for: map.value)
                guard frame.width <= maxSide, frame.height <= maxSide else {
                    throw HTTPError(.badRequest, message: "parameter size is larger than this server's \(maxSide) pixels a side")
                }
                return try PathwayPicture(map.value, view: frame.view, width: frame.width, height: frame.height, theme: request.theme,
                                          samples: request.samples)
            } catch let e as HTTPError { throw e } catch { throw Self.badRequest(error) }
        }
        return try await draw { renderers in try picture.png(try picture.draw(renderers.pathways)) }
    }

    /// One 256-pixel tile of the pyramid `molshot pathway --tiles` writes, drawn when asked.
    func pathwayTile(id: String, z: Int, x: Int, y: String) async throws -> Response {
        guard y.hasSuffix(".png"), let yi = Int(y.dropLast(4)) else { throw HTTPError(.notFound, message: "tiles are {z}/{x}/{y}.png") }
        let (path, entry) = try await pathway(id)
        guard (0...12).contains(z) else { throw HTTPError(.notFound, message: "no level \(z): levels are 0 to 12") }
        let pyramid = entry.pyramid, map = Handed(value: entry.map)
        let (columns, rows) = pyramid.grid(level: z)
        guard (0..<columns).contains(x), (0..<rows).contains(yi) else { throw HTTPError(.notFound, message: "no tile \(z)/\(x)/\(yi)") }
        let scale = pyramid.scale(level: z)
        let corner = pyramid.bounds.min * scale + SIMD2(Double(x * 256), Double(yi * 256))
        let png = try await draw { renderers in
            // A level's scene (the whole map's triangles and labels) serves all its tiles.
            let scene = try renderers.tileScene("\(path)|\(z)") { try renderers.pathways.scene(map.value, scale: scale, theme: PathwayTheme(.standard)) }
            return try PNGEncoder.flat.encode(try renderers.pathways.draw(scene, corner: corner, width: 256, height: 256, theme: PathwayTheme(.standard)))
        }
        return Self.response(png, type: "image/png", headers: [.cacheControl: "public, max-age=3600"])
    }
}

/// The viewer's files for every path outside the API (`/v1/...` goes straight to the routes, so
/// their answers, 404s included, stay theirs).
struct WebFiles<Context: RequestContext>: RouterMiddleware {
    let files: FileMiddleware<Context, LocalFileSystem>

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if request.uri.path.hasPrefix("/v1/") { return try await next(request, context) }
        // A NUL, plain or percent-encoded, would end the file name where the filesystem reads it.
        let decoded = request.uri.path.removingPercentEncoding
        guard let decoded, !decoded.utf8.contains(0) else { throw HTTPError(.notFound) }
        return try await files.handle(request, context: context, next: next)
    }
}

/// A deadline that passed first.
struct DeadlinePassed: Error {}

extension MolshotService {
    /// `body`'s value, or `DeadlinePassed` when it takes longer than `seconds` (it is cancelled).
    static func withDeadline<T: Sendable>(seconds: Double, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
                throw DeadlinePassed()
            }
            defer { group.cancelAll() }
            return try await group.next()!
        }
    }
}

/// True for the first caller only.
final class Once: @unchecked Sendable {
    private let lock = NSLock()
    private var done = false

    func claim() -> Bool {
        lock.withLock {
            defer { done = true }
            return !done
        }
    }
}

extension Result where Failure == Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}

/// Pathway maps read once and kept, each with its tile pyramid (the map's bounds, worked out once).
actor MapCache {
    struct Entry: Sendable {
        var map: PathwayMap
        var pyramid: TilePyramid
    }

    private var maps: [String: Entry] = [:]

    func entry(_ path: String) throws -> Entry {
        if let e = maps[path] { return e }
        let m = try PathwayFile.load(path: path)
        let e = Entry(map: m, pyramid: TilePyramid(map: m, tileSize: 256, levels: 13))
        maps[path] = e
        return e
    }
}

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
/// Render workers draw (`RenderWorkers`: this process's render thread, which owns its GL context,
/// and render processes); requests wait in a bounded queue in front of each and get 503 with
/// Retry-After when it is full.
public final class MolshotService: Sendable {
    public let configuration: ServiceConfiguration
    public let metrics = ServiceMetrics()
    /// Signs and checks browser tickets (`POST /v1/tickets`); its key is this process's alone.
    let tickets = Tickets()
    /// This process's render thread (worker 0 of `workers`).
    let worker: RenderWorker<ServiceRenderers>
    let workers: RenderWorkers
    let perception: BondPerception
    let maps = MapCache()
    let cache: ImageCache?
    /// The library's connections: a few readers and one writer, used on the blocking pool.
    let library: LibraryConnections
    /// Thumbnails by file name, with their ETags, bounded in bytes (the files never change: their
    /// names hold what is in them).
    let thumbnailFiles = Locked<(files: [String: (bytes: ByteBuffer, etag: String)], order: [String], total: Int)>(([:], [], 0))
    static let thumbnailMemory = ServiceLimits.keptThumbnailBytes.value
    /// The thumbnail shown for each checksum, and when the folder was last listed.
    let thumbnailIndex = Locked<(modified: Date?, names: [String: String])>((nil, [:]))
    /// Private molecules' checksums and owners, read again when a second old.
    let privates = Locked<(read: Double, owners: [String: [String?]])>((-1, [:]))
    /// Live sessions (`LiveRoute.swift`).
    let sessions = LiveSessions()
    /// Requests reading files off the answering threads (`heavy`): `heavyWork` at once, as many
    /// as the render queue holds waiting.
    let heavyGate: WorkGate
    /// Bytes of pictures being made now (`reserveMemory`).
    let pictureMemory = Locked(0)
    /// Connections open from each client address (`ConnectionGuard.swift`).
    let clientConnections = ClientConnections()

    /// Opens the library (which must be there: a mistyped `--db` is an error, not a new empty
    /// library), so that a file that is not one fails here, at start-up, and not in every request.
    public init(configuration: ServiceConfiguration) throws {
        self.configuration = configuration
        library = try LibraryConnections(path: configuration.database, readers: ServiceLimits.libraryReaders.value)
        perception = try BondPerception.standard()
        cache = try configuration.cache.map { try ImageCache(directory: $0, maxBytes: configuration.cacheBytes) }
        workers = RenderWorkers(count: configuration.renderThreads, executable: configuration.renderProcess.map { URL(fileURLWithPath: $0) },
                                arguments: ["serve", "render-process", URL(fileURLWithPath: configuration.database).path, String(configuration.maxBodyBytes * 8), String(configuration.maxAtoms),
                                            String(configuration.renderProcessMegabytes)])
        // This process's share of llvmpipe's threads, read when its first context is made (unless set).
        if workers.count > 1 && EnvironmentVariable.rasterizerThreads.text() == nil {
            setenv(EnvironmentVariable.rasterizerThreads.rawValue, String(RenderWorkers.rasterizerThreads(workers: workers.count)), 1)
        }
        worker = RenderWorker(capacity: configuration.renderQueue, name: "molshot-serve-draw") { try ServiceRenderers() }
        heavyGate = WorkGate(slots: Self.heavyWork, waiting: configuration.renderQueue)
        let worker = worker, workers = workers, cache = cache
        let sessions = sessions
        metrics.gauges.withLock {
            $0.queueDepth = { worker.queued + workers.processQueued }
            $0.cacheCounts = { (cache?.hits ?? 0, cache?.misses ?? 0) }
            $0.liveSessions = { sessions.count }
        }
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

    /// Stops the render thread once what it holds is drawn (its GL context made, if that is
    /// under way: a process that exits while llvmpipe starts up crashes in it).
    public func close() {
        configuration.tokens.stopWatching()
        worker.close()
        workers.close()
    }

    func router() -> Router<MolshotRequestContext> {
        let router = Router(context: MolshotRequestContext.self, options: .autoGenerateHeadEndpoints)
        router.middlewares.add(RequestGate(tokens: configuration.tokens, tokenToRead: configuration.tokenToRead, metrics: metrics,
                                           allowOrigin: configuration.allowOrigin, tickets: tickets))
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

    /// Whether a damaged library was logged already.
    static let corruptionLogged = Locked(false)

    /// A 400 that names the parameter, from the same errors the CLI reports as `--name ...`.
    static func badRequest(_ error: Error) -> HTTPError {
        // An answer made already (a 404 inside a library read, say) goes out as it is.
        if let e = error as? HTTPError { return e }
        if let e = error as? RequestError { return HTTPError(.badRequest, message: "parameter \(e.field) \(e.message)") }
        // The library's conditions as what they are: busy is a moment's wait, a conflict is 409,
        // a damaged library file is the server's (logged), never the request's.
        if let e = error as? LibraryError, let condition = e.condition {
            switch condition {
            case .busy, .locked:
                return HTTPError(.serviceUnavailable, headers: [.retryAfter: "1"], message: "the library is busy; try again in a second")
            case .constraint:
                return HTTPError(.conflict, message: "the library refused the change: it conflicts with what it holds")
            case .corrupt:
                // Said once in the log (every request would say it again); each request is told what is wrong.
                if corruptionLogged.withLock({ seen in defer { seen = true }; return !seen }) { LogWriter.shared.write("error: the molecule library is damaged: \(error)\n") }
                return HTTPError(.internalServerError, message: "the server's molecule library is damaged (SQLite finds it malformed); its operator must restore it")
            case .full, .cannotWrite, .other:
                LogWriter.shared.write("error: \(error)\n")
                return HTTPError(.internalServerError, message: "the server failed to answer this request")
            }
        }
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
    static func caller(_ request: Request, tokens: Tokens, tickets: Tickets? = nil, needed: Bool) throws -> String? {
        guard let header = request.headers[.authorization] else {
            // A browser's ticket where it cannot send a header (an image's or a WebSocket's address).
            if let tickets, let ticket = request.uri.queryParameters.get("ticket"), !ticket.isEmpty {
                return try tickets.name(of: ticket, path: request.uri.path, tokens: tokens)
            }
            if needed { throw HTTPError(.unauthorized, headers: [.wwwAuthenticate: "Bearer"], message: "this needs a bearer token") }
            return nil
        }
        guard header.lowercased().hasPrefix("bearer "), let name = tokens.name(of: String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces)) else {
            throw HTTPError(.forbidden, message: "the token is not one this server knows")
        }
        return name
    }

    /// `POST /v1/tickets?scope=/v1/molecules/1&seconds=300`: a ticket for the token's owner to read
    /// under `scope` (a path under /v1/, default all of it) for `seconds` (default 300, at most an hour).
    func ticket(_ request: Request) throws -> Response {
        let name = try writer(request)
        let scope = Self.parameter(request, "scope") ?? "/v1/"
        guard scope.hasPrefix("/v1/"), scope.utf8.count <= 200, !scope.contains(".."), !scope.contains("?") else {
            throw HTTPError(.badRequest, message: "parameter scope must be a path under /v1/ (got \(Excerpt.of(scope, length: 80)))")
        }
        let seconds: Int
        do { seconds = try ValueText.integer(Self.parameter(request, "seconds") ?? "300", field: "seconds", in: 1...Tickets.maxSeconds) } catch {
            throw Self.badRequest(error)
        }
        let issued = tickets.issue(name: name, scope: scope, seconds: seconds)
        struct Answer: Encodable { var ticket: String; var scope: String; var expires: Int }
        return try Self.json(Answer(ticket: issued.ticket, scope: scope, expires: issued.expires))
    }

    /// The token's owner, for routes that write (the route table made sure there is one).
    func writer(_ request: Request) throws -> String {
        guard let name = try Self.caller(request, tokens: configuration.tokens, needed: true) else {
            throw HTTPError(.unauthorized, headers: [.wwwAuthenticate: "Bearer"], message: "this needs a bearer token")
        }
        return name
    }

    func viewer(_ request: Request) throws -> MoleculeLibrary.Viewer {
        .reader(try Self.caller(request, tokens: configuration.tokens, tickets: tickets, needed: configuration.tokenToRead))
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
        guard let decoded, !decoded.utf8.contains(0) else { throw HTTPError(.notFound, message: "no such file") }
        // The viewer's files are small and served whole: Range is ignored, as RFC 9110 lets a
        // server do (FileMiddleware answered `bytes=99999-` with 206 and a negative length, and
        // `bytes=-5` with 6 bytes), and no ranges are offered.
        var head = request.head
        head.headerFields[.range] = nil
        head.headerFields[.ifRange] = nil
        var response: Response
        do {
            response = try await files.handle(Request(head: head, body: request.body), context: context, next: next)
        } catch let error as HTTPError where error.status == .notFound {
            // An error's body is JSON on every route, the viewer's files' too (it was empty).
            throw HTTPError(.notFound, message: "no such file or route \(Excerpt.of(decoded, length: 80))")
        }
        if response.status == .notFound && (response.body.contentLength ?? 0) == 0 {
            throw HTTPError(.notFound, message: "no such file or route \(Excerpt.of(decoded, length: 80))")
        }
        response.headers[.acceptRanges] = nil
        return response
    }
}

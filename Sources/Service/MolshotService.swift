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
    let auth: Auth
    let access: MoleculeAccess
    /// A writer's snapshots for its replicas (`--publish`).
    let publisher: SnapshotPublisher?
    let pictures: PictureMaker
    let thumbnails: ThumbnailStore
    let maps: MapStore
    /// Live sessions (`SessionController`).
    let sessions = LiveSessions()
    /// Connections open from each client address (`ConnectionGuard.swift`).
    let clientConnections = ClientConnections()
    /// Where clients reach this server (for the entity protocol's image addresses).
    let address: PublicAddress
    let molecules: MoleculeController
    let entities: EntityController
    let live: SessionController
    /// Every route, from the controllers: what the router and `RequestGate` both read.
    let table: RouteTable

    /// Opens the library (which must be there: a mistyped `--db` is an error, not a new empty
    /// library), so that a file that is not one fails here, at start-up, and not in every request.
    public init(configuration: ServiceConfiguration) throws {
        self.configuration = configuration
        // A gzip upload past its limit names the setting this command has.
        FileInput.limitSetting.withLock { $0 = ServiceConfiguration.inflateLimitSetting }
        auth = Auth(tokens: configuration.tokens, tokenToRead: configuration.tokenToRead, tickets: configuration.tickets)
        access = MoleculeAccess(library: try LibraryConnections(path: configuration.database, readers: ServiceLimits.libraryReaders.value))
        if let output = configuration.publish {
            guard !access.isReadOnly else {
                throw RequestError(field: "publish", "needs a library this server writes: \(configuration.database) is read-only here (a replica does not publish)")
            }
            let publisher = SnapshotPublisher(library: configuration.database, output: output, seconds: configuration.publishSeconds)
            publisher.start { LogWriter.shared.write($0) }
            self.publisher = publisher
        } else {
            publisher = nil
        }
        pictures = try PictureMaker(configuration: configuration, molecules: access)
        thumbnails = ThumbnailStore(folder: configuration.thumbnails)
        maps = MapStore(folder: configuration.pathways)
        address = PublicAddress(configuration: configuration)
        let uploads = BodyReader(maxBytes: configuration.maxBodyBytes, seconds: configuration.bodySeconds)
        molecules = MoleculeController(configuration: configuration, auth: auth, access: access, pictures: pictures, thumbnails: thumbnails, uploads: uploads)
        entities = EntityController(auth: auth, access: access, pictures: pictures, maps: maps, uploads: uploads, address: address)
        live = SessionController(configuration: configuration, auth: auth, access: access, pictures: pictures, maps: maps, sessions: sessions)
        table = RouteTable([
            OperationsController(auth: auth, metrics: metrics, access: access),
            molecules,
            RenderController(configuration: configuration, auth: auth, access: access, pictures: pictures, uploads: uploads),
            entities,
            live,
            ThumbnailController(auth: auth, access: access, thumbnails: thumbnails),
            PathwayController(configuration: configuration, maps: maps, pictures: pictures),
        ])
        let pictures = pictures, cache = pictures.cache, sessions = sessions
        metrics.gauges.withLock {
            $0.queueDepth = { pictures.queued }
            $0.cacheCounts = { (cache?.hits ?? 0, cache?.misses ?? 0) }
            $0.liveSessions = { sessions.count }
        }
    }

    /// The render workers (this process's render thread and the render processes).
    var workers: RenderWorkers { pictures.workers }
    var tickets: Tickets { auth.tickets }

    /// The application, listening where the configuration says; `listening` hears the port.
    public func application(listening: @escaping @Sendable (Int) -> Void = { _ in }) -> some ApplicationProtocol {
        let address = address
        return Application(router: router(),
                    server: server(),
                    configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: Self.serverName,
                                         availableConnectionsDelegate: MaximumAvailableConnections(configuration.maxConnections)),
                    onServerRunning: { channel in
                        let port = channel.localAddress?.port ?? 0
                        address.listening(on: port)
                        listening(port)
                    })
    }

    /// Stops the render thread once what it holds is drawn (its GL context made, if that is
    /// under way: a process that exits while llvmpipe starts up crashes in it).
    public func close() {
        publisher?.stop()
        configuration.tokens.stopWatching()
        configuration.tickets.stopWatching()
        pictures.close()
    }

    /// What every request passes before its handler (tokens, methods, parameters, CORS, metrics).
    var gate: RequestGate<MolshotRequestContext> {
        RequestGate(table: table, auth: auth, metrics: metrics, allowOrigin: configuration.allowOrigin, trustedProxies: Set(configuration.trustedProxies))
    }

    /// The thumbnails in memory that the event loop answers itself (`ReadyThumbnails`), where
    /// this server serves thumbnails.
    var thumbnailShortcut: ThumbnailShortcut? {
        guard thumbnails.folder != nil, let route = table.routes.first(where: { $0.path == ThumbnailController.path }) else { return nil }
        return ThumbnailShortcut(thumbnails: thumbnails, access: access, auth: auth, gate: gate, route: route, serverName: Self.serverName)
    }

    /// The Server header's value.
    static let serverName = "molshot"

    func router() -> Router<MolshotRequestContext> {
        let router = Router(context: MolshotRequestContext.self, options: .autoGenerateHeadEndpoints)
        router.middlewares.add(gate)
        // The web viewer: plain files from Assets/web at /.
        if let web = try? Resources.asset("web") {
            router.middlewares.add(WebFiles(files: FileMiddleware(web.path, searchForIndexHtml: true)))
        }
        for route in table.routes {
            router.on(RouterPath(route.path), method: route.method, use: route.handle)
        }
        return router
    }

    /// The server: HTTP/1.1 with WebSocket upgrades for live sessions, within this server's limits.
    func server() -> HTTPServerBuilder {
        let webSocketResponder = live.webSocketRouter(table: table).buildResponder()
        let idle = TimeAmount.nanoseconds(Int64(configuration.idleSeconds * 1e9))
        let shortcut = thumbnailShortcut
        let configuration = HTTP1WebSocketUpgradeChannel.Configuration(
            http1: .init(additionalChannelHandlers: shortcut.map { [ReadyThumbnails($0)] } ?? [], idleTimeout: idle), ws: .init(maxFrameSize: 1 << 20))
        let headSeconds = self.configuration.headSeconds, clients = clientConnections
        // Long enough for the slowest first answer: a body, then a picture drawn.
        let answerSeconds = self.configuration.headSeconds + self.configuration.bodySeconds + self.configuration.renderSeconds
        return HTTPServerBuilder { responder in
            GuardedServerChannel(inner: HTTP1WebSocketUpgradeChannel(responder: responder, webSocketResponder: webSocketResponder, configuration: configuration),
                                 headSeconds: headSeconds, answerSeconds: answerSeconds, clients: clients)
        }
    }
}

/// Where clients reach this server: `--public-url`, else its host and the port it listens on.
final class PublicAddress: Sendable {
    let configured: String?
    let host: String
    let port: Int
    private let listeningPort = Locked(0)

    init(configuration: ServiceConfiguration) {
        configured = configuration.publicURL
        host = configuration.host
        port = configuration.port
    }

    func listening(on port: Int) { listeningPort.withLock { $0 = port } }

    var url: String {
        if let configured { return configured }
        let listening = listeningPort.withLock { $0 }
        return "http://\(host):\(listening == 0 ? port : listening)"
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

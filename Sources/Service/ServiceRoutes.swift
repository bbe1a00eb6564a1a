import Core
import Foundation
import Hummingbird
import Library
import MoleculeView
import NIOCore

/// One route of the service and the right it needs, declared by the controller that answers it
/// (`ServiceController.routes`). The router is built from the controllers' routes, and
/// `RequestGate` checks every request against the same table before any handler runs, so a
/// handler cannot forget to ask for a token or take a parameter it does not declare.
struct ServiceRoute: Sendable {
    enum Access: String, Sendable {
        /// Anyone: the health check, the API's description.
        case open
        /// Anyone, unless the server says `--token-to-read`: then a token.
        case read
        /// A token always.
        case write
    }

    typealias Handler = @Sendable (Request, MolshotRequestContext) async throws -> Response

    let method: HTTPRequest.Method
    /// Hummingbird's form, `/v1/molecules/:id`.
    let path: String
    let access: Access
    let handle: Handler
    /// The path's segments, `nil` where a parameter stands (made once: every request is matched).
    let pattern: [Substring?]
    /// OpenAPI's form, `/v1/molecules/{id}`, as metrics label it.
    let template: String
    /// The query parameters the route reads; any other is a 400 naming it (a misspelt `colour=`
    /// was answered in default colours).
    let query: Set<String>

    init(_ method: HTTPRequest.Method, _ path: String, _ access: Access, query: [String] = [], _ handle: @escaping Handler) {
        self.method = method
        self.path = path
        self.access = access
        self.query = Set(query)
        self.handle = handle
        pattern = path.split(separator: "/").map { $0.hasPrefix(":") ? nil : $0 }
        template = "/" + path.split(separator: "/").map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }.joined(separator: "/")
    }


    func matches(_ segments: [Substring]) -> Bool {
        guard pattern.count == segments.count else { return false }
        for (p, s) in zip(pattern, segments) where p != nil && p != s { return false }
        return true
    }
}

/// A request's context: Hummingbird's, and the connection it came on, so that long work (a
/// replay) can stop once its client has gone.
struct MolshotRequestContext: RequestContext, PeerAddressed {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel
    var peerAddress: String? { channel.remoteAddress?.ipAddress }

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}

/// A request context that knows the address its connection came from.
protocol PeerAddressed {
    var peerAddress: String? { get }
}

/// A feature's routes: each controller declares its own (path, method, access, the query
/// parameters it reads) beside the handlers that answer them, and holds the stores it uses.
protocol ServiceController: Sendable {
    var routes: [ServiceRoute] { get }
}

/// What a picture takes: `RenderRequest`'s fields, by their names, but the CLI's file limit
/// (`max-bytes`: the server sets its own).
let pictureParameters = RenderRequest.fields.map(\.name).filter { $0 != "max-bytes" }

/// What is drawn over a picture (labels, measures, keys, scale bars, interactions).
let annotationParameters = ["label", "interactions", "interactions-with", "distance", "angle", "label-size", "legend", "scale-bar"]

/// The annotations a view's frames draw too: a ligand's interactions.
let viewAnnotationParameters = ["interactions", "interactions-with"]

/// What a replay or a live view takes: a picture's parameters without the annotations views do not draw.
let viewParameters = pictureParameters.filter { !annotationParameters.contains($0) || viewAnnotationParameters.contains($0) }

/// Every route of the service, from its controllers.
struct RouteTable: Sendable {
    let routes: [ServiceRoute]

    init(_ controllers: [any ServiceController]) {
        routes = controllers.flatMap(\.routes)
    }

    /// The route a request's method and path name, or the methods its path takes when the method
    /// is not one of them (empty: no route has this path).
    func route(_ method: HTTPRequest.Method, _ path: String) -> (route: ServiceRoute?, allowed: [HTTPRequest.Method]) {
        let segments = path.split(separator: "/")
        var allowed: [HTTPRequest.Method] = []
        var get: ServiceRoute?
        for r in routes where r.matches(segments) {
            if r.method == method { return (r, []) }
            if r.method == .get { get = r }
            allowed.append(r.method)
        }
        // HEAD is GET without the body wherever a GET is (the router makes those endpoints).
        if method == .head, let get { return (get, []) }
        if get != nil && !allowed.contains(.head) { allowed.append(.head) }
        return (nil, allowed)
    }
}

/// Checks every request against the route table before its handler: 401 where a token is needed
/// and none came, 403 for a token this server does not know, 405 with `Allow` for a method the
/// path does not take. Paths outside `/v1/` that no route names are the viewer's files: open.
/// With `metrics`, it also answers Molshot's own errors once (a request error is a 400 naming its
/// field, a fault by its kind, anything else a 500 that says no more) and counts and logs every
/// request under its route's pattern: one middleware and one look-up of the table a request.
struct RequestGate<Context: RequestContext>: RouterMiddleware {
    let table: RouteTable
    /// Tokens, whether reading needs one, and where `?ticket=` is checked (reading routes only).
    let auth: Auth
    var metrics: ServiceMetrics? = nil
    /// `--allow-origin`: the origin (or `*`) whose pages may read answers.
    var allowOrigin: String? = nil
    /// `--trusted-proxy`: proxies whose X-Forwarded-For names the client (`RequestClient`).
    var trustedProxies: Set<String> = []

    /// The CORS headers for a request from `origin`: none where no origin is allowed or this one is not.
    func corsHeaders(_ origin: String?) -> HTTPFields {
        guard let allowOrigin, let origin, allowOrigin == "*" || allowOrigin == origin else { return [:] }
        return [.accessControlAllowOrigin: allowOrigin == "*" ? "*" : origin,
                .accessControlExposeHeaders: "ETag, Retry-After, Content-Length"]
    }

    /// Where one origin is allowed, every answer depends on the request's Origin (CORS headers for
    /// it, none for others or for none): a shared cache must key on it.
    var variesByOrigin: Bool { allowOrigin != nil && allowOrigin != "*" }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await answer(request, context: context, next: next)
        if request.method == .get || request.method == .head {
            response = await Self.validated(response, ifNoneMatch: request.headers[.ifNoneMatch], shared: auth.shared)
        }
        addOriginHeaders(&response.headers, origin: request.headers[.origin])
        return response
    }

    /// What every answer to a request from `origin` carries: the CORS headers, and Vary: Origin
    /// where the answer depends on it (added to a Vary already there, not replacing it).
    func addOriginHeaders(_ headers: inout HTTPFields, origin: String?) {
        for field in corsHeaders(origin) { headers[field.name] = field.value }
        if variesByOrigin {
            let vary = headers[.vary]
            if !(vary?.contains("Origin") ?? false) { headers[.vary] = vary.map { $0 + ", Origin" } ?? "Origin" }
        }
    }

    /// Counts an answered request in the metrics under its route's pattern, and logs it.
    func record(_ method: HTTPRequest.Method, _ path: String, route: ServiceRoute?, status: Int, bytes: Int, since start: UInt64) {
        guard let metrics else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        let seconds = Double(now > start ? now - start : 0) / 1e9
        metrics.record(route: route?.template ?? (path.hasPrefix("/v1/") ? "unrouted" : "viewer files"), status: status, seconds: seconds, bytes: bytes)
        let tenths = Int((seconds * 10_000).rounded())
        LogWriter.shared.write("\(method.rawValue) \(path) \(status) \(bytes) \(tenths / 10).\(tenths % 10)ms\n")
    }

    /// JSON answers get a strong ETag of their bytes (`no-cache`: a client asks again and gets 304
    /// while nothing changed), as pictures get theirs from what they draw; past `largestTagged`
    /// bytes they go out as they are.
    static func validated(_ response: Response, ifNoneMatch: String?, shared: Bool) async -> Response {
        guard response.status == .ok, response.headers[.eTag] == nil, response.headers[.contentType]?.hasPrefix("application/json") == true,
              let length = response.body.contentLength, length <= largestTagged else { return response }
        let collector = BodyCollector()
        do { try await response.body.write(collector) } catch { return response }
        let bytes = collector.buffer
        let etag = "\"" + FNV1a.hex(FNV1a.hash(bytes.readableBytesView), digits: 16) + "\""
        var headers = response.headers
        headers[.eTag] = etag
        headers[.cacheControl] = (shared ? "public" : "private") + ", no-cache"
        // Lists and details depend on who asks (private molecules are their owner's).
        headers[.vary] = headers[.vary].map { $0.contains("Authorization") ? $0 : $0 + ", Authorization" } ?? "Authorization"
        if HTTPAnswer.matches(ifNoneMatch, etag) {
            headers[.contentLength] = nil
            headers[.contentType] = nil
            return Response(status: .notModified, headers: headers)
        }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: bytes))
    }

    static var largestTagged: Int { 8 << 20 }

    /// Collects a response's body (a reference, since `write` takes the writer whole).
    final class BodyCollector: ResponseBodyWriter {
        var buffer = ByteBuffer()
        func write(_ buffer: ByteBuffer) async throws {
            var b = buffer
            self.buffer.writeBuffer(&b)
        }
        func finish(_ trailingHeaders: HTTPFields?) async throws {}
    }

    private func answer(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = DispatchTime.now().uptimeNanoseconds
        let path = request.uri.path
        let (route, allowed) = table.route(request.method, path)
        // A browser's preflight, before any token is asked for (it carries none): the methods the path takes.
        if request.method == .options, allowOrigin != nil, request.headers[.origin] != nil, request.headers[.accessControlRequestMethod] != nil,
           !allowed.isEmpty {
            // The origin's own headers are added with every answer's (`handle`).
            var h: HTTPFields = [:]
            if !corsHeaders(request.headers[.origin]).isEmpty {
                h[.accessControlAllowMethods] = (allowed.map(\.rawValue) + ["OPTIONS"]).joined(separator: ", ")
                h[.accessControlAllowHeaders] = "Authorization, Content-Type, If-None-Match, Range"
                h[.accessControlMaxAge] = "600"
            }
            return Response(status: .noContent, headers: h)
        }
        func done(_ status: Int, _ bytes: Int) { record(request.method, path, route: route, status: status, bytes: bytes, since: start) }
        do {
            let caller = try check(route, allowed: allowed, request)
            let client = RequestClient.identity(caller: caller, peer: (context as? any PeerAddressed)?.peerAddress,
                                                forwardedFor: Self.forwardedFor(request.headers), trustedProxies: trustedProxies)
            let response = try await RequestClient.$current.withValue(client) { try await next(request, context) }
            done(Int(response.status.code), response.body.contentLength ?? 0)
            return response
        } catch {
            // Answered here rather than thrown on, so that the log and the metrics count the
            // error's body as sent.
            let answer = (error as? HTTPResponseError) ?? HTTPAnswer.badRequest(error)
            let response = try answer.response(from: request, context: context)
            done(Int(response.status.code), response.body.contentLength ?? 0)
            return response
        }
    }

    /// Throws the answer for a request the table refuses; returns who it comes from (a token's
    /// or a ticket's owner), if anyone.
    private func check(_ route: ServiceRoute?, allowed: [HTTPRequest.Method], _ request: Request) throws -> String? {
        guard let route else {
            let path = request.uri.path
            if !allowed.isEmpty {
                throw HTTPError(.methodNotAllowed, headers: [.allow: allowed.map(\.rawValue).joined(separator: ", ")],
                                message: "\(path) takes \(allowed.map(\.rawValue).joined(separator: ", "))")
            }
            if path.hasPrefix("/v1/") || path == "/v1" { throw HTTPError(.notFound, message: "no route \(path)") }
            return nil
        }
        let needed = route.access == .write || (route.access == .read && auth.tokenToRead)
        var caller: String?
        if route.access != .open {
            caller = try Auth.caller(request, tokens: auth.tokens, tickets: route.access == .read ? auth.tickets : nil, needed: needed)
        }
        for item in request.uri.queryParameters where !route.query.contains(String(item.key)) && !(item.key == "ticket" && route.access == .read) {
            let name = String(item.key), known = route.query.sorted()
            throw HTTPError(.badRequest, message: "\(route.template) takes no parameter \(Excerpt.of(name, length: 40))"
                            + NearMiss.hint(for: name, among: known) + (known.isEmpty ? "" : " (it takes \(known.joined(separator: ", ")))"))
        }
        // Each parameter once, but for those a request repeats by design (show=, one a part).
        var seen = Set<Substring>()
        for item in request.uri.queryParameters where !Self.repeatable.contains(String(item.key)) && !seen.insert(item.key).inserted {
            throw HTTPError(.badRequest, message: "parameter \(Excerpt.of(String(item.key), length: 40)) is given more than once; give it once")
        }
        return caller
    }

    /// The X-Forwarded-For fields of a request, as one list.
    static func forwardedFor(_ headers: HTTPFields) -> String? {
        let values = headers.filter { $0.name.canonicalName == "x-forwarded-for" }.map(\.value)
        return values.isEmpty ? nil : values.joined(separator: ",")
    }

    /// Query parameters a request may give more than once.
    static var repeatable: Set<String> { ["show"] }
}

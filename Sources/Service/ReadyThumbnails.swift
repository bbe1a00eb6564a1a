import Foundation
import NIOHTTPTypes
import Hummingbird
import NIOCore

/// The requests `ReadyThumbnails` may answer on the event loop, and what it needs to answer them
/// as the router would: the thumbnails in memory, what is private, the gate's CORS headers and
/// its metrics and log.
struct ThumbnailShortcut: Sendable {
    let thumbnails: ThumbnailStore
    let access: MoleculeAccess
    let auth: Auth
    let gate: RequestGate<MolshotRequestContext>
    let route: ServiceRoute
    let serverName: String

    /// The answer to `request` where it asks, with no token, ticket or query, for a thumbnail
    /// that anyone may see and that is in memory; nil for every other request (the router's).
    func answer(_ request: HTTPRequest) -> (HTTPResponse.Status, HTTPFields, ByteBuffer?)? {
        guard request.method == .get || request.method == .head, let path = request.path, path.hasPrefix(ThumbnailController.prefix),
              let name = String(path.utf8.dropFirst(ThumbnailController.prefix.utf8.count)) else { return nil }
        // The table's read access: a token needed, or given (then checked), is the router's.
        guard !auth.tokenToRead, request.headerFields[.authorization] == nil,
              ThumbnailController.isName(name),
              // No body (the router reads and drops it), and the connection kept as Hummingbird keeps it.
              request.headerFields[.contentLength].map({ $0 == "0" }) ?? true, request.headerFields[.transferEncoding] == nil,
              request.headerFields[.connection].map({ $0.lowercased() == "keep-alive" }) ?? true,
              access.isOpenToAll(checksum: ThumbnailController.checksum(name)) == true,
              let file = thumbnails.kept(name) else { return nil }
        var (status, headers, body) = ThumbnailController.answer(file, to: request.headerFields)
        gate.addOriginHeaders(&headers, origin: request.headerFields[.origin])
        // As Hummingbird sends them: the body's length (a HEAD's too), none with a 304.
        if status != .notModified { headers[.contentLength] = String(body?.readableBytes ?? 0) }
        headers[.server] = serverName
        if request.method == .head { body = nil }
        return (status, headers, body)
    }
}

/// Answers on the connection's event loop the requests for thumbnails that `ThumbnailShortcut`
/// takes, with the answer the router gives them, without handing each to a task and back: that
/// hand-off was a fifth of the CPU of serving a thumbnail. Every other request passes on as it came.
/// Hummingbird answers pipelined requests in order, one after another, so a request is taken
/// only while none passed on is still unanswered: an answer here never overtakes the router's.
/// And only while the socket takes more: what waits to be sent stays bounded by NIO's watermark.
final class ReadyThumbnails: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let shortcut: ThumbnailShortcut
    /// The answer to the request whose head was taken, sent once its end comes.
    private var pending: (request: HTTPRequest, answer: (HTTPResponse.Status, HTTPFields, ByteBuffer?), start: UInt64)?
    /// Requests passed on to the router whose answers have not ended yet.
    private var unanswered = 0
    private var date = HTTPDate()

    init(_ shortcut: ThumbnailShortcut) { self.shortcut = shortcut }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            let start = DispatchTime.now().uptimeNanoseconds
            // A client that sends and does not read fills the socket: then the router answers,
            // as it writes only what the socket takes and reads no more meanwhile.
            if unanswered == 0, context.channel.isWritable, let answer = shortcut.answer(request) {
                pending = (request, answer, start)
                return
            }
            unanswered += 1
            context.fireChannelRead(data)
        case .body:
            // A request taken has no body; another's passes on.
            if pending == nil { context.fireChannelRead(data) }
        case .end:
            guard let (request, (status, fields, body), start) = pending else {
                context.fireChannelRead(data)
                return
            }
            pending = nil
            var headers = fields
            headers[.date] = date.now()
            context.write(wrapOutboundOut(.head(HTTPResponse(status: status, headerFields: headers))), promise: nil)
            if let body { context.write(wrapOutboundOut(.body(body)), promise: nil) }
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            shortcut.gate.metrics?.eventLoopAnswers.add(1, ordering: .relaxed)
            shortcut.gate.record(request.method, request.path ?? "", route: shortcut.route, status: status.code,
                                 bytes: body?.readableBytes ?? 0, since: start)
        }
    }

    /// The router's answers pass through here (this handler's own do not): each end is one fewer unanswered.
    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data), unanswered > 0 { unanswered -= 1 }
        context.write(data, promise: promise)
    }
}

/// The Date header's value (RFC 9110 5.6.7, IMF-fixdate), made again once a second.
struct HTTPDate {
    private var second = -1
    private var text = ""

    mutating func now() -> String {
        var t = time(nil)
        guard t != second else { return text }
        second = t
        var parts = tm()
        gmtime_r(&t, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"], months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        text = "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
        return text
    }
}

import Core
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore

/// The HTTP server with WebSocket upgrades, each connection given deadlines: its first request
/// head must arrive whole within `headSeconds` (one byte a second, or bytes that are not HTTP,
/// are closed then), its first answer must begin within `answerSeconds` (a head the parser
/// refused is answered by no one else), and a connection that sends nothing for `idleSeconds`
/// between requests is closed.
/// Hummingbird's own idle timeout starts only once the first head is read, for the upgrade
/// decision comes first, so the first deadline is kept here, on the raw bytes.
struct GuardedServerChannel<Inner: ServerChildChannel>: ServerChildChannel {
    let inner: Inner
    let headSeconds: Double
    let answerSeconds: Double
    let clients: ClientConnections

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Inner.Value> {
        // One client's connections are bounded, so its idle sockets cannot take every place.
        // One client's connections are bounded, so its idle sockets cannot take every place: one
        // past the bound is answered 503 and closed (by a handler in front, once it is active).
        if let address = channel.remoteAddress?.ipAddress {
            if clients.open(address) {
                channel.closeFuture.whenComplete { _ in clients.close(address) }
            } else {
                do { try channel.pipeline.syncOperations.addHandler(RefusedConnection(), position: .first) } catch {
                    return channel.eventLoop.makeFailedFuture(error)
                }
            }
        }
        do {
            try channel.pipeline.syncOperations.addHandler(FirstHeadDeadline(headSeconds: headSeconds, answerSeconds: answerSeconds), position: .first)
            try channel.pipeline.syncOperations.addHandler(PeerWatch(), position: .first)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return inner.setup(channel: channel, logger: logger)
    }

    func handle(value: Inner.Value, logger: Logger) async { await inner.handle(value: value, logger: logger) }
}

/// Connections open from each client address, at most `ServiceLimits.connectionsPerClient`.
final class ClientConnections: Sendable {
    private let counts = Locked<[String: Int]>([:])
    let limit: Int

    init(limit: Int = ServiceLimits.connectionsPerClient.value) { self.limit = limit }

    /// Counts a connection from `address`, unless it has `limit` open already.
    func open(_ address: String) -> Bool {
        counts.withLock { o in
            guard o[address, default: 0] < limit else { return false }
            o[address, default: 0] += 1
            return true
        }
    }

    func close(_ address: String) {
        counts.withLock { o in
            let n = o[address, default: 0] - 1
            o[address] = n > 0 ? n : nil
        }
    }
}

/// Answers 503 at once and closes, reading nothing: a connection past its client's bound.
final class RefusedConnection: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    private var answered = false

    func handlerAdded(context: ChannelHandlerContext) { if context.channel.isActive { answer(context) } }
    func channelActive(context: ChannelHandlerContext) { answer(context) }
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

    private func answer(_ context: ChannelHandlerContext) {
        guard !answered else { return }
        answered = true
        var answer = context.channel.allocator.buffer(capacity: 128)
        answer.writeString("HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
        let ctx = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(NIOAny(answer)).whenComplete { _ in ctx.value.close(promise: nil) }
    }
}

/// Closes a connection whose first request head (up to its blank line) has not come whole in
/// `headSeconds` (408), or whose first answer has not begun `answerSeconds` after that (400: the
/// head was not HTTP the server could read, and no handler will ever answer it). A first head
/// whose request line is longer than `ServiceLimits.requestLineBytes` is answered 414 at once,
/// one longer than `ServiceLimits.headBytes` 431, one that is not HTTP/1.0 or 1.1 505, and one
/// with both Content-Length and Transfer-Encoding (a smuggling attempt) 400, as nginx does, rather
/// than waiting for the deadline. After the first answer it only passes bytes on.
final class FirstHeadDeadline: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    let headSeconds: Double
    let answerSeconds: Double
    private var deadline: Scheduled<Void>?
    private var sawHead = false
    /// The first head's bytes so far (at most `ServiceLimits.headBytes`).
    private var head: [UInt8] = []
    private var refused = false

    init(headSeconds: Double, answerSeconds: Double) {
        self.headSeconds = headSeconds
        self.answerSeconds = answerSeconds
    }

    func handlerAdded(context: ChannelHandlerContext) {
        arm(context, seconds: headSeconds, answer: "408 Request Timeout")
    }

    private func arm(_ context: ChannelHandlerContext, seconds: Double, answer status: String) {
        deadline?.cancel()
        let ctx = NIOLoopBound(context, eventLoop: context.eventLoop)
        deadline = context.eventLoop.scheduleTask(in: .nanoseconds(Int64(seconds * 1e9))) {
            let context = ctx.value
            var answer = context.channel.allocator.buffer(capacity: 96)
            answer.writeString("HTTP/1.1 \(status)\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
            context.writeAndFlush(NIOAny(IOData.byteBuffer(answer))).whenComplete { _ in ctx.value.close(promise: nil) }
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) { deadline?.cancel() }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if refused { return }
        if !sawHead {
            let bytes = unwrapInboundIn(data)
            let from = max(0, head.count - 3)
            head.append(contentsOf: bytes.readableBytesView.prefix(ServiceLimits.headBytes.value + 1 - head.count))
            let ended = Self.endsHead(Array(head[from...]))
            if let status = Self.refusal(head, whole: ended) {
                refuse(context, status)
                return
            }
            if ended {
                sawHead = true
                head = []
                arm(context, seconds: answerSeconds, answer: "400 Bad Request")
            }
        }
        context.fireChannelRead(data)
    }

    /// Answers `status` at once and closes; nothing more is read.
    private func refuse(_ context: ChannelHandlerContext, _ status: String) {
        refused = true
        deadline?.cancel()
        deadline = nil
        var answer = context.channel.allocator.buffer(capacity: 96)
        answer.writeString("HTTP/1.1 \(status)\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
        let ctx = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(NIOAny(IOData.byteBuffer(answer))).whenComplete { _ in ctx.value.close(promise: nil) }
    }

    /// The status a first head is refused with at once, if any: `head` is what came so far,
    /// `whole` when it has ended.
    static func refusal(_ head: [UInt8], whole: Bool) -> String? {
        let lineEnd = head.firstIndex(of: 0x0A)
        if (lineEnd ?? head.count) > ServiceLimits.requestLineBytes.value { return "414 URI Too Long" }
        if head.count > ServiceLimits.headBytes.value { return "431 Request Header Fields Too Large" }
        guard whole, let lineEnd else { return nil }
        let line = String(decoding: head[..<lineEnd], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let version = line.split(separator: " ").last, line.split(separator: " ").count == 3 else { return "400 Bad Request" }
        if version != "HTTP/1.1" && version != "HTTP/1.0" {
            return version.hasPrefix("HTTP/") ? "505 HTTP Version Not Supported" : "400 Bad Request"
        }
        let fields = String(decoding: head[lineEnd...], as: UTF8.self).lowercased().split(whereSeparator: \.isNewline)
        let length = fields.contains { $0.hasPrefix("content-length:") }, chunked = fields.contains { $0.hasPrefix("transfer-encoding:") }
        if length && chunked { return "400 Bad Request" }
        return nil
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // The first answer is on its way: the server read the head.
        deadline?.cancel()
        deadline = nil
        context.write(data, promise: promise)
        if sawHead { context.pipeline.syncOperations.removeHandler(self, promise: nil) }
    }

    /// Whether `bytes` hold a blank line (`\r\n\r\n`, or `\n\n` from a lenient client).
    static func endsHead(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 2 else { return false }
        for i in 1..<bytes.count where bytes[i] == 0x0A {
            if bytes[i - 1] == 0x0A { return true }
            if i >= 3 && bytes[i - 1] == 0x0D && bytes[i - 2] == 0x0A && bytes[i - 3] == 0x0D { return true }
        }
        return false
    }
}

/// Tells whoever asks when the client has stopped sending or gone (its end of the connection
/// closed): Hummingbird lets a handler run on after that, and long work should not.
///
/// Sendable without the checker's proof, as NIO's handlers are: its state is touched only on its
/// channel's event loop (NIO calls the handler there, and `whenGone` reaches it through
/// `pipeline.handler(type:)`, whose future completes there).
final class PeerWatch: ChannelInboundHandler, RemovableChannelHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer

    // Touched on the channel's event loop only.
    private var gone = false
    private var waiting: [@Sendable () -> Void] = []

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let e = event as? ChannelEvent, e == .inputClosed { end() }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        end()
        context.fireChannelInactive()
    }

    private func end() {
        gone = true
        let run = waiting
        waiting = []
        run.forEach { $0() }
    }

    /// Calls `body` once the client has gone (at once if it has), on the connection's event loop.
    static func whenGone(_ channel: any Channel, _ body: @escaping @Sendable () -> Void) {
        channel.closeFuture.whenComplete { _ in body() }
        channel.pipeline.handler(type: PeerWatch.self).whenSuccess { watch in
            if watch.gone { body() } else { watch.waiting.append(body) }
        }
    }
}

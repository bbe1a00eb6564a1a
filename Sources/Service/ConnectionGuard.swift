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

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Inner.Value> {
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

extension MolshotService {
    /// The server: HTTP/1.1 with WebSocket upgrades for live sessions, within this server's limits.
    func server() -> HTTPServerBuilder {
        let webSocketResponder = webSocketRouter().buildResponder()
        let idle = TimeAmount.nanoseconds(Int64(configuration.idleSeconds * 1e9))
        let configuration = HTTP1WebSocketUpgradeChannel.Configuration(http1: .init(idleTimeout: idle), ws: .init(maxFrameSize: 1 << 20))
        let headSeconds = self.configuration.headSeconds
        // Long enough for the slowest first answer: a body, then a picture drawn.
        let answerSeconds = self.configuration.headSeconds + self.configuration.bodySeconds + self.configuration.renderSeconds
        return HTTPServerBuilder { responder in
            GuardedServerChannel(inner: HTTP1WebSocketUpgradeChannel(responder: responder, webSocketResponder: webSocketResponder, configuration: configuration),
                                 headSeconds: headSeconds, answerSeconds: answerSeconds)
        }
    }
}

/// Closes a connection whose first request head (up to its blank line) has not come whole in
/// `headSeconds` (408), or whose first answer has not begun `answerSeconds` after that (400: the
/// head was not HTTP the server could read, and no handler will ever answer it). After the first
/// answer it only passes bytes on.
final class FirstHeadDeadline: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    let headSeconds: Double
    let answerSeconds: Double
    private var deadline: Scheduled<Void>?
    private var sawHead = false
    /// The last bytes seen, to find the blank line across reads.
    private var tail: [UInt8] = []

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
        if !sawHead {
            let bytes = unwrapInboundIn(data)
            tail.append(contentsOf: bytes.readableBytesView)
            if Self.endsHead(tail) {
                sawHead = true
                tail = []
                arm(context, seconds: answerSeconds, answer: "400 Bad Request")
            } else if tail.count > 3 {
                tail.removeFirst(tail.count - 3)
            }
        }
        context.fireChannelRead(data)
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

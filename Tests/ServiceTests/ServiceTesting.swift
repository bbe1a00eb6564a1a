import Core
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOEmbedded
@testable import Service

/// The service's routes exercised as Hummingbird's own tests do, without a test framework that
/// brings a TLS stack and an HTTP client into every build: `.router` hands each request straight
/// to the application's responder (its middleware and routes, no socket); `live` runs a router on
/// a port of its own for a client that connects.
enum ServiceTestMode { case router }

/// An answer as a test reads it.
struct TestResponse: Sendable {
    var head: HTTPResponse
    var body: ByteBuffer
    var status: HTTPResponse.Status { head.status }
    var headers: HTTPFields { head.headerFields }
}

protocol TestClientProtocol: Sendable {
    func execute(uri: String, method: HTTPRequest.Method, headers: HTTPFields, body: ByteBuffer?) async throws -> TestResponse
}

extension TestClientProtocol {
    func execute(uri: String, method: HTTPRequest.Method, headers: HTTPFields = [:], body: ByteBuffer? = nil) async throws -> TestResponse {
        try await execute(uri: uri, method: method, headers: headers, body: body)
    }
}

/// Requests handed to a responder in this process, each with a context of its own.
struct RouterClient<Responder: HTTPResponder>: TestClientProtocol where Responder.Context: RequestContext & InitializableFromSource<ApplicationRequestContextSource> {
    let responder: Responder

    func execute(uri: String, method: HTTPRequest.Method, headers: HTTPFields, body: ByteBuffer?) async throws -> TestResponse {
        var headers = headers
        if let body { headers[.contentLength] = String(body.readableBytes) }
        let request = Request(head: HTTPRequest(method: method, scheme: "http", authority: "localhost", path: uri, headerFields: headers),
                              body: RequestBody(buffer: body ?? ByteBuffer()))
        let context = Responder.Context(source: ApplicationRequestContextSource(channel: NIOAsyncTestingChannel(), logger: Logger(label: "molshot-test")))
        let response: Response
        do { response = try await responder.respond(to: request, context: context) } catch {
            // What Hummingbird's server does with an error no middleware answered.
            guard let answer = error as? HTTPResponseError else { return TestResponse(head: HTTPResponse(status: .internalServerError), body: ByteBuffer()) }
            response = try answer.response(from: request, context: context)
        }
        let collector = Collector()
        try await response.body.write(collector)
        var head = response.head
        if head.headerFields[.contentLength] == nil, let length = response.body.contentLength { head.headerFields[.contentLength] = String(length) }
        return TestResponse(head: head, body: method == .head ? ByteBuffer() : collector.bytes.withLock { $0 })
    }

    final class Collector: ResponseBodyWriter, Sendable {
        let bytes = Locked(ByteBuffer())
        func write(_ buffer: ByteBuffer) async throws {
            bytes.withLock { var b = buffer; $0.writeBuffer(&b) }
        }
        func finish(_ trailingHeaders: HTTPFields?) async throws {}
    }
}

extension ApplicationProtocol where Context: RequestContext {
    /// Runs `body` with a client that hands requests to this application's responder in this
    /// process (Hummingbird's `.router` testing).
    func test<T: Sendable>(_ mode: ServiceTestMode, _ body: @escaping @Sendable (any TestClientProtocol) async throws -> T) async throws -> T {
        try await body(RouterClient(responder: try await responder))
    }
}

/// Runs `router` on 127.0.0.1 at a free port for `body` (which connects with a client of its
/// own), then stops it.
func live<T: Sendable>(_ router: Router<MolshotRequestContext>, _ body: @escaping @Sendable (Int) async throws -> T) async throws -> T {
    let (ports, heard) = AsyncStream<Int>.makeStream()
    let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                          onServerRunning: { channel in heard.yield(channel.localAddress?.port ?? 0) })
    return try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await app.runService(); return nil }
        var port = 0
        for await p in ports { port = p; break }
        let value = try await body(port)
        group.cancelAll()
        return value
    }
}

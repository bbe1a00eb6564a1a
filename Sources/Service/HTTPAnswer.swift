import Core
import Foundation
import Hummingbird
import Library
import NIOCore

/// Answers and the reading of a request's parts, the same for every controller; and the one
/// place Molshot's typed errors become HTTP statuses (`badRequest`).
enum HTTPAnswer {
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

    /// A JSON object built as a dictionary (a map's levels and nodes), with sorted keys; a value
    /// JSON cannot hold is the server's error, never an empty answer.
    static func json(object: [String: Any]) throws -> Response {
        guard JSONSerialization.isValidJSONObject(object) else { throw MachineError("an answer held a value JSON cannot hold") }
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return response(Array(data), type: "application/json")
    }

    /// Whether a damaged library was logged already.
    static let corruptionLogged = Locked(false)

    /// A 400 that names the parameter, from the same errors the CLI reports as `--name ...`.
    static func badRequest(_ error: Error) -> HTTPError {
        // An answer made already (a 404 inside a library read, say) goes out as it is.
        if let e = error as? HTTPError { return e }
        if let e = error as? RequestError { return HTTPError(.badRequest, message: "parameter \(e.field) \(e.message)") }
        if let e = error as? PictureError {
            switch e { case .tooLarge: return HTTPError(.contentTooLarge, message: e.description) }
        }
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

    /// A path parameter, percent-decoded (`my%20prot` is `my prot`); one that does not decode, or
    /// holds a NUL or a slash, names nothing here.
    static func path(_ context: MolshotRequestContext, _ name: String) throws -> String {
        let raw = try context.parameters.require(name)
        if !raw.utf8.contains(UInt8(ascii: "%")) { return raw }
        guard let text = raw.removingPercentEncoding, !text.contains("\0"), !text.contains("/") else {
            throw HTTPError(.notFound, message: "no such \(name)")
        }
        return text
    }

    /// Whether an `If-None-Match` value names `etag` (a list, weak forms, or `*`).
    static func matches(_ ifNoneMatch: String?, _ etag: String) -> Bool {
        guard let ifNoneMatch else { return false }
        return ifNoneMatch.split(separator: ",").contains { item in
            let t = item.trimmingCharacters(in: .whitespaces)
            return t == "*" || t == etag || (t.hasPrefix("W/") && t.dropFirst(2) == etag)
        }
    }

    /// A picture as PNG, or in the openBIS image form (JSON with the PNG in base64).
    static func image(_ png: [UInt8], json: Bool) throws -> Response {
        if json {
            struct Image: Encodable { var DATA: Payload }
            struct Payload: Encodable { var BASE64: String; var FORMAT: String }
            return try Self.json(Image(DATA: Payload(BASE64: Data(png).base64EncodedString(), FORMAT: "PNG")))
        }
        return response(png, type: "image/png")
    }

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

/// A deadline that passed first.
struct DeadlinePassed: Error {}

/// A request's body, read up to `--max-body` within `--body-seconds`.
struct BodyReader: Sendable {
    let maxBytes: Int
    let seconds: Double

    /// The request's body, up to the limit (413 past it), not empty (400).
    func bytes(of request: Request, what: String) async throws -> ByteBuffer {
        let limit = maxBytes
        // A length past the limit is refused before a byte is read (a client may never send it).
        if let length = request.headers[.contentLength], (Int(length) ?? Int.max) > limit {
            throw HTTPError(.contentTooLarge, message: "the body is larger than \(limit) bytes")
        }
        let body: ByteBuffer
        do {
            body = try await HTTPAnswer.withDeadline(seconds: seconds) { [request] in
                var request = request
                return try await request.collectBody(upTo: limit)
            }
        } catch is DeadlinePassed {
            throw HTTPError(.requestTimeout, headers: [.connection: "close"], message: "the body did not arrive within \(Int(seconds)) s")
        } catch {
            throw HTTPError(.contentTooLarge, message: "the body is larger than \(limit) bytes")
        }
        guard body.readableBytes > 0 else { throw HTTPError(.badRequest, message: "the body is empty: send \(what)") }
        return body
    }
}

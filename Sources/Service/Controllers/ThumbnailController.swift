import Core
import Foundation
import Hummingbird
import NIOCore

/// The thumbnails `molshot thumbnails` made, served as a static file server serves them.
struct ThumbnailController: ServiceController {
    let auth: Auth
    let access: MoleculeAccess
    let thumbnails: ThumbnailStore

    var routes: [ServiceRoute] {
        [.init(.get, Self.path, .read, query: ["try"]) { r, c in try await thumbnail(r, name: try HTTPAnswer.path(c, "name")) }]
    }

    /// The route's pattern: a name after `prefix`.
    static let prefix = "/v1/thumbnails/"
    static let path = prefix + ":name"

    /// A thumbnail file by name, as a static file server gives it: immutable (its name holds the
    /// structure's checksum and the settings), strong ETag, 304 on If-None-Match, byte ranges.
    /// Not Hummingbird's FileMiddleware: measured in one run (`SERVICE_ONLY=thumbnails bench/run
    /// service`), it served 0.18x nginx's requests/s where this serves 0.48-0.51x (it reads the file
    /// from disk through its thread pool every time), and it answers `Range: bytes=-N` with the
    /// first N+1 bytes, a range past the end with a negative Content-Length, and `W/"x"` in
    /// If-None-Match with 200.
    func thumbnail(_ request: Request, name: String) async throws -> Response {
        guard thumbnails.folder != nil else { throw HTTPError(.notFound, message: "this server serves no thumbnails") }
        guard Self.isName(name) else { throw HTTPError(.notFound, message: "no thumbnail \(name)") }
        // A private molecule's thumbnails are as absent as the molecule.
        let viewer = try auth.viewer(request)
        guard try await access.isVisible(checksum: Self.checksum(name), to: viewer), let file = try await thumbnails.file(name) else {
            throw HTTPError(.notFound, message: "no thumbnail \(name)")
        }
        let (status, headers, body) = Self.answer(file, to: request.headers)
        return Response(status: status, headers: headers, body: body.map { .init(byteBuffer: $0) } ?? .init())
    }

    /// Whether `name` can name a thumbnail: a `.png` of letters, digits and `._-`, not hidden
    /// (checked on bytes: Character properties cost more than the rest of the request).
    static func isName(_ name: String) -> Bool {
        name.hasSuffix(".png") && !name.hasPrefix(".") && name.utf8.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2E || b == 0x5F || b == 0x2D
        }
    }

    /// The checksum of the structure a thumbnail shows: its name's first 16 characters.
    static func checksum(_ name: String) -> String { String(name.prefix(16)) }

    /// The answer to a request with `headers` for a thumbnail at hand (its bytes and ETag): 200,
    /// 304 on If-None-Match, 206 or 416 for a `Range`; its body, if any. What the route and
    /// `ReadyThumbnails` (the event loop's shortcut for the same requests) both send.
    static func answer(_ file: KeptThumbnail, to request: HTTPFields) -> (HTTPResponse.Status, HTTPFields, ByteBuffer?) {
        let buffer = file.bytes, etag = file.etag
        var headers = file.headers
        // If-None-Match compares weakly (RFC 9110 13.1.2): W/"x" matches "x".
        if HTTPAnswer.matches(request[.ifNoneMatch], etag) {
            return (.notModified, headers, nil)
        }
        // If-Range with another validator than ours asks for the whole (RFC 9110 13.1.5).
        if let range = request[.range], request[.ifRange].map({ $0 == etag }) ?? true {
            let length = buffer.readableBytes
            switch Self.byteRange(range, length: length) {
            case .whole:
                break
            case .unsatisfiable:
                headers[.contentRange] = "bytes */\(length)"
                return (.rangeNotSatisfiable, headers, nil)
            case .part(let from, let to):
                headers[.contentRange] = "bytes \(from)-\(to)/\(length)"
                headers[.contentType] = "image/png"
                return (.partialContent, headers, buffer.getSlice(at: buffer.readerIndex + from, length: to - from + 1)!)
            }
        }
        return (.ok, file.whole, buffer)
    }

    /// What a `Range` header asks of a body of `length` bytes, as RFC 9110 14.2 says: one
    /// range `bytes=A-B`, `bytes=A-` or `bytes=-N`, with a last position or suffix past the end
    /// clamped to it (digits past what an Int holds too); unsatisfiable where it starts at or
    /// past the end (or asks for a suffix of 0); and the whole body for what this server does
    /// not serve in parts (other units, several ranges) or cannot read (the header is ignored).
    enum ByteRange: Equatable {
        case whole
        case part(from: Int, to: Int)
        case unsatisfiable
    }

    static func byteRange(_ text: String, length: Int) -> ByteRange {
        let text = text.trimmingCharacters(in: .whitespaces)
        guard text.lowercased().hasPrefix("bytes="), !text.contains(",") else { return .whole }
        let spec = text.dropFirst(6).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard spec.count == 2 else { return .whole }
        func digits(_ s: String) -> Bool { !s.isEmpty && s.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }
        // A number of digits only; past Int's range it is larger than any body.
        func value(_ s: String) -> Int { Int(s) ?? .max }
        if spec[0].isEmpty {
            guard digits(spec[1]) else { return .whole }
            let n = value(spec[1])
            guard n > 0, length > 0 else { return .unsatisfiable }
            return .part(from: length - min(n, length), to: length - 1)
        }
        guard digits(spec[0]), spec[1].isEmpty || digits(spec[1]) else { return .whole }
        let from = value(spec[0])
        let to = spec[1].isEmpty ? Int.max : value(spec[1])
        guard to >= from else { return .whole }
        guard from < length else { return .unsatisfiable }
        return .part(from: from, to: min(to, length - 1))
    }
}

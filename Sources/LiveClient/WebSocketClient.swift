import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A small blocking WebSocket client (RFC 6455) over a TCP socket to 127.0.0.1: the opening
/// handshake, masked text frames out, text, binary (fragmented or not), ping and close frames in.
/// For the tests and `molshot measure-live`, so that they talk to `molshot serve` as any client
/// does, without a TLS stack's build. Sending and receiving may go on on two threads at once.
///
/// Sendable without the checker's proof: sends are serialized by `sending`; `buffer` belongs to
/// the receiving side, which one thread uses at a time (a test's or `measure-live`'s reader).
public final class WebSocketClient: @unchecked Sendable {
    public enum Message: Equatable {
        case text(String)
        case binary([UInt8])
        case close(code: Int, reason: String)
    }

    public struct Refused: Error, CustomStringConvertible {
        public var status: Int
        public var body: String
        public var description: String { "upgrade refused: \(status) \(body)" }
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    private let fd: Int32
    private var buffer: [UInt8] = []
    private let sending = NSLock()

    /// Connects to `ws://127.0.0.1:PORT/PATH` (`url` may be given as http:// too).
    public init(_ url: String, headers: [String: String] = [:]) throws {
        guard let u = URL(string: url), let port = u.port else { throw Failure(description: "bad url \(url)") }
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw Failure(description: "connect to port \(port): errno \(errno)")
        }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        let key = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        var path = u.path.isEmpty ? "/" : u.path
        if let q = u.query { path += "?" + q }
        var request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        request += "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n"
        for (k, v) in headers { request += "\(k): \(v)\r\n" }
        request += "\r\n"
        try write(Array(request.utf8))
        // The response head.
        var head: [UInt8] = []
        while true {
            if let end = find([13, 10, 13, 10]) {
                head = Array(buffer[0..<end])
                buffer.removeFirst(end + 4)
                break
            }
            try fill(timeout: 30)
        }
        let text = String(decoding: head, as: UTF8.self)
        let status = Int(text.split(separator: " ").dropFirst().first ?? "") ?? 0
        if status != 101 {
            // Read what body came with it (Content-Length), for the message.
            let length = text.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
            while buffer.count < length { try fill(timeout: 10) }
            let body = String(decoding: buffer.prefix(length), as: UTF8.self)
            close(fd)
            throw Refused(status: status, body: body)
        }
    }

    deinit { close(fd) }

    public func send(text: String) throws { try sendFrame(opcode: 1, Array(text.utf8)) }

    public func send(binary: [UInt8]) throws { try sendFrame(opcode: 2, binary) }

    /// The next message; throws when none comes within `timeout` seconds.
    public func receive(timeout: Double = 60) throws -> Message {
        var opcode: UInt8 = 0
        var payload: [UInt8] = []
        while true {
            let (fin, op, data) = try frame(timeout: timeout)
            switch op {
            case 9: try sendFrame(opcode: 10, data)  // ping: pong
            case 10: continue
            case 8:
                let code = data.count >= 2 ? Int(data[0]) << 8 | Int(data[1]) : 1005
                return .close(code: code, reason: String(decoding: data.dropFirst(2), as: UTF8.self))
            default:
                if op != 0 { opcode = op }
                payload += data
                if fin { return opcode == 1 ? .text(String(decoding: payload, as: UTF8.self)) : .binary(payload) }
            }
        }
    }

    /// The next text message as a JSON object (binary messages before it are an error).
    public func receiveJSON(timeout: Double = 60) throws -> [String: Any] {
        let m = try receive(timeout: timeout)
        guard case .text(let t) = m, let o = try JSONSerialization.jsonObject(with: Data(t.utf8)) as? [String: Any] else {
            throw Failure(description: "expected a JSON text message, got \(m)")
        }
        return o
    }

    // MARK: Frames

    private func sendFrame(opcode: UInt8, _ data: [UInt8]) throws {
        sending.lock()
        defer { sending.unlock() }
        var out: [UInt8] = [0x80 | opcode]
        if data.count < 126 {
            out.append(0x80 | UInt8(data.count))
        } else if data.count < 65536 {
            out += [0x80 | 126, UInt8(data.count >> 8), UInt8(data.count & 0xFF)]
        } else {
            out.append(0x80 | 127)
            for k in (0..<8).reversed() { out.append(UInt8((data.count >> (8 * k)) & 0xFF)) }
        }
        let mask = (0..<4).map { _ in UInt8.random(in: 0...255) }
        out += mask
        out += data.enumerated().map { $0.element ^ mask[$0.offset & 3] }
        try write(out)
    }

    private func frame(timeout: Double) throws -> (Bool, UInt8, [UInt8]) {
        try need(2, timeout)
        let fin = buffer[0] & 0x80 != 0, op = buffer[0] & 0x0F
        let masked = buffer[1] & 0x80 != 0
        var length = Int(buffer[1] & 0x7F), offset = 2
        if length == 126 {
            try need(4, timeout)
            length = Int(buffer[2]) << 8 | Int(buffer[3])
            offset = 4
        } else if length == 127 {
            try need(10, timeout)
            length = buffer[2..<10].reduce(0) { $0 << 8 | Int($1) }
            offset = 10
        }
        let maskOffset = offset
        if masked { offset += 4 }
        try need(offset + length, timeout)
        var data = Array(buffer[offset..<(offset + length)])
        if masked {
            let mask = Array(buffer[maskOffset..<(maskOffset + 4)])
            for i in data.indices { data[i] ^= mask[i & 3] }
        }
        buffer.removeFirst(offset + length)
        return (fin, op, data)
    }

    private func need(_ n: Int, _ timeout: Double) throws {
        while buffer.count < n { try fill(timeout: timeout) }
    }

    private func fill(timeout: Double) throws {
        var tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = recv(fd, &chunk, chunk.count, 0)
        if n == 0 { throw Failure(description: "the server closed the connection") }
        if n < 0 { throw Failure(description: errno == EAGAIN || errno == EWOULDBLOCK ? "nothing came within \(timeout) s" : "recv: errno \(errno)") }
        buffer += chunk[0..<n]
    }

    private func find(_ pattern: [UInt8]) -> Int? {
        guard buffer.count >= pattern.count else { return nil }
        for i in 0...(buffer.count - pattern.count) where buffer[i] == pattern[0] && Array(buffer[i..<(i + pattern.count)]) == pattern { return i }
        return nil
    }

    private func write(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw Failure(description: "send: errno \(errno)") }
            sent += n
        }
    }
}

import Core
import Foundation
import Gestures
import Library

/// What the service asks of one of its render processes: a case for each kind of request, each
/// with its own payload (and a blob beside it on the pipe: a structure file, an event file, an
/// event line). On the pipe: the length of the rest (UInt32, little endian), the head's length
/// (UInt32), the head as JSON, the blob.
enum ProcessOrder: Codable, Sendable {
    /// Draw a picture: `library`, or the uploaded file in the blob (`name`).
    case image(id: UInt64, ImageOrder)
    /// Read the file in the blob for the library, as an import does.
    case prepare(id: UInt64, name: String, seconds: Double)
    /// Replay the event file in the blob.
    case replay(id: UInt64, ReplayOrder)
    /// Open live session `session`.
    case open(session: String, SessionOrder)
    /// One line of a session's events (the blob).
    case event(session: String)
    /// The session has ended.
    case close(session: String)

    struct ImageOrder: Codable, Sendable {
        /// The query's picture options, as name and value pairs (checked already).
        var settings: [[String]]
        var library: Int?
        var name: String?
        /// Seconds the work may take (the service's `--render-seconds`); past them the process
        /// stops it, as the service has answered 503 by then.
        var seconds: Double?
    }

    struct ReplayOrder: Codable, Sendable {
        var settings: [[String]]
        var fps: Double?
        /// A movie's format (mp4, webm, gif); nil: an animated PNG.
        var movie: String?
        var maxSide: Int
        var seconds: Double
        var library: Int?
    }

    struct SessionOrder: Codable, Sendable {
        var library: Int
        var settings: [[String]]
        var record: Bool
        /// The frames' format and quality asked for (`frames=`, `quality=`); nil: PNG.
        var format: String?
        var quality: Int?
        /// The largest side a `resize` may ask for.
        var maxSide: Int
    }
}

/// What a render process answers: a case for each kind of answer, each checked by the service
/// where it is read (`checked()`) before anything uses it.
enum ProcessAnswer: Codable, Sendable {
    /// Request `id` done: the picture, replay or movie is the blob.
    case done(id: UInt64)
    /// Request `id` or session `session` refused with this HTTP status and message.
    case failed(id: UInt64, status: Int, message: String)
    /// The import of request `id` prepared: the compact model and original are the blob.
    case prepared(id: UInt64, MoleculeLibrary.PreparedImport.Wire)
    /// Session `session` is open.
    case opened(session: String)
    case refused(session: String, status: Int, message: String)
    /// A session's frame (the blob) with what it shows.
    case frame(session: String, FrameHead)
    /// A session's line that was not taken, or a frame not drawn.
    case error(session: String, line: Int, message: String)
    /// A recorded session took this line (the blob).
    case took(session: String)
    /// A tap in a session; the picked atom as JSON in the blob (empty for none).
    case tap(session: String, TapHead)

    struct FrameHead: Codable, Sendable {
        var events: Int
        var time: Double
        var mode: String
        var caption: String?
        var drawn: String?
        var format: String
        var facts: FrameFacts
        /// Drawn at less detail while the view moves.
        var moving: Bool
    }

    struct TapHead: Codable, Sendable {
        var time: Double
        var line: Int
        var x: Double
        var y: Double
        var hover: Bool
    }

    /// Longest message kept from a process (an error's words).
    static let messageBytes = 4096

    /// The answer if what it says can be used as it is: a status that is an HTTP error, frame
    /// sizes within the largest side, counts and times that are numbers, messages cut to
    /// `messageBytes`; nil for one that is not (a faulty process's, which is then dropped).
    func checked(maxSide: Int = 1 << 15) -> ProcessAnswer? {
        func cut(_ text: String) -> String { text.utf8.count <= Self.messageBytes ? text : String(decoding: text.utf8.prefix(Self.messageBytes), as: UTF8.self) }
        switch self {
        case .failed(let id, let status, let message):
            guard (400..<600).contains(status) else { return nil }
            return .failed(id: id, status: status, message: cut(message))
        case .refused(let session, let status, let message):
            guard (400..<600).contains(status) else { return nil }
            return .refused(session: session, status: status, message: cut(message))
        case .frame(_, let head):
            guard head.events >= 0, head.time.isFinite, (0...maxSide).contains(head.facts.width), (0...maxSide).contains(head.facts.height),
                  head.facts.view.map({ $0.allSatisfy(\.isFinite) }) ?? true, head.facts.marks.allSatisfy({ $0.allSatisfy(\.isFinite) }) else { return nil }
            return self
        case .error(let session, let line, let message):
            return .error(session: session, line: max(0, line), message: cut(message))
        case .tap(_, let head):
            guard head.time.isFinite, head.x.isFinite, head.y.isFinite, head.line >= 0 else { return nil }
            return self
        case .done, .prepared, .opened, .took:
            return self
        }
    }
}

/// Both ends of a message pipe: `send` from any thread, `receive` on one.
final class WorkerPipe: Sendable {
    let input: Int32
    let output: Int32
    private let writing = NSLock()
    static let largest = 1 << 30

    init(input: Int32, output: Int32) {
        _ = WorkerPipe.brokenPipesAreErrors
        self.input = input
        self.output = output
    }

    /// A write to a pipe whose reader has gone (a render process killed, the service gone) returns
    /// EPIPE, which `send` reports as false, instead of raising SIGPIPE, which ends the writing
    /// process: the service itself, where a render process died between a request and its send.
    /// Process-wide, set once with the first pipe (the service's HTTP sockets already send
    /// without the signal).
    private static let brokenPipesAreErrors: Void = { signal(SIGPIPE, SIG_IGN) }()

    /// Writes one message whole (false once the other end has gone).
    @discardableResult
    func send<Head: Encodable>(_ head: Head, _ blob: [UInt8] = []) -> Bool {
        BlockingCheck.blocking("WorkerPipe.send")
        guard let json = try? JSONEncoder().encode(head) else { return false }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(8 + json.count + blob.count)
        func put(_ n: Int) { withUnsafeBytes(of: UInt32(n).littleEndian) { bytes.append(contentsOf: $0) } }
        put(4 + json.count + blob.count)
        put(json.count)
        bytes.append(contentsOf: json)
        bytes.append(contentsOf: blob)
        return writing.withLock {
            bytes.withUnsafeBytes { raw in
                var done = 0
                while done < raw.count {
                    let n = write(output, raw.baseAddress! + done, raw.count - done)
                    if n < 0 && errno == EINTR { continue }
                    guard n > 0 else { return false }
                    done += n
                }
                return true
            }
        }
    }

    /// The next message, or nil at the end of the pipe (or on a message that is not one).
    func receive<Head: Decodable>(_ type: Head.Type) -> (Head, [UInt8])? {
        BlockingCheck.blocking("WorkerPipe.receive")
        guard let size = readCount(), size >= 4, size <= Self.largest, let all = read(size) else { return nil }
        let headLength = all.withUnsafeBytes { Int(UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self))) }
        guard headLength <= size - 4, let head = try? JSONDecoder().decode(Head.self, from: Data(all[4..<(4 + headLength)])) else {
            return nil
        }
        return (head, Array(all[(4 + headLength)...]))
    }

    private func readCount() -> Int? {
        guard let four = read(4) else { return nil }
        return four.withUnsafeBytes { Int(UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self))) }
    }

    private func read(_ count: Int) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: count)
        var done = 0
        let ok = out.withUnsafeMutableBytes { raw -> Bool in
            while done < count {
                let n = Glibc.read(input, raw.baseAddress! + done, count - done)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return false }
                done += n
            }
            return true
        }
        return ok ? out : nil
    }
}

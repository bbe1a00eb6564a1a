import Core
import Foundation
import Gestures
import Library

/// A message between the service and one of its render processes: a small JSON head and a blob
/// (a structure file, a PNG, an event line). On the pipe: the length of the rest (UInt32, little
/// endian), the head's length (UInt32), the head, the blob.
struct WorkerMessage: Codable, Sendable {
    enum Kind: String, Codable, Sendable {
        /// Service to process: draw a picture (`settings`, and `library` or an upload in the blob).
        case image
        /// Process to service: the picture of `id` (the blob), or `status` and `message`.
        case result
        /// Service to process: open live session `session` on molecule `library`.
        case open
        /// Process to service: the session is open, or `status` and `message` say why not.
        case opened
        /// Service to process: one line of a session's events (the blob).
        case event
        /// Service to process: the session has ended.
        case close
        /// Process to service: a session's frame (the blob) with what it shows.
        case frame
        /// Process to service: a session's line that was not taken, or a frame not drawn.
        case error
        /// Process to service: a recorded session took this line (the blob).
        case took
        /// A tap in a session: `time`, `line`, `point`, and the picked atom as JSON in the blob (empty for none).
        case tap
        /// Service to process: read the file in the blob (`name`) for the library, as an import does.
        case prepare
        /// Service to process: replay the event file in the blob (`settings`, `fps`, `format` for a
        /// movie, `maxSide`, `seconds`, and `library` for its molecule); answered by a `result`.
        case replay
        /// Process to service: the import of `id` prepared (`prepared`, and the compact model and
        /// original in the blob), or `status` and `message`.
        case prepared
    }

    var kind: Kind
    var id: UInt64 = 0
    var session: String?
    /// The query's picture options, as name and value pairs.
    var settings: [[String]]?
    var library: Int?
    var name: String?
    var record: Bool?
    var status: Int?
    var message: String?
    var line: Int?
    var events: Int?
    var time: Double?
    /// A replay's frame rate (`replay`).
    var fps: Double?
    /// Seconds the work of an `image` may take (the service's `--render-seconds`); past them the
    /// process stops it, as the service has answered 503 by then.
    var seconds: Double?
    var mode: String?
    var caption: String?
    var point: [Double]?
    var drawn: String?
    /// A session's frames: the format asked for (`open`) or sent (`frame`), and the quality asked for.
    var format: String?
    var quality: Int?
    /// The largest side a session's `resize` may ask for (`open`).
    var maxSide: Int?
    /// A frame's size, camera and marked points.
    var facts: FrameFacts?
    /// A tap that is a hover.
    var hover: Bool?
    /// A frame drawn at less detail while the view moves.
    var moving: Bool?
    /// An import prepared from a file (`prepared`).
    var prepared: MoleculeLibrary.PreparedImport.Wire?

    init(_ kind: Kind, id: UInt64 = 0, session: String? = nil) {
        self.kind = kind
        self.id = id
        self.session = session
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
    func send(_ head: WorkerMessage, _ blob: [UInt8] = []) -> Bool {
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
    func receive() -> (WorkerMessage, [UInt8])? {
        BlockingCheck.blocking("WorkerPipe.receive")
        guard let size = readCount(), size >= 4, size <= Self.largest, let all = read(size) else { return nil }
        let headLength = all.withUnsafeBytes { Int(UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self))) }
        guard headLength <= size - 4, let head = try? JSONDecoder().decode(WorkerMessage.self, from: Data(all[4..<(4 + headLength)])) else {
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

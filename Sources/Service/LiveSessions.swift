import Core
import Foundation
import Gestures
import Graphics
import Hummingbird
import HummingbirdWebSocket
import Imaging
import Library
import PathwayModel
import Pathways
import MoleculeView
import NIOCore
import Structure

/// The live sessions open now and the recordings of those that asked (`record=1`), by id. Closed
/// sessions' recordings are kept for `keptSeconds`, and at most `keptBytes` of them (the oldest go
/// first), so that recording sessions cannot fill the server's memory.
final class LiveSessions: Sendable {
    struct State {
        /// Sessions by id; nil while one is being opened (its place is taken all the same).
        var open: [String: (any LiveView)?] = [:]
        var recordings: [String: (text: String, closed: Double)] = [:]
        var recordingOrder: [String] = []
        var recordingBytes = 0
    }

    let state = Locked(State())
    static let keptSeconds = 3600.0
    static let keptBytes = ServiceLimits.keptRecordingBytes.value

    var count: Int { state.withLock { $0.open.count } }

    /// Takes a place for session `id` unless `limit` are open or being opened: asked before the
    /// session is made anywhere (here or in a render process), so a refusal has nothing to undo.
    /// Every place taken is given back by `close(id)`, whatever happens in between.
    func reserve(_ id: String, limit: Int) -> Bool {
        state.withLock { s in
            guard s.open.count < limit else { return false }
            s.open[id] = .some(nil)
            return true
        }
    }

    /// The session made for a place `reserve` took.
    func attach(_ id: String, _ session: any LiveView) {
        state.withLock { $0.open[id] = .some(session) }
    }

    /// Gives back the place of session `id` and keeps its recording, if it made one.
    func close(_ id: String) {
        state.withLock { s in
            guard let kept = s.open.removeValue(forKey: id), let session = kept, let recording = session.recording else { return }
            s.recordings[id] = (recording, Self.now())
            s.recordingOrder.append(id)
            s.recordingBytes += recording.utf8.count
            Self.forget(&s)
        }
    }

    /// The events a recorded session took so far (it may be open still).
    func recording(_ id: String) -> String? {
        state.withLock { s in
            Self.forget(&s)
            return (s.open[id] ?? nil)?.recording ?? s.recordings[id]?.text
        }
    }

    /// Drops recordings past their time, and the oldest past the byte bound.
    private static func forget(_ s: inout State) {
        let now = Self.now()
        while let first = s.recordingOrder.first, let kept = s.recordings[first],
              now - kept.closed > keptSeconds || s.recordingBytes > keptBytes {
            s.recordingOrder.removeFirst()
            s.recordingBytes -= kept.text.utf8.count
            s.recordings.removeValue(forKey: first)
        }
    }

    static func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
}

/// What waits to be sent to one session's client, bounded: one frame at most waits (a newer
/// frame takes the place of one not yet sent, so a client that reads slowly gets the newest
/// view, not a backlog), and other messages (errors, taps) up to `messages` of them and `bytes`
/// in all, each error cut to `messageBytes`; past that they are dropped, so a client that does
/// not read cannot make the server keep what it does not take.
final class SendBacklog: Sendable {
    static let messages = ServiceLimits.sessionBacklogMessages.value
    static let bytes = ServiceLimits.sessionBacklogBytes.value
    static let messageBytes = 1024
    private let waiting = Locked<(frame: LiveOutput?, messages: Int, bytes: Int)>((nil, 0, 0))

    /// What to queue for `output`, nil when nothing is (a frame joins only where none waits, else
    /// it replaces the waiting one, which is already queued; a message past the bounds is dropped).
    func admit(_ output: LiveOutput) -> LiveOutput? {
        let output = Self.cut(output)
        return waiting.withLock { w in
            if case .frame = output {
                defer { w.frame = output }
                return w.frame == nil ? output : nil
            }
            let size = Self.size(output)
            guard w.messages < Self.messages, w.bytes + size <= Self.bytes else { return nil }
            w.messages += 1
            w.bytes += size
            return output
        }
    }

    /// What to send for `output` taken from the queue: for a frame, the newest one.
    func take(_ output: LiveOutput) -> LiveOutput {
        waiting.withLock { w in
            if case .frame = output {
                defer { w.frame = nil }
                return w.frame ?? output
            }
            w.messages -= 1
            w.bytes -= Self.size(output)
            return output
        }
    }

    /// An error's message cut to `messageBytes` (whole characters).
    static func cut(_ output: LiveOutput) -> LiveOutput {
        guard case .error(let line, let message) = output, message.utf8.count > messageBytes else { return output }
        var out = "", count = 0
        for c in message {
            let n = String(c).utf8.count
            if count + n > messageBytes - 4 { break }
            out.append(c)
            count += n
        }
        return .error(line: line, message: out + " ...")
    }

    /// The bytes a message holds while it waits (its text, and a little for the rest).
    static func size(_ output: LiveOutput) -> Int {
        switch output {
        case .frame: return 0
        case .error(_, let message): return message.utf8.count + 32
        case .tapped(let tap): return 256 + (tap.node.map { $0.id.utf8.count + $0.name.utf8.count + $0.kind.utf8.count + $0.label.utf8.count } ?? 0)
            + (tap.atom.map { $0.chain.utf8.count + $0.entity.utf8.count + $0.residueName.utf8.count + $0.atomName.utf8.count + 64 } ?? 0)
        }
    }
}

/// The event lines one live session has taken and not yet applied, bounded by count and bytes
/// (`session lines waiting`, `session bytes waiting`): past them a line is dropped, so a client that
/// sends faster than its frames are drawn (a megabyte message of a million tiny lines) cannot fill
/// the memory of the server or of the render process that its neighbours' sessions share. The first
/// line dropped after one taken is told (one error a burst, not one a line).
final class WaitingLines: Sendable {
    static let lines = ServiceLimits.sessionLinesWaiting.value
    static let bytes = ServiceLimits.sessionBytesWaiting.value
    private let waiting = Locked<(lines: Int, bytes: Int, told: Bool)>((0, 0, false))

    /// Whether a line of `size` bytes is taken (give its room back with `done(size)` once it is
    /// applied); where it is dropped as the first of a burst, `tell` is given the message to say.
    func admit(_ size: Int, tell: (String) -> Void) -> Bool {
        let first: Bool? = waiting.withLock { w in
            guard w.lines < Self.lines, w.bytes + size <= Self.bytes else {
                defer { w.told = true }
                return !w.told
            }
            w.lines += 1
            w.bytes += size
            w.told = false
            return nil
        }
        guard let first else { return true }
        if first { tell(Self.droppedMessage) }
        return false
    }

    func done(_ size: Int) {
        waiting.withLock { w in
            w.lines -= 1
            w.bytes -= size
        }
    }

    /// What the client is told of a burst of dropped lines.
    static let droppedMessage = "event lines were dropped: this session had \(lines) lines (or \(bytes >> 10) KiB) waiting to be applied "
        + "(session lines waiting); send them as the frames come"
}

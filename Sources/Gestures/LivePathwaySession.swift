import Foundation
import Graphics
import Imaging
import Pathways

/// A live view of a pathway map: event lines in, frames and taps out, as `LiveSession` does for
/// molecules and with the gestures of `replay --pathway` (`PathwayReplay`). The lines that come
/// while the render thread is busy are taken together in its next turn, which draws one frame of
/// where they leave the view: coalesced, so a flood costs frames, never a queue.
public final class LivePathwaySession: LiveView, @unchecked Sendable {
    public let source: String
    private let map: PathwayMap
    private let width: Int
    private let height: Int
    private let theme: PathwayTheme
    private let lane: RenderLane<PathwayRenderer>
    private let send: @Sendable (LiveSession.Output) -> Void
    private let lock = NSLock()
    private var pending: [String] = []
    private var scheduled = false
    private var closed = false
    private var events = 0
    private var recorded: EventRecording?
    private var sawHeader = false
    /// Made and used on the render thread only.
    private var replay: PathwayReplay?
    private var lastShown: (MapView, String?)?
    private let finisher = DispatchQueue(label: "molshot-live-pathway-finish")

    public init(source: String = "session", map: PathwayMap, width: Int, height: Int, theme: PathwayTheme, lane: RenderLane<PathwayRenderer>,
                record: Bool = false, send: @escaping @Sendable (LiveSession.Output) -> Void) {
        self.source = source
        self.map = map
        self.width = width
        self.height = height
        self.theme = theme
        self.lane = lane
        self.send = send
        recorded = record ? EventRecording() : nil
    }

    public var recording: String? {
        lock.withLock { recorded?.text }
    }

    public func receive(_ line: String) {
        lock.lock()
        guard !closed else {
            lock.unlock()
            return
        }
        pending.append(line)
        let start = !scheduled
        scheduled = true
        lock.unlock()
        if start { turn() }
    }

    public func close() { lock.withLock { closed = true } }

    /// One turn on the render thread: every line waiting, then a frame where the view changed.
    private func turn() {
        lane.submit({ [self] renderer in
            let lines: [String] = lock.withLock {
                defer { pending = [] }
                return pending
            }
            if replay == nil {
                replay = PathwayReplay(map: map, source: source, width: width, height: height, theme: theme, renderer: renderer, fps: nil)
            }
            let replay = replay!
            var asked = false
            for line in lines {
                do {
                    var taps: [PathwayReplay.Tap] = []
                    try replay.feed(line, emit: { _, _ in asked = true }, tapped: { taps.append($0) })
                    if line.trimmingCharacters(in: .whitespaces).isEmpty { continue }
                    lock.withLock {
                        recorded?.append(line)
                        // The first line taken is the header; the rest are events.
                        if sawHeader { events += 1 }
                        sawHeader = true
                    }
                    for t in taps { send(.tapped(t)) }
                } catch {
                    let e = error as? GestureFileError
                    send(.error(line: e?.line ?? 0, message: e?.message ?? "\(error)"))
                }
            }
            let state = (replay.view, replay.selected)
            let changed = lastShown == nil || lastShown!.0 != state.0 || lastShown!.1 != state.1
            if (changed || asked) && !lock.withLock({ closed }) {
                lastShown = state
                let frame = try replay.currentFrame()
                let shown = lock.withLock { events }, time = replay.time
                finisher.async { [self] in
                    do {
                        let png = try PNGEncoder.flat.encode(try frame.finished())
                        send(.frame(LiveSession.Frame(png: png, events: shown, time: time, mode: "pathway", caption: nil)))
                    } catch {
                        send(.error(line: 0, message: "\(error)"))
                    }
                }
            }
            next()
        }, failed: { [self] error in
            send(.error(line: 0, message: "\(error)"))
            next()
        })
    }

    private func next() {
        lock.lock()
        let again = !pending.isEmpty && !closed
        scheduled = again
        lock.unlock()
        if again { DispatchQueue.global().async { [self] in turn() } }
    }
}

import Core
import Foundation
import Graphics
import Imaging

/// What the service holds of a live view, molecule or pathway.
public protocol LiveView: AnyObject, Sendable {
    /// Takes one line of the event format.
    func receive(_ line: String)
    /// Stops drawing.
    func close()
    /// The lines taken so far as an event file, when recording.
    var recording: String? { get }
}

/// A frame a live view sent out, with what it shows.
public struct LiveFrame: Sendable {
    /// The picture, encoded as `format` says (png, jpeg, webp).
    public var image: [UInt8]
    public var format: String
    /// How many event lines (the header not counted) the frame shows the effect of.
    public var events: Int
    /// The `t` of the last of them.
    public var time: Double
    public var mode: String
    public var caption: String?
    /// What `auto` drew, where the mode is `auto`.
    public var drawn: String?
    /// Its size, camera and marked points.
    public var facts: FrameFacts
    /// Drawn coarser while the view moves (`LevelOfDetail`); a full frame of the same events follows when it stops.
    public var moving = false

    public init(image: [UInt8], format: String = "png", events: Int, time: Double, mode: String, caption: String?, drawn: String? = nil,
                facts: FrameFacts = FrameFacts(width: 0, height: 0)) {
        self.image = image
        self.format = format
        self.facts = facts
        self.events = events
        self.time = time
        self.mode = mode
        self.caption = caption
        self.drawn = drawn
    }
}

/// What a live view sends out.
public enum LiveOutput: Sendable {
    case frame(LiveFrame)
    /// A line that could not be taken (the session goes on without it), or a frame that could not be drawn.
    case error(line: Int, message: String)
    /// A tap on a map, with the node it hit (if any).
    case tapped(Tap)
}

/// A live view of a molecule or a map: the lines of a gesture event file come in one at a time
/// (header first, exactly as in a file, `t` from the client's clock) and frames go out as the view
/// changes. Frames are coalesced: a session has at most one frame waiting for the render thread,
/// and that frame takes the view as it is when its turn comes, not when it was asked for; one is
/// drawn while the one before is finished (smoothed, encoded), and where finishing is the slower
/// part its drawing is put off until it would be done just as the finisher is free. So the render
/// thread draws back to back while events come, a flood of events costs frames, never a queue, and
/// an event is shown within a few frame times. The frame after a `frame` event shows what a
/// replay of the same lines draws at that event, pixel for pixel. Transport-free: the service
/// wires it to a WebSocket.
///
/// Sendable without the checker's proof: every mutable field is read and written under `lock`;
/// the driver is used under it or on the render thread by a job the session hands over whole
/// (at most one is queued, `queued`), and `taken` is called under the lock.
public final class LiveSession<Driver: ViewDriver>: LiveView, @unchecked Sendable {
    public let source: String
    private let lock = NSLock()
    private var reader: GestureEventReader
    private var driver: Driver?
    private let makeDriver: Replay<Driver>.MakeDriver
    private let lane: RenderLane<Driver.Renderer>
    private let encoder: FrameEncoder
    private let matte: Color
    private let send: @Sendable (LiveOutput) -> Void
    private var events = 0
    private var lastTime = 0.0
    /// A frame is waiting for the render thread.
    private var queued = false
    /// Frames drawn and not yet sent.
    private var finishing = 0
    /// Finishing in order, one frame at a time.
    private let finisher = SerialJobs()
    /// Running means of the seconds a frame takes to draw and to finish, and when (uptime seconds)
    /// the finisher should be done with the frames handed to it.
    private var drawSeconds = 0.0
    private var finishSeconds = 0.0
    private var finisherFree = 0.0
    private var dirty = false
    private var closed = false
    /// When (uptime seconds) an event last changed the view; frames drawn within
    /// `LevelOfDetail.stillAfter` of it are `.moving`.
    private var lastChange = -Double.infinity
    private var recorded: EventRecording?
    private let taken: ((String) -> Void)?

    /// `send` gets frames (in order, one at a time), taps and errors, from whichever thread has
    /// them. With `record`, the lines taken are kept (`recording`) as an event file; `taken` hears
    /// each line taken (the header too), for a recording kept elsewhere. `driver` makes the view
    /// when the header comes.
    public init(source: String = "session", encoder: FrameEncoder, matte: Color = .white, lane: RenderLane<Driver.Renderer>, record: Bool = false,
                taken: ((String) -> Void)? = nil, send: @escaping @Sendable (LiveOutput) -> Void,
                driver: @escaping Replay<Driver>.MakeDriver) {
        self.source = source
        self.lane = lane
        self.send = send
        self.encoder = encoder
        self.matte = matte
        self.taken = taken
        makeDriver = driver
        reader = GestureEventReader(source: source)
        recorded = record ? EventRecording() : nil
    }

    /// The lines taken so far (header first) as an event file, when recording.
    public var recording: String? {
        lock.withLock { recorded?.text }
    }

    /// Takes one line of the event format. A bad line is answered with an error and left out.
    public func receive(_ line: String) {
        lock.lock()
        var taps: [Tap] = []
        let outcome: Result<Void, Error> = Result {
            guard !closed else { return }
            guard let event = try reader.read(line) else {
                if driver == nil && reader.viewport.width > 0 {
                    driver = try makeDriver(reader.viewport, lane)
                    recorded?.append(line)
                    taken?(line)
                    dirty = true
                }
                return
            }
            guard let driver else { throw GestureFileError(file: source, line: event.line, message: "event before the header") }
            let effect = try driver.apply(event, source: source)
            events += 1
            lastTime = event.time
            recorded?.append(line)
            taken?(line)
            taps = effect.taps
            if effect.changed || effect.wantsFrame {
                dirty = true
                lastChange = now()
            }
        }
        let go = schedule()
        lock.unlock()
        for tap in taps { send(.tapped(tap)) }
        if case .failure(let error) = outcome {
            let line = (error as? GestureFileError)?.line ?? 0
            let message = (error as? GestureFileError)?.message ?? "\(error)"
            send(.error(line: line, message: message))
        }
        // Handed to the render thread from another thread: a full queue waits there, not here.
        if go { BlockingPool.shared.submit { [self] in submitFrame() } }
    }

    /// Stops drawing; a frame under way is dropped.
    public func close() {
        lock.withLock { closed = true }
    }

    /// Whether a frame is to be queued now (under the lock): something changed, none waits, and
    /// the finisher is not two frames behind.
    private func schedule() -> Bool {
        guard dirty, !queued, finishing < 2, !closed, driver != nil else { return false }
        queued = true
        return true
    }

    /// Queues a frame on the render thread; it takes the scene when its turn comes.
    private func submitFrame() {
        lane.submit({ [self] renderer in
            lock.lock()
            queued = false
            guard dirty, !closed, let driver else {
                lock.unlock()
                return
            }
            // Where finishing is the slower part, a frame drawn now would wait for the finisher:
            // drawn a little later, it shows later events and is not late for it.
            let start = now(), wait = finisherFree - drawSeconds - start
            if finishing > 0 && finishSeconds > drawSeconds && wait > 0.0005 {
                queued = true
                lock.unlock()
                BlockingPool.shared.submit(after: wait) { [self] in submitFrame() }
                return
            }
            dirty = false
            let moving = start - lastChange < LevelOfDetail.stillAfter
            let taken = Result { try driver.frameJob(detail: moving ? .moving : .full) }
            let shown = (events: events, time: lastTime, mode: driver.mode.name, caption: driver.caption, drawn: driver.drawn, facts: driver.facts)
            lock.unlock()
            let frame = try taken.get().draw(renderer)
            let drawn = now()
            // A coarse frame is followed by the full one once the view has been still long enough.
            if frame.isCoarse { refine(after: shown.events) }
            lock.withLock {
                finishing += 1
                drawSeconds = drawSeconds == 0 ? drawn - start : drawSeconds * 0.8 + (drawn - start) * 0.2
                finisherFree = max(finisherFree, drawn) + finishSeconds
            }
            // Smoothing, caption and encoding off the render thread, which goes on with the next frame
            // or other sessions; the next frame is queued from another thread too (never from the
            // render thread, which must not wait for room in its own queue).
            finisher.submit { [self] in
                let started = now()
                do {
                    // In bands on every core: a live frame's delay counts, more than the work.
                    let finished = try frame.finished(bands: Cores.active)
                    let image = try (frame.isCoarse ? encoder.forMovingFrames : encoder).encode(finished, matte: matte)
                    if !lock.withLock({ closed }) {
                        var out = LiveFrame(image: image, format: encoder.name, events: shown.events, time: shown.time, mode: shown.mode,
                                            caption: shown.caption, drawn: shown.drawn, facts: shown.facts)
                        out.moving = frame.isCoarse
                        send(.frame(out))
                    }
                } catch {
                    send(.error(line: 0, message: "\(error)"))
                }
                let took = now() - started
                lock.withLock {
                    finishing -= 1
                    finishSeconds = finishSeconds == 0 ? took : finishSeconds * 0.8 + took * 0.2
                    if finishing == 0 { finisherFree = now() }
                }
                queueNext()
            }
            BlockingPool.shared.submit { [self] in queueNext() }
        }, failed: { [self] error in
            send(.error(line: 0, message: "\(error)"))
            lock.withLock { queued = false }
        })
    }

    private func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    /// After a coarse frame showing `events`: when no event has come for `LevelOfDetail.stillAfter`
    /// seconds, the same view again at full detail (a later event's frame makes this one moot).
    private func refine(after events: Int) {
        BlockingPool.shared.submit(after: LevelOfDetail.stillAfter + 0.01) { [self] in
            let go = lock.withLock { () -> Bool in
                // No event since: the view has been still for longer than stillAfter (the timer's delay).
                guard !closed, self.events == events else { return false }
                dirty = true
                return schedule()
            }
            if go { submitFrame() }
        }
    }

    private func queueNext() {
        if lock.withLock({ schedule() }) { submitFrame() }
    }
}

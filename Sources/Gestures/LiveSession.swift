import Foundation
import Graphics
import MoleculeView
import Scene
import Structure

/// What the service holds of a live view, molecule or pathway.
public protocol LiveView: AnyObject, Sendable {
    /// Takes one line of the event format.
    func receive(_ line: String)
    /// Stops drawing.
    func close()
    /// The lines taken so far as an event file, when recording.
    var recording: String? { get }
}

/// A live view of a molecule: the lines of a gesture event file come in one at a time (header
/// first, exactly as in a file, `t` from the client's clock) and frames go out as the view changes.
/// Frames are coalesced: at most one is being drawn and one finished (smoothed, encoded; the two
/// overlap, as in a replay), and the next to be drawn shows the newest state, however many events
/// came meanwhile; so a flood of events costs frames, never a queue, and the delay from an event
/// to a frame that shows it stays within a few frame times. The frame after a `frame` event shows what a replay of the same lines draws at
/// that event, pixel for pixel. Transport-free: the service wires it to a WebSocket.
public final class LiveSession: LiveView, @unchecked Sendable {
    /// A frame sent out, with what it shows.
    public struct Frame: Sendable {
        public var png: [UInt8]
        /// How many event lines (the header not counted) the frame shows the effect of.
        public var events: Int
        /// The `t` of the last of them.
        public var time: Double
        public var mode: String
        public var caption: String?
    }

    public enum Output: Sendable {
        case frame(Frame)
        /// A line that could not be taken (the session goes on without it), or a frame that could not be drawn.
        case error(line: Int, message: String)
        /// A tap on a pathway map, with the node it hit (if any).
        case tapped(PathwayReplay.Tap)
    }

    public let source: String
    private let lock = NSLock()
    private var reader: GestureEventReader
    private var session: ReplaySession?
    private let options: ReplaySession.Options
    private let molecule: Structure?
    private let lane: RenderLane<MoleculeRenderer>
    private let encoder: PNGEncoder
    private let send: @Sendable (Output) -> Void
    private let emptyDirectory: URL
    private var events = 0
    private var lastTime = 0.0
    private var drawing = false
    /// Frames drawn and not yet sent.
    private var finishing = 0
    /// Finishing in order, one frame at a time.
    private let finisher = DispatchQueue(label: "molshot-live-finish")
    /// Running means of the seconds a frame takes to draw (queue included) and to finish.
    private var drawSeconds = 0.0
    private var finishSeconds = 0.0
    /// No frame is started before this (uptime seconds): one that would only wait for the
    /// finisher is better started later, showing later events.
    private var notBefore = 0.0
    private var dirty = false
    private var closed = false
    private var recorded: [String]?
    private var frames = 0

    /// `send` gets frames (in order, one at a time) and errors, from whichever thread has them.
    /// With `record`, the lines taken are kept (`recording`) as an event file.
    public init(source: String = "session", options: ReplaySession.Options, molecule: Structure?, lane: RenderLane<MoleculeRenderer>,
                record: Bool = false, send: @escaping @Sendable (Output) -> Void) {
        self.source = source
        self.options = options
        self.molecule = molecule
        self.lane = lane
        self.send = send
        reader = GestureEventReader(source: source)
        var encoder = options.request.pngEncoder
        encoder.dropsOpaqueAlpha = options.request.background.isOpaque
        self.encoder = encoder
        recorded = record ? [] : nil
        // `load` events find no files: a session reads nothing from the server's disk.
        emptyDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("molshot-live-\(UUID().uuidString)")
    }

    /// The lines taken so far (header first) as an event file, when recording.
    public var recording: String? {
        lock.withLock { recorded.map { $0.joined(separator: "\n") + ($0.isEmpty ? "" : "\n") } }
    }

    /// Frames sent so far.
    public var frameCount: Int { lock.withLock { frames } }

    /// Takes one line of the event format. A bad line is answered with an error and left out.
    public func receive(_ line: String) {
        lock.lock()
        let outcome: Result<Void, Error> = Result {
            guard !closed else { return }
            guard let event = try reader.read(line) else {
                if session == nil && reader.viewport.width > 0 {
                    session = try ReplaySession(viewport: reader.viewport, options: options, structure: molecule,
                                                baseDirectory: emptyDirectory, worker: lane)
                    recorded?.append(line)
                    dirty = true
                }
                return
            }
            guard let session else { throw GestureFileError(file: source, line: event.line, message: "event before the header") }
            let before = (session.camera, session.mode)
            let frameAsked = try session.apply(event, source: source)
            events += 1
            lastTime = event.time
            recorded?.append(line)
            if case .touch = event.kind {
                if before.0 != session.camera || before.1 != session.mode { dirty = true }
            } else {
                _ = frameAsked
                dirty = true
            }
        }
        let next = nextFrame()
        lock.unlock()
        if case .failure(let error) = outcome {
            let line = (error as? GestureFileError)?.line ?? 0
            let message = (error as? GestureFileError)?.message ?? "\(error)"
            send(.error(line: line, message: message))
        }
        if let next { draw(next) }
    }

    /// Stops drawing; a frame under way is dropped.
    public func close() {
        lock.withLock { closed = true }
    }

    private struct Pending {
        var job: ReplaySession.FrameJob
        var events: Int
        var time: Double
        var mode: String
        var caption: String?
    }

    /// The next frame to draw, when one is due and none is under way (under the lock).
    private func nextFrame() -> Pending? {
        guard dirty, !drawing, finishing < 2, !closed, now() >= notBefore, let session else { return nil }
        do {
            let job = try session.frameJob()
            dirty = false
            drawing = true
            return Pending(job: job, events: events, time: lastTime, mode: session.mode, caption: session.caption)
        } catch {
            dirty = false
            let message = "\(error)"
            DispatchQueue.global().async { [send] in send(.error(line: 0, message: message)) }
            return nil
        }
    }

    private func draw(_ pending: Pending) {
        let asked = now()
        lane.submit({ [self] renderer in
            let frame = try pending.job.draw(renderer)
            let drawn = now()
            let wait: Double = lock.withLock {
                drawing = false
                finishing += 1
                drawSeconds = drawSeconds == 0 ? drawn - asked : drawSeconds * 0.8 + (drawn - asked) * 0.2
                // The next frame, drawn from now, would be ready before the finisher is free for
                // it when finishing is the slower part: start it so that it is ready just then.
                notBefore = drawn + max(0, Double(finishing) * finishSeconds - drawSeconds)
                return notBefore - drawn
            }
            // Smoothing, caption and PNG off the drawing thread, which goes on with the next frame
            // or other sessions; the next frame is asked for from another thread too (never from
            // the drawing thread, which must not wait for room in its own queue).
            finisher.async { [self] in
                let started = now()
                do {
                    // In bands on every core: a live frame's delay counts, more than the work.
                    let png = try encoder.encode(try frame.finished(bands: ProcessInfo.processInfo.activeProcessorCount))
                    if !lock.withLock({ closed }) {
                        send(.frame(Frame(png: png, events: pending.events, time: pending.time, mode: pending.mode, caption: pending.caption)))
                        lock.withLock { frames += 1 }
                    }
                } catch {
                    send(.error(line: 0, message: "\(error)"))
                }
                let took = now() - started
                lock.withLock {
                    finishing -= 1
                    finishSeconds = finishSeconds == 0 ? took : finishSeconds * 0.8 + took * 0.2
                }
                startNext()
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + max(0, wait)) { [self] in startNext() }
        }, failed: { [self] error in
            send(.error(line: 0, message: "\(error)"))
            lock.withLock { drawing = false }
            DispatchQueue.global().async { [self] in startNext() }
        })
    }

    private func startNext() {
        lock.lock()
        let next = nextFrame()
        lock.unlock()
        if let next { draw(next) }
    }

    private func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
}

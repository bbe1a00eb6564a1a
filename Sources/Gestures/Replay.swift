import Core
import Foundation
import Graphics

/// Replays a gesture event file, line by line, into frames of a view (a molecule's or a map's):
/// one at every `frame` event, or, with `fps`, one every 1/fps seconds of event time; and always
/// one of the final view. Lines can come from a whole file or a live stream: a frame is handed out
/// as soon as it is due.
public final class Replay<Driver: ViewDriver> {
    public typealias Emit = (ReplayFrame, Double) throws -> Void
    /// Makes the view for the header's viewport, drawing on the lane given.
    public typealias MakeDriver = ((width: Double, height: Double), RenderLane<Driver.Renderer>) throws -> Driver
    public let source: String
    public let fps: Double?
    private var reader: GestureEventReader
    /// The view, made when the header has been read.
    public private(set) var driver: Driver?
    private let makeDriver: MakeDriver
    private let lane: RenderLane<Driver.Renderer>
    /// The worker this replay made for itself, closed with it; nil when it draws on a lane it was given.
    private let ownWorker: RenderWorker<Driver.Renderer>?
    private var clock: FrameClock
    public private(set) var frameCount = 0
    /// Frames one replay may make; one past it is an error naming the limit, before it is drawn.
    public var maxFrames = Replay.defaultMaxFrames
    /// Most frames a second a replay is made at (the command line's; the service's is
    /// `ServiceLimits.replayFPS`).
    public static var maxFPS: Double { 240 }
    /// The command line's bound: 7 minutes at 240 frames a second.
    public static var defaultMaxFrames: Int { 100_000 }
    private let lock = NSLock()
    private var failure: Error?
    /// Set by `close`: frames handed to the worker and not yet begun are skipped.
    private var closed = false

    /// Draws through `lane` (a worker others share, as the service's); `driver` makes the view
    /// for the header's viewport.
    public convenience init(source: String, fps: Double?, lane: RenderLane<Driver.Renderer>, driver: @escaping MakeDriver) {
        self.init(source: source, fps: fps, lane: lane, ownWorker: nil, driver: driver)
    }

    /// Draws on a worker of its own, whose renderer `renderer` makes on the worker's thread.
    public convenience init(source: String, fps: Double?, renderer: @escaping @Sendable () throws -> Driver.Renderer, driver: @escaping MakeDriver) {
        let worker = RenderWorker(makeContext: renderer)
        self.init(source: source, fps: fps, lane: RenderLane(worker), ownWorker: worker, driver: driver)
    }

    private init(source: String, fps: Double?, lane: RenderLane<Driver.Renderer>, ownWorker: RenderWorker<Driver.Renderer>?,
                 driver: @escaping MakeDriver) {
        self.lane = lane
        self.ownWorker = ownWorker
        self.source = source
        self.fps = fps
        makeDriver = driver
        clock = FrameClock(fps: fps)
        reader = GestureEventReader(source: source)
    }

    /// Takes one line; `emit` receives each frame that becomes due, with its event time, as drawn
    /// (`finished()` completes it, on whichever thread suits), and `tapped` each tap on a map.
    /// Frames are drawn on the render worker while the next lines are read: `emit` is called
    /// there, in frame order, and may be called after `feed` returns; `finish` waits for the last
    /// one. A failure to draw or emit is thrown by the next `feed` or by `finish`.
    public func feed(_ line: String, emit: @escaping Emit, tapped: (Tap) throws -> Void = { _ in }) throws {
        try throwFailure()
        guard let event = try reader.read(line) else {
            if driver == nil && reader.viewport.width > 0 { driver = try makeDriver(reader.viewport, lane) }
            return
        }
        guard let driver else { throw GestureFileError(file: source, line: event.line, message: "event before the header") }
        guard let due = clock.due(before: event.time, limit: maxFrames - frameCount) else {
            throw FrameLimitError(file: source, line: event.line, limit: maxFrames,
                                  message: "an event at t = \(event.time) s makes more than \(maxFrames) frames"
                                  + (fps.map { " at \($0) frames a second" } ?? "") + ", the most one replay makes")
        }
        for time in due {
            driver.settle()
            try emitFrame(at: time, emit)
        }
        let effect = try driver.apply(event, source: source)
        for tap in effect.taps { try tapped(tap) }
        if effect.wantsFrame && fps == nil { try emitFrame(at: event.time, emit) }
    }

    /// Ends the replay's work: frames handed to the worker and not begun are skipped, and it
    /// returns once the one being drawn is done, so no work of a replay outlives it (a replay that
    /// failed on a line, a 413 answered at once, had left its frames queued on a worker others
    /// share, and a client asking again and again piled them up ahead of everyone's pictures).
    /// Then its own worker, if it made one, is stopped. Call it before the process may end (an
    /// error included): a GL context still being made on the worker's thread while the process
    /// exits crashes inside llvmpipe.
    public func close() {
        lock.lock()
        closed = true
        lock.unlock()
        if let ownWorker { ownWorker.close() } else { _ = try? lane.perform { _ in } }
    }

    /// Ends the replay: frames still due, then the final view.
    public func finish(emit: @escaping Emit) throws {
        guard let driver else { throw GestureFileError(file: source, line: 1, message: "no header line") }
        defer { _ = try? lane.perform { _ in } }
        driver.settle()
        for time in clock.remaining() { try emitFrame(at: time, emit) }
        try emitFrame(at: clock.last, emit)
        // Every frame handed to the worker has been drawn and emitted once this returns.
        try lane.perform { _ in }
        try throwFailure()
    }

    private func emitFrame(at time: Double, _ emit: @escaping Emit) throws {
        guard frameCount < maxFrames else {
            throw FrameLimitError(file: source, line: reader.lineNumber, limit: maxFrames, message: "more than \(maxFrames) frames, the most one replay makes")
        }
        let job = try driver!.frameJob()
        lane.submit({ [self] renderer in
            guard !isClosed else { return }
            try emit(try job.draw(renderer), time)
        }, failed: { [self] error in
            lock.lock()
            if failure == nil { failure = error }
            lock.unlock()
        })
        frameCount += 1
    }

    private var isClosed: Bool {
        lock.lock()
        defer { lock.unlock() }
        return closed
    }

    private func throwFailure() throws {
        lock.lock()
        defer { lock.unlock() }
        if let failure { throw failure }
    }
}

/// A replay that would make more frames than it may (`Replay.maxFrames`), found before they are
/// drawn: a request too large rather than a bad file (the service answers 413).
public struct FrameLimitError: Fault, Sendable, Equatable {
    public var kind: FaultKind { .request }
    public var file: String
    public var line: Int
    public var limit: Int
    public var message: String
    public var description: String { "\(file):\(line): \(message)" }
}

/// A frame that would cost more than its front end allows (`MoleculeDriver.Options.maxSamples`),
/// found before it is drawn: a request too large rather than a bad file (the service answers 413).
public struct PictureBudgetError: Fault, Sendable, Equatable {
    public var kind: FaultKind { .request }
    public var file: String
    public var line: Int
    public var message: String
    public var description: String { "\(file):\(line): \(message)" }
}

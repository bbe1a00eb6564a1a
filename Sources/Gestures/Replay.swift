import Foundation
import Graphics
import MoleculeView
import Structure

/// Replays a gesture event file, line by line, into frames: one at every `frame` event, or, with
/// `fps`, one every 1/fps seconds of event time; and always one of the final view. Lines can come
/// from a whole file or a live stream: a frame is handed out as soon as it is due.
public final class Replay {
    public let source: String
    public let fps: Double?
    private var reader: GestureEventReader
    private var session: ReplaySession?
    private let options: ReplaySession.Options
    private let molecule: Structure?
    private let lane: RenderLane<MoleculeRenderer>
    /// The worker this replay made for itself, closed with it; nil when it draws on a lane it was given.
    private let ownWorker: RenderWorker<MoleculeRenderer>?
    private var clock: FrameClock
    public private(set) var frameCount = 0
    private let lock = NSLock()
    private var failure: Error?

    /// Draws through `lane` (a worker others share, as the service's), or through a worker of its
    /// own when none is given.
    public init(source: String, options: ReplaySession.Options, molecule: Structure?, fps: Double?,
                lane: RenderLane<MoleculeRenderer>? = nil) {
        if let lane {
            self.lane = lane
            ownWorker = nil
        } else {
            let worker = RenderWorker { try MoleculeRenderer() }
            self.lane = RenderLane(worker)
            ownWorker = worker
        }
        self.source = source
        self.options = options
        self.molecule = molecule
        self.fps = fps
        clock = FrameClock(fps: fps)
        reader = GestureEventReader(source: source)
    }

    /// Takes one line; `emit` receives each frame that becomes due, with its event time, as drawn
    /// (`finished()` completes it, on whichever thread suits). Frames are drawn on the render
    /// worker while the next lines are read: `emit` is called there, in frame order, and may be
    /// called after `feed` returns; `finish` waits for the last one. A failure to draw or emit
    /// is thrown by the next `feed` or by `finish`.
    public func feed(_ line: String, emit: @escaping (ReplayFrame, Double) throws -> Void) throws {
        try throwFailure()
        guard let event = try reader.read(line) else {
            if session == nil && reader.viewport.width > 0 {
                session = try ReplaySession(viewport: reader.viewport, options: options, structure: molecule,
                                            worker: lane)
            }
            return
        }
        guard let session else { throw GestureFileError(file: source, line: event.line, message: "event before the header") }
        for time in clock.due(before: event.time) {
            session.settle()
            try emitFrame(at: time, emit)
        }
        let wantsFrame = try session.apply(event, source: source)
        if wantsFrame && fps == nil { try emitFrame(at: event.time, emit) }
    }

    /// Stops the render worker once what it holds is drawn. Call it before the process may end
    /// (an error included): a GL context still being made on the worker's thread while the process
    /// exits crashes inside llvmpipe.
    public func close() { ownWorker?.close() }

    /// Ends the replay: frames still due, then the final view.
    public func finish(emit: @escaping (ReplayFrame, Double) throws -> Void) throws {
        guard let session else { throw GestureFileError(file: source, line: 1, message: "no header line") }
        defer { _ = try? lane.perform { _ in } }
        session.settle()
        for time in clock.remaining() { try emitFrame(at: time, emit) }
        try emitFrame(at: clock.last, emit)
        // Every frame handed to the worker has been drawn and emitted once this returns.
        try lane.perform { _ in }
        try throwFailure()
    }

    private func emitFrame(at time: Double, _ emit: @escaping (ReplayFrame, Double) throws -> Void) throws {
        session!.frame({ frame in try emit(frame, time) }, failed: { [self] error in
            lock.lock()
            if failure == nil { failure = error }
            lock.unlock()
        })
        frameCount += 1
    }

    private func throwFailure() throws {
        lock.lock()
        defer { lock.unlock() }
        if let failure { throw failure }
    }
}

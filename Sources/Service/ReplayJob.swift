import Core
import Foundation
import Gestures
import Graphics
import Hummingbird
import Imaging
import MoleculeView
import Structure

/// One replay of a gesture event file (`POST /v1/replay`), checked by the server before any event
/// is read and made where pictures are made: in a render process (`RenderProcess.replay`), or on
/// this process's render thread where there is none. What a stranger's file can make a replay
/// take (its lines, each line's bytes, frames, a frame's samples, a movie's pixels) is bounded
/// here, the same in both places.
struct ReplayJob: Sendable {
    /// The query's picture options (size first), checked.
    var settings: [(String, String)]
    var fps: Double?
    var movie: MovieFormat?
    var maxSide: Int
    var maxAtoms: Int
    /// Seconds the replay may take (`--render-seconds`); it stops between frames past them.
    var seconds: Double

    /// Lines one event file may hold, counted before any is read.
    static let maxLines = ServiceLimits.replayLines.value
    /// Bytes one line may hold (a live session's message bound).
    static let maxLineBytes = ServiceLimits.eventLineBytes.value
    static let maxFrames = ServiceLimits.replayFrames.value
    static let maxBytes = ServiceLimits.replayBytes.value
    static let maxMoviePixels = ServiceLimits.moviePixels.value

    /// 413 naming the limit for a body of too many lines or one too long, counted and measured
    /// without making any: what the server checks before it hands the bytes on.
    static func check(_ body: [UInt8]) throws {
        let (lines, longest) = body.withUnsafeBytes { TextLines.measure($0) }
        guard lines <= maxLines else {
            throw HTTPError(.contentTooLarge, message: "the event file has \(lines) lines, more than this server's \(maxLines) (replay lines)")
        }
        guard longest <= maxLineBytes else {
            throw HTTPError(.contentTooLarge, message: "a line of the event file has \(longest) bytes, more than this server's \(maxLineBytes) (event message bytes)")
        }
    }

    /// The body as text: 400 for bytes that are not UTF-8.
    static func decoded(_ body: [UInt8]) throws -> String {
        guard let text = String(validating: body, as: UTF8.self) else {
            throw HTTPError(.badRequest, message: "the body must be an event file (JSON Lines, UTF-8)")
        }
        return text
    }

    /// The body as text, checked (`check`) and decoded: where the bytes come from the other
    /// side of the pipe.
    static func text(_ body: [UInt8]) throws -> String {
        try check(body)
        return try decoded(body)
    }

    /// 413 for a movie whose frames have more pixels than its encoder is given memory for.
    static func checkMovie(width: Int, height: Int) throws {
        guard width * height <= maxMoviePixels else {
            throw HTTPError(.contentTooLarge, message: "a movie of \(width)x\(height) has more pixels than this server's \(maxMoviePixels) (movie pixels): "
                            + "ask for a smaller size, or format=png")
        }
    }

    /// The driver's options: the picture the query asks for, every `resize` kept within the
    /// server's largest side and picture samples.
    func options() throws -> MoleculeDriver.Options {
        let request: RenderRequest
        do { request = try RenderRequest(settings) } catch { throw HTTPAnswer.badRequest(error) }
        return .served(request, maxSide: maxSide, maxAtoms: maxAtoms)
    }

    /// The animated PNG (or movie) of `text` replayed on `molecule`, drawn on `lane`; stops when
    /// `stop` says: past its deadline (503) or once the client has gone.
    func run(_ text: String, molecule: Structure?, lane: RenderLane<MoleculeRenderer>, stop: ReplayStop) throws -> [UInt8] {
        let options = try options()
        let clock = ReplayTiming.clock(fps: fps, movie: movie != nil, events: text)
        let replay = Replay(source: "events", options: options, molecule: molecule, fps: clock, lane: lane)
        replay.maxFrames = Self.maxFrames
        defer { replay.close() }
        if let movie {
            return try Self.movie(replay, text, format: movie, fps: fps ?? ReplayTiming.movieFPS, matte: options.request.background.rgb, stop: stop)
        }
        let encoder = options.request.frameEncoder()
        let frames = Locked<(pngs: [[UInt8]], times: [Double], bytes: Int)>(([], [], 0))
        let size = FirstFrameSize()
        let emit: (ReplayFrame, Double) throws -> Void = { frame, time in
            try stop.check()
            let image = try frame.finished()
            try size.check(image, what: "an animated PNG")
            let png = try encoder.encode(image)
            try frames.withLock { f in
                guard f.bytes + png.count <= Self.maxBytes else {
                    throw HTTPError(.contentTooLarge, message: "the replay's frames come to more than \(Self.maxBytes >> 20) MiB (replay bytes)")
                }
                f.pngs.append(png)
                f.times.append(time)
                f.bytes += png.count
            }
        }
        try Self.feed(replay, text, emit: emit, stop: stop)
        let (pngs, times) = frames.withLock { ($0.pngs, $0.times) }
        return try ReplayAnimation.make(frames: pngs, times: times, fps: clock)
    }

    /// Feeds the event file's lines to `replay` one at a time and ends it, between lines stopping
    /// when `stop` says: 413 past the frame or sample limits, the route's own answers as they are,
    /// else a 400.
    static func feed(_ replay: Replay<MoleculeDriver>, _ text: String, emit: @escaping (ReplayFrame, Double) throws -> Void,
                     stop: ReplayStop) throws {
        do {
            for line in TextLines(text) {
                try stop.check()
                try replay.feed(String(line), emit: emit)
            }
            try replay.finish(emit: emit)
        } catch let e as FrameLimitError {
            throw HTTPError(.contentTooLarge, message: "\(e) (replay frames)")
        } catch let e as PictureBudgetError {
            throw HTTPError(.contentTooLarge, message: e.description)
        } catch { throw HTTPAnswer.badRequest(error) }
    }

    /// The replay's frames encoded into a movie as they are drawn (none kept), written to a
    /// temporary file that is read back and removed. Every frame has the first one's size, which
    /// was checked against `movie pixels` (a `resize` past it is refused before it is drawn).
    static func movie(_ replay: Replay<MoleculeDriver>, _ text: String, format: MovieFormat, fps: Double, matte: UInt32,
                      stop: ReplayStop) throws -> [UInt8] {
        let path = NSTemporaryDirectory() + "molshot-replay-\(UUID().uuidString).\(format.rawValue)"
        let stream = MovieStream(path: path, format: format, fps: fps, matte: matte)
        let count = Locked(0), size = FirstFrameSize()
        let emit: (ReplayFrame, Double) throws -> Void = { frame, _ in
            try stop.check()
            let number = count.withLock { $0 += 1; return $0 }
            let image = try frame.finished()
            try checkMovie(width: image.width, height: image.height)
            try size.check(image, what: "a movie")
            try stream.add(image, number: number)
        }
        do {
            try feed(replay, text, emit: emit, stop: stop)
            try stream.finish()
        } catch {
            stream.cancel()
            throw HTTPAnswer.badRequest(error)
        }
        defer { try? FileManager.default.removeItem(atPath: path) }
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }
}

/// The size of an animation's first frame, which every later one must have: a `resize` in a replay
/// is a 400 that says so, not a failure of the encoder after the frames were drawn.
final class FirstFrameSize: Sendable {
    private let first = Locked<(width: Int, height: Int, count: Int)?>(nil)

    func check(_ image: RGBAImage, what: String) throws {
        try first.withLock { f in
            guard let known = f else { f = (image.width, image.height, 1); return }
            f!.count += 1
            guard known.width == image.width, known.height == image.height else {
                throw HTTPError(.badRequest, message: "frame \(known.count + 1) is \(image.width)x\(image.height) after a resize event, and \(what) keeps its first frame's "
                                + "\(known.width)x\(known.height): resize before the first frame, ask for that size, or resize in a live session")
            }
        }
    }
}

/// Stops a replay between lines and frames: past the render time limit, or once its client left.
final class ReplayStop: Sendable {
    enum Reason { case late, gone }
    private let reason = Locked<Reason?>(nil)
    /// Past it, the replay is late.
    private let deadline: WorkDeadline

    /// A stop `seconds` (the render time limit) from now.
    init(seconds: Double) { deadline = WorkDeadline(seconds: seconds) }

    func stop(because why: Reason) { reason.withLock { if $0 == nil { $0 = why } } }

    func check() throws {
        if deadline.isOver { stop(because: .late) }
        switch reason.withLock({ $0 }) {
        case nil: return
        case .late: throw HTTPError(.serviceUnavailable, headers: [.retryAfter: "5"], message: "the replay took longer than this server's --render-seconds")
        case .gone: throw CancellationError()
        }
    }
}

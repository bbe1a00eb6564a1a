import Core
import Foundation
import Gestures
import Graphics
import Hummingbird
import Imaging
import Library
import MoleculeView
import NIOCore
import Structure

/// Pictures of uploaded files (`POST /v1/render`) and replays of gesture event files
/// (`POST /v1/replay`), drawn by the same picture pipeline as library molecules' pictures.
struct RenderController: ServiceController {
    let configuration: ServiceConfiguration
    let auth: Auth
    let access: MoleculeAccess
    let pictures: PictureMaker
    let uploads: BodyReader

    var routes: [ServiceRoute] {
        [
            .init(.post, "/v1/render", .read, query: pictureParameters + ["name", "format"]) { r, _ in try await renderUpload(r) },
            .init(.post, "/v1/replay", .read, query: viewParameters + ["fps", "molecule", "format"]) { r, c in try await replay(r, connection: c.channel) },
        ]
    }

    /// A structure file in the body (any format the readers take, gzip too), options in the query.
    func renderUpload(_ request: Request) async throws -> Response {
        let body = try await uploads.bytes(of: request, what: "a structure file")
        let name = HTTPAnswer.parameter(request, "name") ?? HTTPAnswer.parameter(request, "format").map { "upload.\($0)" } ?? "upload"
        let wantsJSON = request.headers[.accept]?.contains("application/json") == true
        let bytes = Array(buffer: body)
        // Up to --max-body bytes hashed: on the blocking pool, not on a thread that answers requests.
        let content = try await BlockingPool.shared.run { ImageCache.content(upload: bytes) }
        let png = try await pictures.png(content: content, settings: HTTPAnswer.query(request), subject: .upload(bytes, name: name))
        return try HTTPAnswer.image(png, json: wantsJSON)
    }

    /// Most frames one replay request may make.
    static let maxReplayFrames = ServiceLimits.replayFrames.value

    /// `POST /v1/replay?molecule=ID&fps=&size=&format=...`: a gesture event file in the body, an
    /// animated PNG of its frames back, or with `format=mp4|webm|gif` a movie (at `fps`, 30 unless
    /// given). Event files may not load files of the server (`load` finds nothing).
    func replay(_ request: Request, connection: any Channel) async throws -> Response {
        let body = try await uploads.bytes(of: request, what: "an event file")
        guard let text = String(validating: Array(buffer: body), as: UTF8.self) else {
            throw HTTPError(.badRequest, message: "the body must be an event file (JSON Lines, UTF-8)")
        }
        var options = MoleculeDriver.Options()
        options.request = try pictures.renderRequest(HTTPAnswer.query(request), defaultSize: "256")
        var fps: Double?
        if let f = HTTPAnswer.parameter(request, "fps") {
            let most = Double(ServiceLimits.replayFPS.value)
            guard let v = Double(f), v > 0, v <= most else {
                throw HTTPError(.badRequest, message: "parameter fps must be a number in (0, \(ServiceLimits.replayFPS.value)] (got \(Excerpt.of(f)))")
            }
            fps = v
        }
        var movie: MovieFormat?
        if let f = HTTPAnswer.parameter(request, "format"), f != "png", f != "apng" {
            guard let m = MovieFormat(rawValue: f) else {
                throw HTTPError(.badRequest, message: "parameter format must be png, mp4, webm or gif (got \(Excerpt.of(f)))")
            }
            if let reason = MovieWriter.unavailableReason() { throw HTTPError(.notImplemented, message: reason) }
            if (fps ?? 30) > m.maxFPS { throw HTTPError(.badRequest, message: "parameter fps: a GIF plays at most \(Int(m.maxFPS)) frames a second") }
            movie = m
        }
        var structure: Structure?
        if let reference = HTTPAnswer.parameter(request, "molecule") {
            let r = try await access.record(reference, viewer: auth.viewer(request))
            structure = try await access.reading { try $0.load(String(r.id)).structure }
            if let structure { try pictures.checkSize(structure) }
        }
        // A replay is work for the render thread like a picture: refused when the queue is full,
        // drawn there between other requests' jobs, and stopped past the render time limit or
        // when the client has gone.
        try pictures.checkRenderQueue()
        // One frame is made at a time: its memory is the replay's.
        let memory = try pictures.reserveMemory(PictureMaker.bytes(options.request))
        defer { memory.release() }
        // A movie takes the file's frame events as the animated PNG does (a clock only where it has none).
        let playback = fps ?? ReplayTiming.movieFPS
        let job = (text, options, structure, ReplayTiming.clock(fps: fps, movie: movie != nil, events: text), movie, playback)
        let lane = RenderLane(pictures.worker) { $0.molecules }, stop = ReplayStop(), limit = configuration.renderSeconds
        // Past the render time limit the replay stops between frames (the timer ends with it).
        let timer = Task {
            try? await Task.sleep(nanoseconds: UInt64(limit * 1e9))
            if !Task.isCancelled { stop.stop(because: .late) }
        }
        defer { timer.cancel() }
        let apng: [UInt8] = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                // A thread of the blocking pool reads the events and waits for room in the render queue.
                BlockingPool.shared.submit {
                    continuation.resume(with: Result {
                        try RenderController.runReplay(job.0, options: job.1, molecule: job.2, fps: job.3, movie: job.4, playback: job.5, lane: lane, stop: stop)
                    })
                }
                // Hummingbird does not cancel a handler whose client has gone: look at the connection.
                PeerWatch.whenGone(connection) { stop.stop(because: .gone) }
            }
        } onCancel: {
            stop.stop(because: .gone)
        }
        return HTTPAnswer.response(apng, type: movie.map { $0 == .gif ? "image/gif" : "video/\($0.rawValue)" } ?? "image/png")
    }

    /// Most bytes of frames one replay keeps for its animation.
    static let maxReplayBytes = ServiceLimits.replayBytes.value

    static func runReplay(_ text: String, options: MoleculeDriver.Options, molecule: Structure?, fps: Double?, movie: MovieFormat? = nil,
                          playback: Double = ReplayTiming.movieFPS, lane: RenderLane<MoleculeRenderer>, stop: ReplayStop) throws -> [UInt8] {
        let replay = Replay(source: "events", options: options, molecule: molecule, fps: fps, lane: lane)
        replay.maxFrames = maxReplayFrames
        defer { replay.close() }
        if let movie { return try runMovie(replay, text, format: movie, fps: playback, matte: options.request.background.rgb, stop: stop) }
        let encoder = options.request.frameEncoder()
        let frames = Locked<(pngs: [[UInt8]], times: [Double], bytes: Int)>(([], [], 0))
        let emit: (ReplayFrame, Double) throws -> Void = { frame, time in
            try stop.check()
            let png = try encoder.encode(try frame.finished())
            try frames.withLock { f in
                guard f.pngs.count < maxReplayFrames else {
                    throw HTTPError(.contentTooLarge, message: "the replay makes more than \(maxReplayFrames) frames")
                }
                guard f.bytes + png.count <= maxReplayBytes else {
                    throw HTTPError(.contentTooLarge, message: "the replay's frames come to more than \(maxReplayBytes >> 20) MiB")
                }
                f.pngs.append(png)
                f.times.append(time)
                f.bytes += png.count
            }
        }
        try feed(replay, text, emit: emit, stop: stop)
        let (pngs, times) = frames.withLock { ($0.pngs, $0.times) }
        return try ReplayAnimation.make(frames: pngs, times: times, fps: fps)
    }

    /// Feeds the event file's lines to `replay` and ends it, between lines stopping when `stop`
    /// says: 413 past the frame limit, the route's own answers as they are, else a 400.
    static func feed(_ replay: Replay<MoleculeDriver>, _ text: String, emit: @escaping (ReplayFrame, Double) throws -> Void,
                     stop: ReplayStop) throws {
        do {
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                try stop.check()
                try replay.feed(String(line), emit: emit)
            }
            try replay.finish(emit: emit)
        } catch let e as FrameLimitError {
            throw HTTPError(.contentTooLarge, message: "\(e) (replay frames)")
        } catch { throw HTTPAnswer.badRequest(error) }
    }

    /// The replay's frames encoded into a movie as they are drawn (none kept), written to a
    /// temporary file that is read back and removed.
    static func runMovie(_ replay: Replay<MoleculeDriver>, _ text: String, format: MovieFormat, fps: Double, matte: UInt32,
                         stop: ReplayStop) throws -> [UInt8] {
        let path = NSTemporaryDirectory() + "molshot-replay-\(UUID().uuidString).\(format.rawValue)"
        let stream = MovieStream(path: path, format: format, fps: fps, matte: matte)
        let count = Locked(0)
        let emit: (ReplayFrame, Double) throws -> Void = { frame, _ in
            try stop.check()
            let number = count.withLock { $0 += 1; return $0 }
            try stream.add(try frame.finished(), number: number)
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

/// Stops a replay between lines and frames: past the render time limit, or once its client left.
final class ReplayStop: Sendable {
    enum Reason { case late, gone }
    private let reason = Locked<Reason?>(nil)

    func stop(because why: Reason) { reason.withLock { if $0 == nil { $0 = why } } }

    func check() throws {
        switch reason.withLock({ $0 }) {
        case nil: return
        case .late: throw HTTPError(.serviceUnavailable, headers: [.retryAfter: "5"], message: "the replay took longer than this server's --render-seconds")
        case .gone: throw CancellationError()
        }
    }
}

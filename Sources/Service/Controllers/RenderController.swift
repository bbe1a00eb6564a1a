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

    /// `POST /v1/replay?molecule=ID&fps=&size=&format=...`: a gesture event file in the body, an
    /// animated PNG of its frames back, or with `format=mp4|webm|gif` a movie (at `fps`, 30 unless
    /// given). Event files may not load files of the server (`load` finds nothing). The file's
    /// lines are counted and measured before any is read, and the replay is made in a render
    /// process (the molecule read there too): a file or a setting that ends it ends that process,
    /// never the server.
    func replay(_ request: Request, connection: any Channel) async throws -> Response {
        let body = try await uploads.bytes(of: request, what: "an event file")
        let bytes = Array(buffer: body)
        // Its lines counted and measured here; it is decoded where it is read.
        try await BlockingPool.shared.run { try ReplayJob.check(bytes) }
        let query = HTTPAnswer.query(request)
        let view = try pictures.renderRequest(query, defaultSize: "256")
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
            try ReplayJob.checkMovie(width: view.width, height: view.height)
            movie = m
        }
        let job = ReplayJob(settings: PictureMaker.pictureSettings(query, defaultSize: "256"), fps: fps, movie: movie, maxSide: configuration.maxSide,
                            maxAtoms: configuration.maxAtoms, seconds: configuration.renderSeconds)
        let library: Int?
        if let reference = HTTPAnswer.parameter(request, "molecule") {
            library = try await access.record(reference, viewer: auth.viewer(request)).id
        } else { library = nil }
        let type = movie.map { $0 == .gif ? "image/gif" : "video/\($0.rawValue)" } ?? "image/png"
        // One frame is made at a time: its memory is the replay's.
        let memory = try pictures.reserveMemory(view.estimatedBytes)
        defer { memory.release() }
        let workers = pictures.workers
        let elsewhere = try await workers.inTurn(queued: pictures.worker.queued, limit: configuration.renderQueue) { worker -> [UInt8]? in
            guard let process = workers.process(worker) else { return nil }
            let megabytes = pictures.processMegabytes
            return try await pictures.withRenderDeadline {
                try await workers.tried(in: process, megabytes: megabytes, doing: "replaying") {
                    try await $0.replay(job, library: library, events: bytes)
                }
            }
        }
        if let made = elsewhere { return HTTPAnswer.response(made, type: type) }
        // No render process: read and drawn here, on the render thread between other requests' jobs.
        var structure: Structure?
        if let library {
            structure = try await access.reading { try $0.load(String(library)).structure }
            if let structure { try pictures.checkSize(structure) }
        }
        let lane = RenderLane(pictures.worker) { $0.molecules }, stop = ReplayStop(seconds: job.seconds), molecule = structure
        let made: [UInt8] = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                BlockingPool.shared.submit {
                    continuation.resume(with: Result { try job.run(try ReplayJob.decoded(bytes), molecule: molecule, lane: lane, stop: stop) })
                }
                // Hummingbird does not cancel a handler whose client has gone: look at the connection.
                PeerWatch.whenGone(connection) { stop.stop(because: .gone) }
            }
        } onCancel: {
            stop.stop(because: .gone)
        }
        return HTTPAnswer.response(made, type: type)
    }
}

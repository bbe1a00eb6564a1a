import Core
import Foundation
import Gestures
import Graphics
import Hummingbird
import Library
import MoleculeView
import NIOCore
import Structure

extension MolshotService {
    /// Most frames one replay request may make.
    static let maxReplayFrames = 600

    /// `POST /v1/replay?molecule=ID&fps=&size=...`: a gesture event file in the body, an animated
    /// PNG of its frames back. Event files may not load files of the server (`load` finds nothing).
    func replay(_ request: Request) async throws -> Response {
        let body = try await bytes(of: request, what: "an event file")
        guard let text = String(validating: Array(buffer: body), as: UTF8.self) else {
            throw HTTPError(.badRequest, message: "the body must be an event file (JSON Lines, UTF-8)")
        }
        var pairs = Self.query(request).filter { RenderRequest.field($0.0) != nil }
        if !pairs.contains(where: { $0.0 == "size" }) { pairs.insert(("size", "256"), at: 0) }
        var options = ReplaySession.Options()
        do { options.request = try RenderRequest(pairs) } catch { throw Self.badRequest(error) }
        guard options.request.width <= configuration.maxSide, options.request.height <= configuration.maxSide else {
            throw HTTPError(.badRequest, message: "parameter size is larger than this server's \(configuration.maxSide) pixels a side")
        }
        var fps: Double?
        if let f = Self.parameter(request, "fps") {
            guard let v = Double(f), v > 0, v <= 60 else { throw HTTPError(.badRequest, message: "parameter fps must be a number in (0, 60] (got \(f))") }
            fps = v
        }
        var structure: Handed<Structure>?
        if let reference = Self.parameter(request, "molecule") {
            let r = try record(reference, viewer: viewer(request))
            do { structure = Handed(value: try MoleculeSource(libraryPath: configuration.database).load("lib:\(r.id)").structure) } catch {
                throw Self.badRequest(error)
            }
            if let structure { try checkSize(structure.value) }
        }
        let job = Handed(value: (text, options, structure?.value, fps))
        let apng: [UInt8] = try await withCheckedThrowingContinuation { continuation in
            // A replay draws through a render worker of its own; this thread reads the events.
            Thread {
                continuation.resume(with: Result { try MolshotService.runReplay(job.value.0, options: job.value.1, molecule: job.value.2, fps: job.value.3) })
            }.start()
        }
        return Self.response(apng, type: "image/png")
    }

    static func runReplay(_ text: String, options: ReplaySession.Options, molecule: Structure?, fps: Double?) throws -> [UInt8] {
        // No loader: `load` reads nothing from the server's disk.
        let replay = Replay(source: "events", options: options, molecule: molecule, fps: fps)
        defer { replay.close() }
        var encoder = options.request.pngEncoder
        encoder.dropsOpaqueAlpha = options.request.background.isOpaque
        let frames = Locked<(pngs: [[UInt8]], times: [Double])>(([], []))
        let emit: (ReplayFrame, Double) throws -> Void = { frame, time in
            let png = try encoder.encode(try frame.finished())
            try frames.withLock { f in
                guard f.pngs.count < maxReplayFrames else {
                    throw HTTPError(.contentTooLarge, message: "the replay makes more than \(maxReplayFrames) frames")
                }
                f.pngs.append(png)
                f.times.append(time)
            }
        }
        do {
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) { try replay.feed(String(line), emit: emit) }
            try replay.finish(emit: emit)
        } catch let e as HTTPError { throw e } catch { throw badRequest(error) }
        let (pngs, times) = frames.withLock { ($0.pngs, $0.times) }
        let delays = times.indices.map { i in fps.map { 1 / $0 } ?? (i + 1 < times.count ? max(times[i + 1] - times[i], 0.02) : 1) }
        return try APNGWriter.make(frames: pngs, delays: delays)
    }
}

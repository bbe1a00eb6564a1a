import CMemory
import Core
import Foundation
import Graphics
import Hummingbird
import MoleculeView
import Structure

/// The service's limits in one place: the render queue, the gate for reading files, atoms and
/// picture sides a request may ask for, and the render time limit.
extension MolshotService {
    /// Runs `work` (reading a file, building geometry) on the blocking pool, outside Swift's cooperative
    /// pool, whose few threads answer every request: a gzip bomb being read does not stall
    /// `/healthz`. At most `heavyWork` run at once and `--render-queue` wait; past that, 503.
    func heavy<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        let gate = heavyGate
        do { try await gate.enter() } catch {
            throw HTTPError(.serviceUnavailable, headers: [.retryAfter: "1"], message: "too many files are being read; try again in a second")
        }
        defer { gate.leave() }
        return try await BlockingPool.shared.run(work)
    }

    /// Files read at once for requests (each may take up to 8x `--max-body` unpacked).
    static let heavyWork = ServiceLimits.fileReads.value

    /// What reading a structure may take, as this process and its render processes read them.
    var limits: PictureLimits {
        PictureLimits(library: library, maxBytes: configuration.maxBodyBytes * 8, maxAtoms: configuration.maxAtoms)
    }

    /// 400 for a picture wider or taller than `--max-side` (images, sessions, replays, maps).
    func checkSide(width: Int, height: Int) throws {
        try Self.checkSide(width: width, height: height, maxSide: configuration.maxSide)
    }

    static func checkSide(width: Int, height: Int, maxSide: Int) throws {
        guard width <= maxSide, height <= maxSide else {
            throw HTTPError(.badRequest, message: "parameter size is larger than this server's \(maxSide) pixels a side")
        }
    }

    /// The one picture a query asks for: render options by their names (others are left to the
    /// route), `defaultSize` unless `size` is given; 400 naming a bad parameter, more than one
    /// mode, or a size over `--max-side`. Labels, distances, keys and scale bars are drawn on
    /// `annotated` routes (images) only; elsewhere they are a 400 rather than left out unsaid.
    func renderRequest(_ query: [(String, String)], defaultSize: String, annotated: Bool = false) throws -> RenderRequest {
        var request: RenderRequest
        do {
            request = try RenderRequest(Self.pictureSettings(query, defaultSize: defaultSize))
            _ = try request.singleMode()
        } catch { throw Self.badRequest(error) }
        if !annotated && !request.annotations.isEmpty {
            let names = ["label", "distance", "angle", "label-size", "legend", "scale-bar"].filter { n in query.contains { $0.0 == n } }
            throw HTTPError(.badRequest, message: "parameter \(names.first ?? "label") is drawn on pictures (/v1/molecules/{id}/image), not on replays or live views")
        }
        // An assembly is built only up to the atoms this server draws.
        request.maxAtoms = configuration.maxAtoms
        try checkSide(width: request.width, height: request.height)
        try Self.checkSamples(request)
        return request
    }

    /// What a picture costs before it is drawn: its samples (pixels times antialias squared)
    /// times one for the drawing and one more for each full-picture effect it may take
    /// (occlusion; outlines by their width in samples squared, over 32; an effect left to the
    /// look counts as taken).
    /// `size=4096&antialias=4&occlusion=1&outline=16` was 6.7 GB and 36 s.
    static func samples(_ r: RenderRequest) -> Int {
        let aa = max(r.antialias, 1)
        let occlusion = takesOcclusion(r) ? 1 : 0
        // An outline looks across a disc of its width in samples: its work grows as that width squared.
        let reach = Int((min(max(r.outline ?? 1, 0), 16) * Float(aa)).rounded())
        let outline = reach > 0 ? max(1, reach * reach / 32) : 0
        return r.width * r.height * aa * aa * (1 + occlusion + outline)
    }

    /// The bytes a picture takes while it is made, estimated before it starts: measured with
    /// `/usr/bin/time` on `molshot render` at 1024 px, 4 x 4 samples, about 12 bytes a sample
    /// plain (colour, depth, their copies, smoothing, the PNG) and 10 more for each full-picture
    /// effect (occlusion, outlines).
    static func bytes(_ r: RenderRequest) -> Int {
        let aa = max(r.antialias, 1)
        let effects = (takesOcclusion(r) ? 1 : 0) + ((r.outline ?? 1) > 0 ? 1 : 0)
        return r.width * r.height * aa * aa * (12 + 10 * effects)
    }

    /// Whether a picture may take ambient occlusion: asked for, or left to the look.
    static func takesOcclusion(_ r: RenderRequest) -> Bool { (r.occlusion ?? 1) > 0 }

    /// A place in `ServiceLimits.pictureMemory` for a picture of `bytes`, given back by `release`;
    /// 413 for a picture that alone is more, 503 (Retry-After) while others hold too much.
    func reserveMemory(_ bytes: Int) throws -> MemoryReservation {
        let limit = ServiceLimits.pictureMemory.value
        guard bytes <= limit else {
            throw HTTPError(.contentTooLarge, message: "the picture would take about \(bytes >> 20) MiB to make, more than this server's "
                            + "\(limit >> 20) MiB (picture memory): ask for a smaller size or less antialiasing")
        }
        guard pictureMemory.withLock({ used in
            guard used + bytes <= limit else { return false }
            used += bytes
            return true
        }) else {
            throw HTTPError(.serviceUnavailable, headers: [.retryAfter: "1"], message: "pictures being made hold this server's memory (picture memory); try again in a second")
        }
        return MemoryReservation(bytes: bytes, pool: pictureMemory)
    }

    /// 413 naming the limit for a picture past `ServiceLimits.pictureSamples`.
    static func checkSamples(_ r: RenderRequest) throws {
        let cost = samples(r), limit = ServiceLimits.pictureSamples.value
        guard cost <= limit else {
            throw HTTPError(.contentTooLarge, message: "parameters size, antialias, occlusion and outline ask for \(cost) samples, "
                            + "more than this server's \(limit) (picture samples): ask for a smaller size or less antialiasing")
        }
    }

    /// The query's render options (by their names), `size` first when not given: what a render
    /// process is sent to make the same `RenderRequest`.
    static func pictureSettings(_ query: [(String, String)], defaultSize: String) -> [(String, String)] {
        var pairs = query.filter { RenderRequest.field($0.0) != nil }
        if !pairs.contains(where: { $0.0 == "size" }) { pairs.insert(("size", defaultSize), at: 0) }
        return pairs
    }

    /// 413 for a structure with more atoms than this server draws (images, sessions, replays).
    func checkSize(_ structure: Structure) throws { try limits.check(structure) }

    /// 503 with Retry-After when `--render-queue` jobs wait already (pictures and replays alike).
    func checkRenderQueue() throws {
        guard worker.queued < configuration.renderQueue else {
            throw HTTPError(.serviceUnavailable, headers: [.retryAfter: "1"], message: "the render queue is full; try again in a second")
        }
    }

    /// Runs `job` on the render thread, or answers 503 when too many wait already or when it
    /// takes longer than the render time limit (the drawing goes on; its picture is dropped).
    func draw<T: Sendable>(_ job: @escaping @Sendable (ServiceRenderers) throws -> T) async throws -> T {
        try checkRenderQueue()
        let worker = worker
        return try await withRenderDeadline { try await worker.draw(job) }
    }

    /// `work`'s picture, or 503 when it takes longer than the render time limit; then `late` is
    /// called (to cancel the work's `WorkDeadline`, whose loops stop; work that cannot stop, a GL
    /// draw under way, finishes and its picture is dropped).
    func withRenderDeadline<T: Sendable>(late: @escaping @Sendable () -> Void = {}, _ work: @escaping @Sendable () async throws -> T) async throws -> T {
        let limit = configuration.renderSeconds
        do {
            return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, Error>) in
                let once = Once()
                let timer = Task {
                    try? await Task.sleep(nanoseconds: UInt64(limit * 1e9))
                    if !Task.isCancelled && once.claim() {
                        late()
                        continuation.resume(throwing: HTTPError(.serviceUnavailable, headers: [.retryAfter: "5"],
                                                                message: "the picture took longer than this server's \(limit) s (render-seconds)"))
                    }
                }
                Task {
                    let result = await Result(catching: { try await work() })
                    timer.cancel()
                    if once.claim() { continuation.resume(with: result) }
                }
            }
        } catch { throw Self.badRequest(error) }
    }
}

extension MolshotService {
    /// `work` (encoding a picture, say) on a thread outside Swift's cooperative pool, which
    /// answers every request, and off the render thread, which goes on drawing meanwhile.
    static func finishing<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
        }
    }
}

/// A deadline that passed first.
struct DeadlinePassed: Error {}

extension MolshotService {
    /// `body`'s value, or `DeadlinePassed` when it takes longer than `seconds` (it is cancelled).
    static func withDeadline<T: Sendable>(seconds: Double, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
                throw DeadlinePassed()
            }
            defer { group.cancelAll() }
            return try await group.next()!
        }
    }
}

/// True for the first caller only.
final class Once: Sendable {
    private let done = Locked(false)

    func claim() -> Bool {
        done.withLock { d in
            defer { d = true }
            return !d
        }
    }
}

extension Result where Failure == Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}

/// A picture's place in the service's picture memory (`reserveMemory`), given back once.
final class MemoryReservation: Sendable {
    let bytes: Int
    private let pool: Locked<Int>
    private let given = Locked(false)

    init(bytes: Int, pool: Locked<Int>) {
        self.bytes = bytes
        self.pool = pool
    }

    func release() {
        guard given.withLock({ g in defer { g = true }; return !g }) else { return }
        pool.withLock { $0 -= bytes }
    }

    deinit { release() }
}

import CMemory
import Core
import Foundation
import Graphics
import Hummingbird
import Library
import MoleculeView
import PathwayModel
import Pathways
import Structure

/// Pictures of molecules, and everything they are made with: the render workers (this process's
/// render thread and the render processes), the image cache, bond perception, the picture memory
/// and the gate for reading files, and the limits a picture is checked against before it starts.
/// The service's one picture pipeline: image routes, entity images and imports all come here.
final class PictureMaker: Sendable {
    let configuration: ServiceConfiguration
    /// This process's render thread (worker 0 of `workers`).
    let worker: RenderWorker<ServiceRenderers>
    let workers: RenderWorkers
    let perception: BondPerception
    let cache: ImageCache?
    let molecules: MoleculeAccess
    var library: LibraryConnections { molecules.library }
    /// Requests reading files off the answering threads (`heavy`): `heavyWork` at once, as many
    /// as the render queue holds waiting.
    let heavyGate: WorkGate
    /// Bytes of pictures being made now (`reserveMemory`).
    let pictureMemory = Locked(0)

    init(configuration: ServiceConfiguration, molecules: MoleculeAccess) throws {
        self.configuration = configuration
        self.molecules = molecules
        perception = try BondPerception.standard()
        cache = try configuration.cache.map { try ImageCache(directory: $0, maxBytes: configuration.cacheBytes) }
        workers = RenderWorkers(count: configuration.renderThreads, executable: configuration.renderProcess.map { URL(fileURLWithPath: $0) },
                                arguments: ["serve", "render-process", URL(fileURLWithPath: configuration.database).path, String(configuration.maxBodyBytes * 8), String(configuration.maxAtoms),
                                            String(configuration.renderProcessMegabytes)],
                                queue: configuration.renderQueue)
        // This process's share of llvmpipe's threads, read when its first context is made (unless set).
        if workers.count > 1 && EnvironmentVariable.rasterizerThreads.text() == nil {
            setenv(EnvironmentVariable.rasterizerThreads.rawValue, String(RenderWorkers.rasterizerThreads(workers: workers.count)), 1)
        }
        worker = RenderWorker(capacity: configuration.renderQueue, name: "molshot-serve-draw") { try ServiceRenderers() }
        heavyGate = WorkGate(slots: Self.heavyWork, waiting: configuration.renderQueue)
    }

    /// The address space a render process really has, in MiB: `--render-process-mb`, or less where
    /// this process runs under a lower hard limit, which its children cannot raise (a 422 named
    /// 4096 MiB when the processes had 2 GiB).
    var processMegabytes: Int { RenderProcessServer.addressSpaceMegabytes(configuration.renderProcessMegabytes) }

    /// Requests waiting for a render worker, here and in the render processes.
    var queued: Int { worker.queued + workers.processQueued }

    /// Stops the render thread once what it holds is drawn, and the render processes.
    func close() {
        worker.close()
        workers.close()
    }

    /// Runs `work` (reading a file, building geometry) on the blocking pool, outside Swift's cooperative
    /// pool, whose few threads answer every request: a gzip bomb being read does not stall
    /// `/healthz`. At most `heavyWork` run at once and `--render-queue` wait; past that, 503.
    func heavy<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        let gate = heavyGate
        do { try await gate.enter() } catch is WorkGate.Full {
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
    /// `annotated` routes (images) only; elsewhere they are a 400 rather than left out unsaid
    /// (interactions are drawn on views too).
    func renderRequest(_ query: [(String, String)], defaultSize: String, annotated: Bool = false) throws -> RenderRequest {
        var request: RenderRequest
        do {
            request = try RenderRequest(Self.pictureSettings(query, defaultSize: defaultSize))
            _ = try request.singleMode()
        } catch { throw HTTPAnswer.badRequest(error) }
        if !annotated { request.leaveOutSiteLabels() }
        if !annotated && request.annotations.drawnOnPicturesOnly {
            let names = annotationParameters.filter { n in !viewAnnotationParameters.contains(n) && query.contains { $0.0 == n } }
            throw HTTPError(.badRequest, message: "parameter \(names.first ?? "label") is drawn on pictures (/v1/molecules/{id}/image), not on replays or live views")
        }
        // An assembly is built only up to the atoms this server draws.
        request.maxAtoms = configuration.maxAtoms
        try checkSide(width: request.width, height: request.height)
        try Self.checkSamples(request)
        return request
    }

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
        let cost = r.samples, limit = ServiceLimits.pictureSamples.value
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
        } catch { throw HTTPAnswer.badRequest(error) }
    }

    /// The PNG of a structure with render settings (the query's names and forms; 512 px unless
    /// `size` is given): from the cache, or drawn by the least loaded render worker. `content`
    /// names what is drawn (`ImageCache.content`).
    func png(content: String, settings: [(String, String)], subject: ImageSubject) async throws -> [UInt8] {
        let view = try renderRequest(settings, defaultSize: "512", annotated: true)
        let key = ImageCache.key(content: content, settings: view.pictureKey)
        if let png = await cache?.get(key) { return png }
        let png = try await drawn(view, settings: Self.pictureSettings(settings, defaultSize: "512"), subject: subject)
        await cache?.put(key, png)
        return png
    }

    /// The picture `view` (from `settings`) asks for of `subject`: in a render process, or read and
    /// prepared here off the threads that answer requests and drawn on this process's render thread.
    private func drawn(_ view: RenderRequest, settings: [(String, String)], subject: ImageSubject) async throws -> [UInt8] {
        // Its memory first: pictures made at once stay within the server's picture memory.
        let memory = try reserveMemory(view.estimatedBytes)
        defer { memory.release() }
        let seconds = configuration.renderSeconds
        return try await workers.inTurn(queued: self.worker.queued, limit: configuration.renderQueue) { worker in
            if let process = workers.process(worker) {
                // The process keeps the same deadline for its work and stops it there.
                // A process that ends under it (and whatever else it held) is tried once more alone.
                let workers = workers, megabytes = processMegabytes
                return try await withRenderDeadline {
                    try await workers.tried(in: process, megabytes: megabytes, doing: "reading or drawing") {
                        try await $0.draw(settings: settings, subject: subject, seconds: seconds)
                    }
                }
            }
            let perception = perception, limits = limits
            // The deadline covers the whole picture, reading and preparing, drawing, encoding, and the
            // work stops at it wherever it has got to (`WorkDeadline`).
            let deadline = WorkDeadline(seconds: seconds)
            return try await withRenderDeadline(late: deadline.cancel) {
                try self.checkRenderQueue()
                return try await PicturePipeline.png(subject, view, limits: limits, perception: perception, deadline: deadline, worker: self.worker,
                                                     renderer: { $0.molecules }, prepare: { try await self.heavy($0) })
            }
        }
    }

    /// Seconds a render process may take to read a file for the library before it is killed.
    static let importSeconds = 120.0

    /// An import whose file is read in a render process, which hands back the compact model and
    /// the kept original; this process only hashes the bytes, decodes Molshot's own compact model
    /// and stores the rows. A file already there (the same bytes, in the importer's scope) is not
    /// read at all.
    func importedElsewhere(_ bytes: [UInt8], source: String, name: String, owner: String?, isPrivate: Bool) async throws -> MoleculeLibrary.ImportOutcome {
        guard !molecules.isReadOnly else { throw HTTPError(.forbidden, message: MoleculeAccess.readOnlyMessage) }
        let file = try await heavy { MoleculeLibrary.ImportedFile(bytes, source: source, name: name, owner: owner, isPrivate: isPrivate) }
        if let existing = try await molecules.reading({ try $0.existing(file) }) { return .duplicate(existing) }
        let (wire, blob) = try await workers.inTurn(queued: self.worker.queued, limit: configuration.renderQueue) { worker in
            guard let process = workers.process(worker) else { throw HTTPError(.internalServerError, message: "no render process to read the file") }
            return try await workers.tried(in: process, megabytes: processMegabytes, doing: "reading") {
                try await $0.prepare(bytes, source: source, seconds: Self.importSeconds)
            }
        }
        let prepared = try await heavy { try MoleculeLibrary.PreparedImport(file: file, wire: wire, blob: blob) }
        return try await molecules.writing { try $0.importPrepared(prepared) }
    }

    /// The PNG `request` asks for of `map`: 400 for a bad parameter or a size over `--max-side`.
    func pathwayPNG(_ map: PathwayMap, request: PathwayRequest) async throws -> [UInt8] {
        let maxSide = configuration.maxSide, map = map
        // Triangles and labels off the threads that answer requests, as files are read.
        let picture = try await heavy { () throws -> PathwayPicture in
            do {
                let frame = try request.frame(for: map)
                try Self.checkSide(width: frame.width, height: frame.height, maxSide: maxSide)
                return try PathwayPicture(map, view: frame.view, width: frame.width, height: frame.height, theme: request.theme,
                                          samples: request.samples)
            } catch { throw HTTPAnswer.badRequest(error) }
        }
        return try await draw { renderers in try picture.png(try picture.draw(renderers.pathways)) }
    }
}

/// The one way a molecule's picture is made, in this process and in render processes alike: read
/// and prepared off the threads that answer requests (`prepare`: the service's file-reading gate,
/// or the blocking pool), drawn on the render thread, smoothed and encoded on the blocking pool
/// while the render thread draws the next; the work stops at `deadline` wherever it has got to.
enum PicturePipeline {
    typealias Prepared = (MoleculePicture, atoms: Int)

    static func png<Context>(_ subject: ImageSubject, _ view: RenderRequest, limits: PictureLimits, perception: BondPerception,
                             deadline: WorkDeadline, worker: RenderWorker<Context>,
                             renderer: @escaping @Sendable (Context) -> MoleculeRenderer,
                             prepare: (@escaping @Sendable () throws -> Prepared) async throws -> Prepared) async throws -> [UInt8] {
        let (picture, atoms) = try await prepare { try WorkDeadline.with(deadline) { try limits.picture(subject, view, perception: perception) } }
        // The deadline around all of it is this one (`PictureMaker.draw` would start a second timer).
        let drawn = try await worker.draw { context in try WorkDeadline.with(deadline) { try picture.draw(renderer(context)) } }
        let png = try await BlockingPool.shared.run { try WorkDeadline.with(deadline) { try picture.png(drawn) } }
        // The large structure's arrays are freed by now: give their pages back rather than keep them.
        if atoms >= PictureLimits.largeStructure { _ = molshot_trim_heap() }
        return png
    }
}

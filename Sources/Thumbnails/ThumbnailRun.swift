import CMemory
import Core
import Density
import Foundation
import Graphics
import MoleculeView
import Scene
import Structure

/// Runs a thumbnail job as a pipeline that keeps every core busy: reader threads load, parse and
/// build geometry; a `RenderWorker` owns the GL context and draws (llvmpipe shares one
/// rasterizer per process, so more contexts would not draw faster); encoder threads smooth edges
/// and write the PNGs. Bounded queues between the stages keep memory flat however large the collection.
public final class ThumbnailRun: Sendable {
    public let job: ThumbnailJob
    /// What the run's threads share: the index, the counts, the sources and the next to take.
    private struct State: Sendable {
        var index: ThumbnailIndex
        var summary = ThumbnailSummary()
        var lastSave = Date.distantPast
        var next = 0
        var sources: [String] = []

        /// Rewrites the index at most once a second while the run goes on.
        mutating func saveIfDue() {
            let now = Date()
            guard now.timeIntervalSince(lastSave) >= 1 else { return }
            lastSave = now
            try? index.save()
        }
    }
    private let state: Locked<State>
    private let known: ThumbnailIndex?
    private let start = Date()

    public init(_ job: ThumbnailJob) {
        self.job = job
        state = Locked(State(index: ThumbnailIndex(directory: job.outputDirectory, shard: job.shard, part: job.isPartProcess ? job.part : .whole)))
        // A part process writes its own part, but knows what the run's index already says.
        known = job.isPartProcess ? ThumbnailIndex(directory: job.outputDirectory, shard: job.shard) : nil
    }

    /// Counts so far, for progress reports.
    public var progress: (done: Int, total: Int, rendered: Int, failed: Int, elapsed: Double) {
        let summary = state.withLock { $0.summary }
        return (summary.rendered + summary.skipped + summary.failed, summary.total, summary.rendered, summary.failed,
                Date().timeIntervalSince(start))
    }

    struct WriteTask {
        var source: String
        var checksum: UInt64
        var images: [(name: String, image: DrawnPicture)]
        var atoms: Int
        var started: Date
    }

    /// Does this process's part; with the whole job in one process, that is everything, contact
    /// sheets included. A run split over processes ends with `finish(adding:)`.
    public func run() throws -> ThumbnailSummary {
        let fm = FileManager.default
        do {
            try fm.createDirectory(atPath: job.outputDirectory, withIntermediateDirectories: true)
        } catch {
            throw GraphicsError("cannot create \(job.outputDirectory): \(error.localizedDescription)")
        }
        if !job.isPartProcess { AtomicFile.removeLeftovers(in: job.outputDirectory) }
        let all = try StructureInputs.collect(job.inputs).filter(job.shard.contains)
        let job = job
        state.withLock { s in
            if !job.isPartProcess { s.index.absorbParts(in: job.outputDirectory, shard: job.shard) }
            s.sources = all.enumerated().filter { $0.offset % job.part.count == job.part.index - 1 }.map(\.element)
            s.summary.total = s.sources.count
        }
        let perception = try BondPerception.standard()

        let writeQueue = BlockingQueue<WriteTask>(capacity: 4)
        let meshes = job.request.modes.contains { [.cartoon, .putty, .surface, .auto, .shows].contains($0) }
        // Made at the first picture the CPU does not draw (opaque meshes are cast too): a run of
        // thumbnails in any mode may never load Mesa.
        let worker = LazyWorker(meshes: meshes)
        let readers = DispatchGroup(), writers = DispatchGroup()
        let jobs = max(1, job.jobs)
        for _ in 0..<jobs {
            readers.enter()
            BlockingPool.dedicated(name: "molshot-read") { [self] in
                ThumbnailRun.yieldToDrawing()
                while let source = takeNext() { read(source, perception: perception, worker: worker, into: writeQueue) }
                readers.leave()
            }
        }
        for _ in 0..<jobs {
            writers.enter()
            BlockingPool.dedicated(name: "molshot-write") { [self] in
                ThumbnailRun.yieldToDrawing()
                while let task = writeQueue.pop() { write(task) }
                writers.leave()
            }
        }
        readers.wait()
        worker.closeIfMade()
        writeQueue.close()
        writers.wait()

        if job.part == .whole { return try finish(adding: []) }
        let start = start
        return try state.withLock { s in
            try s.index.save()
            s.summary.seconds = Date().timeIntervalSince(start)
            s.summary.failures.sort { $0.source < $1.source }
            return s.summary
        }
    }

    /// After part processes have done the other parts: their index parts merged into this run's
    /// index, their counts added, and contact sheets drawn over the whole run.
    public func finish(adding parts: [ThumbnailSummary]) throws -> ThumbnailSummary {
        let job = job
        // The parts' counts and index parts merged into the run's, and the index saved.
        var (summary, index) = try state.withLock { s -> (ThumbnailSummary, ThumbnailIndex) in
            for h in parts {
                s.summary.total += h.total
                s.summary.rendered += h.rendered
                s.summary.skipped += h.skipped
                s.summary.failed += h.failed
                s.summary.images += h.images
                s.summary.failures += h.failures
            }
            s.index.absorbParts(in: job.outputDirectory, shard: job.shard)
            try s.index.save()
            return (s.summary, s.index)
        }
        // Contact sheets over the whole run, outside the lock (the run's threads are done).
        let everything = try StructureInputs.collect(job.inputs).filter(job.shard.contains)
        if let layout = job.contactSheet {
            for (m, mode) in job.request.modes.enumerated() {
                let items = everything.sorted().compactMap { source -> (String, String)? in
                    guard let e = index.entries[source], e.status == "ok", m < e.outputs.count else { return nil }
                    return (ContactSheet.label(source), e.outputs[m])
                }
                summary.sheets += try ContactSheet.write(items, mode: mode, request: job.request, layout: layout,
                                                         directory: job.outputDirectory)
            }
        }
        summary.seconds = Date().timeIntervalSince(start)
        summary.failures.sort { $0.source < $1.source }
        state.withLock { [summary] in $0.summary = summary }
        return summary
    }

    /// Readers and writers run below the drawing thread and llvmpipe's (nice 10): drawing is the
    /// longest stage and every picture waits on it, while reading and encoding have the queues'
    /// slack to fill what it leaves. (Pictures ray-cast on the CPU are drawn by the readers, all
    /// at one priority then.) Measured on the corpus's thumbnails (nine runs alternating,
    /// two cores): median 0.731 s all at one priority, 0.706 s so (5: 0.715 to 0.690 s; 19: 0.734 to
    /// 0.712 s, seven runs each).
    static func yieldToDrawing() { _ = molshot_lower_thread_priority(10) }

    private func takeNext() -> String? {
        state.withLock { s -> String? in
            guard s.next < s.sources.count else { return nil }
            s.next += 1
            return s.sources[s.next - 1]
        }
    }

    /// The pictures a source makes: one per mode; a map one (its isosurface, named by the first mode).
    private func outputs(_ checksum: UInt64, isMap: Bool) -> [String] {
        (isMap ? Array(job.request.modes.prefix(1)) : job.request.modes).map { job.request.thumbnailName(checksum: checksum, mode: $0) }
    }

    private func read(_ source: String, perception: BondPerception, worker: LazyWorker,
                      into writeQueue: BlockingQueue<WriteTask>) {
        let started = Date()
        var checksum: UInt64 = 0
        do {
            let decode: () throws -> Structure
            // A density map is a file named as one (.map, .mrc, .ccp4): drawn as its isosurface.
            let isMap = !ThumbnailJob.isEntry(source) && DensityMap.isMapPath(source)
            var fileBytes: [UInt8] = []
            if let entries = job.entries, ThumbnailJob.isEntry(source) {
                // A library or PDB entry: the checksum of the file it was imported from names the pictures.
                let entry = try entries(source)
                checksum = entry.checksum
                decode = { entry.structure }
            } else {
                let raw = try FileInput.readAll(path: source, limit: job.request.maxBytes)
                checksum = FNV1a.hash(raw)
                fileBytes = raw
                decode = { [options] in try StructureFile.decode(raw, source: source, options: options) }
            }
            let names = outputs(checksum, isMap: isMap)
            let present = names.allSatisfy {
                FileManager.default.fileExists(atPath: (job.outputDirectory as NSString).appendingPathComponent($0))
            }
            if present && !job.force {
                if let entry = lockedEntry(source), entry.status == "ok", entry.outputs == names {
                    finishSkipped(nil)
                    return
                }
                // The pictures were written but the index was not (a run killed in between): record them.
                let atoms = isMap ? 0 : try decode().models.first?.atoms.count ?? 0
                finishSkipped(entry(source, checksum, names, atoms: atoms, since: started))
                return
            }
            if isMap {
                // Its isosurface as the request's map settings say, one picture (named by the first mode).
                let map = try DensityMap.decode(fileBytes, file: source, limits: DensityLimits(maxBytes: job.request.maxBytes))
                var look = job.request.map
                // A recommended level from the EMDB header beside each map (EMDB's layout).
                let header = look.level == .recommended ? try EMDBHeader.beside(source)?.header : nil
                look.level = try look.level.resolved(in: map, header: header, file: source)
                let picture = MoleculePicture(PreparedMolecule(meshes: [try look.mesh(map, file: source)]), request: job.request)
                let request = job.request, mode = job.request.modes.first ?? .ballAndStick
                if let cast = picture.cast() {
                    writeQueue.push(WriteTask(source: source, checksum: checksum, images: [(request.thumbnailName(checksum: checksum, mode: mode), cast)],
                                              atoms: 0, started: started))
                    return
                }
                worker.get().submit({ renderer in
                    let images = [(request.thumbnailName(checksum: checksum, mode: mode), try picture.draw(renderer))]
                    writeQueue.push(WriteTask(source: source, checksum: checksum, images: images, atoms: 0, started: started))
                }, failed: { [self] error in fail(source, checksum, error, since: started) })
                return
            }
            let structure = try job.request.molecule(try decode(), source: source)
            // Geometry, camera and the culling of hidden spheres here, off the drawing thread (the longest stage).
            let pictures = try job.request.modes.map { mode in
                (mode, try MoleculePicture(structure, mode: mode, request: job.request, perception: perception))
            }
            let atoms = structure.models.first?.atoms.count ?? 0
            let request = job.request
            // Small orthographic pictures of spheres and bonds are ray-cast here, on this thread (the
            // readers draw in parallel); the rest go to the GL thread.
            if pictures.allSatisfy({ $0.1.casts }) {
                let images = pictures.map { mode, picture in (request.thumbnailName(checksum: checksum, mode: mode), picture.cast()!) }
                writeQueue.push(WriteTask(source: source, checksum: checksum, images: images, atoms: atoms, started: started))
                return
            }
            worker.get().submit({ renderer in
                let images = try pictures.map { mode, picture in (request.thumbnailName(checksum: checksum, mode: mode), try picture.draw(renderer)) }
                writeQueue.push(WriteTask(source: source, checksum: checksum, images: images, atoms: atoms, started: started))
            }, failed: { [self] error in fail(source, checksum, error, since: started) })
        } catch {
            fail(source, checksum, error, since: started)
        }
    }

    private var options: StructureFile.Options { ThumbnailJob.structureOptions(job.request) }

    private func write(_ task: WriteTask) {
        do {
            for (name, image) in task.images {
                try job.request.pngEncoder.write(image.finished(), to: (job.outputDirectory as NSString).appendingPathComponent(name))
            }
            finishRendered(entry(task.source, task.checksum, task.images.map(\.name), atoms: task.atoms, since: task.started),
                           images: task.images.count)
        } catch {
            fail(task.source, task.checksum, error, since: task.started)
        }
    }

    private func entry(_ source: String, _ checksum: UInt64, _ names: [String], atoms: Int, since started: Date) -> ThumbnailIndex.Entry {
        ThumbnailIndex.Entry(source: source, checksum: FNV1a.hex(checksum, digits: 16), settingsKey: job.request.settingsKey,
                             settings: job.request.canonical, outputs: names, atoms: atoms,
                             seconds: Date().timeIntervalSince(started), status: "ok", error: nil)
    }

    private func lockedEntry(_ source: String) -> ThumbnailIndex.Entry? {
        state.withLock { $0.index.entries[source] } ?? known?.entries[source]
    }

    private func finishRendered(_ entry: ThumbnailIndex.Entry, images: Int) {
        state.withLock { s in
            s.summary.rendered += 1
            s.summary.images += images
            s.index.record(entry)
            s.saveIfDue()
        }
    }

    private func finishSkipped(_ entry: ThumbnailIndex.Entry?) {
        state.withLock { s in
            s.summary.skipped += 1
            if let entry { s.index.record(entry) }
            s.saveIfDue()
        }
    }

    private func fail(_ source: String, _ checksum: UInt64, _ error: Error, since started: Date) {
        let message = "\(error)"
        let entry = ThumbnailIndex.Entry(source: source, checksum: FNV1a.hex(checksum, digits: 16),
                                         settingsKey: job.request.settingsKey, settings: job.request.canonical, outputs: [],
                                         atoms: 0, seconds: Date().timeIntervalSince(started), status: "failed", error: message)
        state.withLock { s in
            s.summary.failed += 1
            s.summary.failures.append(.init(source: source, error: message))
            s.index.record(entry)
            s.saveIfDue()
        }
    }

}

/// The GL thread of a thumbnail run, started at the first picture that needs it: a run whose
/// pictures are all ray-cast on the CPU never makes a GL context or compiles a shader.
final class LazyWorker: Sendable {
    private let worker = Locked<RenderWorker<MoleculeRenderer>?>(nil)
    private let meshes: Bool

    init(meshes: Bool) { self.meshes = meshes }

    func get() -> RenderWorker<MoleculeRenderer> {
        let meshes = meshes
        return worker.withLock { kept in
            if let kept { return kept }
            let made = RenderWorker(capacity: 2) { try MoleculeRenderer() }
            // The shaders compile at the first draw: a two-atom picture first, while more files are read.
            made.submit({ try $0.warmUp(meshes: meshes) }, failed: { _ in })
            kept = made
            return made
        }
    }

    func closeIfMade() {
        worker.withLock { $0 }?.close()
    }
}

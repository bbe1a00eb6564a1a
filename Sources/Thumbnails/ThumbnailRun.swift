import Foundation
import Graphics
import MoleculeView
import Scene
import Structure

/// What a thumbnail run is asked to do.
public struct ThumbnailJob: Sendable {
    public var inputs: [String]
    public var outputDirectory: String
    public var settings = ThumbnailSettings()
    /// Threads reading and parsing, and threads encoding PNG; drawing has one thread of its own.
    public var jobs = ProcessInfo.processInfo.activeProcessorCount
    public var shard = Shard.whole
    /// Within the shard, every `part.count`-th input from the `part.index`-th: how one run splits
    /// its work over several processes (llvmpipe draws faster in two processes than in one).
    public var part = Shard.whole
    /// True in a helper process: it writes its own part index for the main process to merge.
    public var isHelper = false
    /// Render even what is up to date.
    public var force = false
    public var maxBytes = FileInput.defaultLimit
    /// Pages of labelled thumbnails, per mode, when set.
    public var contactSheet: ContactSheet.Layout?

    public init(inputs: [String], outputDirectory: String) {
        self.inputs = inputs
        self.outputDirectory = outputDirectory
    }
}

/// How a run ended.
public struct ThumbnailSummary: Sendable, Codable {
    public struct Failure: Sendable, Codable, Equatable {
        public var source: String
        public var error: String
    }

    public var total = 0
    public var rendered = 0
    public var skipped = 0
    public var failed = 0
    public var images = 0
    public var seconds = 0.0
    public var failures: [Failure] = []
    /// Contact sheet pages written.
    public var sheets: [String] = []

    public var line: String {
        let rate = seconds > 0 ? Double(rendered) / seconds : 0
        return "\(rendered) rendered, \(skipped) up to date, \(failed) failed of \(total) in \(String(format: "%.1f", seconds)) s"
            + " (\(String(format: "%.1f", rate)) structures/s, \(images) images)"
    }
}

/// Runs a thumbnail job as a pipeline that keeps every core busy: reader threads load, parse and
/// build geometry; one drawing thread owns the GL context (llvmpipe shares one rasterizer per
/// process, so more contexts would not draw faster); encoder threads smooth edges and write the PNGs. Bounded
/// queues between the stages keep memory flat however large the collection.
public final class ThumbnailRun: @unchecked Sendable {
    public let job: ThumbnailJob
    private let lock = NSLock()
    private var index: ThumbnailIndex
    private let known: ThumbnailIndex?
    private var summary = ThumbnailSummary()
    private var lastSave = Date.distantPast
    private var next = 0
    private var sources: [String] = []
    private let start = Date()

    public init(_ job: ThumbnailJob) {
        self.job = job
        index = ThumbnailIndex(directory: job.outputDirectory, shard: job.shard, part: job.isHelper ? job.part : .whole)
        // A helper process writes its own part, but knows what the run's index already says.
        known = job.isHelper ? ThumbnailIndex(directory: job.outputDirectory, shard: job.shard) : nil
    }

    /// Counts so far, for progress reports.
    public var progress: (done: Int, total: Int, rendered: Int, failed: Int, elapsed: Double) {
        lock.lock()
        defer { lock.unlock() }
        return (summary.rendered + summary.skipped + summary.failed, summary.total, summary.rendered, summary.failed,
                Date().timeIntervalSince(start))
    }

    struct DrawTask {
        var source: String
        var checksum: UInt64
        var prepared: [(mode: String, molecule: PreparedMolecule, camera: Camera, visibility: SphereVisibility?)]
        var atoms: Int
        var started: Date
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
        if !job.isHelper { AtomicFile.removeLeftovers(in: job.outputDirectory) }
        let all = try ThumbnailInputs.collect(job.inputs).filter(job.shard.contains)
        if !job.isHelper { index.absorbParts(in: job.outputDirectory, shard: job.shard) }
        sources = all.enumerated().filter { $0.offset % job.part.count == job.part.index - 1 }.map(\.element)
        summary.total = sources.count
        let perception = try BondPerception.standard()

        let drawQueue = BlockingQueue<DrawTask>(capacity: 2)
        let writeQueue = BlockingQueue<WriteTask>(capacity: 4)
        let readers = DispatchGroup(), drawer = DispatchGroup(), writers = DispatchGroup()
        let jobs = max(1, job.jobs)
        for _ in 0..<jobs {
            readers.enter()
            let reader = Thread { [self] in
                while let source = takeNext() { read(source, perception: perception, into: drawQueue) }
                readers.leave()
            }
            reader.name = "molshot-read"
            reader.start()
        }
        drawer.enter()
        let drawThread = Thread { [self] in
            draw(from: drawQueue, into: writeQueue)
            drawer.leave()
        }
        drawThread.stackSize = 8 << 20
        drawThread.name = "molshot-draw"
        drawThread.start()
        for _ in 0..<jobs {
            writers.enter()
            let writer = Thread { [self] in
                while let task = writeQueue.pop() { write(task) }
                writers.leave()
            }
            writer.name = "molshot-write"
            writer.start()
        }
        readers.wait()
        drawQueue.close()
        drawer.wait()
        writeQueue.close()
        writers.wait()

        if job.part == .whole { return try finish(adding: []) }
        lock.lock()
        defer { lock.unlock() }
        try index.save()
        summary.seconds = Date().timeIntervalSince(start)
        summary.failures.sort { $0.source < $1.source }
        return summary
    }

    /// After helper processes have done the other parts: their index parts merged into this run's
    /// index, their counts added, and contact sheets drawn over the whole run.
    public func finish(adding helpers: [ThumbnailSummary]) throws -> ThumbnailSummary {
        lock.lock()
        defer { lock.unlock() }
        for h in helpers {
            summary.total += h.total
            summary.rendered += h.rendered
            summary.skipped += h.skipped
            summary.failed += h.failed
            summary.images += h.images
            summary.failures += h.failures
        }
        index.absorbParts(in: job.outputDirectory, shard: job.shard)
        try index.save()
        let everything = try ThumbnailInputs.collect(job.inputs).filter(job.shard.contains)
        if let layout = job.contactSheet {
            for (m, mode) in job.settings.modes.enumerated() {
                let items = everything.sorted().compactMap { source -> (String, String)? in
                    guard let e = index.entries[source], e.status == "ok", m < e.outputs.count else { return nil }
                    return (ContactSheet.label(source), e.outputs[m])
                }
                summary.sheets += try ContactSheet.write(items, mode: mode, settings: job.settings, layout: layout,
                                                         directory: job.outputDirectory)
            }
        }
        summary.seconds = Date().timeIntervalSince(start)
        summary.failures.sort { $0.source < $1.source }
        return summary
    }

    private func takeNext() -> String? {
        lock.lock()
        defer { lock.unlock() }
        guard next < sources.count else { return nil }
        next += 1
        return sources[next - 1]
    }

    private func outputs(_ checksum: UInt64) -> [String] {
        job.settings.modes.map { job.settings.outputName(checksum: checksum, mode: $0) }
    }

    private func read(_ source: String, perception: BondPerception, into drawQueue: BlockingQueue<DrawTask>) {
        let started = Date()
        var checksum: UInt64 = 0
        do {
            let raw = try FileInput.readAll(path: source, limit: job.maxBytes)
            checksum = ContentChecksum.hash(raw)
            let names = outputs(checksum)
            let present = names.allSatisfy {
                FileManager.default.fileExists(atPath: (job.outputDirectory as NSString).appendingPathComponent($0))
            }
            if present && !job.force {
                if let entry = lockedEntry(source), entry.status == "ok", entry.outputs == names {
                    finishSkipped(nil)
                    return
                }
                // The pictures were written but the index was not (a run killed in between): record them.
                let structure = try StructureFile.decode(raw, source: source, options: options)
                finishSkipped(entry(source, checksum, names, atoms: structure.models.first?.atoms.count ?? 0, since: started))
                return
            }
            let structure = try StructureFile.decode(raw, source: source, options: options)
            var prepared: [(String, PreparedMolecule, Camera, SphereVisibility?)] = []
            for mode in job.settings.modes {
                let molecule = try PreparedMolecule(structure, mode: mode, color: ColorTheme(rawValue: job.settings.color) ?? .element,
                                                    filter: AtomFilter(hydrogens: job.settings.hydrogens, waters: job.settings.waters),
                                                    perception: perception)
                // Hidden spheres are culled here, off the drawing thread (the longest stage).
                let camera = job.settings.camera(fittedTo: molecule)
                prepared.append((mode, molecule, camera, MoleculeRenderer.visibleSpheres(molecule.geometry, camera: camera)))
            }
            drawQueue.push(DrawTask(source: source, checksum: checksum, prepared: prepared,
                                    atoms: structure.models.first?.atoms.count ?? 0, started: started))
        } catch {
            fail(source, checksum, error, since: started)
        }
    }

    private var options: StructureFile.Options {
        var o = StructureFile.Options()
        o.maxBytes = job.maxBytes
        return o
    }

    private func draw(from drawQueue: BlockingQueue<DrawTask>, into writeQueue: BlockingQueue<WriteTask>) {
        let renderer: MoleculeRenderer
        do {
            renderer = try MoleculeRenderer()
            try renderer.warmUp()
        } catch {
            while let task = drawQueue.pop() { fail(task.source, task.checksum, error, since: task.started) }
            return
        }
        let style = job.settings.style
        while let task = drawQueue.pop() {
            do {
                var images: [(String, DrawnPicture)] = []
                for (mode, molecule, camera, visibility) in task.prepared {
                    let scene = renderer.makeScene(molecule.geometry, atomColors: molecule.atomColors, visibility: visibility)
                    let image = try renderer.draw(scene, camera: camera,
                                                  width: job.settings.width, height: job.settings.height, style: style)
                    images.append((job.settings.outputName(checksum: task.checksum, mode: mode), image))
                }
                writeQueue.push(WriteTask(source: task.source, checksum: task.checksum, images: images, atoms: task.atoms,
                                          started: task.started))
            } catch {
                fail(task.source, task.checksum, error, since: task.started)
            }
        }
    }

    private func write(_ task: WriteTask) {
        do {
            for (name, image) in task.images {
                try PNGEncoder.fast.write(image.finished(), to: (job.outputDirectory as NSString).appendingPathComponent(name))
            }
            finishRendered(entry(task.source, task.checksum, task.images.map(\.name), atoms: task.atoms, since: task.started),
                           images: task.images.count)
        } catch {
            fail(task.source, task.checksum, error, since: task.started)
        }
    }

    private func entry(_ source: String, _ checksum: UInt64, _ names: [String], atoms: Int, since started: Date) -> ThumbnailIndex.Entry {
        ThumbnailIndex.Entry(source: source, checksum: String(checksum, radix: 16).leftPadded(16), settingsKey: job.settings.key,
                             settings: job.settings.canonical, outputs: names, atoms: atoms,
                             seconds: Date().timeIntervalSince(started), status: "ok", error: nil)
    }

    private func lockedEntry(_ source: String) -> ThumbnailIndex.Entry? {
        lock.lock()
        defer { lock.unlock() }
        return index.entries[source] ?? known?.entries[source]
    }

    private func finishRendered(_ entry: ThumbnailIndex.Entry, images: Int) {
        lock.lock()
        defer { lock.unlock() }
        summary.rendered += 1
        summary.images += images
        index.record(entry)
        saveIfDue()
    }

    private func finishSkipped(_ entry: ThumbnailIndex.Entry?) {
        lock.lock()
        defer { lock.unlock() }
        summary.skipped += 1
        if let entry { index.record(entry) }
        saveIfDue()
    }

    private func fail(_ source: String, _ checksum: UInt64, _ error: Error, since started: Date) {
        let message = "\(error)"
        lock.lock()
        defer { lock.unlock() }
        summary.failed += 1
        summary.failures.append(.init(source: source, error: message))
        index.record(ThumbnailIndex.Entry(source: source, checksum: String(checksum, radix: 16).leftPadded(16),
                                          settingsKey: job.settings.key, settings: job.settings.canonical, outputs: [],
                                          atoms: 0, seconds: Date().timeIntervalSince(started), status: "failed", error: message))
        saveIfDue()
    }

    /// Rewrites the index at most once a second while the run goes on. Called with the lock held.
    private func saveIfDue() {
        let now = Date()
        guard now.timeIntervalSince(lastSave) >= 1 else { return }
        lastSave = now
        try? index.save()
    }
}

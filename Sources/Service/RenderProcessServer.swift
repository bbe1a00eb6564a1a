import CMemory
import Core
import Density
import Foundation
import Gestures
import Graphics
import Hummingbird
import Imaging
import Library
import MoleculeView
import Structure

/// What an image request draws: a library molecule or an uploaded file.
enum ImageSubject: Sendable {
    case library(Int)
    case upload([UInt8], name: String)
}

/// Why a picture cannot be made, said where it is found (here or in a render process) and
/// answered in HTTP once, at the edge (`HTTPAnswer.badRequest`); a file that cannot be read
/// throws its reader's own error.
enum PictureError: Error, CustomStringConvertible {
    /// More than the server draws (413).
    case tooLarge(String)

    var description: String {
        switch self { case .tooLarge(let why): why }
    }
}

/// What reading and drawing a molecule's picture needs to know of the service's limits, the same
/// in the service's own process and in its render processes; no HTTP here.
struct PictureLimits: Sendable {
    var library: LibraryConnections
    /// Largest structure file read (unpacked).
    var maxBytes: Int
    var maxAtoms: Int

    /// The structure `subject` names; 400 for a file that cannot be read.
    func load(_ subject: ImageSubject, altloc: AltLocChoice = .first) throws -> Structure {
        switch subject {
        case .library(let id): return try library.reading { try $0.load(String(id)).structure }
        case .upload(let bytes, let name):
            var options = StructureFile.Options()
            options.maxBytes = maxBytes
            options.altloc = altloc
            return try StructureFile.decode(bytes, source: name, options: options)
        }
    }

    /// 413 for a structure with more atoms than the service draws, counted over every model
    /// (every model was read and is held: a first model of 10 atoms hid 60,000 in the second).
    func check(_ structure: Structure) throws {
        let atoms = structure.models.reduce(0) { $0 + $1.atoms.count }
        guard atoms <= maxAtoms else {
            throw PictureError.tooLarge("\(atoms) atoms\(structure.models.count > 1 ? " in \(structure.models.count) models" : "") is more than this server's \(maxAtoms) (max-atoms)")
        }
    }

    /// The molecule `view` asks for (the file's model or an assembly), checked: 413 past max-atoms,
    /// counted before an assembly is built.
    func molecule(_ structure: Structure, _ view: RenderRequest) throws -> Structure {
        try check(structure)
        var view = view
        view.maxAtoms = maxAtoms
        do {
            return try view.molecule(structure, source: structure.metadata.id.isEmpty ? "the structure" : structure.metadata.id)
        } catch let error as AssemblyError where error.tooLarge {
            throw PictureError.tooLarge(error.description)
        }
    }

    /// `subject` read, checked and made ready to draw as `view` asks.
    func picture(_ subject: ImageSubject, _ view: RenderRequest, perception: BondPerception) throws -> (MoleculePicture, atoms: Int) {
        // An uploaded density map (CCP4/MRC, by its name or its header's "MAP "): its isosurface as `view.map` asks.
        if case .upload(let bytes, let name) = subject, DensityMap.isMapPath(name) || DensityMap.looksLikeMap(bytes) {
            let map = try DensityMap.decode(bytes, file: name, limits: DensityLimits(maxVoxels: PictureLimits.mapVoxels, maxBytes: maxBytes))
            let prepared = PreparedMolecule(meshes: [try view.map.mesh(map, file: name)])
            return (MoleculePicture(prepared, request: view), 0)
        }
        let structure = try molecule(try load(subject, altloc: view.altloc), view)
        return (try MoleculePicture(structure, mode: try view.singleMode(), request: view, perception: perception),
                structure.models.first?.atoms.count ?? 0)
    }

    /// Voxels of an uploaded map the service contours (256 MB of values).
    static let mapVoxels = 64 << 20

    /// Atoms past which memory is given back to the system after a picture.
    static let largeStructure = 200_000
}

extension MoleculeDriver.Options {
    /// A live view's or a replay's options as the service draws them, in its own process or a
    /// render process alike: `request`, with assemblies built up to `maxAtoms`, and every
    /// `resize` kept within `maxSide` and the picture samples.
    static func served(_ request: RenderRequest, maxSide: Int, maxAtoms: Int) -> Self {
        var options = Self()
        options.request = request
        // A view's frames carry no labels (the service refuses them; a site's are left out).
        options.request.leaveOutSiteLabels()
        options.request.maxAtoms = maxAtoms
        options.maxSide = maxSide
        options.maxSamples = ServiceLimits.pictureSamples.value
        return options
    }
}

/// The render process's side (`molshot serve render-process`): messages in on standard input,
/// answers out on standard output, until standard input ends. Pictures are read and finished on
/// threads of their own and drawn on this process's one render thread; each live session takes
/// its lines in order on a queue of its own.
public enum RenderProcessServer {
    /// The address space, in MiB, a render process asked for `megabytes` really has: never above
    /// the hard limit this process runs under, which its children inherit and only root could raise.
    static func addressSpaceMegabytes(_ megabytes: Int) -> Int {
        var current = rlimit()
        getrlimit(Int32(RLIMIT_AS.rawValue), &current)
        return min(megabytes, Int(clamping: current.rlim_max >> 20))
    }

    public static func run(database: String, maxBytes: Int, maxAtoms: Int, megabytes: Int = 0) throws {
        FileInput.limitSetting.withLock { $0 = ServiceConfiguration.inflateLimitSetting }
        // Its address space bounded before any file is read: a file whose reading needs more ends
        // this process (the service answers 422, "the reader stopped"), never the service.
        if megabytes > 0 {
            let wanted = rlim_t(addressSpaceMegabytes(megabytes)) << 20
            var limit = rlimit(rlim_cur: wanted, rlim_max: wanted)
            guard setrlimit(Int32(RLIMIT_AS.rawValue), &limit) == 0 else { throw InputFileError(file: "render-process", message: "cannot limit its address space to \(megabytes) MiB") }
        }
        // Answers go on the real standard output; anything else printed goes to standard error.
        let out = dup(1)
        dup2(2, 1)
        let pipe = WorkerPipe(input: 0, output: out)
        let limits = PictureLimits(library: try LibraryConnections(path: database, readers: 2), maxBytes: maxBytes, maxAtoms: maxAtoms)
        let perception = try BondPerception.standard()
        let worker = RenderWorker(capacity: 64, name: "molshot-render-process") { try MoleculeRenderer() }
        var sessions: [String: (view: LiveSession<MoleculeDriver>, queue: SerialJobs, waiting: WaitingLines)] = [:]
        while let (order, blob) = pipe.receive(ProcessOrder.self) {
            switch order {
            case .image(let id, let job):
                Task {
                    var answer = ProcessAnswer.done(id: id)
                    var png: [UInt8] = []
                    do {
                        let view = try RenderRequest(pairs(job.settings))
                        let subject: ImageSubject = job.library.map { .library($0) } ?? .upload(blob, name: job.name ?? "upload")
                        // The service's deadline for this picture, kept here: its work stops at it.
                        let deadline = WorkDeadline(seconds: job.seconds ?? .infinity)
                        png = try await PicturePipeline.png(subject, view, limits: limits, perception: perception, deadline: deadline, worker: worker,
                                                            renderer: { $0 }, prepare: { try await BlockingPool.shared.run($0) })
                    } catch {
                        answer = failure(error, id: id)
                    }
                    // The answer written on the blocking pool: the pipe may be full.
                    let done = answer, bytes = png
                    BlockingPool.shared.submit { _ = pipe.send(done, bytes) }
                }
            case .replay(let id, let job):
                BlockingPool.shared.submit {
                    var answer = ProcessAnswer.done(id: id)
                    var made: [UInt8] = []
                    do {
                        var movie: MovieFormat?
                        if let format = job.movie {
                            guard let m = MovieFormat(rawValue: format) else { throw HTTPError(.badRequest, message: "parameter format: no movie format \(Excerpt.of(format))") }
                            movie = m
                        }
                        let replay = ReplayJob(settings: pairs(job.settings), fps: job.fps, movie: movie, maxSide: job.maxSide,
                                               maxAtoms: limits.maxAtoms, seconds: job.seconds)
                        // The server checked the lines; the bytes are checked again here, where they are read.
                        let text = try ReplayJob.text(blob)
                        var molecule: Structure?
                        if let library = job.library {
                            let structure = try limits.load(.library(library))
                            try limits.check(structure)
                            molecule = structure
                        }
                        made = try replay.run(text, molecule: molecule, lane: RenderLane(worker), stop: ReplayStop(seconds: replay.seconds))
                        if (molecule?.models.first?.atoms.count ?? 0) >= PictureLimits.largeStructure { _ = molshot_trim_heap() }
                    } catch {
                        answer = failure(error, id: id)
                    }
                    pipe.send(answer, made)
                }
            case .prepare(let id, let name, let seconds):
                BlockingPool.shared.submit {
                    var answer = ProcessAnswer.done(id: id)
                    var out: [UInt8] = []
                    do {
                        let deadline = WorkDeadline(seconds: seconds)
                        let file = MoleculeLibrary.ImportedFile(blob, source: name, name: name)
                        let prepared = try WorkDeadline.with(deadline) {
                            try MoleculeLibrary.prepare(file, maxBytes: limits.maxBytes, perception: perception, maxAtoms: limits.maxAtoms)
                        }
                        let wire: MoleculeLibrary.PreparedImport.Wire
                        (wire, out) = try prepared.wire()
                        answer = .prepared(id: id, wire)
                        if prepared.atomCount >= PictureLimits.largeStructure { _ = molshot_trim_heap() }
                    } catch {
                        answer = failure(error, id: id)
                    }
                    pipe.send(answer, out)
                }
            case .open(let id, let job):
                var answer = ProcessAnswer.opened(session: id)
                do throws(any Error) {
                    let options = MoleculeDriver.Options.served(try RenderRequest(pairs(job.settings)), maxSide: job.maxSide, maxAtoms: limits.maxAtoms)
                    let frames = try job.format.map { try SessionController.frameEncoder($0, quality: job.quality, request: options.request) }
                    let structure = try limits.load(.library(job.library))
                    try limits.check(structure)
                    let view = LiveSession(source: "session \(id)", options: options, molecule: structure, lane: RenderLane(worker),
                                           frames: frames, taken: job.record ? { line in pipe.send(ProcessAnswer.took(session: id), Array(line.utf8)) } : nil,
                                           send: { output in send(output, session: id, on: pipe) })
                    sessions[id] = (view, SerialJobs(), WaitingLines())
                } catch {
                    let http = (error as? HTTPError) ?? HTTPAnswer.badRequest(error)
                    answer = .refused(session: id, status: Int(http.status.code), message: http.body ?? "the session could not open")
                }
                pipe.send(answer)
            case .event(let id):
                // Bounded here too: the lines of every session in this process share its memory.
                if let session = sessions[id] {
                    let line = String(decoding: blob, as: UTF8.self), size = blob.count
                    if session.waiting.admit(size, tell: { send(.error(line: 0, message: $0), session: id, on: pipe) }) {
                        session.queue.submit { session.view.receive(line); session.waiting.done(size) }
                    }
                }
            case .close(let id):
                if let session = sessions.removeValue(forKey: id) {
                    session.queue.submit { session.view.close() }
                }
            }
        }
        sessions.values.forEach { $0.view.close() }
        worker.close()
    }

    /// The answer for request `id` that failed with `error`: its HTTP status and words.
    private static func failure(_ error: Error, id: UInt64) -> ProcessAnswer {
        let http = (error as? HTTPError) ?? HTTPAnswer.badRequest(error)
        return .failed(id: id, status: Int(http.status.code), message: http.body ?? "the file could not be read")
    }

    private static func pairs(_ settings: [[String]]) -> [(String, String)] {
        settings.compactMap { $0.count == 2 ? ($0[0], $0[1]) : nil }
    }

    private static func send(_ output: LiveOutput, session: String, on pipe: WorkerPipe) {
        switch output {
        case .frame(let f):
            pipe.send(ProcessAnswer.frame(session: session, .init(events: f.events, time: f.time, mode: f.mode, caption: f.caption, drawn: f.drawn,
                                                                  format: f.format, facts: f.facts, moving: f.moving)), f.image)
        case .error(let line, let message):
            pipe.send(ProcessAnswer.error(session: session, line: line, message: message))
        case .tapped(let tap):
            let atom = tap.atom.flatMap { try? JSONEncoder().encode($0) }.map { Array($0) } ?? []
            pipe.send(ProcessAnswer.tap(session: session, .init(time: tap.time, line: tap.line, x: tap.point.x, y: tap.point.y, hover: tap.hover)), atom)
        }
    }
}

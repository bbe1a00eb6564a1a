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

/// The render process's side (`molshot serve render-process`): messages in on standard input,
/// answers out on standard output, until standard input ends. Pictures are read and finished on
/// threads of their own and drawn on this process's one render thread; each live session takes
/// its lines in order on a queue of its own.
public enum RenderProcessServer {
    public static func run(database: String, maxBytes: Int, maxAtoms: Int, megabytes: Int = 0) throws {
        FileInput.limitSetting.withLock { $0 = ServiceConfiguration.inflateLimitSetting }
        // Its address space bounded before any file is read: a file whose reading needs more ends
        // this process (the service answers 422, "the reader stopped"), never the service.
        if megabytes > 0 {
            // Never above a limit the service itself runs under (inherited), which only root could raise.
            var current = rlimit()
            getrlimit(Int32(RLIMIT_AS.rawValue), &current)
            let wanted = min(rlim_t(megabytes) << 20, current.rlim_max)
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
        while let (head, blob) = pipe.receive() {
            switch head.kind {
            case .image:
                Task {
                    var answer = WorkerMessage(.result, id: head.id)
                    var png: [UInt8] = []
                    do {
                        let view = try RenderRequest(pairs(head.settings))
                        let subject: ImageSubject = head.library.map { .library($0) } ?? .upload(blob, name: head.name ?? "upload")
                        // The service's deadline for this picture, kept here: its work stops at it.
                        let deadline = WorkDeadline(seconds: head.seconds ?? .infinity)
                        png = try await PicturePipeline.png(subject, view, limits: limits, perception: perception, deadline: deadline, worker: worker,
                                                            renderer: { $0 }, prepare: { try await BlockingPool.shared.run($0) })
                    } catch {
                        let http = (error as? HTTPError) ?? HTTPAnswer.badRequest(error)
                        answer.status = Int(http.status.code)
                        answer.message = http.body
                    }
                    // The answer written on the blocking pool: the pipe may be full.
                    let done = answer, bytes = png
                    BlockingPool.shared.submit { _ = pipe.send(done, bytes) }
                }
            case .replay:
                BlockingPool.shared.submit {
                    var answer = WorkerMessage(.result, id: head.id)
                    var made: [UInt8] = []
                    do {
                        var movie: MovieFormat?
                        if let format = head.format {
                            guard let m = MovieFormat(rawValue: format) else { throw HTTPError(.badRequest, message: "parameter format: no movie format \(Excerpt.of(format))") }
                            movie = m
                        }
                        let job = ReplayJob(settings: pairs(head.settings), fps: head.fps, movie: movie, maxSide: head.maxSide ?? 4096,
                                            maxAtoms: limits.maxAtoms, seconds: head.seconds ?? .infinity)
                        // The server checked the lines; the bytes are checked again here, where they are read.
                        let text = try ReplayJob.text(blob)
                        var molecule: Structure?
                        if let library = head.library {
                            let structure = try limits.load(.library(library))
                            try limits.check(structure)
                            molecule = structure
                        }
                        made = try job.run(text, molecule: molecule, lane: RenderLane(worker))
                        if (molecule?.models.first?.atoms.count ?? 0) >= PictureLimits.largeStructure { _ = molshot_trim_heap() }
                    } catch {
                        let http = (error as? HTTPError) ?? HTTPAnswer.badRequest(error)
                        answer.status = Int(http.status.code)
                        answer.message = http.body
                    }
                    pipe.send(answer, made)
                }
            case .prepare:
                BlockingPool.shared.submit {
                    var answer = WorkerMessage(.prepared, id: head.id)
                    var out: [UInt8] = []
                    do {
                        let deadline = WorkDeadline(seconds: head.seconds ?? .infinity)
                        let source = head.name ?? "upload"
                        let file = MoleculeLibrary.ImportedFile(blob, source: source, name: source)
                        let prepared = try WorkDeadline.with(deadline) {
                            try MoleculeLibrary.prepare(file, maxBytes: limits.maxBytes, perception: perception, maxAtoms: limits.maxAtoms)
                        }
                        (answer.prepared, out) = try prepared.wire()
                        if prepared.atomCount >= PictureLimits.largeStructure { _ = molshot_trim_heap() }
                    } catch {
                        let http = (error as? HTTPError) ?? HTTPAnswer.badRequest(error)
                        answer.status = Int(http.status.code)
                        answer.message = http.body
                    }
                    pipe.send(answer, out)
                }
            case .open:
                let id = head.session ?? ""
                var answer = WorkerMessage(.opened, session: id)
                do throws(any Error) {
                    var options = MoleculeDriver.Options()
                    options.request = try RenderRequest(pairs(head.settings))
                    options.request.maxAtoms = limits.maxAtoms
                    options.maxSide = head.maxSide ?? options.maxSide
                    options.maxSamples = ServiceLimits.pictureSamples.value
                    let frames = try head.format.map { try SessionController.frameEncoder($0, quality: head.quality, request: options.request) }
                    let structure = try limits.load(.library(head.library ?? 0))
                    try limits.check(structure)
                    let record = head.record ?? false
                    let view = LiveSession(source: "session \(id)", options: options, molecule: structure, lane: RenderLane(worker),
                                           frames: frames, taken: record ? { line in pipe.send(WorkerMessage(.took, session: id), Array(line.utf8)) } : nil,
                                           send: { output in send(output, session: id, on: pipe) })
                    sessions[id] = (view, SerialJobs(), WaitingLines())
                } catch {
                    let http = (error as? HTTPError) ?? HTTPAnswer.badRequest(error)
                    answer.status = Int(http.status.code)
                    answer.message = http.body
                }
                pipe.send(answer)
            case .event:
                // Bounded here too: the lines of every session in this process share its memory.
                if let session = sessions[head.session ?? ""] {
                    let line = String(decoding: blob, as: UTF8.self), size = blob.count
                    switch session.waiting.admit(size) {
                    case .taken: session.queue.submit { session.view.receive(line); session.waiting.done(size) }
                    case .dropped(let tell): if tell { send(.error(line: 0, message: WaitingLines.droppedMessage), session: head.session ?? "", on: pipe) }
                    }
                }
            case .close:
                if let session = sessions.removeValue(forKey: head.session ?? "") {
                    session.queue.submit { session.view.close() }
                }
            default:
                break
            }
        }
        sessions.values.forEach { $0.view.close() }
        worker.close()
    }

    private static func pairs(_ settings: [[String]]?) -> [(String, String)] {
        (settings ?? []).compactMap { $0.count == 2 ? ($0[0], $0[1]) : nil }
    }

    private static func send(_ output: LiveOutput, session: String, on pipe: WorkerPipe) {
        var head: WorkerMessage
        var blob: [UInt8] = []
        switch output {
        case .frame(let f):
            head = WorkerMessage(.frame, session: session)
            head.events = f.events
            head.time = f.time
            head.mode = f.mode
            head.caption = f.caption
            head.drawn = f.drawn
            head.format = f.format
            head.facts = f.facts
            head.moving = f.moving ? true : nil
            blob = f.image
        case .error(let line, let message):
            head = WorkerMessage(.error, session: session)
            head.line = line
            head.message = message
        case .tapped(let tap):
            head = WorkerMessage(.tap, session: session)
            head.hover = tap.hover ? true : nil
            head.time = tap.time
            head.line = tap.line
            head.point = [tap.point.x, tap.point.y]
            blob = tap.atom.flatMap { try? JSONEncoder().encode($0) }.map { Array($0) } ?? []
        }
        pipe.send(head, blob)
    }
}

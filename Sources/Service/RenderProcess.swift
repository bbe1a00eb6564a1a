import Core
import Foundation
import Gestures
import Hummingbird
import Library

/// One render process of the service, seen from the service: a copy of `molshot` started as
/// `molshot serve render-process`, with a GL context of its own (all contexts of one process
/// share one rasterizer, so more drawing at once takes more processes). It draws pictures
/// (`draw`) and runs live sessions (`openSession`) sent to it over a pipe. A process that ends
/// (a crash on a hostile file, say) fails what it was doing with a 500 and is started again for
/// the next request.
final class RenderProcess: Sendable {
    private let executable: URL
    private let arguments: [String]
    private let environment: [String: String]
    /// The process now, its pipe, and what waits on it.
    private struct State: Sendable {
        var process: Process?
        var pipe: WorkerPipe?
        var nextID: UInt64 = 1
        var pending: [UInt64: CheckedContinuation<(ProcessAnswer, [UInt8]), Error>] = [:]
        var opening: [String: CheckedContinuation<Void, Error>] = [:]
        var sessions: [String: RemoteLiveView] = [:]
        var closed = false
    }
    private let state = Locked(State())

    init(executable: URL, arguments: [String], environment: [String: String]) {
        self.executable = executable
        self.arguments = arguments
        self.environment = environment
    }

    /// The process running now, if one is.
    var pid: pid_t? { state.withLock { $0.process?.processIdentifier } }

    /// Pictures asked for and not answered yet.
    var inFlight: Int { state.withLock { $0.pending.count } }

    /// The PNG of `subject` with the picture options `settings` (the query's, checked already).
    func draw(settings: [(String, String)], subject: ImageSubject, seconds: Double? = nil) async throws -> [UInt8] {
        var order = ProcessOrder.ImageOrder(settings: settings.map { [$0.0, $0.1] }, seconds: seconds)
        let blob: [UInt8]
        switch subject {
        case .library(let id): order.library = id; blob = []
        case .upload(let bytes, let name): order.name = name; blob = bytes
        }
        let image = order
        return try await ask({ .image(id: $0, image) }, blob, seconds: seconds).1
    }

    /// The animated PNG or movie of replay `job` (the event file's bytes, checked already), on
    /// library molecule `library` where given. Throws the HTTP error it answered with.
    func replay(_ job: ReplayJob, library: Int?, events: [UInt8]) async throws -> [UInt8] {
        let order = ProcessOrder.ReplayOrder(settings: job.settings.map { [$0.0, $0.1] }, fps: job.fps, movie: job.movie?.rawValue,
                                             maxSide: job.maxSide, seconds: job.seconds, library: library)
        return try await ask({ .replay(id: $0, order) }, events, seconds: job.seconds).1
    }

    /// The import of a file's bytes (`source` names it in errors) prepared in the process: read,
    /// bonds perceived, the compact model made. Throws the HTTP error it answered with.
    func prepare(_ bytes: [UInt8], source: String, seconds: Double) async throws -> (MoleculeLibrary.PreparedImport.Wire, [UInt8]) {
        let (answer, blob) = try await ask({ .prepare(id: $0, name: source, seconds: seconds) }, bytes, seconds: seconds)
        guard case .prepared(_, let wire) = answer else { throw HTTPError(.internalServerError, message: "the render process answered an import without it") }
        return (wire, blob)
    }

    /// Sends one job (`order` given its id) and waits for its answer.
    private func ask(_ order: @escaping @Sendable (UInt64) -> ProcessOrder, _ blob: [UInt8], seconds: Double?) async throws -> (ProcessAnswer, [UInt8]) {
        try await withCheckedThrowingContinuation { continuation in
            let sent = state.withLock { s -> (WorkerPipe, ProcessOrder, UInt64, pid_t?)? in
                guard let pipe = running(&s) else { return nil }
                let id = s.nextID
                s.nextID += 1
                s.pending[id] = continuation
                return (pipe, order(id), id, s.process?.processIdentifier)
            }
            guard let (pipe, head, id, pid) = sent else { return continuation.resume(throwing: RenderProcessEnded(reason: "it could not be started")) }
            // A write to a process that has just ended fails; its reader fails the job. Written on
            // the blocking pool: a blob of up to --max-body bytes waits for the process to read it.
            BlockingPool.shared.submit { _ = pipe.send(head, blob) }
            // A reader that keeps working past the deadline (a loop that never looks at it) is
            // stopped from outside: the process is killed and replaced.
            if let seconds, seconds.isFinite, let pid {
                Task { [weak self] in
                    try? await Task.sleep(nanoseconds: UInt64((seconds + Self.grace) * 1e9))
                    self?.kill(pid, ifStillPending: id)
                }
            }
        }
    }

    /// Seconds past a picture's deadline before its process is killed.
    static let grace = 5.0

    /// Kills process `pid` if it is still the one running and still holds job `id`.
    private func kill(_ pid: pid_t, ifStillPending id: UInt64) {
        let overdue = state.withLock { s in s.process?.processIdentifier == pid && s.pending[id] != nil }
        if overdue {
            LogWriter.shared.write("error: a render process (pid \(pid)) went \(Self.grace) s past a picture's deadline; killed, the next request starts another\n")
            Glibc.kill(pid, SIGKILL)
        }
    }

    /// Opens live session `id` on library molecule `library` with the picture options `settings`;
    /// its frames and errors go to `send`. Throws the HTTP error the process answered with (a
    /// molecule with too many atoms, say).
    func openSession(_ id: String, library: Int, settings: [(String, String)], record: Bool, frames: (format: String, quality: Int?)? = nil,
                     maxSide: Int = 8192, send: @escaping @Sendable (LiveOutput) -> Void) async throws -> RemoteLiveView {
        let head = ProcessOrder.open(session: id, .init(library: library, settings: settings.map { [$0.0, $0.1] }, record: record,
                                                        format: frames?.format, quality: frames?.quality, maxSide: maxSide))
        // The session's lines and its close reach the pipe in the order they were posted, written on
        // the blocking pool (a close comes from the thread that answered the WebSocket).
        let writes = SerialJobs()
        let view = RemoteLiveView(id: id, record: record, send: send) { [weak self] message, blob, written in
            let process = self
            writes.submit {
                _ = process?.state.withLock { $0.pipe }?.send(message, blob)
                if case .close = message { process?.state.withLock { _ = $0.sessions.removeValue(forKey: id) } }
                written()
            }
        }
        let head0 = head
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            let pipe = state.withLock { s -> WorkerPipe? in
                guard let pipe = running(&s) else { return nil }
                s.opening[id] = continuation
                s.sessions[id] = view
                return pipe
            }
            guard let pipe else { return continuation.resume(throwing: RenderProcessEnded(reason: "it could not be started")) }
            BlockingPool.shared.submit { _ = pipe.send(head0) }
        }
        return view
    }

    /// Ends the process once it has finished what it holds (its input is closed).
    func close() {
        let (process, pipe): (Process?, WorkerPipe?) = state.withLock {
            $0.closed = true
            return ($0.process, $0.pipe)
        }
        if let pipe { Glibc.close(pipe.output) }
        process?.waitUntilExit()
    }


    /// The pipe to the process, started if it is not running (under the lock, `s` the state).
    private func running(_ s: inout State) -> WorkerPipe? {
        if let pipe = s.pipe { return pipe }
        guard !s.closed else { return nil }
        let p = Process()
        p.executableURL = executable
        p.arguments = arguments
        p.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let toProcess = Pipe(), fromProcess = Pipe()
        p.standardInput = toProcess
        p.standardOutput = fromProcess
        p.standardError = FileHandle.standardError
        do { try p.run() } catch {
            LogWriter.shared.write("error: cannot start a render process (\(executable.path)): \(error)\n")
            return nil
        }
        // Our copies of the process's ends go, so that its end shows here as the end of the pipe.
        try? toProcess.fileHandleForReading.close()
        try? fromProcess.fileHandleForWriting.close()
        let started = WorkerPipe(input: dup(fromProcess.fileHandleForReading.fileDescriptor),
                                 output: dup(toProcess.fileHandleForWriting.fileDescriptor))
        try? fromProcess.fileHandleForReading.close()
        try? toProcess.fileHandleForWriting.close()
        s.process = p
        s.pipe = started
        BlockingPool.dedicated(name: "molshot-rp-read") { [self] in read(started, p) }
        return started
    }

    /// Hands each answer to what waits for it, until the process ends. Each is checked first
    /// (`ProcessAnswer.checked`): one that is not fit to use is dropped and logged.
    private func read(_ from: WorkerPipe, _ p: Process) {
        while let (received, blob) = from.receive(ProcessAnswer.self) {
            guard let answer = received.checked() else {
                LogWriter.shared.write("error: a render process (pid \(p.processIdentifier)) sent an answer that is not fit to use; dropped\n")
                continue
            }
            switch answer {
            case .done(let id), .prepared(let id, _):
                state.withLock { $0.pending.removeValue(forKey: id) }?.resume(returning: (answer, blob))
            case .failed(let id, let status, let message):
                state.withLock { $0.pending.removeValue(forKey: id) }?.resume(throwing: HTTPError(.init(code: status), message: message))
            case .opened(let session):
                state.withLock { $0.opening.removeValue(forKey: session) }?.resume()
            case .refused(let session, let status, let message):
                let waiting = state.withLock { s in
                    s.sessions.removeValue(forKey: session)
                    return s.opening.removeValue(forKey: session)
                }
                waiting?.resume(throwing: HTTPError(.init(code: status), message: message))
            case .frame(let session, _), .error(let session, _, _), .took(let session), .tap(let session, _):
                state.withLock { $0.sessions[session] }?.heard(answer, blob)
            }
        }
        // The process has ended: what it held fails, and the next request starts another.
        p.waitUntilExit()
        let (jobs, opens, views) = state.withLock { s -> ([CheckedContinuation<(ProcessAnswer, [UInt8]), Error>], [CheckedContinuation<Void, Error>], [RemoteLiveView]) in
            defer {
                s.pending = [:]
                s.opening = [:]
                s.sessions = [:]
                if s.pipe === from { s.pipe = nil; s.process = nil }
            }
            return (Array(s.pending.values), Array(s.opening.values), Array(s.sessions.values))
        }
        Glibc.close(from.input)
        Glibc.close(from.output)
        let how = "\(p.terminationReason == .uncaughtSignal ? "signal" : "status") \(p.terminationStatus)"
        let ended = RenderProcessEnded(reason: how)
        jobs.forEach { $0.resume(throwing: ended) }
        opens.forEach { $0.resume(throwing: ended) }
        views.forEach { $0.ended() }
        if !state.withLock({ $0.closed }) {
            LogWriter.shared.write("error: a render process ended (\(how)) with \(jobs.count) picture(s) and \(views.count) session(s); the next request starts another\n")
        }
    }
}

/// A render process ended while it held a request: a file that makes its reader trap or pass the
/// process's memory limit, a kill, or a crash. Retried alone (`RenderWorkers.alone`) to learn
/// whether the request was the cause.
struct RenderProcessEnded: Error, CustomStringConvertible {
    /// How it ended ("signal 4", "status 1").
    var reason: String
    var description: String { "the render process ended (\(reason))" }
}

/// A live session that runs in a render process: lines go there, frames come back.
final class RemoteLiveView: LiveView, Sendable {
    let id: String
    private let send: @Sendable (LiveOutput) -> Void
    /// Posts a message to the process; the closure given is called once it is written.
    private let post: @Sendable (ProcessOrder, [UInt8], @escaping @Sendable () -> Void) -> Void
    private let state: Locked<(recorded: EventRecording?, over: Bool)>
    /// Lines posted and not yet written to the pipe: bounded, so that a client sending faster
    /// than the process reads cannot queue its lines here without end.
    private let waiting = WaitingLines()

    init(id: String, record: Bool, send: @escaping @Sendable (LiveOutput) -> Void,
         post: @escaping @Sendable (ProcessOrder, [UInt8], @escaping @Sendable () -> Void) -> Void) {
        self.id = id
        self.send = send
        self.post = post
        state = Locked((record ? EventRecording() : nil, false))
    }

    func receive(_ line: String) {
        if state.withLock({ $0.over }) {
            send(.error(line: 0, message: "the render process of this session ended; open a new session"))
            return
        }
        let size = line.utf8.count, waiting = waiting
        if waiting.admit(size, tell: { send(.error(line: 0, message: $0)) }) {
            post(.event(session: id), Array(line.utf8)) { waiting.done(size) }
        }
    }

    func close() {
        let first = state.withLock { s -> Bool in
            defer { s.over = true }
            return !s.over
        }
        if first { post(.close(session: id), []) {} }
    }

    var recording: String? { state.withLock { $0.recorded?.text } }

    /// What the process sent for this session (checked already).
    func heard(_ answer: ProcessAnswer, _ blob: [UInt8]) {
        switch answer {
        case .frame(_, let head):
            var frame = LiveFrame(image: blob, format: head.format, events: head.events, time: head.time, mode: head.mode,
                                  caption: head.caption, drawn: head.drawn, facts: head.facts)
            frame.moving = head.moving
            send(.frame(frame))
        case .error(_, let line, let message):
            send(.error(line: line, message: message))
        case .took:
            state.withLock { $0.recorded?.append(String(decoding: blob, as: UTF8.self)) }
        case .tap(_, let head):
            let atom = blob.isEmpty ? nil : try? JSONDecoder().decode(PickedAtom.self, from: Data(blob))
            var tap = Tap(time: head.time, line: head.line, point: SIMD2(head.x, head.y), atom: atom)
            tap.hover = head.hover
            send(.tapped(tap))
        default:
            break
        }
    }

    /// The process ended under the session.
    func ended() {
        state.withLock { $0.over = true }
        send(.error(line: 0, message: "the render process of this session ended; open a new session"))
    }
}

import Core
import Foundation
import Hummingbird

/// The service's render workers, each with a GL context of its own. Worker 0 is this process's
/// render thread: it draws what the server itself holds (pathway maps, tiles, replays) and
/// molecules only where no render process can be started. Workers 1 to N are render processes
/// (`RenderProcess`): every molecule file, uploaded or from the library, is read, built and
/// drawn in one of them, under its own address-space limit, so a file that makes a reader trap or
/// run out of memory ends that process and not the server (GL contexts in one process also share
/// one rasterizer, so drawing at once takes processes anyway). Each picture goes to the worker
/// with least to do; each molecule session to the one with fewest sessions, and stays there for
/// its life, so sessions on one worker take turns there as they did on one render thread.
/// A picture whose process ended under it is tried once more alone, in a process kept for that
/// (`alone`): the file that ended the first ends only that one, and the others are answered.
final class RenderWorkers: Sendable {
    let processes: [RenderProcess]
    /// The process that retries, one request at a time, what a process ended under.
    let quarantine: RenderProcess?
    private let serial = WorkGate(slots: 1, waiting: Int.max)
    /// Turns in the render processes for pictures, replays and imports: `queue` (`--render-queue`)
    /// a process at once, drawn side by side there (a small picture is not held behind a large
    /// one), as many more waiting here, fewest recent render seconds first.
    let turns: WorkGate
    /// Each client's pictures under way and recent render seconds.
    let shares: ClientShares
    /// Pictures under way and sessions open, per worker.
    private let load: Locked<(pictures: [Int], sessions: [Int])>

    /// `count` render processes (one at least) running `executable` with `arguments`, beside this
    /// process's render thread, with llvmpipe's rasterizer threads shared out so that the
    /// processes together use the machine's cores once; without an executable, this process draws
    /// alone.
    init(count: Int, executable: URL?, arguments: [String], queue: Int = 8) {
        let processCount = executable == nil ? 0 : max(1, count)
        let slots = queue * max(1, processCount), waiting = slots
        turns = WorkGate(slots: slots, waiting: waiting)
        shares = ClientShares(capacity: slots + waiting)
        // A count set by hand (LP_NUM_THREADS in the environment) is left as it is.
        let threads = EnvironmentVariable.rasterizerThreads.text() ?? String(Self.rasterizerThreads(workers: processCount))
        let make = { RenderProcess(executable: executable!, arguments: arguments, environment: [EnvironmentVariable.rasterizerThreads.rawValue: threads]) }
        processes = (0..<processCount).map { _ in make() }
        quarantine = processCount > 0 ? make() : nil
        load = Locked((Array(repeating: 0, count: processCount + 1), Array(repeating: 0, count: processCount + 1)))
    }

    var count: Int { processes.count + 1 }

    /// llvmpipe's rasterizer threads for each of `workers` (its `LP_NUM_THREADS`): the cores
    /// shared out, and none (the drawing thread rasterizes) where a worker's share is one core.
    static func rasterizerThreads(workers: Int, cores: Int = Cores.active) -> Int {
        let share = cores / max(1, workers)
        return share >= 2 ? share : 0
    }

    /// The worker to read and draw a molecule's picture (least pictures and sessions) or to run
    /// its session (fewest sessions): a render process wherever there is one. 503 when its queue
    /// holds `limit` pictures already (`queued`: worker 0's own queue). Give it back with `done`.
    func take(forSession: Bool, queued: Int, limit: Int) throws -> Int {
        try load.withLock { l in
            let candidates = processes.isEmpty ? 0..<1 : 1..<l.pictures.count
            let k = candidates.min { a, b in
                forSession
                    ? (l.sessions[a], l.pictures[a]) < (l.sessions[b], l.pictures[b])
                    : l.pictures[a] + l.sessions[a] < l.pictures[b] + l.sessions[b]
            }!
            if !forSession && (k == 0 ? queued : l.pictures[k]) >= limit {
                throw HTTPError(.serviceUnavailable, headers: [.retryAfter: "1"], message: "the render queue is full; try again in a second")
            }
            if forSession { l.sessions[k] += 1 } else { l.pictures[k] += 1 }
            return k
        }
    }

    /// `work` given the worker to draw a picture, replay or import of the client asking
    /// (`RequestClient.current`), once that client's turn has come: 429 past its share while
    /// others are active, 503 when the render queue is full. The seconds its turn is held count
    /// against the client (`ClientShares`). `queued`, `limit`: as `take`.
    func inTurn<T: Sendable>(queued: @autoclosure () -> Int, limit: Int, _ work: (Int) async throws -> T) async throws -> T {
        let client = RequestClient.current
        let priority = try shares.admit(client)
        var held = 0.0
        defer { shares.done(client, seconds: held) }
        do { try await turns.enter(priority: priority) } catch is WorkGate.Full {
            throw HTTPError(.serviceUnavailable, headers: [.retryAfter: "1"], message: "the render queue is full; try again in a second")
        }
        let start = DispatchTime.now().uptimeNanoseconds
        defer {
            turns.leave()
            held = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        }
        let k = try take(forSession: false, queued: queued(), limit: limit)
        defer { done(k, session: false) }
        return try await work(k)
    }

    func done(_ k: Int, session: Bool) {
        load.withLock { l in
            if session { l.sessions[k] -= 1 } else { l.pictures[k] -= 1 }
        }
    }

    /// Worker `k`'s process; nil for this process's render thread.
    func process(_ k: Int) -> RenderProcess? { k == 0 ? nil : processes[k - 1] }

    /// `work` in `process`; where the process ends under it, once more alone (`alone`), and where
    /// that ends too, a 422 saying the reader stopped on the file (`doing`: what the work was, for it).
    func tried<T: Sendable>(in process: RenderProcess, megabytes: Int, doing: String,
                            _ work: @escaping @Sendable (RenderProcess) async throws -> T) async throws -> T {
        do { return try await work(process) } catch is RenderProcessEnded {
            do { return try await alone(work) } catch let ended as RenderProcessEnded {
                throw HTTPError(.unprocessableContent, message: "the reader stopped on this file: \(ended) twice while \(doing) it "
                                + "(past the render process's \(megabytes) MiB, render-process-mb, or a fault in the reader); the server goes on")
            }
        }
    }

    /// `work` with the quarantine process, one request at a time: what ends it is then known to
    /// be the request's own doing.
    func alone<T: Sendable>(_ work: @Sendable (RenderProcess) async throws -> T) async throws -> T {
        guard let quarantine else { throw RenderProcessEnded(reason: "no render process to retry in") }
        return try await serial.inTurn { try await work(quarantine) }
    }

    /// Pictures waiting or being drawn in the render processes.
    var processQueued: Int { processes.reduce(0) { $0 + $1.inFlight } + (quarantine?.inFlight ?? 0) }

    func close() {
        processes.forEach { $0.close() }
        quarantine?.close()
    }
}

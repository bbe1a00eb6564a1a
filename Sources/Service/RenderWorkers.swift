import Core
import Foundation
import Hummingbird

/// The service's render workers, each with a GL context of its own: worker 0 is this process's
/// render thread (which also draws everything that is not a molecule: maps, tiles, replays), and
/// workers 1 to N-1 are render processes (`RenderProcess`), since GL contexts in one process share
/// one rasterizer. Each picture goes to the worker with least to do; each molecule session to the
/// one with fewest sessions, and stays there for its life, so sessions on one worker take turns
/// there as they did on the one render thread.
final class RenderWorkers: Sendable {
    let processes: [RenderProcess]
    /// Pictures under way and sessions open, per worker.
    private let load: Locked<(pictures: [Int], sessions: [Int])>

    /// `count` workers in all; the processes are `executable` with `arguments`, with llvmpipe's
    /// rasterizer threads shared out so that the workers together use the machine's cores once.
    init(count: Int, executable: URL?, arguments: [String]) {
        let count = executable == nil ? 1 : max(1, count)
        // A count set by hand (LP_NUM_THREADS in the environment) is left as it is.
        let threads = ProcessInfo.processInfo.environment["LP_NUM_THREADS"] ?? String(Self.rasterizerThreads(workers: count))
        processes = (1..<count).map { _ in
            RenderProcess(executable: executable!, arguments: arguments, environment: ["LP_NUM_THREADS": threads])
        }
        load = Locked((Array(repeating: 0, count: count), Array(repeating: 0, count: count)))
    }

    var count: Int { processes.count + 1 }

    /// llvmpipe's rasterizer threads for each of `workers` (its `LP_NUM_THREADS`): the cores
    /// shared out, and none (the drawing thread rasterizes) where a worker's share is one core.
    static func rasterizerThreads(workers: Int, cores: Int = ProcessInfo.processInfo.activeProcessorCount) -> Int {
        let share = cores / max(1, workers)
        return share >= 2 ? share : 0
    }

    /// The worker to take a picture (least pictures and sessions) or a session (fewest
    /// sessions); 503 when its queue holds `limit` pictures already (`queued`: worker 0's own
    /// queue). Give it back with `done`.
    func take(forSession: Bool, queued: Int, limit: Int) throws -> Int {
        try load.withLock { l in
            let k = l.pictures.indices.min { a, b in
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

    func done(_ k: Int, session: Bool) {
        load.withLock { l in
            if session { l.sessions[k] -= 1 } else { l.pictures[k] -= 1 }
        }
    }

    /// Worker `k`'s process; nil for this process's render thread.
    func process(_ k: Int) -> RenderProcess? { k == 0 ? nil : processes[k - 1] }

    /// Pictures waiting or being drawn in the render processes.
    var processQueued: Int { processes.reduce(0) { $0 + $1.inFlight } }

    func close() { processes.forEach { $0.close() } }
}

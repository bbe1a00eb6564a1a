import Foundation
import Synchronization

/// Where this program's blocking work runs, and the one place (with the GL thread's executor in
/// `Graphics/RenderWorker.swift`) that starts threads.
///
/// Swift's cooperative pool has one thread per core and answers every request and every task:
/// work that waits on a disk, on SQLite or on a long parse there stalls everything else (a gzip
/// bomb being read would hold `/healthz`). Such work goes to `BlockingPool.shared` instead: a
/// fixed number of named threads, started when first needed, taking jobs first come first served.
/// Async callers suspend while their job waits and runs; no cooperative thread is held.
///
/// Loops that live as long as what they serve (a pipe's reader, a progress line, a pipeline's
/// stage) are not jobs: a bounded pool would run out of threads for them. They get a thread of
/// their own from `BlockingPool.dedicated`, named, with a stack size said here.
public final class BlockingPool: Sendable {
    /// The process's pool. Its size: blocking work waits on disks and locks more than it computes,
    /// so twice the cores, at least 4 and at most 16.
    public static let shared = BlockingPool(threads: min(16, max(4, 2 * Cores.active)), name: "molshot-io")

    public let threads: Int
    public let name: String
    private let state = Mutex<State>(State())
    /// Counts jobs waiting: a thread of the pool waits on it, then takes the oldest job.
    private let waiting = DispatchSemaphore(value: 0)

    private struct State: ~Copyable {
        var jobs = FIFO<@Sendable () -> Void>()
        var started = 0
        var running = 0
    }

    public init(threads: Int, name: String) {
        self.threads = max(1, threads)
        self.name = name
    }

    /// Jobs waiting for a thread and jobs running now.
    public var load: (waiting: Int, running: Int) {
        state.withLock { ($0.jobs.count, $0.running) }
    }

    /// Runs `work` on one of the pool's threads; the caller suspends meanwhile.
    public func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, Error>) in
            submit { continuation.resume(with: Result { try work() }) }
        }
    }

    /// Queues `job` after `seconds`: a timer that holds no thread while it waits.
    public func submit(after seconds: Double, _ job: @escaping @Sendable () -> Void) {
        Task { [self] in
            try? await Task.sleep(nanoseconds: UInt64(max(0, min(seconds, 1e6)) * 1e9))
            submit(job)
        }
    }

    /// Queues `job` for the pool's threads and returns at once.
    public func submit(_ job: @escaping @Sendable () -> Void) {
        let start = state.withLock { s -> Bool in
            s.jobs.append(job)
            // A thread more while there are fewer than `threads` and more jobs than idle threads.
            guard s.started < threads, s.jobs.count > s.started - s.running else { return false }
            s.started += 1
            return true
        }
        if start {
            BlockingPool.dedicated(name: name) { [self] in serve() }
        }
        waiting.signal()
    }

    private func serve() {
        while true {
            waiting.wait()
            let job = state.withLock { s -> (@Sendable () -> Void)? in
                guard let job = s.jobs.popFirst() else { return nil }
                s.running += 1
                return job
            }
            job?()
            state.withLock { $0.running -= 1 }
        }
    }

    /// Starts `body` on a thread of its own, named `name` (what top, perf and /proc show, at most
    /// 15 bytes), with an 8 MiB stack (a deep structure's recursion and llvmpipe's setup both
    /// need more than Foundation's default 512 KiB).
    public static func dedicated(name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread {
            if let comm = fopen("/proc/thread-self/comm", "w") {
                fputs(String(decoding: name.utf8.prefix(15), as: UTF8.self), comm)
                fclose(comm)
            }
            body()
        }
        thread.stackSize = 8 << 20
        thread.name = name
        thread.start()
    }
}

/// Jobs run one at a time, in the order they came, on a `BlockingPool`'s threads: what a serial
/// dispatch queue gave (a live session's lines, each after the one before), without a second pool.
/// No thread is held while no job waits.
public final class SerialJobs: Sendable {
    private let pool: BlockingPool
    private let state = Mutex<State>(State())

    private struct State: ~Copyable {
        var jobs = FIFO<@Sendable () -> Void>()
        var running = false
    }

    public init(on pool: BlockingPool = .shared) { self.pool = pool }

    /// Queues `job` after those before it and returns at once.
    public func submit(_ job: @escaping @Sendable () -> Void) {
        let start = state.withLock { s -> Bool in
            s.jobs.append(job)
            guard !s.running else { return false }
            s.running = true
            return true
        }
        if start { pool.submit { [self] in drain() } }
    }

    private func drain() {
        while let job = state.withLock({ s -> (@Sendable () -> Void)? in
            if let job = s.jobs.popFirst() { return job }
            s.running = false
            return nil
        }) {
            job()
        }
    }
}

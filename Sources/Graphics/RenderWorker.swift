import Core
import Foundation

/// One thread that owns the GL device and serves drawing jobs from a bounded queue. All
/// contexts of a process share one llvmpipe rasterizer, so one drawing thread is all there is to
/// have; every front end hands it work: `submit` (fire and forget, waits only for room),
/// `perform` (waits for the result) and `perform` from async code (suspends, never blocks a
/// thread). When the queue is full, callers wait: back pressure, not unbounded memory.
///
/// `Context` (a renderer, say) is made on the worker's thread by `makeContext`, used only there
/// and released there when the worker closes; if it cannot be made, every job gets that error.
public final class RenderWorker<Context>: @unchecked Sendable {
    public let capacity: Int
    /// The queue and its thread's loop. The thread holds the queue, never the worker: a worker
    /// released while its thread is still in a method of it would be freed with a reference held
    /// (the runtime aborts on that), so the worker's `deinit` only closes the queue and waits.
    private let queue: JobQueue<Context>

    public init(capacity: Int = 4, name: String = "molshot-draw", makeContext: @escaping () throws -> Context) {
        self.capacity = max(1, capacity)
        let queue = JobQueue<Context>(capacity: self.capacity)
        self.queue = queue
        // The body goes in a box: `makeContext` need not be Sendable, and runs on that thread only.
        let box = ThreadBody()
        box.run = {
            // The name the system shows (top, perf, /proc), at most 15 bytes.
            if let comm = fopen("/proc/thread-self/comm", "w") {
                fputs(String(decoding: name.utf8.prefix(15), as: UTF8.self), comm)
                fclose(comm)
            }
            queue.serve(makeContext)
        }
        let thread = Thread { box.run?() }
        thread.stackSize = 8 << 20
        thread.name = name
        queue.thread = thread
        thread.start()
    }

    deinit { queue.close() }

    /// Jobs waiting, not counting one being drawn.
    public var queued: Int { queue.queued }

    /// Queues `job`, waiting while the queue is full; `failed` gets the error if the context
    /// could not be made, the worker is closed, or the job throws.
    public func submit(_ job: @escaping (Context) throws -> Void, failed: @escaping (Error) -> Void) {
        queue.submit(job, failed: failed)
    }

    /// Runs `job` on the worker and waits for its result.
    public func perform<T>(_ job: @escaping (Context) throws -> T) throws -> T {
        try waitingFor(submit, job)
    }

    /// Runs `job` on the worker; the caller suspends (no thread is blocked) while it waits for
    /// room in the queue and for the result.
    public func perform<T: Sendable>(_ job: @escaping @Sendable (Context) throws -> T) async throws -> T {
        try await queue.perform(job)
    }

    /// Finishes the jobs already queued, then ends the thread (releasing the context there).
    /// Later jobs fail with `RenderWorkerClosed`.
    public func close() { queue.close() }
}

/// A render worker's bounded queue of jobs and the loop its thread runs.
private final class JobQueue<Context>: @unchecked Sendable {
    typealias Job = (Result<Context, Error>) -> Void

    let capacity: Int
    private let condition = NSCondition()
    /// Jobs in order; a taken job's slot is emptied at once, so that what it holds (a large
    /// structure's geometry) is freed when it is done, not when the array is next compacted.
    private var jobs: [Job?] = []
    private var head = 0
    private var spaceWaiters: [CheckedContinuation<Void, Never>] = []
    private var closed = false
    private var finished = false
    /// The thread serving the queue (set before it starts; weak: the thread's body holds the queue).
    weak var thread: Thread?

    init(capacity: Int) { self.capacity = capacity }

    var queued: Int {
        condition.lock()
        defer { condition.unlock() }
        return jobs.count - head
    }

    func submit(_ job: @escaping (Context) throws -> Void, failed: @escaping (Error) -> Void) {
        let wrapped: Job = { context in
            do { try job(try context.get()) } catch { failed(error) }
        }
        condition.lock()
        while jobs.count - head >= capacity && !closed { condition.wait() }
        if closed {
            condition.unlock()
            failed(RenderWorkerClosed())
            return
        }
        jobs.append(wrapped)
        condition.broadcast()
        condition.unlock()
    }

    func perform<T: Sendable>(_ job: @escaping @Sendable (Context) throws -> T) async throws -> T {
        while !tryReserve() {
            await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                condition.lock()
                if jobs.count - head < capacity || closed {
                    condition.unlock()
                    waiter.resume()
                } else {
                    spaceWaiters.append(waiter)
                    condition.unlock()
                }
            }
        }
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, Error>) in
            let wrapped: Job = { context in
                continuation.resume(with: Result { try job(try context.get()) })
            }
            condition.lock()
            if closed {
                condition.unlock()
                continuation.resume(throwing: RenderWorkerClosed())
                return
            }
            // Room was seen a moment ago; a blocking submitter may have taken it since, which
            // overfills the queue by at most one job per async caller rather than blocking a task.
            jobs.append(wrapped)
            condition.broadcast()
            condition.unlock()
        }
    }

    private func tryReserve() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        return jobs.count - head < capacity || closed
    }

    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        let waiters = spaceWaiters
        spaceWaiters = []
        while !finished && Thread.current != thread { condition.wait() }
        condition.unlock()
        waiters.forEach { $0.resume() }
    }

    func serve(_ makeContext: () throws -> Context) {
        var context: Result<Context, Error>? = Result { try makeContext() }
        while let job = next() { job(context!) }
        context = nil
        condition.lock()
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    private func next() -> Job? {
        condition.lock()
        while head == jobs.count && !closed { condition.wait() }
        guard head < jobs.count else {
            condition.unlock()
            return nil
        }
        let job = jobs[head]
        jobs[head] = nil
        head += 1
        if head > 64 && head * 2 > jobs.count {
            jobs.removeFirst(head)
            head = 0
        }
        let waiter = spaceWaiters.isEmpty ? nil : spaceWaiters.removeFirst()
        condition.broadcast()
        condition.unlock()
        waiter?.resume()
        return job
    }
}

/// The error of a job given to a worker that has closed.
public struct RenderWorkerClosed: Fault, Sendable {
    public var kind: FaultKind { .machine }
    public var description: String { "the render worker has closed" }
}


/// A way to a render worker's thread that sees part of its context: a replay or a live session
/// draws molecules whether the worker holds a molecule renderer alone (`molshot replay`) or the
/// service's renderers for molecules and pathways, sharing the one drawing thread with the rest.
public struct RenderLane<Context>: @unchecked Sendable {
    private let submitJob: (@escaping (Context) throws -> Void, @escaping (Error) -> Void) -> Void

    public init<Base>(_ worker: RenderWorker<Base>, _ part: @escaping (Base) -> Context) {
        submitJob = { job, failed in worker.submit({ try job(part($0)) }, failed: failed) }
    }

    public init(_ worker: RenderWorker<Context>) {
        submitJob = { job, failed in worker.submit(job, failed: failed) }
    }

    /// As `RenderWorker.submit`.
    public func submit(_ job: @escaping (Context) throws -> Void, failed: @escaping (Error) -> Void) {
        submitJob(job, failed)
    }

    /// Runs `job` on the worker and waits for its result.
    public func perform<T>(_ job: @escaping (Context) throws -> T) throws -> T {
        try waitingFor(submit, job)
    }
}

/// Hands `job` over with `submit` (a worker's or a lane's) and waits for its result.
private func waitingFor<Context, T>(_ submit: (@escaping (Context) throws -> Void, @escaping (Error) -> Void) -> Void,
                                    _ job: @escaping (Context) throws -> T) throws -> T {
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var result: Result<T, Error>?
    submit({ context in
        result = Result { try job(context) }
        done.signal()
    }, { error in
        result = .failure(error)
        done.signal()
    })
    done.wait()
    return try result!.get()
}

private final class ThreadBody: @unchecked Sendable {
    var run: (() -> Void)?
}

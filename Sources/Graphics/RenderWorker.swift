import Core
import Foundation
import Synchronization

/// The drawing thread as an actor. All contexts of a process share one llvmpipe rasterizer, so
/// one drawing thread is all there is to have; its `Context` (the GL device and what draws on it)
/// is made on that thread, used only there and released there when the worker closes.
///
/// The actor's executor is that thread (`GLThread`): its isolated methods run there, so code
/// that awaits `perform` runs its job beside the GL context and only a `Sendable` result comes
/// back. Threads outside Swift concurrency (the thumbnail pipeline's stages, a replay's reader)
/// hand it jobs with `submit` (fire and forget, waits only for room) or `performBlocking`.
/// The queue is bounded: callers wait for room, async ones suspended, so memory stays bounded.
public actor RenderWorker<Context> {
    public nonisolated let capacity: Int
    private nonisolated let thread: GLThread<Context>

    public nonisolated var unownedExecutor: UnownedSerialExecutor { thread.asUnownedSerialExecutor() }

    public init(capacity: Int = 4, name: String = "molshot-draw", makeContext: @escaping @Sendable () throws -> Context) {
        self.capacity = max(1, capacity)
        thread = GLThread(capacity: self.capacity, name: name, makeContext: makeContext)
    }

    deinit { thread.close() }

    /// Jobs waiting, not counting one being drawn.
    public nonisolated var queued: Int { thread.queued }

    /// Callers waiting for room in the queue (blocked threads and suspended tasks).
    public nonisolated var waitingForRoom: Int { thread.waitingForRoom }

    /// Queues `job`, waiting while the queue is full; `failed` gets the error if the context
    /// could not be made, the worker is closed, or the job throws.
    public nonisolated func submit(_ job: @escaping (Context) throws -> Void, failed: @escaping (Error) -> Void) {
        thread.submit(job, failed: failed)
    }

    /// Runs `job` on the worker and waits for its result, blocking this thread: for threads
    /// outside Swift concurrency only (a task awaits `perform` or `draw` instead; a name of its
    /// own, so that overload resolution can never pick the blocking one in async code).
    public nonisolated func performBlocking<T>(_ job: @escaping (Context) throws -> T) throws -> T {
        try waitingFor(submit, job)
    }

    /// Runs `job` on the drawing thread, isolated to this actor; the caller suspends (no thread
    /// is blocked) while it waits for its turn. `draw` waits for room in the queue first.
    public func perform<T: Sendable>(_ job: (Context) throws -> T) async throws -> T {
        try job(try thread.context())
    }

    /// Waits (suspended) for room in the queue, then runs `job` there.
    public nonisolated func draw<T: Sendable>(_ job: @escaping @Sendable (Context) throws -> T) async throws -> T {
        await thread.room()
        return try await perform(job)
    }

    /// Finishes the jobs already queued, then ends the thread (releasing the context there).
    /// Later jobs fail with `RenderWorkerClosed`.
    public nonisolated func close() { thread.close() }
}

/// The GL thread: one thread that runs, in order, the jobs threads hand it and the jobs of tasks
/// isolated to its `RenderWorker` (it is that actor's `SerialExecutor`), with the context made
/// and released on it.
///
/// Sendable without a checker's proof in two places, each said where it is: the context, which
/// only this thread touches (made, used, released by `serve`; `context()` checks the thread); and
/// `Handed` jobs, closures passed whole to this thread and run here once. A close from the thread
/// itself (a job holding the last reference) does not wait for the thread's end.
final class GLThread<Context>: SerialExecutor, Sendable {
    let capacity: Int
    private let state = Mutex<State>(State())
    /// Counts items queued (and one for close): the thread waits on it.
    private let ready = DispatchSemaphore(value: 0)
    /// Signalled once the thread has released the context and ended.
    private let ended = DispatchSemaphore(value: 0)
    /// Only on this thread (see above).
    nonisolated(unsafe) private var made: Result<Context, Error>?
    /// The thread's id, set when it starts.
    private let threadID = Mutex<pthread_t?>(nil)

    private enum Item {
        case task(UnownedJob)
        case job(Handed<(Result<Context, Error>) -> Void>)
    }

    private struct State: ~Copyable {
        var items = FIFO<Item>()
        /// Blocked submitters and suspended drawers waiting for room.
        var blocked: [DispatchSemaphore] = []
        var suspended: [CheckedContinuation<Void, Never>] = []
        var closed = false
        var finished = false
        var jobs: Int { items.count }
    }

    init(capacity: Int, name: String, makeContext: @escaping @Sendable () throws -> Context) {
        self.capacity = capacity
        BlockingPool.dedicated(name: name) { [self] in serve(makeContext) }
    }

    var queued: Int { state.withLock { $0.jobs } }
    var waitingForRoom: Int { state.withLock { $0.blocked.count + $0.suspended.count } }

    // MARK: SerialExecutor

    func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        // Tasks are never refused or made to wait: a task isolated to the worker must run to end.
        // Once the thread has ended, one is run here: its `context()` throws `RenderWorkerClosed`
        // (a task left in a queue no thread serves would wait for ever).
        let late = state.withLock { s -> Bool in
            if s.finished { return true }
            s.items.append(.task(unowned))
            return false
        }
        if late { unowned.runSynchronously(on: asUnownedSerialExecutor()) } else { ready.signal() }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }

    func checkIsolated() {
        precondition(isCurrent, "not on the GL thread")
    }

    private var isCurrent: Bool {
        let me = pthread_self()
        return threadID.withLock { $0.map { pthread_equal($0, me) != 0 } ?? false }
    }

    /// The context, on this thread only.
    func context() throws -> Context {
        if state.withLock({ $0.finished }) { throw RenderWorkerClosed() }
        precondition(isCurrent, "the GL context is used off its thread")
        return try made!.get()
    }

    // MARK: Jobs from threads

    func submit(_ job: @escaping (Context) throws -> Void, failed: @escaping (Error) -> Void) {
        let wrapped = Handed<(Result<Context, Error>) -> Void>({ context in
            do { try job(try context.get()) } catch { failed(error) }
        })
        while true {
            let outcome = state.withLock { s -> DispatchSemaphore?? in
                if s.closed { return .some(nil) }
                if s.jobs < capacity {
                    s.items.append(.job(wrapped))
                    return nil
                }
                let wait = DispatchSemaphore(value: 0)
                s.blocked.append(wait)
                return .some(wait)
            }
            switch outcome {
            case nil:
                ready.signal()
                return
            case .some(nil):
                failed(RenderWorkerClosed())
                return
            case .some(.some(let wait)):
                wait.wait()
            }
        }
    }

    /// Returns (suspended meanwhile) once the queue has room or the thread has closed.
    func room() async {
        while true {
            let free = state.withLock { $0.jobs < capacity || $0.closed }
            if free { return }
            await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                let now = state.withLock { s -> Bool in
                    if s.jobs < capacity || s.closed { return true }
                    s.suspended.append(waiter)
                    return false
                }
                if now { waiter.resume() }
            }
        }
    }

    func close() {
        let (waiters, suspended, already) = state.withLock { s -> ([DispatchSemaphore], [CheckedContinuation<Void, Never>], Bool) in
            defer { s.closed = true; s.blocked = []; s.suspended = [] }
            return (s.blocked, s.suspended, s.closed)
        }
        waiters.forEach { $0.signal() }
        suspended.forEach { $0.resume() }
        if !already { ready.signal() }
        // The thread itself may close its worker (a job holding the last reference): it cannot wait for itself.
        guard !isCurrent else { return }
        ended.wait()
        ended.signal()
    }

    // MARK: The thread

    private func serve(_ makeContext: () throws -> Context) {
        let me = pthread_self()
        threadID.withLock { $0 = me }
        made = Result { try makeContext() }
        while let item = next() { run(item) }
        state.withLock { $0.finished = true }
        // Tasks that came between the last item and `finished`: each is told the worker closed
        // (its `context()` throws now).
        made = .failure(RenderWorkerClosed())
        while let item = state.withLock({ $0.items.popFirst() }) { run(item) }
        made = nil
        ended.signal()
    }

    private func run(_ item: Item) {
        switch item {
        case .task(let job): job.runSynchronously(on: asUnownedSerialExecutor())
        case .job(let job): job.value(made!)
        }
    }

    private func next() -> Item? {
        while true {
            ready.wait()
            let taken = state.withLock { s -> (item: Item?, end: Bool, blocked: DispatchSemaphore?, suspended: CheckedContinuation<Void, Never>?) in
                guard let item = s.items.popFirst() else { return (nil, s.closed, nil, nil) }
                let blocked = s.blocked.isEmpty ? nil : s.blocked.removeFirst()
                let suspended = blocked == nil && !s.suspended.isEmpty ? s.suspended.removeFirst() : nil
                return (item, false, blocked, suspended)
            }
            taken.blocked?.signal()
            taken.suspended?.resume()
            if let item = taken.item { return item }
            if taken.end { return nil }
        }
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
public struct RenderLane<Context>: Sendable {
    private let submitJob: @Sendable (Handed<(Context) throws -> Void>, Handed<(Error) -> Void>) -> Void

    public init<Base>(_ worker: RenderWorker<Base>, _ part: @escaping @Sendable (Base) -> Context) {
        submitJob = { job, failed in worker.submit({ try job.value(part($0)) }, failed: failed.value) }
    }

    public init(_ worker: RenderWorker<Context>) {
        submitJob = { job, failed in worker.submit(job.value, failed: failed.value) }
    }

    /// As `RenderWorker.submit`.
    public func submit(_ job: @escaping (Context) throws -> Void, failed: @escaping (Error) -> Void) {
        submitJob(Handed(job), Handed(failed))
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

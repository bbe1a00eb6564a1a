import Core

/// The service's one wait queue: at most `slots` pieces of work at once; up to `waiting` more
/// wait their turn, suspended (no thread held), the lowest `priority` first and equal ones in
/// the order they came; past that, `enter` refuses at once. A waiter whose task is cancelled (its
/// client gone) leaves the queue. A browser opens six connections to a host, so a page of
/// thumbnails asks for six pictures at once: they wait a moment rather than fail; and a client
/// that has kept the render processes busy waits behind one that has not (`ClientShares`).
final class WorkGate: Sendable {
    let slots: Int
    let waiting: Int
    private struct Waiter: Sendable {
        let id: UInt64
        let priority: Double
        let continuation: CheckedContinuation<Void, Error>
    }
    private struct State: Sendable {
        var running = 0
        var queue: [Waiter] = []
        var nextID: UInt64 = 0
    }
    private let state = Locked(State())

    init(slots: Int, waiting: Int) {
        precondition(slots > 0 && waiting >= 0)
        self.slots = slots
        self.waiting = waiting
    }

    struct Full: Error {}

    /// Returns when a slot is this caller's (which `leave` gives back); throws `Full` at once when
    /// every slot is taken and `waiting` callers wait already, `CancellationError` when the task
    /// is cancelled while it waits. `priority`: lower goes first (a client's recent render seconds).
    func enter(priority: Double = 0) async throws {
        let id = state.withLock { s in s.nextID += 1; return s.nextID }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
                // Under the lock with the cancellation handler: a cancel before the waiter is queued
                // is seen here, one after finds it there.
                let outcome = state.withLock { s -> Result<Void, Error>? in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if s.running < slots { s.running += 1; return .success(()) }
                    guard s.queue.count < waiting else { return .failure(Full()) }
                    s.queue.append(Waiter(id: id, priority: priority.isNaN ? 0 : priority, continuation: continuation))
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let gone = state.withLock { s -> Waiter? in
                guard let i = s.queue.firstIndex(where: { $0.id == id }) else { return nil }
                return s.queue.remove(at: i)
            }
            gone?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Gives the slot to the waiter of lowest priority (the longest waiting among equals), or back.
    func leave() {
        let next = state.withLock { s -> Waiter? in
            guard let first = s.queue.indices.min(by: { a, b in
                (s.queue[a].priority, s.queue[a].id) < (s.queue[b].priority, s.queue[b].id)
            }) else {
                s.running -= 1
                return nil
            }
            return s.queue.remove(at: first)
        }
        next?.continuation.resume()
    }

    /// `work` in a slot of its own, given back however it ends.
    func inTurn<T: Sendable>(priority: Double = 0, _ work: () async throws -> T) async throws -> T {
        try await enter(priority: priority)
        defer { leave() }
        return try await work()
    }

    /// Running and waiting now.
    var load: (running: Int, waiting: Int) { state.withLock { ($0.running, $0.queue.count) } }
}

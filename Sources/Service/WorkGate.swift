import Core

/// At most `slots` pieces of work at once; up to `waiting` more wait their turn, first come first
/// served; past that, `enter` refuses at once. A browser opens six connections to a host, so a page
/// of thumbnails asks for six pictures at once: they wait a moment rather than fail.
final class WorkGate: Sendable {
    let slots: Int
    let waiting: Int
    private let state = Locked<(running: Int, queue: [CheckedContinuation<Bool, Never>])>((0, []))

    init(slots: Int, waiting: Int) {
        precondition(slots > 0 && waiting >= 0)
        self.slots = slots
        self.waiting = waiting
    }

    struct Full: Error {}

    /// Returns when a slot is this caller's (which `leave` gives back); throws `Full` at once when
    /// every slot is taken and `waiting` callers wait already.
    func enter() async throws {
        let admitted = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let outcome = state.withLock { s -> Bool? in
                if s.running < slots { s.running += 1; return true }
                guard s.queue.count < waiting else { return false }
                s.queue.append(continuation)
                return nil
            }
            if let outcome { continuation.resume(returning: outcome) }
        }
        if !admitted { throw Full() }
    }

    /// Gives the slot to the longest waiter, or back.
    func leave() {
        let next = state.withLock { s -> CheckedContinuation<Bool, Never>? in
            if s.queue.isEmpty { s.running -= 1; return nil }
            return s.queue.removeFirst()
        }
        next?.resume(returning: true)
    }

    /// Running and waiting now.
    var load: (running: Int, waiting: Int) { state.withLock { ($0.running, $0.queue.count) } }
}

import Foundation

/// A value behind a lock that threads can wait on until it is as they need it (a monitor, as in
/// Hoare's and Java's): `update` changes it and wakes the waiters, `wait(until:)` blocks until a
/// condition on it holds and then acts on it under the lock. For threads outside Swift
/// concurrency (pipelines, pipe readers); async code suspends instead of waiting.
///
/// Sendable without the checker's proof, and the one such lock of the code: `state` is read and
/// written only inside `condition`'s lock, which every method takes, and only Sendable values go
/// in and come out.
public final class Monitor<State: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var state: State

    public init(_ state: State) { self.state = state }

    /// Reads or changes the value under the lock, then wakes every waiter.
    @discardableResult
    public func update<R: Sendable>(_ body: (inout State) throws -> R) rethrows -> R {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        return try body(&state)
    }

    /// Reads the value under the lock.
    public func read<R: Sendable>(_ body: (State) throws -> R) rethrows -> R {
        condition.lock()
        defer { condition.unlock() }
        return try body(state)
    }

    /// Waits until `ready` holds, then runs `body` under the same lock and wakes the waiters.
    public func wait<R: Sendable>(until ready: (State) -> Bool, then body: (inout State) throws -> R) rethrows -> R {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        while !ready(state) { condition.wait() }
        return try body(&state)
    }

    /// As `wait(until:then:)`, giving up at `deadline`: then `body` is not run and the answer is nil.
    public func wait<R: Sendable>(until ready: (State) -> Bool, deadline: Date, then body: (inout State) throws -> R) rethrows -> R? {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        while !ready(state) {
            if !condition.wait(until: deadline) && !ready(state) { return nil }
        }
        return try body(&state)
    }
}

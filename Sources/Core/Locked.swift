import Synchronization

/// A Sendable value behind a lock: a class, so that it can be shared by reference (a `Mutex` is
/// not copyable and would pin its owner).
public final class Locked<T: Sendable>: Sendable {
    private let mutex: Mutex<T>

    public init(_ value: T) { mutex = Mutex(value) }

    public func withLock<R: Sendable, E: Error>(_ body: (inout T) throws(E) -> R) throws(E) -> R {
        try mutex.withLock { (value: inout sending T) throws(E) -> sending R in try body(&value) }
    }
}

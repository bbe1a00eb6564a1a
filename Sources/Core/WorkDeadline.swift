import Foundation
import Synchronization

/// When the work for one request must end, and whether it was called off. Whoever hands a
/// request's work to a thread (the service's pool for reading and preparing, its render thread, a
/// render process's job) runs it under the request's deadline (`with`); the long loops of that work
/// (selections, surfaces, the ray caster, depth effects) poll `stopped` and end early, and the
/// throwing steps around them (`PreparedMolecule`, `MoleculePicture.draw` and `png`) `check()`,
/// so that work whose request was already answered 503 stops instead of running on.
/// The deadline is the thread's (a pthread key) rather than a parameter of every function, since
/// the loops that poll it sit below APIs that every front end shares and the CLI runs without one.
public final class WorkDeadline: Sendable {
    /// Uptime in nanoseconds past which the work is over.
    private let end: UInt64
    private let called = Atomic<Bool>(false)

    /// A deadline `seconds` from now (infinite or past UInt64's range: none).
    public init(seconds: Double) {
        let now = DispatchTime.now().uptimeNanoseconds
        let span = seconds * 1e9
        end = span.isFinite && span < Double(UInt64.max - now) ? now + UInt64(max(0, span)) : .max
    }

    /// Calls the work off now (its client has gone, its answer was sent).
    public func cancel() { called.store(true, ordering: .relaxed) }

    public var isOver: Bool {
        called.load(ordering: .relaxed) || (end != .max && DispatchTime.now().uptimeNanoseconds >= end)
    }

    // MARK: The thread's deadline

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// The deadline `body` runs under on this thread (nil: none; the one before is put back after).
    public static func with<T>(_ deadline: WorkDeadline?, _ body: () throws -> T) rethrows -> T {
        let before = pthread_getspecific(key)
        // Retained while it is the thread's, released after.
        let kept = deadline.map { Unmanaged.passRetained($0) }
        pthread_setspecific(key, kept?.toOpaque())
        defer {
            pthread_setspecific(key, before)
            kept?.release()
        }
        return try body()
    }

    /// The deadline of the work on this thread, if any.
    public static var current: WorkDeadline? {
        guard let p = pthread_getspecific(key) else { return nil }
        return Unmanaged<WorkDeadline>.fromOpaque(p).takeUnretainedValue()
    }

    /// Whether the work on this thread should end now: for loops, which then stop early and leave
    /// it to the throwing step around them to `check()`.
    public static var stopped: Bool { current?.isOver ?? false }

    /// Throws `WorkStopped` where the work on this thread is past its deadline or called off.
    public static func check() throws {
        if let c = current, c.isOver { throw WorkStopped() }
    }
}

/// Work that ended at its deadline or was called off: its answer (a 503) was given already, or is
/// given by whoever set the deadline.
public struct WorkStopped: Fault, Sendable, Equatable {
    public var kind: FaultKind { .request }
    public var description: String { "the work took longer than its time limit and was stopped" }
    public init() {}
}

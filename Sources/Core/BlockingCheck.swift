import Foundation

/// Blocking work (a disk read or write, SQLite, a pipe) must not run on a thread of Swift's
/// cooperative pool, which answers every request: it belongs on `BlockingPool` (or a thread of
/// Molshot's own). Debug builds check it where such work starts: a call made while a task runs on
/// a thread that is not one of Molshot's named threads is noted here, and the service's tests
/// fail when any is. Release builds check nothing.
public enum BlockingCheck {
    /// What ran where it should not, at most `kept` of them.
    public static let noted = Locked<[String]>([])
    static let kept = 100

    /// Notes `what` when it runs on a cooperative thread (debug builds only).
    @inline(__always)
    public static func blocking(_ what: @autoclosure () -> String) {
        #if DEBUG
        guard onCooperativeThread else { return }
        let text = what()
        noted.withLock { if $0.count < kept { $0.append(text) } }
        #endif
    }

    /// Whether this thread is running a task and is not one of Molshot's own (every thread Molshot
    /// starts is named `molshot-...`: the blocking pool's, the GL threads', the dedicated loops').
    public static var onCooperativeThread: Bool {
        let inTask = withUnsafeCurrentTask { $0 != nil }
        guard inTask else { return false }
        return !(Thread.current.name?.hasPrefix("molshot") ?? false)
    }
}

import Foundation
import Synchronization

/// Work started on its own thread now and waited for later: what one thread reads while another
/// starts the graphics device, which must stay on the thread that made it.
public final class Background<T: Sendable>: Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let result = Mutex<Result<T, any Error>?>(nil)

    public init(_ work: @escaping @Sendable () throws -> T) {
        let body: @Sendable () -> Void = { [self] in
            let outcome = Result { try work() }
            result.withLock { $0 = outcome }
            done.signal()
        }
        if !SpareThread.take(body) { BlockingPool.dedicated(name: "molshot-early", body) }
    }

    /// The work's value, or its error, once it has finished.
    public func value() throws -> T {
        // Waits every time (and signals again for a later call).
        done.wait()
        defer { done.signal() }
        return try result.withLock { $0 }!.get()
    }
}

/// One thread started early and parked until `Background` hands it work. A new thread cannot
/// start while another thread is inside `dlopen` (glibc holds its TLS lock for the whole load:
/// about 20 ms for libOSMesa and Mesa's LLVM), so a front end that opens OSMesa in the
/// background parks a thread first and its reading starts at once instead of after the load.
public enum SpareThread {
    private static let parked = Locked<(started: Bool, work: (@Sendable () -> Void)?, taken: Bool)>((false, nil, false))
    private static let ready = DispatchSemaphore(value: 0)

    /// Starts the spare thread (once); call before anything may `dlopen` on another thread.
    public static func start() {
        let first = parked.withLock { state -> Bool in
            defer { state.started = true }
            return !state.started
        }
        guard first else { return }
        BlockingPool.dedicated(name: "molshot-spare") {
            ready.wait()
            parked.withLock { $0.work }?()
        }
    }

    /// Hands `work` to the spare thread if it is started and still free.
    static func take(_ work: @escaping @Sendable () -> Void) -> Bool {
        let taken = parked.withLock { state -> Bool in
            guard state.started, !state.taken else { return false }
            state.taken = true
            state.work = work
            return true
        }
        if taken { ready.signal() }
        return taken
    }
}

import Foundation

/// Work started on its own thread now and waited for later: what one thread reads while another
/// starts the graphics device, which must stay on the thread that made it.
public final class Background<T: Sendable>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var result: Result<T, any Error>?

    public init(_ work: @escaping @Sendable () throws -> T) {
        Thread.detachNewThread { [self] in
            result = Result { try work() }
            done.signal()
        }
    }

    /// The work's value, or its error, once it has finished.
    public func value() throws -> T {
        // Waits every time (and signals again for a later call): reading `result` without the
        // semaphore would race with the thread that writes it.
        done.wait()
        defer { done.signal() }
        return try result!.get()
    }
}

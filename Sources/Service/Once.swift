import Core
import Foundation

/// True for the first caller only.
final class Once: Sendable {
    private let done = Locked(false)

    func claim() -> Bool {
        done.withLock { d in
            defer { d = true }
            return !d
        }
    }
}

extension Result where Failure == Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}

/// A picture's place in the service's picture memory (`reserveMemory`), given back once.
final class MemoryReservation: Sendable {
    let bytes: Int
    private let pool: Locked<Int>
    private let given = Locked(false)

    init(bytes: Int, pool: Locked<Int>) {
        self.bytes = bytes
        self.pool = pool
    }

    func release() {
        guard given.withLock({ g in defer { g = true }; return !g }) else { return }
        pool.withLock { $0 -= bytes }
    }

    deinit { release() }
}

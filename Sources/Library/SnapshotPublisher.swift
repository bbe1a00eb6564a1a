import Core
import Foundation

/// A writer's snapshots for its replicas: every `seconds`, where the library has changed since the
/// last (SQLite's `data_version`, which counts the commits of other connections), a consistent
/// copy (`snapshot(to:replacing:)`: VACUUM INTO beside it) made read-only and renamed over
/// `output`, the file the replicas serve and follow. Runs on a thread of its own until `stop()`.
public final class SnapshotPublisher: Sendable {
    public let library: String
    public let output: String
    public let seconds: Double
    private let stopped = Locked(false)
    /// Snapshots published, for the log and the tests.
    public let published = Locked(0)

    public init(library: String, output: String, seconds: Double) {
        self.library = library
        self.output = output
        self.seconds = seconds
    }

    /// Starts publishing: the first snapshot at once, then on each change.
    public func start(log: @escaping @Sendable (String) -> Void) {
        let stopped = stopped, published = published, library = library, output = output, seconds = seconds
        BlockingPool.dedicated(name: "molshot-publish") {
            var seen: Int? = nil
            var connection: MoleculeLibrary? = nil
            while !stopped.withLock({ $0 }) {
                do {
                    if connection == nil { connection = try MoleculeLibrary(path: library, readOnly: true) }
                    let version = try connection!.database.statement("PRAGMA data_version").first { $0.int(0) } ?? 0
                    if version != seen {
                        let started = Date()
                        let size = try connection!.snapshot(to: output, replacing: true)
                        seen = version
                        published.withLock { $0 += 1 }
                        log("published \(output): \(size) bytes in \(String(format: "%.2f", Date().timeIntervalSince(started))) s\n")
                    }
                } catch {
                    connection = nil
                    log("error: publishing \(output): \(error)\n")
                }
                var waited = 0.0
                while waited < seconds, !stopped.withLock({ $0 }) {
                    usleep(UInt32(min(0.1, seconds) * 1e6))
                    waited += 0.1
                }
            }
        }
    }

    public func stop() { stopped.withLock { $0 = true } }
}

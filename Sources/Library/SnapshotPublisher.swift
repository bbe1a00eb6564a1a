import Core
import Foundation

/// A writer's snapshots for its replicas: as soon as the library has changed (SQLite's
/// `data_version`, which counts the commits of other connections, looked at every tenth of a
/// second) and no further commit has come for `quiet` seconds, or the change has waited `seconds`
/// (a ceiling, for a writer that never pauses), a consistent copy (`snapshot(to:replacing:)`:
/// VACUUM INTO beside it) made read-only and renamed over `output`, the file the replicas serve
/// and follow: a client that imports through one and reads through another sees its write within
/// a second or two. Runs on a thread of its own until `stop()`.
public final class SnapshotPublisher: Sendable {
    public let library: String
    public let output: String
    public let seconds: Double
    private let stopped = Locked(false)
    /// Snapshots published, for the log and the tests.
    public let published = Locked(0)
    /// A burst of commits (a folder imported) is published once, this long after its last.
    public static let quiet = 0.3
    /// How often the library's version is looked at.
    static let poll = 0.1

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
            // The version waiting to be published: when it was first seen changed, and when last.
            var pending: (version: Int, since: Date, last: Date)? = nil
            while !stopped.withLock({ $0 }) {
                do {
                    if connection == nil { connection = try MoleculeLibrary(path: library, readOnly: true) }
                    let version = try connection!.database.statement("PRAGMA data_version").first { $0.int(0) } ?? 0
                    let now = Date()
                    if version != seen {
                        if let p = pending {
                            if p.version != version { pending = (version, p.since, now) }
                        } else {
                            pending = (version, now, now)
                        }
                    }
                    if let p = pending, seen == nil || now.timeIntervalSince(p.last) >= Self.quiet || now.timeIntervalSince(p.since) >= seconds {
                        let size = try connection!.snapshot(to: output, replacing: true)
                        seen = p.version
                        pending = nil
                        published.withLock { $0 += 1 }
                        log("published \(output): \(size) bytes in \(String(format: "%.2f", Date().timeIntervalSince(now))) s\n")
                    }
                } catch {
                    connection = nil
                    log("error: publishing \(output): \(error)\n")
                    // A failing copy (a full disk) is tried again a ceiling later, not ten times a second.
                    var waited = 0.0
                    while waited < seconds, !stopped.withLock({ $0 }) {
                        usleep(UInt32(Self.poll * 1e6))
                        waited += Self.poll
                    }
                }
                usleep(UInt32(Self.poll * 1e6))
            }
        }
    }

    public func stop() { stopped.withLock { $0 = true } }
}

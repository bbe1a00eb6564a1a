import Core
import Foundation
import Synchronization

/// The one way into a library file for a process that serves many callers at once (the service
/// and its render processes): up to `readers` read-only connections, each lent to one caller at
/// a time, and one writer. Readers never wait for the writer (WAL) and see each commit as soon as
/// it is made; writers take turns on the one write connection, as SQLite would make them anyway.
///
/// The blocking calls (`reading`, `writing`) are for threads outside Swift concurrency; async
/// code uses `read` and `write`, which run on the blocking pool, never on the cooperative one.
///
/// A replica follows its writer's snapshots: when another file is moved in at `path` (`molshot
/// library snapshot` then `mv`: a new inode), the next read opens the new file; a read under way
/// finishes on the file it began with (its connection holds it open), and connections to the
/// old file are closed as they come back.
public final class LibraryConnections: Sendable {
    public let path: String
    public let readers: Int
    /// Whether the file cannot be written here (imports and removals are refused).
    public let isReadOnly: Bool
    /// Idle read connections. `Handed`: a connection is used by one thread at a time, the one
    /// that took it from here, until it puts it back.
    private let idle = Mutex<[(generation: Int, connection: Handed<MoleculeLibrary>)]>([])
    /// The file's inode as last seen, and how many times it has been replaced since opening.
    private let file: Mutex<(inode: UInt64, generation: Int)>
    /// Counts read connections free to take (idle or not yet opened).
    private let free: DispatchSemaphore
    private let writer: Mutex<Handed<MoleculeLibrary>?>

    /// Opens the library (it must exist) and brings its schema up to date, so that a file that is
    /// not a library fails here and not in every request.
    public init(path: String, readers: Int = 4) throws {
        self.path = path
        self.readers = max(1, readers)
        free = DispatchSemaphore(value: self.readers)
        let first = try MoleculeLibrary(path: path, create: false)
        isReadOnly = first.isReadOnly
        writer = Mutex(Handed(first))
        file = Mutex((FileStamp(path).inode, 0))
    }

    /// The generation of the file now at `path`: a new one when another file has been moved in
    /// (idle connections to the old one are closed then). A missing file (between a replica's
    /// `rm` and `mv`) keeps the current one.
    public var generation: Int {
        let inode = FileStamp(path).inode
        let (changed, generation) = file.withLock { f -> (Bool, Int) in
            guard inode != 0, inode != f.inode else { return (false, f.generation) }
            f = (inode, f.generation + 1)
            return (true, f.generation)
        }
        if changed { idle.withLock { $0.removeAll() } }
        return generation
    }

    /// Runs `body` with a read connection, waiting for one while all are lent.
    public func reading<T: Sendable>(_ body: (MoleculeLibrary) throws -> T) throws -> T {
        BlockingCheck.blocking("LibraryConnections.reading")
        free.wait()
        defer { free.signal() }
        let now = generation
        let connection = try idle.withLock { kept in kept.lastIndex { $0.generation == now }.map { kept.remove(at: $0).connection } }
            ?? Handed(try MoleculeLibrary(path: path, readOnly: true))
        // Back to the idle ones only while its file is still the one at `path`.
        defer { idle.withLock { if file.withLock({ $0.generation }) == now { $0.append((now, connection)) } } }
        return try body(connection.value)
    }

    /// Runs `body` with the write connection, one caller at a time; refused where the file is read-only.
    public func writing<T: Sendable>(_ body: (MoleculeLibrary) throws -> T) throws -> T {
        BlockingCheck.blocking("LibraryConnections.writing")
        guard !isReadOnly else { throw LibraryError(.request, "the library \(path) is read-only here") }
        return try writer.withLock { (kept: inout Handed<MoleculeLibrary>?) throws -> T in
            if kept == nil { kept = Handed(try MoleculeLibrary(path: path, create: false)) }
            return try body(kept!.value)
        }
    }

    /// `reading` on the blocking pool; the caller suspends meanwhile.
    public func read<T: Sendable>(_ body: @escaping @Sendable (MoleculeLibrary) throws -> T) async throws -> T {
        try await BlockingPool.shared.run { try self.reading(body) }
    }

    /// `writing` on the blocking pool; the caller suspends meanwhile.
    public func write<T: Sendable>(_ body: @escaping @Sendable (MoleculeLibrary) throws -> T) async throws -> T {
        try await BlockingPool.shared.run { try self.writing(body) }
    }
}

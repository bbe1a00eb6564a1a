import Core
import Foundation
import Library
import Structure
import XCTest

/// The SQLite layer's promises: cached statements safe under nesting, failures named for what
/// they are, and the library's connections shared by many callers at once.
final class SQLiteDatabaseTests: XCTestCase {
    private func temporary(_ name: String) -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("molshot-sqlite-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        return dir.appendingPathComponent(name).path
    }

    /// The same SQL inside a loop over it: the inner use must not reset the outer one (it did:
    /// the outer loop saw its first row again, forever, or stopped early).
    func testTheSameStatementInsideALoopOverItLeavesTheLoopAlone() throws {
        let db = try SQLiteDatabase(path: temporary("nest.sqlite"))
        try db.execute("CREATE TABLE t (n INTEGER); INSERT INTO t VALUES (1), (2), (3)")
        let sql = "SELECT n FROM t WHERE n >= ? ORDER BY n"
        let outer = try db.statement(sql).bind(.int(1))
        var pairs: [[Int]] = []
        while try outer.step() {
            let n = outer.int(0)
            let inner = try db.statement(sql).bind(.int(n)).all { $0.int(0) }
            pairs.append([n] + inner)
        }
        XCTAssertEqual(pairs, [[1, 1, 2, 3], [2, 2, 3], [3, 3]])
        // Once the loop is done, the cached statement is used again (and works).
        XCTAssertEqual(try db.statement(sql).bind(.int(2)).all { $0.int(0) }, [2, 3])
    }

    func testFailuresAreNamedForWhatTheyAre() throws {
        let db = try SQLiteDatabase(path: temporary("kinds.sqlite"))
        try db.execute("CREATE TABLE u (name TEXT UNIQUE)")
        try db.statement("INSERT INTO u VALUES (?)").bind(.text("a")).run()
        XCTAssertThrowsError(try db.statement("INSERT INTO u VALUES (?)").bind(.text("a")).run()) { error in
            let e = error as? LibraryError
            XCTAssertEqual(e?.condition, .constraint)
            XCTAssertEqual(e?.kind, .request, "a conflict is the request's, not the machine's")
        }
        XCTAssertThrowsError(try db.execute("SELECT * FROM missing")) { XCTAssertEqual(($0 as? LibraryError)?.kind, .machine) }
        // A file that is not a database.
        let junk = temporary("junk.sqlite")
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: junk))
        XCTAssertThrowsError(try SQLiteDatabase(path: junk).execute("SELECT * FROM sqlite_master")) { error in
            XCTAssertEqual((error as? LibraryError)?.condition, .corrupt)
            XCTAssertEqual((error as? LibraryError)?.kind, .input)
        }
    }

    /// Many callers at once through `LibraryConnections`: every read answers, each on a connection
    /// of its own, while a writer imports; at most `readers` connections are ever open.
    func testConnectionsServeManyReadersAndOneWriterAtOnce() async throws {
        let path = temporary("shared.sqlite")
        do {
            let lib = try MoleculeLibrary(path: path)
            try lib.database.execute("SELECT 1")
        }
        let connections = try LibraryConnections(path: path, readers: 3)
        let open = Locked((now: 0, most: 0))
        let counts = try await withThrowingTaskGroup(of: Int.self) { group in
            for i in 0..<48 {
                group.addTask {
                    if i % 8 == 0 {
                        return try await connections.write { lib in
                            try lib.database.execute("CREATE TABLE IF NOT EXISTS scratch (n INTEGER)")
                            try lib.database.statement("INSERT INTO scratch VALUES (?)").bind(.int(i)).run()
                            return -1
                        }
                    }
                    return try await connections.read { lib in
                        open.withLock { $0.now += 1; $0.most = max($0.most, $0.now) }
                        defer { open.withLock { $0.now -= 1 } }
                        return try lib.database.statement("SELECT count(*) FROM molecules").first { $0.int(0) } ?? -2
                    }
                }
            }
            var all: [Int] = []
            for try await c in group { all.append(c) }
            return all
        }
        XCTAssertEqual(counts.filter { $0 == 0 }.count, 42, "every read answered: the library holds no molecules")
        XCTAssertEqual(counts.filter { $0 == -1 }.count, 6)
        XCTAssertLessThanOrEqual(open.withLock { $0.most }, 3)
        let written = try connections.reading { try $0.database.statement("SELECT count(*) FROM scratch").first { $0.int(0) } }
        XCTAssertEqual(written, 6)
    }

    /// A writer's library holding 1crn, its path, and a way to import another fixture into it.
    private func writerWithCrambin() throws -> (MoleculeLibrary, String, (String) throws -> Void) {
        let path = temporary("writer.sqlite")
        let perception = try BondPerception.standard()
        let writer = try MoleculeLibrary(path: path)
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")
        let add: (String) throws -> Void = { _ = try writer.importFile(fixtures.appendingPathComponent($0).path, perception: perception) }
        try add("1crn.pdb")
        return (writer, path, add)
    }

    private static func count(_ lib: MoleculeLibrary) throws -> Int { try lib.database.statement("SELECT count(*) FROM molecules").first { $0.int(0) } ?? -1 }

    /// A replica follows its writer's snapshots: `snapshot` then a rename over the replica's file
    /// while it serves. A read under way when the new file arrives finishes on the one it began
    /// with; the next read sees the new file; connections to the old one are not used again.
    func testAReplicaFollowsSnapshotsMovedInWhileServing() throws {
        let (writer, _, add) = try writerWithCrambin()
        let replica = temporary("replica.sqlite")
        _ = try writer.snapshot(to: replica)
        let connections = try LibraryConnections(path: replica, readers: 2)
        let count = Self.count
        XCTAssertEqual(try connections.reading(count), 1)
        let before = connections.generation
        let during = try connections.reading { lib -> [Int] in
            let first = try count(lib)
            try add("Caffeine.pdb")
            let next = replica + ".next"
            _ = try writer.snapshot(to: next)
            XCTAssertEqual(rename(next, replica), 0)
            return [first, try count(lib)]
        }
        XCTAssertEqual(during, [1, 1], "the read under way keeps the file it began with")
        XCTAssertEqual(try connections.reading(count), 2, "the next read opens the snapshot moved in")
        XCTAssertEqual(connections.generation, before + 1)
        for _ in 0..<4 { XCTAssertEqual(try connections.reading(count), 2, "no connection to the old file is lent again") }
    }

    /// A writer's publisher (`serve --publish`): a read-only snapshot at once, another as soon as
    /// a change commits (the 60 s ceiling is not waited for: a client reads its own write), none
    /// while nothing changes; replicas following the file see each.
    func testTheWriterPublishesASnapshotWhenTheLibraryChanges() throws {
        let (_, writerPath, add) = try writerWithCrambin()
        let output = temporary("published.sqlite")
        let publisher = SnapshotPublisher(library: writerPath, output: output, seconds: 60)
        publisher.start { _ in }
        defer { publisher.stop() }
        // Bounded waits, far past the 0.3 s a quiet change takes, for a busy machine.
        func eventually(_ done: () -> Bool) { for _ in 0..<600 where !done() { usleep(50_000) } }
        eventually { publisher.published.withLock { $0 } >= 1 }
        XCTAssertEqual(publisher.published.withLock { $0 }, 1)
        let mode = (try FileManager.default.attributesOfItem(atPath: output)[.posixPermissions] as? Int) ?? 0
        XCTAssertEqual(mode & 0o222, 0, "published read-only")
        let replica = try LibraryConnections(path: output, readers: 1)
        let count = Self.count
        XCTAssertEqual(try replica.reading(count), 1)
        // Read-only for whoever opens it, even where its mode would let them write (root, or a
        // copy made writable): an import on a replica would take an id its writer never sees.
        XCTAssertTrue(replica.isReadOnly)
        let copy = temporary("copied-snapshot.sqlite")
        try FileManager.default.copyItem(atPath: output, toPath: copy)
        XCTAssertEqual(chmod(copy, 0o644), 0)
        XCTAssertTrue(MoleculeLibrary.isSnapshot(copy))
        XCTAssertTrue(try MoleculeLibrary(path: copy).isReadOnly, "a snapshot made writable is still opened read-only")
        XCTAssertFalse(MoleculeLibrary.isSnapshot(writerPath), "the writer's own file is not a snapshot")
        usleep(600_000)
        XCTAssertEqual(publisher.published.withLock { $0 }, 1, "nothing changed: nothing published")
        try add("Caffeine.pdb")
        eventually { publisher.published.withLock { $0 } >= 2 }
        XCTAssertEqual(publisher.published.withLock { $0 }, 2)
        XCTAssertEqual(try replica.reading(count), 2, "the replica opens the new snapshot")
    }
}

import Foundation
import XCTest

/// What a library of many molecules needs: search, opening without surprises, snapshots.
final class LibraryAtScaleTests: XCTestCase {
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("molshot-libscale-\(UUID().uuidString)")
    var db: String { scratch.appendingPathComponent("library.sqlite").path }

    override func setUpWithError() throws {
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(at: scratch) }

    func molshot(_ arguments: String...) throws -> MolshotBinary.Run { try MolshotBinary.run(arguments, environment: ["MOLSHOT_DB": db]) }

    func names(_ query: String) throws -> [String] {
        let run = try molshot("library", "list", "--json", "--query", query)
        XCTAssertEqual(run.status, 0, run.stderr)
        let page = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        return (page["molecules"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
    }

    func testSearchFindsTitlesAuthorsKeywordsLigandsAndSources() throws {
        XCTAssertEqual(try molshot("library", "import", "Tests/Fixtures/1crn.pdb", "Tests/Fixtures/1hpv.pdb", "Tests/Fixtures/Heme.sdf").status, 0)
        XCTAssertEqual(try names("teeter"), ["1crn"], "an author (AUTHOR W.A.HENDRICKSON,M.M.TEETER)")
        XCTAssertEqual(try names("Plant Seed"), ["1crn"], "keywords, any case, every word")
        XCTAssertEqual(try names("478"), ["1hpv"], "a ligand's name")
        XCTAssertEqual(try names("kim 478"), ["1hpv"])
        XCTAssertEqual(try names("hydropho"), ["1crn"], "the start of a word of the title")
        XCTAssertEqual(try names("Fixtures heme"), ["Heme"], "the source path")
        XCTAssertEqual(try names("hendrickson 478"), [], "all words in one molecule")
        XCTAssertEqual(try names("\"*:("), [], "FTS5's syntax is not the user's")
        XCTAssertEqual(try names("crn"), ["1crn"], "no word matches: the text anywhere in a name")
        XCTAssertEqual(try names(Array(repeating: "teeter", count: 300).joined(separator: " ")), ["1crn"], "a word once, however often given")
    }

    func testReadingCommandsNeverMakeALibraryAndRefuseWhatIsNotOne() throws {
        let typo = scratch.appendingPathComponent("nofolder/librray.sqlite").path
        for command in [["library", "list"], ["library", "show", "1"], ["library", "stats"], ["library", "remove", "1"], ["info", "lib:1"],
                        ["thumbnails", "--library", "-o", scratch.appendingPathComponent("t").path]] {
            let run = try MolshotBinary.run(command + ["--db", typo])
            XCTAssertEqual(run.status, 1, command.joined(separator: " "))
            XCTAssertTrue(run.stderr.contains("no library at \(typo): make one with molshot library import --db \(typo)"), run.stderr)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: typo))
        XCTAssertFalse(FileManager.default.fileExists(atPath: scratch.appendingPathComponent("nofolder").path), "nor its folder")
        // import and create make one, and say so.
        let made = try MolshotBinary.run(["library", "create", "--db", typo])
        XCTAssertEqual(made.stdout, "made a new library at \(typo)\n")
        XCTAssertEqual(try MolshotBinary.run(["library", "create", "--db", typo]).stdout, "a library is already at \(typo)\n")
        // A file that is not SQLite, and SQLite that is not a library, are refused naming them.
        let text = scratch.appendingPathComponent("notes.sqlite").path
        try Data("not a database at all, but long enough to be read as a header by SQLite......".utf8).write(to: URL(fileURLWithPath: text))
        let notSQLite = try MolshotBinary.run(["library", "list", "--db", text])
        XCTAssertEqual(notSQLite.status, 1)
        XCTAssertTrue(notSQLite.stderr.hasPrefix("molshot: error: \(text) is not a Molshot library"), notSQLite.stderr)
        let other = scratch.appendingPathComponent("other.sqlite").path
        XCTAssertEqual(try MolshotBinary.run(["measure-sql", "--db", other, "CREATE TABLE t (x);"]).status, 0)
        let notLibrary = try MolshotBinary.run(["library", "list", "--db", other])
        XCTAssertEqual(notLibrary.status, 1)
        XCTAssertTrue(notLibrary.stderr.contains("\(other) is an SQLite database but not a Molshot library (no molecules table)"), notLibrary.stderr)
        let serve = try MolshotBinary.run(["serve", "--port", "0", "--db", other])
        XCTAssertNotEqual(serve.status, 0, "serve does not start on it")
        XCTAssertTrue(serve.stderr.contains("not a Molshot library"), serve.stderr)
    }

    func testASnapshotIsAWholeCopyThatServesAsALibrary() throws {
        XCTAssertEqual(try molshot("library", "import", "Tests/Fixtures/1crn.pdb", "Tests/Fixtures/TYR.sdf").status, 0)
        let copy = scratch.appendingPathComponent("replica.sqlite").path
        let run = try molshot("library", "snapshot", copy)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.hasPrefix("snapshot of \(db) at \(copy): "), run.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: copy + "-wal"), "one file")
        let listed = try MolshotBinary.run(["library", "list", "--db", copy])
        XCTAssertTrue(listed.stdout.hasSuffix("1-2 of 2 molecules\n"), listed.stdout)
        XCTAssertEqual(try MolshotBinary.run(["info", "lib:1crn", "--db", copy]).status, 0)
        let again = try molshot("library", "snapshot", copy)
        XCTAssertEqual(again.status, 1)
        XCTAssertTrue(again.stderr.contains("\(copy) is already there: a snapshot goes to a new file"), again.stderr)
    }
}

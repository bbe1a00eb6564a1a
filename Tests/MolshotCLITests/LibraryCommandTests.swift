import Foundation
import TestSupport
import XCTest

/// The library commands run as a user runs them, on a database of their own.
final class LibraryCommandTests: XCTestCase {
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("molshot-libcli-\(UUID().uuidString)")
    var db: String { scratch.appendingPathComponent("library.sqlite").path }

    override func setUpWithError() throws {
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(at: scratch) }

    func molshot(_ arguments: String...) throws -> MolshotBinary.Run { try MolshotBinary.run(arguments, environment: ["MOLSHOT_DB": db]) }

    func testImportListShowRemove() throws {
        let imported = try molshot("library", "import", "Tests/Fixtures/1crn.pdb", "Tests/Fixtures/Caffeine.pdb", "Tests/Fixtures/TYR.sdf")
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertTrue(imported.stdout.hasSuffix("3 added, 0 another file of a molecule there, 0 already there, 0 failed; library \(db)\n"), imported.stdout)
        XCTAssertEqual(imported.stderr, "molshot: made a new library at \(db)\n")
        let again = try molshot("library", "import", "Tests/Fixtures/1crn.pdb")
        XCTAssertTrue(again.stdout.contains("already there: Tests/Fixtures/1crn.pdb is 1 1crn"), again.stdout)
        let page = try molshot("library", "list", "--json", "--offset", "1", "--limit", "1")
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(page.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(json["total"] as? Int, 3)
        let molecules = try XCTUnwrap(json["molecules"] as? [[String: Any]])
        XCTAssertEqual(molecules.map { $0["name"] as? String }, ["Caffeine"])
        for key in ["id", "name", "source", "checksum", "title", "format", "atoms", "added"] { XCTAssertNotNil(molecules[0][key], key) }
        let query = try molshot("library", "list", "--query", "HYDROPHOBIC")
        XCTAssertTrue(query.stdout.hasPrefix("1\t1crn\tpdb\t327 atoms\tTests/Fixtures/1crn.pdb\tWATER STRUCTURE"), query.stdout)
        XCTAssertTrue(query.stdout.hasSuffix("1-1 of 1 molecule matching \"HYDROPHOBIC\"\n"), query.stdout)
        let show = try molshot("library", "show", "1crn")
        XCTAssertTrue(show.stdout.contains("atoms:      327"), show.stdout)
        XCTAssertTrue(show.stdout.contains("sequence.A: TTCCPSIVARSNFNVCRLPGTPEAICATYTGCIIIPGATCPGDYAN"), show.stdout)
        let removed = try molshot("library", "remove", "2")
        XCTAssertEqual(removed.stdout, "removed 2 Caffeine\n")
        let gone = try molshot("library", "show", "2")
        XCTAssertEqual(gone.status, 1)
        XCTAssertTrue(gone.stderr.contains("no molecule 2 in the library"), gone.stderr)
        let stats = try molshot("library", "stats")
        XCTAssertTrue(stats.stdout.contains("molecules:  2 (1 pdb, 1 sdf)"), stats.stdout)
        XCTAssertEqual(try molshot("library", "rescan").stdout, "2 rescanned, 0 failed\n")
    }

    func testTheSamePictureFromTheLibraryAsFromTheFile() throws {
        _ = try molshot("library", "import", "Tests/Fixtures/1crn.pdb", "Tests/Fixtures/TYR.sdf")
        for (file, entry) in [("Tests/Fixtures/1crn.pdb", "lib:1crn"), ("Tests/Fixtures/TYR.sdf", "lib:2")] {
            let a = scratch.appendingPathComponent("file.png").path, b = scratch.appendingPathComponent("lib.png").path
            XCTAssertEqual(try molshot("render", file, "-o", a, "--size", "64", "--mode", "ball-and-stick").status, 0)
            let run = try molshot("render", entry, "-o", b, "--size", "64", "--mode", "ball-and-stick")
            XCTAssertEqual(run.status, 0, run.stderr)
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: a)), try Data(contentsOf: URL(fileURLWithPath: b)), entry)
        }
        // Thumbnails of the whole library are named by the files' checksums: the same names as from the files.
        let fromFiles = scratch.appendingPathComponent("files"), fromLibrary = scratch.appendingPathComponent("library")
        XCTAssertEqual(try molshot("thumbnails", "Tests/Fixtures/1crn.pdb", "Tests/Fixtures/TYR.sdf", "-o", fromFiles.path, "--size", "32").status, 0)
        let lib = try molshot("thumbnails", "--library", "-o", fromLibrary.path, "--size", "32")
        XCTAssertEqual(lib.status, 0, lib.stderr)
        let names = { (dir: URL) in try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".png") }.sorted() }
        XCTAssertEqual(try names(fromFiles), try names(fromLibrary))
        for name in try names(fromFiles) {
            XCTAssertEqual(try Data(contentsOf: fromFiles.appendingPathComponent(name)), try Data(contentsOf: fromLibrary.appendingPathComponent(name)), name)
        }
        // The mmCIF file of the same entry is another source of the same molecule, not a second one.
        let cif = try molshot("library", "import", "Tests/Fixtures/1CRN.cif")
        XCTAssertEqual(cif.status, 0)
        XCTAssertTrue(cif.stdout.hasPrefix("another file of 1 1crn: Tests/Fixtures/1CRN.cif\n"), cif.stdout)
        XCTAssertEqual(try molshot("info", "lib:1crn").status, 0)
        let shown = try molshot("library", "show", "1crn")
        XCTAssertTrue(shown.stdout.contains("source:     Tests/Fixtures/1crn.pdb (pdb, ") && shown.stdout.contains("            Tests/Fixtures/1CRN.cif (mmcif, "), shown.stdout)
        // Asked to keep it apart, it is a molecule of its own, and the name is ambiguous.
        let apart = try molshot("library", "import", "--separate", "Tests/Fixtures/1CRN.cif")
        XCTAssertTrue(apart.stdout.contains("already there"), "the same bytes are still the same file: \(apart.stdout)")
        try FileManager.default.createDirectory(at: scratch.appendingPathComponent("copy"), withIntermediateDirectories: true)
        let copy = scratch.appendingPathComponent("copy/1CRN.cif")
        try (try Data(contentsOf: InfoCommandTests.root.appendingPathComponent("Tests/Fixtures/1CRN.cif")) + Data("#\n".utf8)).write(to: copy)
        XCTAssertTrue(try molshot("library", "import", "--separate", copy.path).stdout.hasPrefix("added "))
        XCTAssertEqual(try molshot("library", "import", copy.path).stdout.contains("already there"), true)
        let info = try molshot("info", "lib:1CRN")
        XCTAssertEqual(info.status, 1)
        XCTAssertTrue(info.stderr.contains("the name 1CRN matches 2 molecules: 1 (Tests/Fixtures/1crn.pdb), 3 (\(copy.path)); give the id"), info.stderr)
        let remove = try molshot("library", "remove", "1crn")
        XCTAssertEqual(remove.status, 1)
        XCTAssertTrue(remove.stderr.contains("the name 1crn matches 2 molecules"), remove.stderr)
        XCTAssertEqual(try molshot("library", "remove", "3").stdout, "removed 3 1CRN\n")
        XCTAssertEqual(try molshot("info", "lib:1crn").status, 0)
    }

    func testVersionAndReplayFromTheLibrary() throws {
        let version = try molshot("--version")
        XCTAssertEqual(version.status, 0)
        XCTAssertTrue(version.stdout.range(of: #"^\d+\.\d+\.\d+\n$"#, options: .regularExpression) != nil, version.stdout)
        _ = try molshot("library", "import", "Tests/Fixtures/Caffeine.pdb")
        let events = scratch.appendingPathComponent("e.jsonl")
        try Data(#"{"type":"header","version":1,"viewport":{"width":40,"height":40}}"#.utf8).write(to: events)
        let frames = scratch.appendingPathComponent("frames")
        let run = try molshot("replay", events.path, "--molecule", "lib:caffeine", "-o", frames.path, "--size", "40")
        XCTAssertEqual(run.status, 0, run.stderr)
        let file = try molshot("render", "Tests/Fixtures/Caffeine.pdb", "-o", scratch.appendingPathComponent("c.png").path, "--size", "40")
        XCTAssertEqual(file.status, 0)
        XCTAssertEqual(try Data(contentsOf: frames.appendingPathComponent("frame-00001.png")), try Data(contentsOf: scratch.appendingPathComponent("c.png")))
    }

    func testAKilledImportLeavesNoPartialMolecule() throws {
        let input = scratch.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        let bna = try String(contentsOf: InfoCommandTests.root.appendingPathComponent("Tests/Fixtures/1bna.pdb"), encoding: .utf8)
        for i in 0..<400 { try Data((bna + "REMARK 999 COPY \(i)\n").utf8).write(to: input.appendingPathComponent("copy\(i).pdb")) }
        // Killed once a few molecules are in, then again further on: a state to wait for (at most
        // a minute each), not a time.
        func molecules() -> Int {
            let run = try? MolshotBinary.run(["measure-sql", "--db", db, "SELECT count(*) FROM molecules;"])
            return run.flatMap { $0.status == 0 ? Int($0.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) : nil } ?? 0
        }
        for more in [1, 60] {
            let before = molecules()
            let p = Process()
            p.executableURL = TestBinary.molshot
            p.arguments = ["library", "import", "--separate", input.path, "--db", db]
            p.standardOutput = FileHandle.nullDevice
            try p.run()
            let bound = Date().addingTimeInterval(60)
            while p.isRunning && Date() < bound && molecules() < before + more { usleep(20_000) }
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
            XCTAssertEqual(p.terminationReason, .uncaughtSignal, "the import was still running when killed")
            // The database is whole, and so is every molecule in it.
            let check = try sqlite(["PRAGMA integrity_check;"])
            XCTAssertEqual(check, "ok")
            let partial = try sqlite(["""
                SELECT count(*) FROM molecules m WHERE m.atoms != (SELECT sum(count) FROM elements e WHERE e.molecule = m.id)
                OR NOT EXISTS (SELECT 1 FROM sources s WHERE s.molecule = m.id)
                OR NOT EXISTS (SELECT 1 FROM molecule_search f WHERE f.rowid = m.id)
                OR NOT EXISTS (SELECT 1 FROM compact_models c WHERE c.molecule = m.id)
                OR NOT EXISTS (SELECT 1 FROM originals o WHERE o.molecule = m.id);
                """])
            XCTAssertEqual(partial, "0")
        }
        let finished = try molshot("library", "import", "--separate", input.path)
        XCTAssertEqual(finished.status, 0, finished.stderr)
        XCTAssertEqual(try sqlite(["SELECT count(*) FROM molecules;"]), "400")
    }

    /// Runs SQL through molshot's own reader of the file (the sqlite3 shell may not be installed).
    func sqlite(_ statements: [String]) throws -> String {
        let run = try MolshotBinary.run(["measure-sql", "--db", db] + statements)
        XCTAssertEqual(run.status, 0, run.stderr)
        return run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

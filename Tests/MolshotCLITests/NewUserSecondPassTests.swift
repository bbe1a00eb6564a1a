import Foundation
import TestSupport
import XCTest

extension MolshotBinary {
    /// Runs molshot and sends it `signal` once `when()` holds (polled every 10 ms).
    static func run(_ arguments: [String], signal: Int32, when: @escaping () -> Bool) throws -> Run {
        let process = Process()
        process.executableURL = TestBinary.molshot
        process.arguments = arguments
        process.currentDirectoryURL = InfoCommandTests.root
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let group = DispatchGroup()
        nonisolated(unsafe) var stdout = Data(), stderr = Data()
        DispatchQueue.global().async(group: group) { stdout = out.fileHandleForReading.readDataToEndOfFile() }
        DispatchQueue.global().async(group: group) { stderr = err.fileHandleForReading.readDataToEndOfFile() }
        while process.isRunning && !when() { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, signal) }
        process.waitUntilExit()
        group.wait()
        return Run(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self), stderr: String(decoding: stderr, as: UTF8.self))
    }
}

/// What a new user trips over, each with the message it prints.
final class NewUserSecondPassTests: GLTestCase {
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("molshot-newuser-\(UUID().uuidString)")

    override func setUpWithError() throws {
        try super.setUpWithError()
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }
    override func tearDown() { try? FileManager.default.removeItem(at: scratch) }

    func molshot(_ arguments: String...) throws -> MolshotBinary.Run { try MolshotBinary.run(arguments) }
    var db: String { scratch.appendingPathComponent("library.sqlite").path }

    /// `count` copies of crambin, each a different file (a REMARK line apart).
    func crambins(_ count: Int) throws -> URL {
        let folder = scratch.appendingPathComponent("many")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let text = try String(contentsOf: InfoCommandTests.root.appendingPathComponent("Tests/Fixtures/1crn.pdb"), encoding: .utf8)
        for i in 0..<count {
            try ("REMARK 999 COPY \(i)\n" + text).write(to: folder.appendingPathComponent(String(format: "copy%04d.pdb", i)), atomically: false, encoding: .utf8)
        }
        return folder
    }

    func testABarePDBIdIsReadAsThePDBEntryAndSaysSo() throws {
        XCTAssertEqual(try molshot("library", "import", "Tests/Fixtures/1crn.pdb", "--db", db).status, 0)
        let png = scratch.appendingPathComponent("a.png").path
        let run = try molshot("render", "1crn", "-o", png, "--db", db, "--size", "32")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stderr, "molshot: 1crn is not a file here: reading it as pdb:1crn, the PDB entry (from the library, or fetched)\n")
        XCTAssertTrue(FileManager.default.fileExists(atPath: png))
        let info = try molshot("info", "1CRN", "--db", db)
        XCTAssertTrue(info.stdout.contains("atoms:      327"), info.stdout + info.stderr)
        // Importing is for files: the id gets the hint to fetch it.
        let imported = try molshot("library", "import", "1crn", "--db", db)
        XCTAssertEqual(imported.status, 1)
        XCTAssertTrue(imported.stderr.hasPrefix("molshot: error: 1crn: no such file or folder (for the PDB entry, molshot fetch 1crn)"), imported.stderr)
        // Not an id: the file error as before.
        let missing = try molshot("render", "nothing.pdb", "-o", png)
        XCTAssertEqual(missing.status, 1)
        XCTAssertFalse(missing.stderr.contains("reading it as"), missing.stderr)
    }

    func testServeHelpShowsItsOptionsAndEachCommandsHelpSpeaksOfItself() throws {
        let serve = try molshot("serve", "--help")
        XCTAssertTrue(serve.stdout.contains("--port <port>") && serve.stdout.contains("--render-threads"), serve.stdout)
        XCTAssertTrue(serve.stdout.contains("token"), serve.stdout)
        for command in ["thumbnails", "replay", "export"] {
            let help = try molshot(command, "--help").stdout
            XCTAssertFalse(help.contains("in render") || help.contains("for thumbnails"), "\(command): \(help)")
        }
        XCTAssertFalse(try molshot("export", "--help").stdout.contains("thumbnail"))
        // Help is wrapped to the terminal: compare with the line breaks as spaces.
        func flat(_ text: String) -> String { text.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
        XCTAssertTrue(flat(try molshot("thumbnails", "--help").stdout).contains("Default 256."))
        XCTAssertTrue(flat(try molshot("render", "--help").stdout).contains("Repeatable, one per -o."))
    }

    func testEveryErrorHasOnePrefixAndUsageOnlyForUsageErrors() throws {
        let usage = try molshot("render", "--size", "abc", "Tests/Fixtures/1crn.pdb", "-o", scratch.appendingPathComponent("a.png").path)
        XCTAssertEqual(usage.status, 1)
        XCTAssertTrue(usage.stderr.hasPrefix("molshot: error: --size must be WxH or N"), usage.stderr)
        XCTAssertTrue(usage.stderr.contains("Usage: molshot render"), usage.stderr)
        let negative = try molshot("library", "list", "--limit", "-5", "--db", db)
        XCTAssertEqual(negative.status, 1)
        XCTAssertTrue(negative.stderr.hasPrefix("molshot: error: --limit must not be negative (got -5)"), negative.stderr)
        let input = try molshot("render", "Tests/Fixtures/none.pdb", "-o", scratch.appendingPathComponent("a.png").path)
        XCTAssertEqual(input.status, 1)
        XCTAssertFalse(input.stderr.contains("Usage:"), "not a usage error: \(input.stderr)")
        for run in [usage, negative, input] { XCTAssertFalse(run.stderr.contains("Error: "), run.stderr) }
    }

    func testReplayWithoutAStructureIsRefusedUnlessTheEventsLoadOne() throws {
        let events = scratch.appendingPathComponent("ev.jsonl")
        try """
            {"type":"header","version":1,"viewport":{"width":32,"height":32}}
            {"type":"frame","t":0.1}
            """.write(to: events, atomically: true, encoding: .utf8)
        let run = try molshot("replay", events.path, "-o", scratch.appendingPathComponent("frames").path)
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stderr.hasPrefix("molshot: error: \(events.path) shows no structure: give --molecule FILE (or lib:ID, pdb:ID), or put a \"load\""),
                      run.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: scratch.appendingPathComponent("frames").path), "nothing written")
        let given = try molshot("replay", events.path, "-o", scratch.appendingPathComponent("frames").path, "--molecule", "Tests/Fixtures/1crn.pdb")
        XCTAssertEqual(given.status, 0, given.stderr)
    }

    func testAnInterruptedThumbnailRunSaysHowFarItCameAndARerunContinues() throws {
        let folder = try crambins(120)
        let out = scratch.appendingPathComponent("thumbs").path
        let arguments = ["thumbnails", folder.path, "-o", out, "--size", "512", "--processes", "1"]
        // Once the first thumbnail is there.
        let run = try MolshotBinary.run(arguments, signal: SIGINT) {
            ((try? FileManager.default.contentsOfDirectory(atPath: out)) ?? []).contains { $0.hasSuffix(".png") }
        }
        XCTAssertEqual(run.status, 130, run.stderr)
        let line = try XCTUnwrap(run.stderr.split(separator: "\n").last.map(String.init))
        let counts = try XCTUnwrap(line.wholeMatch(of: /interrupted: (\d+) of 120 done; run the same command again to continue/), line)
        let done = Int(counts.1)!
        XCTAssertLessThan(done, 120)
        let again = try MolshotBinary.run(arguments)
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stdout.contains("up to date"), again.stdout)
    }

    func testAnInterruptedImportSaysHowFarItCameAndARerunContinues() throws {
        let folder = try crambins(400)
        XCTAssertEqual(try molshot("library", "create", "--db", db).status, 0)
        // Copies of one structure kept apart (else each would be another file of the first).
        let run = try MolshotBinary.run(["library", "import", "--separate", folder.path, "--db", db], signal: SIGTERM) {
            ((try? FileManager.default.attributesOfItem(atPath: self.db)[.size] as? Int) ?? 0) > 200_000
        }
        XCTAssertEqual(run.status, 130, run.stderr)
        XCTAssertTrue(run.stderr.contains(/interrupted: \d+ of 400 files imported; run the same command again to continue/), run.stderr)
        let again = try molshot("library", "import", "--separate", folder.path, "--db", db)
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stdout.hasSuffix(" failed; library \(db)\n"), again.stdout)
        let total = try molshot("library", "list", "--db", db, "--limit", "1")
        XCTAssertTrue(total.stdout.hasSuffix("of 400 molecules\n"), total.stdout)
    }

    func testARegionOutsideTheMapIsRefusedWithWhereTheMapIs() throws {
        let run = try molshot("pathway", "Tests/Fixtures/pathways/sbgn_glycolysis.sbgn", "-o", scratch.appendingPathComponent("p.png").path,
                              "--region", "5000,5000,100,100")
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stderr.hasPrefix("molshot: error: --region 5000,5000,100,100 is outside the map, which spans X "), run.stderr)
    }

    func testTheBlankChainIsShownAsBlank() throws {
        let select = try molshot("info", "Tests/Fixtures/1hpv.pdb", "--select", "resn HOH")
        XCTAssertEqual(select.stdout, "Tests/Fixtures/1hpv.pdb: 80 of 1631 atoms, 80 residues, chains (blank)\n")
        let export = try molshot("export", "Tests/Fixtures/1hpv.pdb", "-o", scratch.appendingPathComponent("x.glb").path, "--parts", "Z")
        XCTAssertTrue(export.stderr.contains("(it has A, B, (blank))"), export.stderr)
    }
}

import Foundation
import TestSupport
import XCTest

/// What a new user tripped over, each case run as the user ran it.
final class NewUserTests: GLTestCase {
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("molshot-new-\(UUID().uuidString)")

    override func setUpWithError() throws {
        try super.setUpWithError()
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(at: scratch) }

    func molshot(_ arguments: String...) throws -> MolshotBinary.Run { try MolshotBinary.run(arguments) }

    func testOutputPathsSayWhatIsWrongWithThem() throws {
        let cases: [(String, String)] = [
            (scratch.path + "/", "is a folder; give a file name such as"),
            (scratch.path, "is a folder; give a file name such as"),
            ("/", "/ is a folder"),
            (scratch.appendingPathComponent("missing/x.png").path, "the folder \(scratch.path)/missing does not exist"),
            (scratch.appendingPathComponent("x.jpg").path, "Molshot writes .png files; the name ends in .jpg"),
            (scratch.appendingPathComponent("x").path, "the name ends in no extension"),
        ]
        for (path, message) in cases {
            let run = try molshot("render", "Tests/Fixtures/Caffeine.pdb", "-o", path, "--size", "16")
            XCTAssertNotEqual(run.status, 0, path)
            XCTAssertTrue(run.stderr.contains("--output " + path) || run.stderr.contains(path), run.stderr)
            XCTAssertTrue(run.stderr.contains(message), "\(path): \(run.stderr)")
        }
        let file = scratch.appendingPathComponent("plain.txt")
        try Data("x".utf8).write(to: file)
        let thumbs = try molshot("thumbnails", "Tests/Fixtures/Caffeine.pdb", "-o", file.path)
        XCTAssertNotEqual(thumbs.status, 0)
        XCTAssertTrue(thumbs.stderr.contains("\(file.path) is a file, not a folder"), thumbs.stderr)
    }

    func testAtomsNearAFloatsLimitOrAHugeZoomNeverCrash() throws {
        // mmCIF takes any number: atoms 6e38 Å apart (their span past a float's range) drew with GL
        // but trapped the CPU ray caster's sort and the surface's grid.
        let cif = InfoCommandTests.root.appendingPathComponent("Tests/Fixtures/far-apart.cif")
        for mode in ["spacefill", "ball-and-stick", "surface", "cartoon", "auto"] {
            let run = try molshot("render", cif.path, "--mode", mode, "--size", "64", "-o", scratch.appendingPathComponent("\(mode).png").path)
            XCTAssertEqual(run.status, 0, "\(mode): \(run.stderr)")
        }
        // 400 atoms so: enough that culling hidden spheres (from 300, GL; from 20,000 cast) takes
        // them, and its grid over their span trapped.
        let many = scratch.appendingPathComponent("apart-many.cif")
        var text = try String(contentsOf: cif, encoding: .utf8).components(separatedBy: "ATOM 1 ")[0]
        for i in 1...400 {
            let v = i % 3 == 0 ? "\(Double(i) * 0.5)" : i % 2 == 0 ? "3e38" : "-3e38"
            text += "ATOM \(i) C CA ALA A \(i) \(v) \(v) \(v)\n"
        }
        try Data(text.utf8).write(to: many)
        for mode in ["spacefill", "ball-and-stick"] {
            for cast in ["1", "0"] {
                let run = try MolshotBinary.run(["render", many.path, "--mode", mode, "--size", "64", "-o", scratch.appendingPathComponent("m.png").path],
                                                environment: ["MOLSHOT_CAST": cast])
                XCTAssertEqual(run.status, 0, "\(mode), MOLSHOT_CAST=\(cast): \(run.stderr)")
            }
        }
        // A zoom past what any picture shows is refused, naming the option (it trapped cartoons).
        let zoom = try molshot("render", "Tests/Fixtures/1crn.pdb", "--zoom", "1e30", "-o", scratch.appendingPathComponent("z.png").path)
        XCTAssertNotEqual(zoom.status, 0)
        XCTAssertTrue(zoom.stderr.contains("zoom") && zoom.stderr.contains("1e30"), zoom.stderr)
    }

    func testDashWritesThePNGToStandardOutput() throws {
        let process = Process()
        process.executableURL = TestBinary.molshot
        process.arguments = ["render", "Tests/Fixtures/Caffeine.pdb", "-o", "-", "--size", "24"]
        process.currentDirectoryURL = InfoCommandTests.root
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let bytes = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        XCTAssertEqual(Array(bytes.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        XCTAssertFalse(FileManager.default.fileExists(atPath: InfoCommandTests.root.appendingPathComponent("-").path))
    }

    func testReplayRefusesAFolderWithFramesUnlessForced() throws {
        let events = scratch.appendingPathComponent("events.jsonl")
        let header = #"{"type":"header","version":1,"viewport":{"width":100,"height":100}}"#
        try Data((header + "\n" + #"{"t":0,"type":"frame"}"# + "\n" + #"{"t":0.1,"type":"frame"}"# + "\n").utf8).write(to: events)
        let frames = scratch.appendingPathComponent("frames")
        let first = try molshot("replay", events.path, "--molecule", "Tests/Fixtures/Caffeine.pdb", "-o", frames.path, "--size", "32")
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: frames.path).count, 3)
        try Data((header + "\n").utf8).write(to: events)
        let second = try molshot("replay", events.path, "--molecule", "Tests/Fixtures/Caffeine.pdb", "-o", frames.path, "--size", "32")
        XCTAssertEqual(second.status, 1)
        XCTAssertTrue(second.stderr.contains("holds 3 frames of an earlier replay"), second.stderr)
        XCTAssertTrue(second.stderr.contains("--force"), second.stderr)
        let forced = try molshot("replay", events.path, "--molecule", "Tests/Fixtures/Caffeine.pdb", "-o", frames.path, "--size", "32",
                                 "--force")
        XCTAssertEqual(forced.status, 0, forced.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: frames.path), ["frame-00001.png"], "no frame of the earlier run is left")
    }

    func testFolderScansReadPQRFiles() throws {
        let folder = scratch.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: InfoCommandTests.root.appendingPathComponent("Tests/Fixtures/small.pqr"),
                                         to: folder.appendingPathComponent("small.pqr"))
        let run = try molshot("thumbnails", folder.path, "-o", scratch.appendingPathComponent("out").path, "--size", "32")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.hasPrefix("1 rendered, 0 up to date, 0 failed"), run.stdout)
        let info = try molshot("info", "Tests/Fixtures/small.pqr")
        XCTAssertTrue(info.stdout.contains("format:     pqr"), info.stdout)
    }

    func testHelpPrintsEachDefaultOnce() throws {
        let help = try molshot("thumbnails", "--help").stdout
        XCTAssertTrue(help.contains("(default: all cores)"), help)
        XCTAssertFalse(help.contains("(default: \(ProcessInfo.processInfo.activeProcessorCount))"), help)
        XCTAssertFalse(help.contains("(default: 1)"), help)
    }

    func testABadCatalogSaysWhichKeyIsMissing() throws {
        let catalog = scratch.appendingPathComponent("catalog.json")
        try Data(#"{"combinations": [{"name": "Dimer", "structure": "1crn.pdb"}]}"#.utf8).write(to: catalog)
        let events = scratch.appendingPathComponent("events.jsonl")
        // Events that combine parts (an event file that shows no structure at all is refused before the catalog is read).
        try Data(#"""
            {"type":"header","version":1,"viewport":{"width":100,"height":100}}
            {"type":"addPart","t":0,"part":"A"}
            {"type":"combine","t":0}
            """#.utf8).write(to: events)
        let run = try molshot("replay", events.path, "-o", scratch.appendingPathComponent("f").path, "--catalog", catalog.path)
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stderr.contains("\(catalog.path): not a combinations catalog: missing \"parts\" at combinations[0]"), run.stderr)
        XCTAssertFalse(run.stderr.contains("CodingKeys"), run.stderr)
    }

    func testAMissingEventFileHasNoLineNumber() throws {
        let run = try molshot("replay", "absent.jsonl", "-o", scratch.appendingPathComponent("f").path)
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stderr.contains("molshot: error: absent.jsonl: no such event file"), run.stderr)
    }

    func testInfoJSONWritesNullForAbsentValues() throws {
        let run = try molshot("info", "--json", "Tests/Fixtures/SampleMolecule.xyz")
        XCTAssertEqual(run.status, 0, run.stderr)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        for key in ["id", "method", "resolution"] {
            XCTAssertTrue(json[key] is NSNull, "\(key): \(String(describing: json[key]))")
        }
    }

    func testACommentAfterAPathInAListFile() throws {
        let list = scratch.appendingPathComponent("list.txt")
        let caffeine = InfoCommandTests.root.appendingPathComponent("Tests/Fixtures/Caffeine.pdb").path
        try Data("# the list\n\(caffeine)   # caffeine, with hydrogens\n".utf8).write(to: list)
        let run = try molshot("thumbnails", "@" + list.path, "-o", scratch.appendingPathComponent("out").path, "--size", "32")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.hasPrefix("1 rendered"), run.stdout)
    }

    func testThumbnailsRefuseARepeatedRotate() throws {
        let run = try molshot("thumbnails", "Tests/Fixtures/Caffeine.pdb", "-o", scratch.path, "--rotate", "10,0,0", "--rotate", "20,0,0")
        XCTAssertNotEqual(run.status, 0)
        XCTAssertTrue(run.stderr.contains("--rotate is given 2 times"), run.stderr)
    }
}

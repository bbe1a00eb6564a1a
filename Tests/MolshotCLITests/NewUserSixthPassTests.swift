import Foundation
import Imaging
import TestSupport
import XCTest

/// What a new user tripped on in round six (issue 100), as they typed it: a misspelt command, an
/// unknown label field, one exit-code rule, a GIF for chat, the samples by name from any folder.
final class NewUserSixthPassTests: XCTestCase {
    var scratch: URL!

    override func setUpWithError() throws { scratch = try Scratch.folder(for: self, prefix: "molshot-six") }

    func path(_ name: String) -> String { scratch.appendingPathComponent(name).path }

    func testAMisspeltCommandIsNamedWithTheNearest() throws {
        let r = try MolshotBinary.run(["rendr", "Tests/Fixtures/1crn.pdb", "-o", path("x.png")])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("'rendr' is not a command (did you mean render?)"), r.stderr)
        XCTAssertFalse(r.stderr.contains("Unknown option"), r.stderr)
        let t = try MolshotBinary.run(["thumbnail", "Tests/Fixtures/1crn.pdb", "-o", path("t")])
        XCTAssertTrue(t.stderr.contains("did you mean thumbnails?"), t.stderr)
        XCTAssertEqual(try MolshotBinary.run(["help", "render"]).status, 0)
    }

    func testAnUnknownLabelFieldIsRefusedNamingTheKnownOnes() throws {
        let r = try MolshotBinary.run(["render", "Tests/Fixtures/1crn.pdb", "-o", path("x.png"), "--label", "resi 1-5: %resname"])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("%resname is not a label field") && r.stderr.contains("%resn %resi %chain"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("x.png")))
        let fine = try MolshotBinary.run(["render", "Tests/Fixtures/1crn.pdb", "-o", path("y.png"), "--label", "resi 1-5: %resn%resi (50%)"])
        XCTAssertEqual(fine.status, 0, fine.stderr)
    }

    /// 1 for the user's input wherever it is found (a usage error, a selection that selects nothing
    /// in `info` as in `render`), 2 for the machine.
    func testOneExitCodeRule() throws {
        XCTAssertEqual(try MolshotBinary.run(["render", "--size", "nope", "Tests/Fixtures/1crn.pdb", "-o", path("x.png")]).status, 1)
        XCTAssertEqual(try MolshotBinary.run(["info", "Tests/Fixtures/1hpv.pdb", "--interactions", "resn XYZ"]).status, 1)
        XCTAssertEqual(try MolshotBinary.run(["render", "Tests/Fixtures/1hpv.pdb", "--focus", "resn XYZ", "-o", path("x.png")]).status, 1)
        XCTAssertEqual(try MolshotBinary.run(["render", "Tests/Fixtures/1crn.pdb", "-o", path("x.png")], environment: ["MOLSHOT_GL": "nonsense"]).status, 2)
    }

    func testTheChatGIFIsSizedForChat() throws {
        let r = try MolshotBinary.run(["movie", "Tests/Fixtures/1hpv.pdb", "-o", path("chat.gif")])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("120 frames at 15 a second"), r.stdout)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path("chat.gif")))
        XCTAssertLessThan(bytes.count, 5 << 20)
        // GIF's logical screen: width and height, little-endian, after the six-byte signature.
        XCTAssertEqual(Int(bytes[6]) | Int(bytes[7]) << 8, 480)
        XCTAssertEqual(Int(bytes[8]) | Int(bytes[9]) << 8, 480)
    }

    func testTheSamplesByNameFromAnyFolder() throws {
        let process = Process()
        process.executableURL = TestBinary.molshot
        process.arguments = ["render", "sample:1crn", "-o", path("crambin.png"), "--size", "64"]
        process.currentDirectoryURL = scratch
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        XCTAssertEqual(try PNGDecoder.read(path("crambin.png")).width, 64)
        let unknown = try MolshotBinary.run(["render", "sample:2xyz", "-o", path("x.png")])
        XCTAssertEqual(unknown.status, 1)
        XCTAssertTrue(unknown.stderr.contains("the samples are sample:1crn"), unknown.stderr)
    }
}

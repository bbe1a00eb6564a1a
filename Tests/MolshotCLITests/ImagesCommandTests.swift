import Foundation
import TestSupport
import XCTest

/// `molshot images` as a user runs it: a folder of entries, shards, a second run, bad input.
final class ImagesCommandTests: GLTestCase {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")
    var dir: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("molshot-images-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("in"), withIntermediateDirectories: true)
        for name in ["1crn.pdb", "1hpv.pdb", "bcif/1A8O.bcif.gz", "heme-site.pdb"] {
            try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent(name),
                                             to: dir.appendingPathComponent("in/\((name as NSString).lastPathComponent)"))
        }
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    func files(_ folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent(folder).path).sorted()
    }

    /// Two shards make the same files as one run; a second run skips what is there; --force draws again.
    func testShardsMakeWhatOneRunMakesAndASecondRunSkips() throws {
        let input = dir.appendingPathComponent("in").path
        var r = try MolshotBinary.run(["images", input, dir.appendingPathComponent("whole").path, "--size", "64"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("4 entries drawn"), r.stdout)
        for k in 1...2 {
            r = try MolshotBinary.run(["images", input, dir.appendingPathComponent("shards").path, "--size", "64", "--shard", "\(k)/2"])
            XCTAssertEqual(r.status, 0, r.stderr)
        }
        XCTAssertEqual(try files("whole"), try files("shards"))
        XCTAssertTrue(try files("whole").contains("1hpv.json"))
        XCTAssertTrue(try files("whole").contains("1hpv_ligand_478_front_64x64.png"))
        r = try MolshotBinary.run(["images", input, dir.appendingPathComponent("whole").path, "--size", "64"])
        XCTAssertTrue(r.stdout.contains("0 entries drawn, 4 already there"), r.stdout)
    }

    /// Two processes make the same files as one.
    func testTwoProcessesMakeWhatOneMakes() throws {
        let input = dir.appendingPathComponent("in").path
        var r = try MolshotBinary.run(["images", input, dir.appendingPathComponent("one").path, "--size", "48", "--type", "entry"])
        XCTAssertEqual(r.status, 0, r.stderr)
        r = try MolshotBinary.run(["images", input, dir.appendingPathComponent("two").path, "--size", "48", "--type", "entry", "--processes", "2"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("4 entries in 2 processes"), r.stdout)
        XCTAssertEqual(try files("one"), try files("two"))
        XCTAssertGreaterThan(try files("two").count, 8)
    }

    /// A killed run leaves no part process behind: they end with the process that started them.
    func testPartProcessesEndWithTheRun() throws {
        let input = dir.appendingPathComponent("many")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        // A hundred entries (far more than the part can draw in the five seconds allowed below), each named by its file (no HEADER id), so none is skipped as drawn already.
        let crambin = try String(contentsOf: Self.fixtures.appendingPathComponent("1crn.pdb"), encoding: .utf8)
            .split(separator: "\n").filter { !$0.hasPrefix("HEADER") }.joined(separator: "\n") + "\n"
        for i in 0..<100 { try Data(crambin.utf8).write(to: input.appendingPathComponent("copy\(i).pdb")) }
        let output = dir.appendingPathComponent("killed")
        let p = Process()
        p.executableURL = TestBinary.molshot
        p.arguments = ["images", input.path, output.path, "--size", "400", "--processes", "2"]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline && ThumbnailsCommandTests.processes(naming: output.path) < 2 && p.isRunning { usleep(10_000) }
        XCTAssertEqual(ThumbnailsCommandTests.processes(naming: output.path), 2, "the run and its part process")
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        // The part looks for its parent ten times a second.
        let gone = Date().addingTimeInterval(5)
        while ThumbnailsCommandTests.processes(naming: output.path) > 0 && Date() < gone { usleep(20_000) }
        XCTAssertEqual(ThumbnailsCommandTests.processes(naming: output.path), 0, "the part process left with the run")
    }

    /// A bad kind is refused with a hint; a broken entry among good ones is named, the rest drawn, exit 1.
    func testBadInputIsNamed() throws {
        var r = try MolshotBinary.run(["images", dir.appendingPathComponent("in/1crn.pdb").path, dir.appendingPathComponent("out").path, "--type", "ligands"])
        XCTAssertNotEqual(r.status, 0)
        XCTAssertTrue(r.stderr.contains("unknown kind") && r.stderr.contains("ligand"), r.stderr)
        try Data("ATOM      1  CA  ALA A   1      garbage\n".utf8).write(to: dir.appendingPathComponent("in/broken.pdb"))
        r = try MolshotBinary.run(["images", dir.appendingPathComponent("in").path, dir.appendingPathComponent("out").path, "--size", "48", "--type", "entry"])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("broken.pdb"), r.stderr)
        XCTAssertTrue(try files("out").contains("1crn_deposited_chain_front_48x48.png"))
    }
}

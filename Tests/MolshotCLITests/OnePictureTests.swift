import Foundation
import XCTest

/// One picture asked for through `render`, `thumbnails` and `replay` is the same picture: the
/// three commands build one render request from the same options.
final class OnePictureTests: XCTestCase {
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("molshot-one-\(UUID().uuidString)")

    override func tearDown() { try? FileManager.default.removeItem(at: scratch) }

    /// The PNG bytes each command writes for `molecule` with `options`.
    func pictures(_ molecule: String, _ options: [String], size: (Int, Int) = (96, 80)) throws -> [String: Data] {
        let dir = scratch.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let sizeText = "\(size.0)x\(size.1)"
        var out: [String: Data] = [:]

        let png = dir.appendingPathComponent("render.png")
        let render = try MolshotBinary.run(["render", molecule, "-o", png.path, "--size", sizeText] + options)
        XCTAssertEqual(render.status, 0, render.stderr)
        out["render"] = try Data(contentsOf: png)

        let thumbs = dir.appendingPathComponent("thumbs")
        let modeOptions = options.contains("--mode") ? [] : ["--mode", "ball-and-stick"]
        let thumbnails = try MolshotBinary.run(["thumbnails", molecule, "-o", thumbs.path, "--size", sizeText] + modeOptions + options)
        XCTAssertEqual(thumbnails.status, 0, thumbnails.stderr)
        let names = try FileManager.default.contentsOfDirectory(atPath: thumbs.path).filter { $0.hasSuffix(".png") }
        XCTAssertEqual(names.count, 1, "\(names)")
        out["thumbnails"] = try Data(contentsOf: thumbs.appendingPathComponent(names[0]))

        let events = dir.appendingPathComponent("events.jsonl")
        try Data(#"{"type":"header","version":1,"viewport":{"width":\#(size.0),"height":\#(size.1)}}"#.utf8).write(to: events)
        let frames = dir.appendingPathComponent("frames")
        let replay = try MolshotBinary.run(["replay", events.path, "--molecule", molecule, "-o", frames.path, "--size", sizeText] + options)
        XCTAssertEqual(replay.status, 0, replay.stderr)
        out["replay"] = try Data(contentsOf: frames.appendingPathComponent("frame-00001.png"))
        return out
    }

    func assertSame(_ molecule: String, _ options: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let p = try pictures(molecule, options)
        XCTAssertGreaterThan(p["render"]?.count ?? 0, 100, file: file, line: line)
        XCTAssertEqual(p["render"], p["thumbnails"], "render and thumbnails differ for \(options)", file: file, line: line)
        XCTAssertEqual(p["render"], p["replay"], "render and replay differ for \(options)", file: file, line: line)
    }

    func testTheDefaultLook() throws { try assertSame("Tests/Fixtures/Caffeine.pdb", []) }

    func testHydrogensZoomAndPerspective() throws {
        try assertSame("Tests/Fixtures/Caffeine.pdb", ["--hydrogens", "--zoom", "2", "--perspective"])
    }

    func testChainColorsOnATransparentBackgroundTurned() throws {
        try assertSame("Tests/Fixtures/1bna.pdb", ["--color", "chain", "--background", "transparent", "--rotate", "-30,20,0"])
    }

    func testSpacefillPannedWithDepthCueAndSupersampling() throws {
        try assertSame("Tests/Fixtures/1crn.pdb", ["--mode", "spacefill", "--pan", "-6,4", "--depth-cue", "--antialias", "2",
                                                   "--background", "#203040"])
    }

    func testReplayNoLongerIgnoresHydrogensZoomAndPerspective() throws {
        let plain = try pictures("Tests/Fixtures/Caffeine.pdb", [])
        for option in [["--hydrogens"], ["--zoom", "2"], ["--perspective"], ["--waters"]] where option != ["--waters"] {
            let changed = try pictures("Tests/Fixtures/Caffeine.pdb", option)
            XCTAssertNotEqual(plain["replay"], changed["replay"], "replay ignored \(option)")
        }
    }

    /// Each option's help, as ArgumentParser prints it: the label line and its continuation lines.
    func helpBlocks(_ command: String) throws -> [String: String] {
        let run = try MolshotBinary.run([command, "--help"])
        XCTAssertEqual(run.status, 0, run.stderr)
        var blocks: [String: String] = [:]
        var current: String?
        for line in run.stdout.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.drop { $0 == " " }
            if line.hasPrefix("  -"), let name = trimmed.split(separator: " ").first {
                current = name.replacingOccurrences(of: ",", with: "")
                blocks[current!] = String(trimmed)
            } else if let c = current, line.hasPrefix("    "), !trimmed.isEmpty {
                blocks[c]! += " " + trimmed
            } else {
                current = nil
            }
        }
        return blocks
    }

    func testEveryLookOptionReadsTheSameInEveryCommand() throws {
        let render = try helpBlocks("render"), thumbnails = try helpBlocks("thumbnails"), replay = try helpBlocks("replay")
        let shared = ["--size", "--mode", "--rotate", "--zoom", "--pan", "--perspective", "--color", "--background", "--hydrogens",
                      "--waters", "--antialias", "--depth-cue", "--png-level", "--max-bytes"]
        for option in shared {
            XCTAssertNotNil(render[option], "render has no \(option)")
            XCTAssertEqual(render[option], thumbnails[option], option)
            XCTAssertEqual(render[option], replay[option], option)
        }
        let info = try helpBlocks("info")
        XCTAssertEqual(info["--max-bytes"], render["--max-bytes"])
    }

    func testNegativeValuesNeedNoEqualsSign() throws {
        let png = scratch.appendingPathComponent("neg.png")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let run = try MolshotBinary.run(["render", "Tests/Fixtures/Caffeine.pdb", "-o", png.path, "--size", "32",
                                         "--rotate", "-90,0,0", "--pan", "-4,-2"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let zoom = try MolshotBinary.run(["render", "Tests/Fixtures/Caffeine.pdb", "-o", png.path, "--zoom", "-1"])
        XCTAssertNotEqual(zoom.status, 0)
        XCTAssertTrue(zoom.stderr.contains("--zoom must be a positive number (got -1)"), zoom.stderr)
    }

    func testAWrongValueNamesItsOptionInEveryCommand() throws {
        for command in [["render", "Tests/Fixtures/Caffeine.pdb", "-o", "/tmp/x.png"], ["thumbnails", "Tests/Fixtures/Caffeine.pdb", "-o", "/tmp/x"],
                        ["replay", "events.jsonl", "-o", "/tmp/x"]] {
            let run = try MolshotBinary.run(command + ["--size", "10x"])
            XCTAssertNotEqual(run.status, 0)
            XCTAssertTrue(run.stderr.contains("--size must be WxH or N, like 512x384 or 256 (got 10x)"), run.stderr)
        }
    }
}

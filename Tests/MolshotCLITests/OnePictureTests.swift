import Foundation
import TestSupport
import XCTest

/// One picture asked for through `render`, `thumbnails` and `replay` is the same picture: the
/// three commands build one render request from the same options.
final class OnePictureTests: GLTestCase {
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
        let modeOptions = options.contains("--mode") || options.contains("--show") ? [] : ["--mode", "ball-and-stick"]
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
        try assertSame("Tests/Fixtures/1bna.pdb", ["--mode", "ball-and-stick", "--color", "chain", "--background", "transparent", "--rotate", "-30,20,0"])
    }

    func testSpacefillPannedWithDepthCueAndSupersampling() throws {
        try assertSame("Tests/Fixtures/1crn.pdb", ["--mode", "spacefill", "--color", "auto", "--pan", "-6,4", "--depth-cue",
                                                   "--antialias", "2", "--background", "#203040"])
    }

    func testSeveralRepresentationsOnSelections() throws {
        try assertSame("Tests/Fixtures/1hpv.pdb", ["--show", "cartoon: polymer", "--show", "sticks orange: ligand",
                                                   "--show", "spacefill #FF66CC: within 3.5 of ligand and not backbone"])
    }

    func testABadShowIsRefusedWithWhereItGoesWrong() throws {
        let png = scratch.appendingPathComponent("bad.png")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        for command in [["render", "Tests/Fixtures/1hpv.pdb", "-o", png.path], ["thumbnails", "Tests/Fixtures/1hpv.pdb", "-o", scratch.path],
                        ["export", "Tests/Fixtures/1hpv.pdb", "-o", scratch.appendingPathComponent("x.glb").path]] {
            let run = try MolshotBinary.run(command + ["--show", "cartoon: chain A and"])
            XCTAssertEqual(run.status, 1, "\(command[0]): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains("--show in \"cartoon: chain A and\": selection \"chain A and\", at character 12"), run.stderr)
            let both = try MolshotBinary.run(command + ["--mode", "spacefill", "--show", "cartoon"])
            XCTAssertEqual(both.status, 1, "\(command[0]): \(both.stderr)")
            XCTAssertTrue(both.stderr.contains("give one or the other"), both.stderr)
        }
        let none = try MolshotBinary.run(["render", "Tests/Fixtures/1crn.pdb", "-o", png.path, "--show", "sticks: ligand"])
        XCTAssertEqual(none.status, 1, none.stderr)
        XCTAssertTrue(none.stderr.contains("has no atom in any --show selection (sticks: ligand)"), none.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: png.path))
    }

    func testReplayDoubleTapGoesFromTheShowsToEachRepresentation() throws {
        let dir = scratch.appendingPathComponent("tap")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let events = dir.appendingPathComponent("events.jsonl")
        try Data((#"{"type":"header","version":1,"viewport":{"width":64,"height":64}}"# + "\n" + #"{"t":0,"type":"frame"}"# + "\n"
                  + #"{"t":0.1,"type":"touch","phase":"began","id":1,"x":30,"y":30,"tapCount":2}"# + "\n"
                  + #"{"t":0.15,"type":"touch","phase":"ended","id":1,"x":30,"y":30,"tapCount":2}"# + "\n"
                  + #"{"t":0.2,"type":"frame"}"# + "\n").utf8).write(to: events)
        let run = try MolshotBinary.run(["replay", events.path, "--molecule", "Tests/Fixtures/1hpv.pdb", "-o", dir.appendingPathComponent("f").path,
                                         "--size", "64", "--show", "cartoon: polymer", "--show", "sticks: ligand"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let frames = try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("f").path).filter { $0.hasSuffix(".png") }.sorted()
        XCTAssertGreaterThanOrEqual(frames.count, 2, run.stderr)
        let first = try Data(contentsOf: dir.appendingPathComponent("f").appendingPathComponent(frames.first!))
        let last = try Data(contentsOf: dir.appendingPathComponent("f").appendingPathComponent(frames.last!))
        XCTAssertNotEqual(first, last, "the double tap changed the picture")
    }

    func testReplayHonoursHydrogensZoomAndPerspective() throws {
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
        let shared = ["--zoom", "--pan", "--perspective", "--color", "--background", "--hydrogens",
                      "--waters", "--antialias", "--depth-cue", "--png-level", "--max-bytes"]
        for option in shared {
            XCTAssertNotNil(render[option], "render has no \(option)")
            XCTAssertEqual(render[option], thumbnails[option], option)
            XCTAssertEqual(render[option], replay[option], option)
        }
        // These read the same up to what each command says of itself (its default, repeats).
        for (option, end) in [("--size", "per side."), ("--mode", "small molecules)."), ("--rotate", "fitted view.")] {
            let texts = [render, thumbnails, replay].map { blocks -> String? in
                guard let block = blocks[option], let r = block.range(of: end) else { return nil }
                return String(block[..<r.upperBound])
            }
            XCTAssertNotNil(texts[0], option)
            XCTAssertEqual(Set(texts).count, 1, "\(option): \(texts)")
        }
        XCTAssertNotEqual(render["--size"], thumbnails["--size"], "each says its own default")
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

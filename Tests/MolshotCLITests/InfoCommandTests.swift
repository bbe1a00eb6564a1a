import Foundation
import Imaging
import TestSupport
import XCTest

/// Runs the built `molshot` binary as a user would and reads what it prints.
enum MolshotBinary {
    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> Run {
        // The test runner sits in the build folder beside the molshot executable.
        let process = Process()
        process.executableURL = TestBinary.molshot
        process.arguments = arguments
        process.currentDirectoryURL = InfoCommandTests.root
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                   stderr: String(decoding: stderr, as: UTF8.self))
    }
}

extension MolshotBinary {
    /// `molshot render` with `arguments`, writing `output`; the status must be 0. The pixels of
    /// the picture whose colour `keep` accepts.
    static func renderedPixels(_ arguments: [String], output: String, where keep: (UInt8, UInt8, UInt8) -> Bool,
                               file: StaticString = #filePath, line: UInt = #line) throws -> Int {
        let r = try run(["render"] + arguments + ["-o", output])
        XCTAssertEqual(r.status, 0, r.stderr, file: file, line: line)
        return pixels(of: try PNGDecoder.read(output), where: keep)
    }

    /// The pixels of `image` whose colour `keep` accepts.
    static func pixels(of image: RGBAImage, where keep: (UInt8, UInt8, UInt8) -> Bool) -> Int {
        var n = 0
        for y in 0..<image.height {
            for x in 0..<image.width {
                let p = image.pixel(x, y)
                if keep(p.r, p.g, p.b) { n += 1 }
            }
        }
        return n
    }
}

final class InfoCommandTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func molshot(_ arguments: String...) throws -> MolshotBinary.Run { try MolshotBinary.run(arguments) }

    func testInfoJSONHasTheDocumentedKeys() throws {
        let run = try molshot("info", "--json", "Tests/Fixtures/1crn.pdb")
        XCTAssertEqual(run.status, 0, run.stderr)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(json["format"] as? String, "pdb")
        XCTAssertEqual(json["models"] as? Int, 1)
        XCTAssertEqual(json["atoms"] as? Int, 327)
        XCTAssertEqual(json["bonds"] as? Int, 337)
        XCTAssertEqual(json["method"] as? String, "X-RAY DIFFRACTION")
        XCTAssertEqual(json["resolution"] as? Double ?? 0, 1.5, accuracy: 1e-6)
        let chains = try XCTUnwrap(json["chains"] as? [[String: Any]])
        XCTAssertEqual(chains.count, 1)
        XCTAssertEqual(chains[0]["id"] as? String, "A")
        XCTAssertEqual(chains[0]["residues"] as? Int, 46)
        XCTAssertEqual(chains[0]["atoms"] as? Int, 327)
        XCTAssertTrue((json["title"] as? String ?? "").hasPrefix("WATER STRUCTURE"))
    }

    func testInfoTextOnTheShippedSample() throws {
        let run = try molshot("info", "Assets/samples/1crn.pdb")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("atoms:      327"), run.stdout)
        XCTAssertTrue(run.stdout.contains("  A: 46 residues, 327 atoms"), run.stdout)
        XCTAssertTrue(run.stdout.contains("bonds:      337 (3 explicit, 289 template, 45 polymer)"), run.stdout)
    }

    func testBadFileGivesOneClearErrorAndNonZeroExit() throws {
        let run = try molshot("info", "Tests/Fixtures/truncated.pdb.gz")
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(run.stdout, "")
        XCTAssertTrue(run.stderr.hasPrefix("molshot: error: Tests/Fixtures/truncated.pdb.gz: gzip data is truncated"), run.stderr)
    }

    func testOneBadFileAmongGoodOnesStillReportsTheGoodOnes() throws {
        let run = try molshot("info", "--json", "Tests/Fixtures/TYR.sdf", "Tests/Fixtures/absent.pdb", "Tests/Fixtures/adrenalin.mol2")
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(run.stdout.split(separator: "\n").count, 2)
        XCTAssertTrue(run.stderr.contains("absent.pdb: cannot open"), run.stderr)
    }

    func testMaxBytesIsValidated() throws {
        let run = try molshot("info", "--max-bytes", "0", "Tests/Fixtures/1crn.pdb")
        XCTAssertNotEqual(run.status, 0)
        XCTAssertTrue(run.stderr.contains("--max-bytes must be positive"), run.stderr)
    }

    func testRenderWritesAPNGOfTheSample() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("molshot-cli-\(UUID().uuidString).png").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let run = try molshot("render", "Assets/samples/1crn.pdb", "-o", out, "--size", "64x48", "--background", "transparent")
        XCTAssertEqual(run.status, 0, run.stderr)
        let png = try Data(contentsOf: URL(fileURLWithPath: out))
        XCTAssertEqual(Array(png.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        // IHDR: width and height, big-endian, at bytes 16-23.
        XCTAssertEqual(png[16..<24].map { $0 }, [0, 0, 0, 64, 0, 0, 0, 48])
    }

    func testRenderRefusesSizesAboveTheLimit() throws {
        let run = try molshot("render", "Assets/samples/1crn.pdb", "-o", "/tmp/never.png", "--size", "9000x100")
        XCTAssertNotEqual(run.status, 0)
        XCTAssertTrue(run.stderr.contains("at most 8192 pixels per side"), run.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: "/tmp/never.png"))
    }

    func testRenderOfABadFileNamesItAndWritesNothing() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("molshot-cli-\(UUID().uuidString).png").path
        let run = try molshot("render", "Tests/Fixtures/truncated.pdb.gz", "-o", out)
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stderr.hasPrefix("molshot: error: Tests/Fixtures/truncated.pdb.gz: gzip data is truncated"), run.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
    }

    func testReplayReadsALiveStreamFromStandardInput() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("molshot-replay-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let process = Process()
        process.executableURL = TestBinary.molshot
        process.arguments = ["replay", "-", "--molecule", "Tests/Fixtures/Caffeine.pdb", "-o", dir.path, "--size", "64"]
        process.currentDirectoryURL = Self.root
        let input = Pipe(), err = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = err
        try process.run()
        let w = input.fileHandleForWriting
        w.write(Data(#"{"type":"header","version":1,"viewport":{"width":320,"height":320}}"#.utf8 + [10]))
        w.write(Data(#"{"t":0,"type":"frame"}"#.utf8 + [10]))
        // The first frame is written while the stream is still open.
        let first = dir.appendingPathComponent("frame-00001.png").path
        let deadline = Date().addingTimeInterval(20)
        while !FileManager.default.fileExists(atPath: first) && Date() < deadline { usleep(20_000) }
        XCTAssertTrue(FileManager.default.fileExists(atPath: first), "frame written as soon as it was due")
        w.write(Data(#"{"t":0.5,"type":"rotate","dx":40,"dy":0}"#.utf8 + [10]))
        w.write(Data(#"{"t":0.1,"type":"frame"}"#.utf8 + [10]))
        try w.close()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 1, "time went backwards on line 4")
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertTrue(message.contains("<stdin>:4: time goes backwards"), message)
    }

    func testReplayAnimationHoldsTheNumberedFramesInOrder() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("molshot-apng-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var lines = [#"{"type":"header","version":1,"viewport":{"width":320,"height":320}}"#]
        for k in 0..<8 {
            lines.append(#"{"t":\#(Double(k) * 0.1),"type":"rotate","dx":25,"dy":\#(k * 3)}"#)
            lines.append(#"{"t":\#(Double(k) * 0.1),"type":"frame"}"#)
        }
        let events = dir.appendingPathComponent("events.jsonl")
        try lines.joined(separator: "\n").write(to: events, atomically: true, encoding: .utf8)
        let apng = dir.appendingPathComponent("all.png").path
        let run = try molshot("replay", events.path, "--molecule", "Tests/Fixtures/Caffeine.pdb", "-o", dir.path,
                              "--size", "48", "--apng", apng)
        XCTAssertEqual(run.status, 0, run.stderr)
        // Frame data of the animation, in order: IDAT of the first, fdAT (less its sequence number) of the rest.
        func chunks(_ bytes: [UInt8]) -> [(String, [UInt8])] {
            var out: [(String, [UInt8])] = []
            var i = 8
            while i + 8 <= bytes.count {
                let n = bytes[i..<(i + 4)].reduce(0) { $0 << 8 | Int($1) }
                out.append((String(decoding: bytes[(i + 4)..<(i + 8)], as: UTF8.self), Array(bytes[(i + 8)..<(i + 8 + n)])))
                i += 12 + n
            }
            return out
        }
        let animation = chunks(Array(try Data(contentsOf: URL(fileURLWithPath: apng))))
        let frames = animation.compactMap { $0.0 == "IDAT" ? $0.1 : $0.0 == "fdAT" ? Array($0.1.dropFirst(4)) : nil }
        XCTAssertEqual(frames.count, 9, "eight frame events and the final view")
        for (k, data) in frames.enumerated() {
            let file = dir.appendingPathComponent(String(format: "frame-%05d.png", k + 1))
            let own = chunks(Array(try Data(contentsOf: file))).filter { $0.0 == "IDAT" }.flatMap(\.1)
            XCTAssertEqual(data, own, "animation frame \(k + 1) is frame-\(k + 1).png")
        }
    }

    func testHelpListsInfo() throws {
        let run = try molshot("--help")
        XCTAssertEqual(run.status, 0)
        XCTAssertTrue(run.stdout.contains("info"), run.stdout)
        XCTAssertTrue(run.stdout.contains("render"), run.stdout)
        XCTAssertFalse(run.stdout.contains("measure-parse"), "bench helpers stay hidden")
    }

    func testSelectCountsAtomsAndPointsAtABadExpression() throws {
        let r = try molshot("info", "Tests/Fixtures/1crn.pdb", "--select", "within 5 of name SG and name CA")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "Tests/Fixtures/1crn.pdb: 11 of 327 atoms, 11 residues, chains A\n")
        let bad = try molshot("info", "Tests/Fixtures/1crn.pdb", "--select", "chain A and (resi 5-")
        XCTAssertEqual(bad.status, 1)
        XCTAssertTrue(bad.stderr.contains("at character 19: 5- is not a residue number or range"), bad.stderr)
        XCTAssertTrue(bad.stderr.contains("                      ^"), bad.stderr)
    }
}


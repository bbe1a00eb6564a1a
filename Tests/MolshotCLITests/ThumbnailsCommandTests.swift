import Foundation
import TestSupport
import XCTest

/// The thumbnails command run as a process, killed with SIGKILL partway and started again.
final class ThumbnailsCommandTests: GLTestCase {
    func testHelperProcessesShareTheWorkAndOneIndex() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("molshot-procs-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        let fixtures = ["1crn.pdb", "Caffeine.pdb", "TYR.sdf", "1lzh.pdb.gz", "adrenalin.mol2"].map { "Tests/Fixtures/" + $0 }
        let run = try MolshotBinary.run(["thumbnails"] + fixtures + ["-o", out.path, "--size", "48", "--processes", "3", "--mode", "ball-and-stick,spacefill",
                                                                            "--contact-sheet", "3x2"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.hasPrefix("5 rendered, 0 up to date, 0 failed of 5"), run.stdout)
        let names = try FileManager.default.contentsOfDirectory(atPath: out.path)
        XCTAssertEqual(names.filter { $0.hasSuffix(".png") && !$0.hasPrefix("contact-") }.count, 10)
        XCTAssertEqual(names.filter { $0.hasPrefix("contact-") }.count, 2, "one page per mode, over all processes' work")
        XCTAssertFalse(names.contains { $0.contains(".part-") }, "the part processes' index parts were merged")
        let index = try String(contentsOf: out.appendingPathComponent("index.jsonl"), encoding: .utf8)
        XCTAssertEqual(index.split(separator: "\n").count, 5)
        let again = try MolshotBinary.run(["thumbnails"] + fixtures + ["-o", out.path, "--size", "48", "--processes", "2", "--mode", "ball-and-stick,spacefill"])
        XCTAssertTrue(again.stdout.hasPrefix("0 rendered, 5 up to date"), again.stdout)
    }

    /// By default one picture a file, the one `render` draws by default (auto: crambin's cartoon by
    /// chain, caffeine in ball-and-stick) at 256 px, byte for byte, named `-auto.png`.
    func testTheDefaultIsThePictureRenderDraws() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("molshot-auto-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        let run = try MolshotBinary.run(["thumbnails", "Tests/Fixtures/1crn.pdb", "Tests/Fixtures/Caffeine.pdb", "-o", out.appendingPathComponent("t").path])
        XCTAssertEqual(run.status, 0, run.stderr)
        let index = try String(contentsOf: out.appendingPathComponent("t/index.jsonl"), encoding: .utf8).split(separator: "\n")
            .map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        XCTAssertEqual(index.count, 2)
        for row in index {
            let outputs = try XCTUnwrap(row["outputs"] as? [String])
            XCTAssertEqual(outputs.count, 1)
            XCTAssertTrue(outputs[0].hasSuffix("-auto.png"), outputs[0])
            let source = try XCTUnwrap(row["source"] as? String)
            let png = out.appendingPathComponent("r.png").path
            XCTAssertEqual(try MolshotBinary.run(["render", source, "-o", png, "--size", "256"]).status, 0)
            XCTAssertEqual(try Data(contentsOf: out.appendingPathComponent("t/" + outputs[0])), try Data(contentsOf: URL(fileURLWithPath: png)), source)
        }
    }

    func testAKilledRunFinishesWhenStartedAgainAndLeavesOnlyWholePNGs() throws {
        let root = InfoCommandTests.root
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("molshot-kill-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in"), output = dir.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        // Forty different files (content differs, so names differ).
        let crambin = try String(contentsOf: root.appendingPathComponent("Tests/Fixtures/1crn.pdb"), encoding: .utf8)
        for i in 0..<40 {
            try Data((crambin + "REMARK 999 COPY \(i)\n").utf8).write(to: input.appendingPathComponent("copy\(i).pdb"))
        }
        let binary = TestBinary.molshot
        func start() throws -> Process {
            let p = Process()
            p.executableURL = binary
            p.arguments = ["thumbnails", input.path, "-o", output.path, "--size", "200", "--jobs", "2", "--processes", "2", "--mode", "ball-and-stick,spacefill"]
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            return p
        }
        let first = try start()
        // Wait (at most 30 s) until some pictures exist, then kill it hard.
        func made() -> Int { (try? FileManager.default.contentsOfDirectory(atPath: output.path).filter { $0.hasSuffix(".png") }.count) ?? 0 }
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline && made() < 6 && first.isRunning { usleep(10_000) }
        XCTAssertGreaterThanOrEqual(made(), 6, "the first run made pictures before it was killed")
        kill(first.processIdentifier, SIGKILL)
        first.waitUntilExit()
        // Its part processes notice and exit too: wait for that, within a bound.
        let gone = Date().addingTimeInterval(20)
        while Self.processes(naming: output.path) > 0 && Date() < gone { usleep(20_000) }
        XCTAssertEqual(Self.processes(naming: output.path), 0, "the part processes left with the main process")
        // (How far the first run got depends on the machine; what matters is that the second finishes it.)

        let second = try start()
        second.waitUntilExit()
        XCTAssertEqual(second.terminationStatus, 0)
        let names = try FileManager.default.contentsOfDirectory(atPath: output.path)
        XCTAssertFalse(names.contains { $0.contains(".partial-") }, "no temporary files left")
        let pngs = names.filter { $0.hasSuffix(".png") }
        XCTAssertEqual(pngs.count, 80)
        for name in pngs {
            let bytes = try Data(contentsOf: output.appendingPathComponent(name))
            XCTAssertEqual(Array(bytes.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], name)
            XCTAssertEqual(Array(bytes.suffix(8)), [0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82], "\(name) ends with IEND")
        }
        let index = try String(contentsOf: output.appendingPathComponent("index.jsonl"), encoding: .utf8)
        let lines = index.split(separator: "\n")
        XCTAssertEqual(lines.count, 40)
        XCTAssertTrue(lines.allSatisfy { $0.contains("\"status\":\"ok\"") && $0.contains("\"atoms\":327") })
    }

    /// How many running processes have `text` among their arguments (from /proc).
    static func processes(naming text: String) -> Int {
        let ids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return ids.filter { id in
            guard Int(id) != nil, let line = FileManager.default.contents(atPath: "/proc/\(id)/cmdline") else { return false }
            let stat = (try? String(contentsOfFile: "/proc/\(id)/stat", encoding: .utf8)) ?? ""
            // A zombie (state Z) has exited; its parent has not collected it yet.
            guard !stat.contains(") Z ") else { return false }
            return String(decoding: line.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self).contains(text)
        }.count
    }
}

import Foundation
import Graphics
import Imaging
import Structure
import Thumbnails
import TestSupport
import XCTest

final class ThumbnailRunTests: GLTestCase {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")
    var dir: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("molshot-thumbs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("in/sub"), withIntermediateDirectories: true)
        for name in ["1crn.pdb", "Caffeine.pdb", "TYR.sdf"] {
            try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent(name), to: dir.appendingPathComponent("in/\(name)"))
        }
        try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent("1lzh.pdb.gz"),
                                         to: dir.appendingPathComponent("in/sub/1lzh.pdb.gz"))
        try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent("truncated.pdb.gz"),
                                         to: dir.appendingPathComponent("in/sub/broken.pdb.gz"))
        try Data("HEADER    NOTHING\n".utf8).write(to: dir.appendingPathComponent("in/empty.pdb"))
        try Data("not a structure".utf8).write(to: dir.appendingPathComponent("in/notes.txt"))
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    func job(_ settings: (inout ThumbnailJob) -> Void = { _ in }) -> ThumbnailJob {
        var job = ThumbnailJob(inputs: [dir.appendingPathComponent("in").path], outputDirectory: dir.appendingPathComponent("out").path)
        job.request.width = 64
        job.request.height = 64
        // The sample browser's two cards: two pictures a file (the default is one, `auto`).
        job.request.modes = [.ballAndStick, .spacefill]
        job.jobs = 2
        settings(&job)
        return job
    }

    func pngs() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("out").path).filter { $0.hasSuffix(".png") }.sorted()
    }

    func testGoodFilesRenderBrokenOnesAreRecordedAndASecondRunRendersNothing() throws {
        let first = try ThumbnailRun(job()).run()
        XCTAssertEqual(first.total, 6, "folders are searched recursively for structure files only")
        XCTAssertEqual(first.rendered, 4)
        XCTAssertEqual(first.failed, 2)
        XCTAssertEqual(first.images, 8)
        XCTAssertEqual(try pngs().count, 8)
        XCTAssertEqual(Set(first.failures.map { URL(fileURLWithPath: $0.source).lastPathComponent }), ["broken.pdb.gz", "empty.pdb"])
        XCTAssertTrue(first.failures.contains { $0.error.contains("gzip data is truncated") })

        let index = ThumbnailIndex(directory: dir.appendingPathComponent("out").path)
        XCTAssertEqual(index.entries.count, 6)
        let crambin = try XCTUnwrap(index.entries[dir.appendingPathComponent("in/1crn.pdb").path])
        XCTAssertEqual(crambin.status, "ok")
        XCTAssertEqual(crambin.atoms, 327)
        XCTAssertEqual(crambin.outputs.count, 2)
        XCTAssertTrue(crambin.outputs.allSatisfy { $0.hasPrefix(crambin.checksum + "-" + crambin.settingsKey) })
        let broken = try XCTUnwrap(index.entries[dir.appendingPathComponent("in/sub/broken.pdb.gz").path])
        XCTAssertEqual(broken.status, "failed")
        XCTAssertNotNil(broken.error)

        let second = try ThumbnailRun(job()).run()
        XCTAssertEqual(second.rendered, 0)
        XCTAssertEqual(second.skipped, 4)
        XCTAssertEqual(second.failed, 2)

        let forced = try ThumbnailRun(job { $0.force = true }).run()
        XCTAssertEqual(forced.rendered, 4)
    }

    func testOtherSettingsMakeOtherFiles() throws {
        _ = try ThumbnailRun(job { $0.request.modes = [.spacefill] }).run()
        let before = try pngs()
        let run = try ThumbnailRun(job { $0.request.modes = [.spacefill]; $0.request.zoom = 2 }).run()
        XCTAssertEqual(run.rendered, 4)
        XCTAssertEqual(Set(try pngs()).intersection(before), Set(before), "the old pictures stay")
        XCTAssertEqual(try pngs().count, 8)
    }

    func testShardsCoverTheInputExactlyOnce() throws {
        let all = try StructureInputs.collect([dir.appendingPathComponent("in").path])
        var covered: [String] = []
        for k in 1...3 {
            covered += all.filter(Shard(index: k, count: 3).contains)
        }
        XCTAssertEqual(covered.sorted(), all.sorted())
        XCTAssertEqual(Set(covered).count, covered.count)
        XCTAssertEqual(Shard("2/3"), Shard(index: 2, count: 3))
        XCTAssertEqual(ThumbnailIndex.fileName(Shard(index: 2, count: 3)), "index-2-of-3.jsonl", "shards can share a folder")
        XCTAssertEqual(ThumbnailIndex.fileName(.whole), "index.jsonl")
        XCTAssertNil(Shard("4/3"))
        XCTAssertNil(Shard("0/3"))
        XCTAssertNil(Shard("x"))
    }

    func testListFilesNameInputsRelativeToThemselves() throws {
        let list = dir.appendingPathComponent("in/list.txt")
        try Data("# two of them\n1crn.pdb\n\nsub/1lzh.pdb.gz\n".utf8).write(to: list)
        XCTAssertEqual(try StructureInputs.collect(["@" + list.path]),
                       [dir.appendingPathComponent("in/1crn.pdb").path, dir.appendingPathComponent("in/sub/1lzh.pdb.gz").path])
    }

    func testContactSheetsShowEachThumbnailWithItsName() throws {
        let run = try ThumbnailRun(job { $0.request.modes = [.spacefill]; $0.contactSheet = ContactSheet.Layout(columns: 3, rows: 1) }).run()
        XCTAssertEqual(run.sheets.count, 2, "four good structures, three a page")
        let out = dir.appendingPathComponent("out").path
        let page = try PNGDecoder.read((out as NSString).appendingPathComponent(run.sheets[0]))
        let labelHeight = 16
        XCTAssertEqual(page.width, 3 * 64)
        XCTAssertEqual(page.height, 64 + labelHeight)
        // Each cell: a molecule above (non-white pixels) and dark text in the label strip below.
        for cell in 0..<3 {
            var drawn = 0, ink = 0
            for y in 0..<64 { for x in (cell * 64)..<(cell * 64 + 64) where page.pixel(x, y).r < 200 { drawn += 1 } }
            for y in 64..<page.height { for x in (cell * 64)..<(cell * 64 + 64) where page.pixel(x, y).r < 100 { ink += 1 } }
            XCTAssertGreaterThan(drawn, 100, "cell \(cell) shows a molecule")
            XCTAssertGreaterThan(ink, 10, "cell \(cell) has a caption")
        }
        XCTAssertEqual(ContactSheet.label("/data/pdb/1abc.cif.gz"), "1abc.cif.gz")
        XCTAssertEqual(ContactSheet.Layout("3x3"), ContactSheet.Layout(columns: 3, rows: 3))
        XCTAssertNil(ContactSheet.Layout("0x3"))
    }

    func testProgressLine() {
        XCTAssertEqual(ProgressReporter.describe(done: 30, total: 90, failed: 2, elapsed: 10), "30/90 3.0/s ETA 0:20 2 failed")
    }
}

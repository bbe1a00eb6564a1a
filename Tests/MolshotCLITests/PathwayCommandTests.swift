import Foundation
import TestSupport
import XCTest

/// `molshot pathway` and `molshot replay --pathway` as a user runs them.
final class PathwayCommandTests: GLTestCase {
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("molshot-pathway-\(UUID().uuidString)")

    override func setUpWithError() throws {
        try super.setUpWithError()
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }
    override func tearDown() { try? FileManager.default.removeItem(at: scratch) }

    func path(_ name: String) -> String { scratch.appendingPathComponent(name).path }
    func molshot(_ arguments: String...) throws -> MolshotBinary.Run { try MolshotBinary.run(arguments) }

    func testAPictureAPyramidAndBadInput() throws {
        let sbgn = "Tests/Fixtures/pathways/sbgn_glycolysis.sbgn"
        let run = try molshot("pathway", sbgn, "-o", path("map.png"), "--size", "400")
        XCTAssertEqual(run.status, 0, run.stderr)
        let png = try Data(contentsOf: URL(fileURLWithPath: path("map.png")))
        XCTAssertEqual(png.prefix(4), Data([0x89, 0x50, 0x4E, 0x47]))
        XCTAssertEqual(png[16..<20], Data([0, 0, 1, 144]), "400 pixels wide: the longer side")
        let tiles = try molshot("pathway", sbgn, "--tiles", path("tiles"), "--tile-size", "64", "--levels", "3")
        XCTAssertEqual(tiles.status, 0, tiles.stderr)
        XCTAssertTrue(tiles.stdout.contains("in 3 levels"), tiles.stdout)
        XCTAssertTrue(FileManager.default.fileExists(atPath: path("tiles/2/3/0.png")))
        XCTAssertTrue(FileManager.default.fileExists(atPath: path("tiles/tiles.json")))
        // Bad input: the file and the line; a bad option names itself.
        let text = try String(contentsOfFile: InfoCommandTests.root.appendingPathComponent(sbgn).path, encoding: .utf8)
        try String(text.prefix(5000)).write(toFile: path("cut.sbgn"), atomically: true, encoding: .utf8)
        let cut = try molshot("pathway", path("cut.sbgn"), "-o", path("cut.png"))
        XCTAssertEqual(cut.status, 1)
        XCTAssertTrue(cut.stderr.contains("cut.sbgn: line "), cut.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("cut.png")))
        let region = try molshot("pathway", sbgn, "-o", path("r.png"), "--region", "1,2")
        XCTAssertNotEqual(region.status, 0)
        XCTAssertTrue(region.stderr.contains("--region"), region.stderr)
        let both = try molshot("pathway", sbgn)
        XCTAssertNotEqual(both.status, 0)
        XCTAssertTrue(both.stderr.contains("--tiles"), both.stderr)
    }

    /// A KGML relation to an entry the file does not declare: drawn without it, said on stderr.
    func testWhatAMapLeavesOutIsAWarning() throws {
        let kgml = #"<pathway name="path:hsa04110" number="04110"><entry id="1" name="hsa:1" type="gene"><graphics name="A" x="20" y="20" width="46" height="17"/></entry><entry id="2" name="hsa:2" type="gene"><graphics name="B" x="120" y="20" width="46" height="17"/></entry><relation entry1="1" entry2="2" type="PPrel"><subtype name="activation" value="--&gt;"/></relation><relation entry1="1" entry2="7" type="PPrel"/></pathway>"#
        try kgml.write(toFile: path("undeclared.xml"), atomically: true, encoding: .utf8)
        let run = try molshot("pathway", path("undeclared.xml"), "-o", path("undeclared.png"), "--size", "300")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stderr.contains("warning: ") && run.stderr.contains("undeclared.xml: line 1 <relation>: entry2 7 is not an entry"), run.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: path("undeclared.png")))
    }

    /// KEGG's global map at the default 1600 px has no label a person can read: said on stderr
    /// with the size that has; --size auto draws that size.
    func testAnOverviewWithoutReadableLabelsSaysSoAndSizeAutoFollowsTheMap() throws {
        let global = "Tests/Fixtures/pathways-real/kgml_ko01100.xml.gz"
        let run = try molshot("pathway", global, "-o", path("global.png"))
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stderr.contains("note: at 1600x") && run.stderr.contains("--size auto draws it "), run.stderr)
        let auto = try molshot("pathway", global, "-o", path("auto.png"), "--size", "auto")
        XCTAssertEqual(auto.status, 0, auto.stderr)
        XCTAssertFalse(auto.stderr.contains("note:"), auto.stderr)
        let png = try Data(contentsOf: URL(fileURLWithPath: path("auto.png")))
        let width = png[16..<20].reduce(0) { $0 << 8 | Int($1) }
        XCTAssertGreaterThan(width, 3000, "a picture large enough for its labels")
        XCTAssertLessThanOrEqual(width, 8192)
        // A small map is drawn at the default size either way, without a note.
        let small = try molshot("pathway", "Tests/Fixtures/pathways/sbgn_glycolysis.sbgn", "-o", path("small.png"), "--size", "auto")
        XCTAssertEqual(small.status, 0, small.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path("small.png")))[16..<20].reduce(0) { $0 << 8 | Int($1) } >= 1600 ||
                       (try Data(contentsOf: URL(fileURLWithPath: path("small.png")))[20..<24].reduce(0) { $0 << 8 | Int($1) }) >= 1600, true)
    }

    func testReplayOnAPathwayLogsTheTappedNode() throws {
        try #"{"nodes": [{"id": "HK1", "kind": "gene-product", "x": 0, "y": 0, "width": 100, "height": 100, "label": "hexokinase"}, {"id": "g", "x": 400, "y": 0}]}"#
            .write(toFile: path("map.json"), atomically: true, encoding: .utf8)
        // The map is fitted to 400x400 pixels of a 400x400 point viewport: HK1's center lies left of the middle.
        let events = """
            {"type": "header", "version": 1, "viewport": {"width": 400, "height": 400}}
            {"type": "touch", "t": 0.1, "phase": "began", "id": 1, "x": 60, "y": 200}
            {"type": "touch", "t": 0.2, "phase": "ended", "id": 1, "x": 60, "y": 200, "tapCount": 1}
            {"type": "frame", "t": 0.3}
            {"type": "touch", "t": 0.5, "phase": "began", "id": 1, "x": 200, "y": 390}
            {"type": "touch", "t": 0.6, "phase": "ended", "id": 1, "x": 200, "y": 390, "tapCount": 1}
            """
        try events.write(toFile: path("taps.jsonl"), atomically: true, encoding: .utf8)
        let run = try molshot("replay", path("taps.jsonl"), "--pathway", path("map.json"), "--log", path("taps.log.jsonl"),
                              "-o", path("frames"), "--size", "400")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.hasPrefix("2 frames"), run.stdout)
        let lines = try String(contentsOfFile: path("taps.log.jsonl"), encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, 2)
        let first = try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any]
        let node = first?["node"] as? [String: Any]
        XCTAssertEqual(node?["id"] as? String, "HK1")
        XCTAssertEqual(node?["kind"] as? String, "gene-product")
        XCTAssertEqual(node?["label"] as? String, "hexokinase")
        let second = try JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as? [String: Any]
        XCTAssertTrue(second?["node"] is NSNull)
        let molecule = try molshot("replay", path("taps.jsonl"), "--pathway", path("map.json"), "--molecule", "x.pdb", "-o", path("f2"))
        XCTAssertNotEqual(molecule.status, 0)
    }

    /// `--relayout -o OUT.json`: the map laid out anew and written as JSON, the same bytes in every
    /// process (each process hashes with its own seed: a layout that followed a set's order would
    /// differ from run to run).
    func testRelayoutToJSONIsTheSameInEveryProcess() throws {
        let map = "Tests/Fixtures/pathways-real/sbml_multi_YeastMAPK.xml.gz"
        var outputs: [Data] = []
        for k in 0..<4 {
            let run = try molshot("pathway", map, "--relayout", "-o", path("laid\(k).json"))
            XCTAssertEqual(run.status, 0, run.stderr)
            outputs.append(try Data(contentsOf: URL(fileURLWithPath: path("laid\(k).json"))))
        }
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: outputs[0]) as? [String: Any])
        XCTAssertGreaterThan((json["nodes"] as? [Any])?.count ?? 0, 100)
        XCTAssertEqual(Set(outputs).count, 1, "the same layout in every run")
    }
}

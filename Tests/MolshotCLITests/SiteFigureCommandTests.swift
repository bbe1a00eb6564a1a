import Foundation
import Imaging
import TestSupport
import XCTest

/// `--site` and `--caption` as a user runs them: one word makes the figure and its caption, a
/// movie, and a site image in an entry's set; mistakes are refused by name with exit 1.
final class SiteFigureCommandTests: XCTestCase {
    var scratch: URL!

    override func setUpWithError() throws { scratch = try Scratch.folder(for: self, prefix: "molshot-site") }

    func path(_ name: String) -> String { scratch.appendingPathComponent(name).path }

    func testOneWordMakesTheFigureAndItsCaption() throws {
        let r = try MolshotBinary.run(["render", "Tests/Fixtures/1hpv.pdb", "--site", "resn 478", "-o", path("site.png"),
                                       "--size", "800x600", "--caption", path("site.json")])
        XCTAssertEqual(r.status, 0, r.stderr)
        let image = try PNGDecoder.read(path("site.png"))
        XCTAssertEqual(image.width, 800)
        let caption = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path("site.json")))) as? [String: Any])
        let sentence = try XCTUnwrap(caption["sentence"] as? String)
        XCTAssertTrue(sentence.contains("hydrogen bonds (blue)") && sentence.contains("chains A and B"), sentence)
        let camera = try XCTUnwrap(caption["camera"] as? [String: Any])
        XCTAssertEqual((camera["eye"] as? [Double])?.count, 3)
        let drawn = try XCTUnwrap(caption["drawn"] as? [[String: Any]])
        XCTAssertEqual(drawn.first?["representation"] as? String, "cartoon")
        let interactions = try XCTUnwrap(caption["interactions"] as? [[String: Any]])
        XCTAssertTrue(interactions.contains { $0["kind"] as? String == "hbond" })
        let labels = try XCTUnwrap(caption["labels"] as? [String])
        XCTAssertTrue(labels.contains("ASP25 A") || labels.contains("ASP25 B"), "\(labels)")
        // Magenta carbons on the ligand.
        XCTAssertGreaterThan(MolshotBinary.pixels(of: image) { r, g, b in r > 170 && b > 140 && g < 110 }, 500)
    }

    func testMistakesAreRefusedByName() throws {
        let nothing = try MolshotBinary.run(["render", "Tests/Fixtures/1hpv.pdb", "--site", "resn XYZ", "-o", path("x.png")])
        XCTAssertEqual(nothing.status, 1)
        XCTAssertTrue(nothing.stderr.contains("--site") && nothing.stderr.contains("selects no atoms"), nothing.stderr)
        let typo = try MolshotBinary.run(["render", "Tests/Fixtures/1hpv.pdb", "--site", "interactng resn 478", "-o", path("x.png")])
        XCTAssertNotEqual(typo.status, 0)
        XCTAssertTrue(typo.stderr.contains("interacting"), typo.stderr)
        let caption = try MolshotBinary.run(["render", "Tests/Fixtures/1hpv.pdb", "--site", "resn 478", "-o", path("x.png"), "--caption", path("x.txt")])
        XCTAssertNotEqual(caption.status, 0)
        XCTAssertTrue(caption.stderr.contains("--caption") && caption.stderr.contains(".json"), caption.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("x.png")))
    }

    func testAMovieAndAnEntrysSetTakeTheSite() throws {
        let movie = try MolshotBinary.run(["movie", "Tests/Fixtures/1hpv.pdb", "--site", "resn 478", "-o", path("site.gif"), "--size", "96",
                                           "--seconds", "0.4", "--fps", "10"])
        XCTAssertEqual(movie.status, 0, movie.stderr)
        XCTAssertGreaterThan((try? Data(contentsOf: URL(fileURLWithPath: path("site.gif"))).count) ?? 0, 1000)
        let images = try MolshotBinary.run(["images", "Tests/Fixtures/1hpv.pdb", path("set"), "--site", "resn 478", "--type", "site", "--size", "300"])
        XCTAssertEqual(images.status, 0, images.stderr)
        let caption = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path("set/1hpv_site_front.caption.json")))) as? [String: Any])
        XCTAssertTrue((caption["text"] as? String ?? "").contains("hydrogen bonds"), "\(caption)")
        XCTAssertNotNil((caption["figure"] as? [String: Any])?["interactions"])
        XCTAssertTrue(FileManager.default.fileExists(atPath: path("set/1hpv_site_front_300x300.png")))
    }
}

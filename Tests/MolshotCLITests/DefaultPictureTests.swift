import Foundation
import Imaging
import TestSupport
import XCTest

/// `molshot render FILE -o x.png` with no options: what a PyMOL or Mol* user expects to see.
final class DefaultPictureTests: GLTestCase {
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("molshot-default-\(UUID().uuidString)")

    override func setUpWithError() throws {
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: scratch)
    }

    /// Pixels of `file`'s default picture that `keep` accepts.
    func count(_ file: String, _ options: [String] = [], where keep: (UInt8, UInt8, UInt8) -> Bool) throws -> Int {
        try MolshotBinary.renderedPixels([file, "--size", "200"] + options, output: scratch.appendingPathComponent("\(UUID().uuidString).png").path, where: keep)
    }

    static func green(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> Bool { g > 120 && Int(g) > Int(r) + 60 && Int(g) > Int(b) + 60 }
    static func red(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> Bool { r > 120 && Int(r) > Int(g) + 80 && Int(r) > Int(b) + 80 }

    func testAProteinIsACartoonInItsChainColour() throws {
        // Crambin, one chain: a cartoon in the first chain colour (green), no oxygen red, where
        // ball-and-stick would show both.
        let green = try count("Tests/Fixtures/1crn.pdb", where: Self.green)
        let red = try count("Tests/Fixtures/1crn.pdb", where: Self.red)
        XCTAssertGreaterThan(green, 3000, "the cartoon in chain A's green")
        XCTAssertLessThan(red, 20, "no atoms in element colours")
        let oldRed = try count("Tests/Fixtures/1crn.pdb", ["--mode", "ball-and-stick", "--color", "element"], where: Self.red)
        XCTAssertGreaterThan(oldRed, 200, "ball-and-stick in element colours shows the oxygens")
    }

    func testASmallMoleculeIsBallAndStickByElement() throws {
        XCTAssertGreaterThan(try count("Tests/Fixtures/Caffeine.pdb", where: Self.red), 200, "caffeine's oxygens red")
        XCTAssertEqual(try count("Tests/Fixtures/Caffeine.pdb", where: Self.green), 0)
    }

    func testSurfaceAndSchemesFromTheCommandLine() throws {
        // A surface in one named colour covers more of the picture than the cartoon does.
        let surface = try count("Tests/Fixtures/1crn.pdb", ["--mode", "surface", "--color", "marine"]) { r, g, b in b > 200 && r < 40 }
        let cartoon = try count("Tests/Fixtures/1crn.pdb", ["--color", "marine"]) { r, g, b in b > 200 && r < 40 }
        XCTAssertGreaterThan(surface, cartoon * 2, "surface \(surface) px, cartoon \(cartoon) px")
        // Rainbow: blue and red ends both present.
        XCTAssertGreaterThan(try count("Tests/Fixtures/1crn.pdb", ["--color", "rainbow"], where: Self.red), 100)
        let bad = try MolshotBinary.run(["render", "Tests/Fixtures/1crn.pdb", "-o", scratch.appendingPathComponent("x.png").path, "--color", "rainbw"])
        XCTAssertEqual(bad.status, 1)
        XCTAssertTrue(bad.stderr.contains("(did you mean rainbow?)"), bad.stderr)
    }
}

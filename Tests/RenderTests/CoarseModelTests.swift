import Core
import Foundation
import Graphics
import Imaging
import MoleculeView
import Structure
import XCTest

/// Integrative models' beads and tiny models as pictures (real Mesa): something visible, in the
/// colours Mol* gives them.
final class CoarseModelTests: XCTestCase {
    func picture(_ path: String, _ fields: [(String, String)] = []) throws -> RGBAImage {
        let s = try StructureFile.load(path: Rendering.fixtures.appendingPathComponent(path).path)
        let request = try RenderRequest([("size", "300x200"), ("antialias", "0")] + fields)
        let picture = try MoleculePicture(s, mode: request.modes[0], request: request, perception: try BondPerception.standard())
        return try picture.finish(try picture.draw(try Rendering.renderer()))
    }

    /// Pixels near one colour (shading darkens a sphere's rim: a wide tolerance).
    func count(_ image: RGBAImage, near rgb: UInt32, tolerance: Int = 60) -> Int { image.count(near: rgb, tolerance: tolerance) }

    /// python-ihm's docking example: subunit B's three beads (radius 1.2 A) in chain B's colour
    /// (the palette's second, sky blue), drawn at their radius: a third of the picture's width
    /// apart, over 900 px each at 300x200 (3,703 in all when written).
    func testBeadsAreSpheresOfTheirRadiusInTheirChainsColour() throws {
        let image = try picture("producers/python-ihm-docking-spheres.cif")
        let blue = count(image, near: 0x33CCFF)
        XCTAssertGreaterThan(blue, 3 * 900, "three beads of a large radius, chain B's colour: \(blue) px")
        XCTAssertEqual(count(image, near: 0xFF66CC, tolerance: 40), 0, "no bead in an unknown element's magenta")
    }

    /// python-modelcif's ligand example: three CA atoms 5.2 A apart and an iron: each drawn, the
    /// CAs as spheres in chain A's colour (lone residues the cartoon cannot join), the iron beside.
    func testAFewAtomsStillMakeAPicture() throws {
        let image = try picture("producers/python-modelcif-ligand.cif")
        XCTAssertGreaterThan(count(image, near: 0x33FF33), 300, "the CAs, chain A's green")
        var drawn = 0
        for y in 0..<image.height { for x in 0..<image.width where image.pixel(x, y).a > 200 && image.pixel(x, y).r < 240 { drawn += 1 } }
        XCTAssertGreaterThan(drawn, 600)
    }
}

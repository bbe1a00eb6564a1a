import Foundation
import Graphics
import MoleculeView
import Structure
import XCTest

final class SticksTests: XCTestCase {
    func testSticksAndLinesAreBondsOfOneRadiusJoinedAtEveryAtom() throws {
        let s = try StructureFile.load(path: Rendering.fixtures.appendingPathComponent("1crn.pdb").path)
        let bs = try Rendering.prepared(s, .ballAndStick)
        var drawn: [String: Int] = [:]
        for (mode, radius) in [("sticks", Sticks.radius), ("lines", Lines.radius)] {
            let p = try Rendering.prepared(s, DrawMode(rawValue: mode)!)
            XCTAssertEqual(p.geometry.sphereCount, bs.geometry.sphereCount, mode)
            XCTAssertEqual(p.geometry.cylinderCount, bs.geometry.cylinderCount, "\(mode): the same bonds")
            XCTAssertEqual(p.geometry.cylinderRadius, radius)
            XCTAssertTrue(stride(from: 3, to: p.geometry.spheres.count, by: 4).allSatisfy { p.geometry.spheres[$0] == radius })
            var style = RenderStyle.transparent
            style.antialias = 0
            drawn[mode] = try Rendering.draw(p, size: 200, style: style).coverage().count
        }
        XCTAssertGreaterThan(drawn["sticks"]!, 0)
        XCTAssertGreaterThan(drawn["sticks"]! * 2, drawn["lines"]! * 3, "sticks are thicker than lines: \(drawn)")
        XCTAssertEqual(Representations.thumbnailModes, [.auto], "thumbnails draw what render draws by default")
    }
}

import MoleculeView
import XCTest

/// `SphereOcclusion.frontToBack`, the order culling and the CPU caster take spheres in.
final class FrontToBackTests: XCTestCase {
    func testNearestFirstTiesByIndexAsASortWouldHaveThem() {
        var generator = SystemRandomNumberGenerator()
        for n in [0, 1, 2, 7, 1000, 70_000] {
            // Fronts from a few values (many ties), negatives, both zeros and wide magnitudes.
            let pool: [Float] = [-0.0, 0, 1, -1, 1e-30, -1e-30, 3.5, -250.25, 1e20, -1e20]
            let fronts = (0..<n).map { _ in
                Bool.random(using: &generator) ? pool.randomElement(using: &generator)! : Float.random(in: -500...500, using: &generator)
            }
            let expected = (0..<n).sorted { a, b in fronts[a] != fronts[b] ? fronts[a] > fronts[b] : a < b }.map(Int32.init)
            XCTAssertEqual(SphereOcclusion.frontToBack(fronts), expected, "\(n) fronts")
        }
        // One value for all: the order as given.
        XCTAssertEqual(SphereOcclusion.frontToBack([Float](repeating: 2, count: 300)), (0..<300).map(Int32.init))
    }
}

import XCTest
@testable import MoleculeView

/// The surface's distance transform against the squared distance to the nearest site found by
/// looking at every site: equal below the limit, the limit at or past it.
final class SurfaceGridTests: XCTestCase {
    func testTheDistanceTransformAgreesWithAScanBelowItsLimit() {
        var state: UInt64 = 3
        func chance() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 11) / Double(1 << 53)
        }
        // Sizes not multiples of four or of the transform's blocks, one past a block, and flat boxes.
        for (nx, ny, nz, sites, limit) in [(13, 7, 9, 0.05, 30), (40, 31, 3, 0.01, 200), (1, 1, 1, 0.0, 5), (5, 1, 1, 1.0, 5),
                                           (300, 2, 2, 0.02, 17), (17, 17, 17, 0.001, 1_000), (9, 11, 6, 0.3, 1), (260, 3, 1, 0.0, 9)] {
            var field = [Float](repeating: 0, count: nx * ny * nz)
            var at: [SIMD3<Int>] = []
            for z in 0..<nz {
                for y in 0..<ny {
                    for x in 0..<nx {
                        let site = chance() < sites
                        field[(z * ny + y) * nx + x] = site ? 0 : .greatestFiniteMagnitude
                        if site { at.append(SIMD3(x, y, z)) }
                    }
                }
            }
            DistanceTransform.squared(&field, nx, ny, nz, limit: limit)
            for z in 0..<nz {
                for y in 0..<ny {
                    for x in 0..<nx {
                        let nearest = at.map { s in (s.x - x) * (s.x - x) + (s.y - y) * (s.y - y) + (s.z - z) * (s.z - z) }.min() ?? Int.max
                        XCTAssertEqual(field[(z * ny + y) * nx + x], Float(min(nearest, limit)), "\(nx)x\(ny)x\(nz) at \(x) \(y) \(z)")
                    }
                }
            }
        }
    }
}

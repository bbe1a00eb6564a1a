import XCTest
@testable import Structure

/// The cell grid finds exactly the points a scan of all of them finds, in dense boxes (a flat
/// array of cells) and sparse ones (hashed cells), for queries inside, beside and far outside.
final class CellGridTests: XCTestCase {
    func points(_ n: Int, spread: Float, seed: UInt64) -> [SIMD3<Float>] {
        var state = seed
        func next() -> Float {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Float(state >> 40) / Float(1 << 24)
        }
        return (0..<n).map { _ in SIMD3(next(), next(), next()) * spread - SIMD3(repeating: spread / 2) }
    }

    func testPairsAndNeighboursAgreeWithAScan() {
        // The last: a box past a million cells, whose far points all fall in the last cell.
        for (n, spread, cell) in [(400, Float(20), Float(2.5)), (300, 100_000, 4), (1, 10, 1), (0, 10, 1), (200, 3, 0.6), (300, 2e7, 1)] {
            let p = points(n, spread: spread, seed: UInt64(n) &+ 7)
            // Points repeated exactly, which fall in one cell.
            let positions = p + p.prefix(5)
            let grid = CellGrid(positions: positions, cellSize: cell)
            var found = Set<[Int]>()
            grid.forEachPair(positions) { i, j, d2 in
                XCTAssertLessThan(i, j)
                XCTAssertEqual(d2, ((positions[i] - positions[j]) * (positions[i] - positions[j])).sum())
                XCTAssertTrue(found.insert([i, j]).inserted, "pair \(i) \(j) twice")
            }
            var expected = Set<[Int]>()
            let limit = grid.cellSize * grid.cellSize
            for i in positions.indices {
                for j in positions.indices where j > i {
                    let d = positions[i] - positions[j]
                    if (d * d).sum() <= limit { expected.insert([i, j]) }
                }
            }
            XCTAssertEqual(found, expected, "\(n) points over \(spread)")
        }
    }

    func testPointsNearAQueryAgreeWithAScan() {
        for (n, spread) in [(500, Float(30)), (200, 50_000), (200, 2e7)] {
            let positions = points(n, spread: spread, seed: 11)
            let grid = CellGrid(positions: positions, cellSize: 3)
            let queries = points(200, spread: spread * 1.5, seed: 5) + positions.prefix(20) + [SIMD3(repeating: 1e30), SIMD3(.nan, 0, 0)]
            for q in queries {
                for r in [Float(0.5), 2, 3] {
                    var found: [Int] = []
                    grid.forEachPoint(near: q, positions, within: r * r) { j, d2 in
                        found.append(j)
                        XCTAssertEqual(d2, ((positions[j] - q) * (positions[j] - q)).sum())
                    }
                    let expected = positions.indices.filter { ((positions[$0] - q) * (positions[$0] - q)).sum() <= r * r }
                    XCTAssertEqual(found.sorted(), expected, "query \(q) within \(r)")
                    XCTAssertEqual(grid.hasPoint(near: q, positions, within: r * r), !expected.isEmpty)
                }
            }
        }
    }
}

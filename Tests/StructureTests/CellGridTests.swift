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

    /// 100,000 points at one place (a hostile file's atoms) made every search quadratic: one cell
    /// held them all. A crowded cell's points past `crowdLimit` are found by no search, so each
    /// point's neighbours are at most that many, while points at real matter's density are all found.
    func testACrowdedCellIsSearchedInLinearTime() {
        let n = 100_000
        let crowded = [SIMD3<Float>](repeating: SIMD3(1, 2, 3), count: n)
        let grid = CellGrid(positions: crowded, cellSize: 4.5)
        XCTAssertEqual(grid.crowdLimit, CellGrid.leastCrowd, "a 4.5 Å cell holds at most 128 points looked at")
        var visits = 0
        for i in crowded.indices { grid.forEachNeighbor(of: i, crowded) { _, _ in visits += 1 } }
        XCTAssertLessThanOrEqual(visits, n * grid.crowdLimit, "each point meets at most crowdLimit others")
        XCTAssertGreaterThan(visits, 0)
        // A larger cell (a 20 Å `within`) is allowed its volume's worth.
        XCTAssertEqual(CellGrid(positions: [], cellSize: 20).crowdLimit, 8000)
        // A protein's density with its hydrogens (0.15 points a cubic ångström), in 4.5 Å cells: nothing left out.
        let dense = points(4000, spread: 30, seed: 11)
        let g = CellGrid(positions: dense, cellSize: 4.5)
        for i in stride(from: 0, to: dense.count, by: 97) {
            var found = 0, scanned = 0
            g.forEachNeighbor(of: i, dense) { _, _ in found += 1 }
            for j in dense.indices where j != i {
                let d = dense[j] - dense[i]
                if (d * d).sum() <= 4.5 * 4.5 { scanned += 1 }
            }
            XCTAssertEqual(found, scanned)
        }
    }
}

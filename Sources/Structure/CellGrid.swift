/// Points binned into cubic cells so that all pairs closer than the cell size are found in
/// time linear in the number of points. The points' indices are kept sorted by cell (each cell's
/// from the highest index down), so a cell is one run of memory. Dense boxes find a cell's run in
/// a flat array of cells; a sparse one (atoms far apart, or absurd coordinates) falls back to
/// hashing the occupied cells.
public struct CellGrid: Sendable {
    public let cellSize: Float
    private let origin: SIMD3<Float>
    private let dims: SIMD3<Int>
    /// Flat: cell k's run in `order` is `flatStarts[k + 1]..<flatStarts[k + 2]`.
    private var flatStarts: [Int32] = []
    private var hashedRuns: [Int: Range<Int32>] = [:]
    /// The points' indices by cell.
    private var order: [Int32]
    private let useFlat: Bool
    /// Points of one cell that are looked at: past real matter's densest (about 0.1 atoms a cubic
    /// ångström with hydrogens; ten times that here, and never under `leastCrowd`), a cell holds
    /// what no molecule does (a hostile file's 100,000 atoms at one point, whose pairs, all in one
    /// cell, made bond perception take 10^10 steps). Its points past the limit are not found as
    /// anyone's neighbours, so every search is linear in the points whatever their places.
    public let crowdLimit: Int
    /// The fewest points a cell is allowed, however small.
    public static let leastCrowd = 128
    /// Points a cubic ångström of a cell may hold before it counts as crowded.
    public static let crowdDensity: Float = 1
    /// The farthest cell along an axis: points past it are binned into it (a coordinate of 1e30
    /// must not trap).
    private static let lastCell: Float = 1e6

    public init(positions: [SIMD3<Float>], cellSize: Float) {
        self.cellSize = max(cellSize, 0.5)
        let volume = Double(self.cellSize) * Double(self.cellSize) * Double(self.cellSize) * Double(CellGrid.crowdDensity)
        crowdLimit = max(CellGrid.leastCrowd, Int(min(volume, 1e9)))
        var lo = SIMD3<Float>(repeating: .greatestFiniteMagnitude), hi = -lo
        for p in positions {
            lo = pointwiseMin(lo, p)
            hi = pointwiseMax(hi, p)
        }
        if positions.isEmpty { lo = .zero; hi = .zero }
        origin = lo
        let extent = (hi - lo) / self.cellSize
        // Clamp before converting: a coordinate of 1e30 must not trap.
        let clamped = pointwiseMin(extent, SIMD3(repeating: CellGrid.lastCell))
        dims = SIMD3<Int>(Int(clamped.x) + 1, Int(clamped.y) + 1, Int(clamped.z) + 1)
        let cells = dims.x * dims.y * dims.z
        useFlat = cells <= max(4 * positions.count, 1 << 16)
        order = [Int32](repeating: 0, count: positions.count)
        // A counting sort by cell: each cell's count, the running sums (where each cell's run
        // ends), then the points from the first, each put just before the last one placed in its
        // cell, so a run holds its points from the highest index down (the order lists with each
        // point put first had) and each sum ends at where its cell's run starts.
        if useFlat {
            var starts = [Int32](repeating: 0, count: cells + 2)
            for p in positions { starts[key(cell(p)) + 1] += 1 }
            for c in 0..<cells { starts[c + 1] += starts[c] }
            starts[cells + 1] = Int32(positions.count)
            for (i, p) in positions.enumerated() {
                let k = key(cell(p)) + 1
                starts[k] -= 1
                order[Int(starts[k])] = Int32(i)
            }
            flatStarts = starts
        } else {
            var counts: [Int: Int32] = [:]
            for p in positions { counts[key(cell(p)), default: 0] += 1 }
            var next: Int32 = 0
            var fill: [Int: Int32] = [:]
            for (k, n) in counts.sorted(by: { $0.key < $1.key }) {
                hashedRuns[k] = next..<(next + n)
                next += n
                fill[k] = next
            }
            for (i, p) in positions.enumerated() {
                let k = key(cell(p))
                fill[k]! -= 1
                order[Int(fill[k]!)] = Int32(i)
            }
        }
    }

    @inline(__always)
    private func cell(_ p: SIMD3<Float>) -> SIMD3<Int> {
        let c = pointwiseMin((p - origin) / cellSize, SIMD3(repeating: CellGrid.lastCell))
        return SIMD3(Int(c.x), Int(c.y), Int(c.z))
    }

    @inline(__always)
    private func key(_ c: SIMD3<Int>) -> Int { c.x + dims.x * (c.y + dims.y * c.z) }

    /// Calls `body(i, j, distanceSquared)` once for every pair i < j closer than the cell size.
    public func forEachPair(_ positions: [SIMD3<Float>], _ body: (Int, Int, Float) -> Void) {
        for i in positions.indices {
            forEachNeighbor(of: i, positions) { j, d2 in
                if j > i { body(i, j, d2) }
            }
        }
    }

    /// Calls `body(j, distanceSquared)` for every point j other than i closer to point i than the
    /// cell size.
    @inline(__always)
    public func forEachNeighbor(of i: Int, _ positions: [SIMD3<Float>], _ body: (Int, Float) -> Void) {
        let limit = cellSize * cellSize
        let p = positions[i]
        forEachPoint(near: cell(p), around: (p - origin) / cellSize, within: limit) { j in
            if j != i {
                let d = positions[j] - p
                let d2 = (d * d).sum()
                if d2 <= limit { body(j, d2) }
            }
            return true
        }
    }

    /// Where `p` lies in cells, and the cell whose neighbourhood holds what is near it: clamped to
    /// two cells past the box (those hold nothing and have no neighbour inside it), so a far point
    /// converts without trapping and finds nothing; and, as `cell` bins, to a million, so a point
    /// past that looks in the last cell, where `cell` put every point past it. Nil for a point
    /// that is not finite.
    @inline(__always)
    private func place(_ p: SIMD3<Float>) -> (f: SIMD3<Float>, cell: SIMD3<Int>)? {
        let f = (p - origin) / cellSize
        guard f.x.isFinite, f.y.isFinite, f.z.isFinite else { return nil }
        let lo = SIMD3<Float>(repeating: -2)
        let hi = pointwiseMin(SIMD3<Float>(Float(dims.x + 1), Float(dims.y + 1), Float(dims.z + 1)), SIMD3(repeating: CellGrid.lastCell))
        let g = pointwiseMax(lo, pointwiseMin(f, hi))
        return (f, SIMD3(Int(g.x.rounded(.down)), Int(g.y.rounded(.down)), Int(g.z.rounded(.down))))
    }

    /// Whether some point of the grid is within `sqrt(limit)` (at most the cell size) of `p`, which
    /// need not be one of its points nor inside its box; false for a point that is not finite.
    public func hasPoint(near p: SIMD3<Float>, _ positions: [SIMD3<Float>], within limit: Float) -> Bool {
        guard let (f, c) = place(p) else { return false }
        var found = false
        forEachPoint(near: c, around: f, within: limit) { j in
            let d = positions[j] - p
            found = (d * d).sum() <= limit
            return !found
        }
        return found
    }

    /// Calls `body(j, distanceSquared)` for every point within `sqrt(limit)` (at most the cell size)
    /// of `p`, which need not be one of its points; nothing for a point that is not finite.
    public func forEachPoint(near p: SIMD3<Float>, _ positions: [SIMD3<Float>], within limit: Float, _ body: (Int, Float) -> Void) {
        guard let (f, c) = place(p) else { return }
        forEachPoint(near: c, around: f, within: limit) { j in
            let d = positions[j] - p, d2 = (d * d).sum()
            if d2 <= limit { body(j, d2) }
            return true
        }
    }

    /// Cell `k`'s run in `order`, at most `crowdLimit` of it.
    @inline(__always)
    private func run(_ k: Int) -> Range<Int32> {
        let whole = useFlat ? flatStarts[k + 1]..<flatStarts[k + 2] : (hashedRuns[k] ?? 0..<0)
        return whole.lowerBound..<(whole.lowerBound + Int32(min(whole.count, crowdLimit)))
    }

    /// Calls `body(j)` for every point in cell `c` and the 26 around it, until it returns false,
    /// but for the cells whose box lies farther than `sqrt(limit)` from `f` (a place in cells):
    /// they hold no point that near. The gap is taken slightly short (a point binned by rounding
    /// may sit a hair outside its cell's box), and the last cell along an axis has no top (`cell`
    /// puts every point past a million cells into it).
    @inline(__always)
    private func forEachPoint(near c: SIMD3<Int>, around f: SIMD3<Float>, within limit: Float, _ body: (Int) -> Bool) {
        @inline(__always) func gap(_ cell: Int, _ f: Float, _ count: Int) -> Float {
            let low = Float(cell), above = cell == count - 1 ? 0 : f - (low + 1)
            return max(0, (max(low - f, above) - 1e-3) * cellSize)
        }
        for z in stride(from: max(0, c.z - 1), through: min(dims.z - 1, c.z + 1), by: 1) {
            let gz = gap(z, f.z, dims.z), zz = gz * gz
            if zz > limit { continue }
            for y in stride(from: max(0, c.y - 1), through: min(dims.y - 1, c.y + 1), by: 1) {
                let gy = gap(y, f.y, dims.y), yz = gy * gy + zz
                if yz > limit { continue }
                for x in stride(from: max(0, c.x - 1), through: min(dims.x - 1, c.x + 1), by: 1) {
                    let gx = gap(x, f.x, dims.x)
                    if yz + gx * gx > limit { continue }
                    for at in run(key(SIMD3(x, y, z))) where !body(Int(order[Int(at)])) { return }
                }
            }
        }
    }
}

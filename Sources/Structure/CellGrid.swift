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

    public init(positions: [SIMD3<Float>], cellSize: Float) {
        self.cellSize = max(cellSize, 0.5)
        var lo = SIMD3<Float>(repeating: .greatestFiniteMagnitude), hi = -lo
        for p in positions {
            lo = pointwiseMin(lo, p)
            hi = pointwiseMax(hi, p)
        }
        if positions.isEmpty { lo = .zero; hi = .zero }
        origin = lo
        let extent = (hi - lo) / self.cellSize
        // Clamp before converting: a coordinate of 1e30 must not trap.
        let clamped = pointwiseMin(extent, SIMD3(repeating: 1e6))
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
        let c = pointwiseMin((p - origin) / cellSize, SIMD3(repeating: 1e6))
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
        forEachPoint(near: cell(p)) { j in
            if j != i {
                let d = positions[j] - p
                let d2 = (d * d).sum()
                if d2 <= limit { body(j, d2) }
            }
            return true
        }
    }

    /// Whether some point of the grid is within `sqrt(limit)` (at most the cell size) of `p`, which
    /// need not be one of its points nor inside its box; false for a point that is not finite.
    public func hasPoint(near p: SIMD3<Float>, _ positions: [SIMD3<Float>], within limit: Float) -> Bool {
        let f = (p - origin) / cellSize
        guard f.x.isFinite, f.y.isFinite, f.z.isFinite else { return false }
        // Cells two or more past the box hold nothing and have no neighbour inside it: clamped
        // there, a far point converts without trapping and finds nothing.
        let lo = SIMD3<Float>(repeating: -2), hi = SIMD3<Float>(Float(dims.x + 1), Float(dims.y + 1), Float(dims.z + 1))
        let g = pointwiseMax(lo, pointwiseMin(f, hi))
        var found = false
        forEachPoint(near: SIMD3(Int(g.x.rounded(.down)), Int(g.y.rounded(.down)), Int(g.z.rounded(.down)))) { j in
            let d = positions[j] - p
            found = (d * d).sum() <= limit
            return !found
        }
        return found
    }

    /// Calls `body(j, distanceSquared)` for every point within `sqrt(limit)` (at most the cell size)
    /// of `p`, which need not be one of its points; nothing for a point that is not finite.
    public func forEachPoint(near p: SIMD3<Float>, _ positions: [SIMD3<Float>], within limit: Float, _ body: (Int, Float) -> Void) {
        let f = (p - origin) / cellSize
        guard f.x.isFinite, f.y.isFinite, f.z.isFinite else { return }
        let lo = SIMD3<Float>(repeating: -2), hi = SIMD3<Float>(Float(dims.x + 1), Float(dims.y + 1), Float(dims.z + 1))
        let g = pointwiseMax(lo, pointwiseMin(f, hi))
        let c = SIMD3(Int(g.x.rounded(.down)), Int(g.y.rounded(.down)), Int(g.z.rounded(.down)))
        // How far `p` lies outside cell `cell` along an axis (`f` its place in cells there): a cell
        // whose box is farther than the limit holds no point within it and is not read. Slightly
        // short (a point binned by rounding may sit a hair outside its cell's box).
        @inline(__always) func gap(_ cell: Int, _ f: Float) -> Float {
            let low = Float(cell)
            return max(0, (max(low - f, f - (low + 1)) - 1e-3) * cellSize)
        }
        for z in stride(from: max(0, c.z - 1), through: min(dims.z - 1, c.z + 1), by: 1) {
            let gz = gap(z, f.z), zz = gz * gz
            if zz > limit { continue }
            for y in stride(from: max(0, c.y - 1), through: min(dims.y - 1, c.y + 1), by: 1) {
                let gy = gap(y, f.y), yz = gy * gy + zz
                if yz > limit { continue }
                for x in stride(from: max(0, c.x - 1), through: min(dims.x - 1, c.x + 1), by: 1) {
                    let gx = gap(x, f.x)
                    if yz + gx * gx > limit { continue }
                    let k = key(SIMD3(x, y, z))
                    for at in run(k) {
                        let j = Int(order[Int(at)])
                        let d = positions[j] - p, d2 = (d * d).sum()
                        if d2 <= limit { body(j, d2) }
                    }
                }
            }
        }
    }

    /// Cell `k`'s run in `order`.
    @inline(__always)
    private func run(_ k: Int) -> Range<Int32> {
        useFlat ? flatStarts[k + 1]..<flatStarts[k + 2] : (hashedRuns[k] ?? 0..<0)
    }

    /// Calls `body(j)` for every point in cell `c` and the 26 around it, until it returns false.
    @inline(__always)
    private func forEachPoint(near c: SIMD3<Int>, _ body: (Int) -> Bool) {
        for dz in -1...1 {
            let z = c.z + dz
            if z < 0 || z >= dims.z { continue }
            for dy in -1...1 {
                let y = c.y + dy
                if y < 0 || y >= dims.y { continue }
                for dx in -1...1 {
                    let x = c.x + dx
                    if x < 0 || x >= dims.x { continue }
                    let k = key(SIMD3(x, y, z))
                    for at in run(k) where !body(Int(order[Int(at)])) { return }
                }
            }
        }
    }
}

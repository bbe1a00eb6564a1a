import Core
import Foundation
import CMemory
import Scene

/// Which spheres can be seen from the camera's direction, found on the CPU before drawing:
/// spheres are taken front to back, and a grid over the view plane remembers, per cell, the
/// nearest depth by which a sphere already kept covers the whole cell. A sphere whose front lies
/// behind that depth in every cell it touches is hidden and is not drawn. Conservative: a kept
/// sphere covers a cell only where the cell lies wholly inside its disk, and the covering depth
/// is the surface's farthest point over the cell. Orthographic views only (rays are parallel).
public enum SphereOcclusion {
    /// Indices of `fronts` (view z of spheres' nearest points: larger is nearer), nearest first,
    /// ties by index: the fronts' bits as integers that sort descending, in four stable passes of a
    /// byte each (a radix sort), from the spheres in index order. The CPU ray caster takes spheres
    /// in this order (culling takes runs in `roughlyFrontToBack`'s).
    public static func frontToBack(_ fronts: [Float]) -> [Int32] {
        let n = fronts.count
        guard n > 1 else { return n == 1 ? [0] : [] }
        // The keys, and the four bytes' counts in one pass over them.
        var keys = [UInt32](repeating: 0, count: n)
        var counts = [Int](repeating: 0, count: 4 * 256)
        keys.withUnsafeMutableBufferPointer { k in
            counts.withUnsafeMutableBufferPointer { c in
                fronts.withUnsafeBufferPointer { f in
                    for i in 0..<n {
                        let bits = (f[i] + 0).bitPattern // + 0: -0 as +0, as a comparison has them
                        let key = ~(bits & 0x8000_0000 != 0 ? ~bits : bits | 0x8000_0000)
                        k[i] = key
                        c[Int(key & 0xFF)] += 1
                        c[256 + Int((key >> 8) & 0xFF)] += 1
                        c[512 + Int((key >> 16) & 0xFF)] += 1
                        c[768 + Int(key >> 24)] += 1
                    }
                }
            }
        }
        var order = [Int32](unsafeUninitializedCapacity: n) { b, count in
            for i in 0..<n { b[i] = Int32(i) }
            count = n
        }
        var spare = [Int32](repeating: 0, count: n)
        for pass in 0..<4 {
            let shift = UInt32(pass * 8)
            // One value of this byte for all: nothing moves.
            if counts[pass * 256 + Int((keys[0] >> shift) & 0xFF)] == n { continue }
            // Where each byte value's run starts.
            var starts = [Int](repeating: 0, count: 256)
            var total = 0
            for b in 0..<256 {
                starts[b] = total
                total += counts[pass * 256 + b]
            }
            keys.withUnsafeBufferPointer { k in
                order.withUnsafeBufferPointer { from in
                    spare.withUnsafeMutableBufferPointer { to in
                        starts.withUnsafeMutableBufferPointer { at in
                            for i in from {
                                let b = Int((k[Int(i)] >> shift) & 0xFF)
                                to[at[b]] = i
                                at[b] += 1
                            }
                        }
                    }
                }
            }
            swap(&order, &spare)
        }
        return order
    }

    /// Indices of `fronts` nearest first by their fronts cut into 65,536 equal steps from
    /// `nearest` to `farthest` (NaN as the nearest step), ties within a step by index: two stable
    /// passes of a byte each, against `frontToBack`'s four. Culling takes spheres in this order;
    /// which of two spheres closer than a step goes first decides only how many hidden ones are
    /// found, never what is drawn.
    static func roughlyFrontToBack(_ fronts: UnsafeBufferPointer<Float>, nearest: Float, farthest: Float) -> [Int32] {
        let n = fronts.count
        let span = nearest - farthest
        let scale: Float = span > 0 && span.isFinite ? 65535 / span : 0
        var keys = [UInt16](repeating: 0, count: n)
        var low = [Int](repeating: 0, count: 256), high = [Int](repeating: 0, count: 256)
        keys.withUnsafeMutableBufferPointer { k in
            for i in 0..<n {
                let q = (nearest - fronts[i]) * scale
                let key: UInt16 = q >= 0 ? (q < 65535 ? UInt16(q) : 65535) : 0
                k[i] = key
                low[Int(key & 0xFF)] += 1
                high[Int(key >> 8)] += 1
            }
        }
        var order = [Int32](repeating: 0, count: n), spare = [Int32](repeating: 0, count: n)
        keys.withUnsafeBufferPointer { k in
            order.withUnsafeMutableBufferPointer { order in
                spare.withUnsafeMutableBufferPointer { spare in
                    // By the low byte from index order into `spare`, then by the high byte into `order`.
                    var at = [Int](repeating: 0, count: 256), total = 0
                    for b in 0..<256 { at[b] = total; total += low[b] }
                    at.withUnsafeMutableBufferPointer { at in
                        for i in 0..<n {
                            let b = Int(k[i] & 0xFF)
                            spare[at[b]] = Int32(i)
                            at[b] += 1
                        }
                        total = 0
                        for b in 0..<256 { at[b] = total; total += high[b] }
                        for i in spare {
                            let b = Int(k[Int(i)] >> 8)
                            order[at[b]] = i
                            at[b] += 1
                        }
                    }
                }
            }
        }
        return order
    }

    /// Indices of the spheres (x, y, z, r in `spheres`) not hidden behind others, in their original
    /// order. Radii under `minimumRadius` are taken as it (the drawn radii). `runs` are
    /// `SphereRuns(spheres)` and `medianRadius` `MoleculeGeometry.medianRadius(spheres)` where the
    /// caller keeps them (a scene does), found here otherwise.
    ///
    /// Spheres are taken run by run, the runs front to back by their bounding spheres: a run whose
    /// bounding sphere is hidden is passed over whole, the spheres of the others front to back
    /// within their run. Neighbours in a run lie close together, so their reads of the spheres
    /// and of the grid stay in the cache: taken one by one across millions of spheres in depth
    /// order, almost every read had missed it.
    public static func visible(_ spheres: [Float], rotation: Quaternion, minimumRadius: Float = 0, medianRadius: Float? = nil,
                               runs given: SphereRuns? = nil) -> [Int32] {
        let n = spheres.count / 4
        guard n > 0 else { return [] }
        let runs = given ?? SphereRuns(spheres)
        let m = rotation.matrix
        @inline(__always) func drawn(_ r: Float) -> Float { r < minimumRadius ? minimumRadius : r }
        // The runs' bounding spheres in view space (a drawn radius is at most the larger of the
        // run's largest radius and the least one), their fronts (view space looks down -z: larger
        // is nearer) and their extent on the view plane, which holds every sphere's.
        let runCount = runs.count
        var bounds = [SIMD4<Float>](repeating: .zero, count: runCount)
        var fronts = [Float](repeating: 0, count: runCount)
        var low = SIMD2<Float>(repeating: .greatestFiniteMagnitude), high = -low
        var nearest = -Float.greatestFiniteMagnitude, farthest = Float.greatestFiniteMagnitude
        runs.bounds.withUnsafeBufferPointer { b in
            for k in 0..<runCount {
                let c = b[k]
                // Widened by the rounding of turning the center and a sphere apart (a few float
                // steps of their coordinates), so that a sphere's square never reaches past its run's.
                let slack = ((abs(c.x) + abs(c.y) + abs(c.z)) + c.w) * 4e-6
                let v = m.0 * c.x + m.1 * c.y + m.2 * c.z, r = c.w + drawn(runs.largestRadius[k]) + slack
                bounds[k] = SIMD4(v, r)
                low = pointwiseMin(low, SIMD2(v.x - r, v.y - r))
                high = pointwiseMax(high, SIMD2(v.x + r, v.y + r))
                let front = v.z + r
                fronts[k] = front
                nearest = max(nearest, front)
                farthest = min(farthest, front)
            }
        }
        let lo = low, hi = high, extent = hi - lo
        // Spheres so far apart that their span is past a float's range: no grid covers them, and
        // every one is kept (drawing them all is what no culling does).
        guard extent.x.isFinite && extent.y.isFinite else { return Array(0..<Int32(n)) }
        // Cells about half a typical radius, at most 2048 a side. The drawn radii's median is the
        // radii's, taken as the drawn radius: raising radii to a least one keeps their order.
        let median = drawn(medianRadius ?? MoleculeGeometry.medianRadius(spheres))
        let cell = max(median * 0.5, max(extent.x, extent.y) / 2048, 1e-3)
        let cols = Int(extent.x / cell) + 1, rows = Int(extent.y / cell) + 1
        var covered = [Float](repeating: -.greatestFiniteMagnitude, count: cols * rows)
        // What rounding can move a cell's edge or a point by here: some float steps of the largest coordinate.
        let slack = (max(abs(lo.x), abs(hi.x)) + max(abs(lo.y), abs(hi.y))) * 2e-6 + 1e-6
        let order = fronts.withUnsafeBufferPointer { roughlyFrontToBack($0, nearest: nearest, farthest: farthest) }
        // Large scenes are culled in two bands of columns, each on its own core: a sphere is
        // hidden where it is hidden in the cells of each band its disk reaches, so it is kept where
        // either band keeps it.
        let bands = SphereOcclusion.bands(n)
        var keep = [Bool](repeating: false, count: n * bands)
        let prefetchDistance = 8
        covered.withUnsafeMutableBufferPointer { coveredBuffer in
            keep.withUnsafeMutableBufferPointer { keepBuffer in
                spheres.withUnsafeBufferPointer { spheresBuffer in
                    runs.starts.withUnsafeBufferPointer { startsBuffer in
                        nonisolated(unsafe) let covered = coveredBuffer, keep = keepBuffer, s = spheresBuffer, starts = startsBuffer
                        let bounds = bounds
                        DispatchQueue.concurrentPerform(iterations: bands) { band in
                            let first = cols * band / bands, last = cols * (band + 1) / bands - 1
                            @inline(__always) func drawn(_ r: Float) -> Float { r < minimumRadius ? minimumRadius : r }
                            // The cell a distance from the grid's corner falls in, held within the
                            // grid's reach (infinite and NaN ones included: scenes over 10^38 across
                            // reach them) before it becomes an integer.
                            @inline(__always) func at(_ distance: Float) -> Int {
                                let c = distance / cell
                                return c >= 0 ? (c < 1e8 ? Int(c) : 100_000_000) : 0
                            }
                            // Whether a sphere (view x, y, front z and radius) lies behind what is kept
                            // in every cell of the band its disk reaches: row by row, the columns its
                            // chord over the row spans, the row taken `slack` wider (its edges as
                            // computed here and a point's row as binning finds it may differ by the
                            // rounding of coordinates).
                            @inline(__always) func hidden(_ x: Float, _ y: Float, front: Float, _ r: Float) -> Bool {
                                let r0 = max(0, at(y - r - lo.y)), r1 = min(rows - 1, at(y + r - lo.y))
                                let rr = r * r
                                for row in r0...r1 {
                                    let ya = lo.y + Float(row) * cell - y - slack, yb = ya + cell + 2 * slack
                                    let dy = ya > 0 ? ya * ya : (yb < 0 ? yb * yb : 0)
                                    if dy > rr { continue }
                                    // Never past the radius (a radius past 10^19 has a square past a float's range).
                                    let chord = (rr - dy).squareRoot(), w = (chord < r ? chord : r) + slack
                                    let c0 = max(first, at(x - w - lo.x)), c1 = min(last, at(x + w - lo.x))
                                    if c0 > c1 { continue }
                                    let base = row * cols
                                    for col in c0...c1 where !(covered[base + col] > front + 1e-3) { return false }
                                }
                                return true
                            }
                            // One run's spheres in view space, nearest first (ties by index).
                            var local = [SIMD4<Float>](repeating: .zero, count: SphereRuns.longest)
                            var localIndex = [Int32](repeating: 0, count: SphereRuns.longest)
                            for (position, k32) in order.enumerated() {
                                let k = Int(k32)
                                // The cells and spheres of a run a few places on asked for now: runs in
                                // depth order lie anywhere on the grid, and most of a run's reads had
                                // waited on memory.
                                if position + prefetchDistance < runCount {
                                    let ahead = Int(order[position + prefetchDistance]), a = bounds[ahead]
                                    let c0 = max(first, at(a.x - a.w - lo.x)), c1 = min(last, at(a.x + a.w - lo.x))
                                    let r0 = max(0, at(a.y - a.w - lo.y)), r1 = min(rows - 1, at(a.y + a.w - lo.y))
                                    if r0 <= r1 && c0 <= c1 {
                                        for row in r0...r1 {
                                            for col in stride(from: c0, through: c1, by: 16) { molshot_prefetch(covered.baseAddress! + row * cols + col) }
                                            molshot_prefetch(covered.baseAddress! + row * cols + c1)
                                        }
                                        molshot_prefetch(s.baseAddress! + 4 * Int(starts[ahead]))
                                        molshot_prefetch(s.baseAddress! + 4 * Int(starts[ahead]) + 16)
                                    }
                                }
                                let b = bounds[k]
                                // Runs wholly beside the band, then runs hidden in it, are passed over.
                                if at(b.x + b.w + slack - lo.x) < first || at(b.x - b.w - slack - lo.x) > last { continue }
                                if hidden(b.x, b.y, front: b.z + b.w, b.w) { continue }
                                var count = 0
                                for i in Int(starts[k])..<Int(starts[k + 1]) {
                                    let v = SIMD4(m.0 * s[4 * i] + m.1 * s[4 * i + 1] + m.2 * s[4 * i + 2], drawn(s[4 * i + 3]))
                                    // Insertion by front, after those as near.
                                    var at = count
                                    while at > 0 && local[at - 1].z + local[at - 1].w < v.z + v.w {
                                        local[at] = local[at - 1]
                                        localIndex[at] = localIndex[at - 1]
                                        at -= 1
                                    }
                                    local[at] = v
                                    localIndex[at] = Int32(i)
                                    count += 1
                                }
                                for j in 0..<count {
                                    let v = local[j]
                                    let xi = v.x, yi = v.y, zi = v.z, ri = v.w
                                    if hidden(xi, yi, front: zi + ri, ri) { continue }
                                    keep[band * n + Int(localIndex[j])] = true
                                    let c0 = max(first, at(xi - ri - lo.x)), c1 = min(last, at(xi + ri - lo.x))
                                    let r0 = max(0, at(yi - ri - lo.y)), r1 = min(rows - 1, at(yi + ri - lo.y))
                                    if c0 > c1 { continue }
                                    // Cells wholly inside the disk, at the depth of the surface's farthest point over
                                    // the cell (none for a radius whose square is past a float's range).
                                    let rr = ri * ri
                                    if !rr.isFinite { continue }
                                    for row in r0...r1 {
                                        let ya = lo.y + Float(row) * cell - yi, yb = ya + cell
                                        let dy = max(ya * ya, yb * yb)
                                        if dy >= rr { continue }
                                        let base = row * cols
                                        for col in c0...c1 {
                                            let xa = lo.x + Float(col) * cell - xi, xb = xa + cell
                                            let d2 = max(xa * xa, xb * xb) + dy
                                            if d2 >= rr { continue }
                                            let depth = zi + (rr - d2).squareRoot()
                                            if depth > covered[base + col] { covered[base + col] = depth }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        var result: [Int32] = []
        result.reserveCapacity(n)
        keep.withUnsafeBufferPointer { keep in
            if bands == 1 {
                for i in 0..<n where keep[i] { result.append(Int32(i)) }
            } else {
                for i in 0..<n where keep[i] || keep[n + i] { result.append(Int32(i)) }
            }
        }
        return result
    }

    /// Scenes of this many spheres and more are culled (`visible`) and cast (`SphereCaster`) on two cores.
    static let bandedMinimum = 200_000

    /// Bands a scene of `count` spheres is culled or cast in: two from `bandedMinimum` where there
    /// are two cores, else one.
    static func bands(_ count: Int) -> Int {
        count >= bandedMinimum && Cores.active > 1 ? 2 : 1
    }
}

/// Spheres cut into runs of neighbours in index order (a structure lists its atoms residue by
/// residue), with each run's bounding sphere, for `SphereOcclusion.visible`: made once for a
/// scene's spheres, whatever the view.
public struct SphereRuns: Sendable {
    /// Spheres a run holds at most.
    static let longest = 32
    /// How far a run's spheres' centers lie at most from its first one's, in world units: a
    /// sphere farther away starts the next run (scattered waters, ions, a chain's break).
    static let reach: Float = 8
    /// Run k is the spheres `starts[k]..<starts[k + 1]`.
    let starts: [Int32]
    /// Per run: the middle of its centers' box, and the farthest center's distance from it.
    let bounds: [SIMD4<Float>]
    /// Per run: its largest radius.
    let largestRadius: [Float]
    var count: Int { bounds.count }

    public init(_ spheres: [Float]) {
        let n = spheres.count / 4
        var starts: [Int32] = [], bounds: [SIMD4<Float>] = [], largest: [Float] = []
        spheres.withUnsafeBufferPointer { s in
            @inline(__always) func center(_ i: Int) -> SIMD3<Float> { SIMD3(s[4 * i], s[4 * i + 1], s[4 * i + 2]) }
            var first = 0
            while first < n {
                let origin = center(first)
                var end = first + 1, low = origin, high = origin, radius = s[4 * first + 3]
                while end < n && end - first < SphereRuns.longest {
                    let p = center(end), d = p - origin
                    // Written so that NaN takes a run of its own.
                    guard (d * d).sum() <= SphereRuns.reach * SphereRuns.reach else { break }
                    low = pointwiseMin(low, p)
                    high = pointwiseMax(high, p)
                    radius = max(radius, s[4 * end + 3])
                    end += 1
                }
                let middle = (low + high) * 0.5
                var farthest: Float = 0
                for i in first..<end {
                    let d = center(i) - middle
                    farthest = max(farthest, (d * d).sum())
                }
                starts.append(Int32(first))
                bounds.append(SIMD4(middle, farthest.squareRoot()))
                largest.append(radius)
                first = end
            }
            starts.append(Int32(n))
        }
        self.starts = starts
        self.bounds = bounds
        self.largestRadius = largest
    }
}

/// What hidden-sphere culling depends on: the view direction and the smallest drawn radius
/// (`MoleculeRenderer.cullingKey` computes it, for the renderer and for culling done ahead alike).
public struct CullingKey: Sendable, Equatable {
    public let rotation: Quaternion
    /// The smallest drawn radius the spheres are taken with (0: as they are).
    public let minimumRadius: Float
}

/// The spheres left after hidden-sphere culling for one key.
public struct SphereVisibility: Sendable {
    public let key: CullingKey
    public let indices: [Int32]
}

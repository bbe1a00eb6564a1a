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
    /// byte each (a radix sort), from the spheres in index order. Culling and the CPU ray caster
    /// take spheres in this order.
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

    /// Indices of the spheres (x, y, z, r in `spheres`) not hidden behind others, in their original order.
    public static func visible(_ spheres: [Float], rotation: Quaternion) -> [Int32] {
        let n = spheres.count / 4
        guard n > 0 else { return [] }
        let m = rotation.matrix
        // In view space: x, y, z and the radius.
        var view = [SIMD4<Float>](repeating: .zero, count: n)
        var lo = SIMD2<Float>(repeating: .greatestFiniteMagnitude), hi = -lo
        spheres.withUnsafeBufferPointer { s in
            for i in 0..<n {
                let v = m.0 * s[4 * i] + m.1 * s[4 * i + 1] + m.2 * s[4 * i + 2], r = s[4 * i + 3]
                view[i] = SIMD4(v, r)
                lo = pointwiseMin(lo, SIMD2(v.x - r, v.y - r))
                hi = pointwiseMax(hi, SIMD2(v.x + r, v.y + r))
            }
        }
        let extent = hi - lo
        // Spheres so far apart that their span is past a float's range: no grid covers them, and
        // every one is kept (drawing them all is what no culling does).
        guard extent.x.isFinite && extent.y.isFinite else { return Array(0..<Int32(n)) }
        // Cells about half a typical radius, at most 1024 a side.
        let cell = max(MoleculeGeometry.medianRadius(spheres) * 0.5, max(extent.x, extent.y) / 1024, 1e-3)
        let cols = Int(extent.x / cell) + 1, rows = Int(extent.y / cell) + 1
        var covered = [Float](repeating: -.greatestFiniteMagnitude, count: cols * rows)

        // Front to back by the sphere's nearest point (view space looks down -z: larger is nearer).
        let order = frontToBack(view.map { $0.z + $0.w })
        var keep = [Bool](repeating: false, count: n)
        covered.withUnsafeMutableBufferPointer { covered in
            keep.withUnsafeMutableBufferPointer { keep in
                for k in order {
                    let i = Int(k)
                    let s = view[i]
                    let xi = s.x, yi = s.y, zi = s.z, ri = s.w
                    let front = zi + ri
                    let c0 = max(0, Int((xi - ri - lo.x) / cell)), c1 = min(cols - 1, Int((xi + ri - lo.x) / cell))
                    let r0 = max(0, Int((yi - ri - lo.y) / cell)), r1 = min(rows - 1, Int((yi + ri - lo.y) / cell))
                    var hidden = true
                    check: for row in r0...r1 {
                        let base = row * cols
                        for col in c0...c1 where !(covered[base + col] > front + 1e-3) {
                            hidden = false
                            break check
                        }
                    }
                    if hidden { continue }
                    keep[i] = true
                    // Cells wholly inside the disk, at the depth of the surface's farthest point over the cell.
                    let rr = ri * ri
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
        var result: [Int32] = []
        result.reserveCapacity(n)
        for i in 0..<n where keep[i] { result.append(Int32(i)) }
        return result
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

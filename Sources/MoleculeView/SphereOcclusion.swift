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
        var keys = [UInt32](repeating: 0, count: n)
        for i in 0..<n {
            let bits = (fronts[i] + 0).bitPattern // + 0: -0 as +0, as a comparison has them
            keys[i] = ~(bits & 0x8000_0000 != 0 ? ~bits : bits | 0x8000_0000)
        }
        var order = Array(0..<Int32(n))
        var spare = order
        for shift: UInt32 in stride(from: 0, to: 32, by: 8) {
            var counts = [Int](repeating: 0, count: 257)
            for key in keys { counts[Int((key >> shift) & 0xFF) + 1] += 1 }
            if counts[1...].contains(n) { continue } // one value of this byte for all: nothing moves
            for b in 0..<256 { counts[b + 1] += counts[b] }
            for i in order {
                let b = Int((keys[Int(i)] >> shift) & 0xFF)
                spare[counts[b]] = i
                counts[b] += 1
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
        var x = [Float](repeating: 0, count: n), y = x, z = x, r = x
        var lo = SIMD2<Float>(repeating: .greatestFiniteMagnitude), hi = -lo
        for i in 0..<n {
            let p = SIMD3(spheres[4 * i], spheres[4 * i + 1], spheres[4 * i + 2])
            let v = m.0 * p.x + m.1 * p.y + m.2 * p.z
            x[i] = v.x; y[i] = v.y; z[i] = v.z; r[i] = spheres[4 * i + 3]
            lo = pointwiseMin(lo, SIMD2(v.x - r[i], v.y - r[i]))
            hi = pointwiseMax(hi, SIMD2(v.x + r[i], v.y + r[i]))
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
        let order = frontToBack((0..<n).map { z[$0] + r[$0] })
        var keep = [Bool](repeating: false, count: n)
        for k in order {
            let i = Int(k)
            let front = z[i] + r[i]
            let c0 = max(0, Int((x[i] - r[i] - lo.x) / cell)), c1 = min(cols - 1, Int((x[i] + r[i] - lo.x) / cell))
            let r0 = max(0, Int((y[i] - r[i] - lo.y) / cell)), r1 = min(rows - 1, Int((y[i] + r[i] - lo.y) / cell))
            var hidden = true
            check: for row in r0...r1 {
                for col in c0...c1 where !(covered[row * cols + col] > front + 1e-3) {
                    hidden = false
                    break check
                }
            }
            if hidden { continue }
            keep[i] = true
            // Cells wholly inside the disk, at the depth of the surface's farthest point over the cell.
            let rr = r[i] * r[i]
            for row in r0...r1 {
                let ya = lo.y + Float(row) * cell - y[i], yb = ya + cell
                let dy = max(ya * ya, yb * yb)
                if dy >= rr { continue }
                for col in c0...c1 {
                    let xa = lo.x + Float(col) * cell - x[i], xb = xa + cell
                    let d2 = max(xa * xa, xb * xb) + dy
                    if d2 >= rr { continue }
                    let depth = z[i] + (rr - d2).squareRoot()
                    let k = row * cols + col
                    if depth > covered[k] { covered[k] = depth }
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

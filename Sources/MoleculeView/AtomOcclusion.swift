import Imaging
import Structure

/// Ambient occlusion per atom, once per structure: how many atoms surround each one, counted in a
/// cube of `reach` Å either side through a summed table of a grid (eight lookups an atom, whatever
/// the structure's size), against what a cube packed as densely as a protein's core holds. An atom
/// on a protruding side chain has about a third of that around it, one on a flat surface half, one
/// in a crevice two thirds or more. `--occlusion-method atoms` darkens atoms' colors by it instead
/// of `DepthEffects`' screen-space occlusion of every picture: the cost is paid once, not per
/// picture and per pixel, and the result is coarser (whole atoms, no contact shadows).
public enum AtomOcclusion {
    public static let reach: Float = 8
    /// Heavy atoms per Å³ in a protein's core.
    static let packedDensity: Float = 0.048
    static let cell: Float = 2

    /// How buried each of `points` is among `occluders`, 0 (exposed, a third or less of a packed
    /// cube) to 1 (three quarters or more).
    public static func buriedness(of points: [SIMD3<Float>], among occluders: [SIMD3<Float>]) -> [Float] {
        guard !points.isEmpty, !occluders.isEmpty else { return [Float](repeating: 0, count: points.count) }
        var lo = SIMD3<Float>(repeating: .greatestFiniteMagnitude), hi = -lo
        for p in occluders { lo = pointwiseMin(lo, p); hi = pointwiseMax(hi, p) }
        lo -= SIMD3(repeating: reach + cell)
        hi += SIMD3(repeating: reach + cell)
        let n = SIMD3<Int>(((hi - lo) / cell).rounded(.up)) &+ 1
        // Summed table with a zero plane in front on each axis: sum[x][y][z] counts cells < x, < y, < z.
        let sx = n.x + 1, sy = n.y + 1, sz = n.z + 1
        guard sx * sy * sz < 64_000_000 else { return [Float](repeating: 0, count: points.count) }
        var sum = [Int32](repeating: 0, count: sx * sy * sz)
        func index(_ x: Int, _ y: Int, _ z: Int) -> Int { (x * sy + y) * sz + z }
        for p in occluders {
            let c = SIMD3<Int>(((p - lo) / cell).rounded(.down))
            sum[index(c.x + 1, c.y + 1, c.z + 1)] += 1
        }
        for x in 1..<sx { for y in 1..<sy { for z in 1..<sz { sum[index(x, y, z)] += sum[index(x, y, z - 1)] } } }
        for x in 1..<sx { for y in 1..<sy { for z in 1..<sz { sum[index(x, y, z)] += sum[index(x, y - 1, z)] } } }
        for x in 1..<sx { for y in 1..<sy { for z in 1..<sz { sum[index(x, y, z)] += sum[index(x - 1, y, z)] } } }
        let half = Int((reach / cell).rounded())
        let full = packedDensity * Float(2 * half + 1) * cell * Float(2 * half + 1) * cell * Float(2 * half + 1) * cell
        return points.map { p in
            let c = SIMD3<Int>(((p - lo) / cell).rounded(.down))
            // Clamped to the grid: a point beyond it sees an empty (or partial) cube.
            let a = pointwiseMin(pointwiseMax(c &- half, SIMD3(repeating: 0)), n)
            let b = pointwiseMax(pointwiseMin(c &+ half &+ 1, n), a)
            let count = sum[index(b.x, b.y, b.z)] - sum[index(a.x, b.y, b.z)] - sum[index(b.x, a.y, b.z)] - sum[index(b.x, b.y, a.z)]
                + sum[index(a.x, a.y, b.z)] + sum[index(a.x, b.y, a.z)] + sum[index(b.x, a.y, a.z)] - sum[index(a.x, a.y, a.z)]
            return min(max((Float(count) / full - 1 / 3) / (3 / 4 - 1 / 3), 0), 1)
        }
    }

    /// A factor per atom of `model` to multiply its color by: 1 - `strength` x buriedness, among the
    /// model's heavy atoms other than waters (`shown` atoms get theirs; others 1).
    public static func factors(_ model: Model, shown: [Bool], strength: Float) -> [Float] {
        var occluders: [SIMD3<Float>] = []
        occluders.reserveCapacity(model.atoms.count)
        let conformer = model.defaultConformerMask()
        for (i, atom) in model.atoms.enumerated() where conformer[i] && !atom.element.isHydrogen && !model.residues[Int(atom.residue)].isWater {
            occluders.append(atom.position)
        }
        let indices = shown.indices.filter { shown[$0] }
        let buried = buriedness(of: indices.map { model.atoms[$0].position }, among: occluders)
        var out = [Float](repeating: 1, count: model.atoms.count)
        for (k, i) in indices.enumerated() { out[i] = 1 - strength * buried[k] }
        return out
    }
}

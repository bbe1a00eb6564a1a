/// PyMOL's `orient` and Mol*'s default view: the rotation that lays a structure's largest spread
/// along the screen's x axis and the next along y, from the principal axes of its points.
public enum Orientation {
    /// The rotation (world to view) turning the principal axes of `points` onto x (largest
    /// spread), y (next) and z (smallest, toward the viewer). Each axis points to the side where
    /// the points reach farthest (the sign of their third moment; ties broken by the first point
    /// off the plane), and z = x cross y, so the same points always give the same view.
    public static func principalAxes(_ points: [SIMD3<Float>]) -> Quaternion {
        guard points.count >= 2 else { return .identity }
        var mean = SIMD3<Double>.zero
        for p in points { mean += SIMD3<Double>(p) }
        mean /= Double(points.count)
        // The covariance's six distinct sums in scalars (the same sums, point by point, as a 3x3
        // array of arrays, which cost a bounds check and a uniqueness check each).
        var xx = 0.0, xy = 0.0, xz = 0.0, yy = 0.0, yz = 0.0, zz = 0.0
        for p in points {
            let d = SIMD3<Double>(p) - mean
            xx += d.x * d.x; xy += d.x * d.y; xz += d.x * d.z
            yy += d.y * d.y; yz += d.y * d.z; zz += d.z * d.z
        }
        let c = [[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]]
        let (values, vectors) = symmetricEigen(c)
        let order = [0, 1, 2].sorted { values[$0] != values[$1] ? values[$0] > values[$1] : $0 < $1 }
        var axes = order.map { SIMD3<Double>(vectors[0][$0], vectors[1][$0], vectors[2][$0]) }
        for k in 0..<2 {
            var third = 0.0, first = 0.0
            for p in points {
                let t = ((SIMD3<Double>(p) - mean) * axes[k]).sum()
                third += t * t * t
                if first == 0 && abs(t) > 1e-6 { first = t }
            }
            let variance = max(values[order[k]] / Double(points.count), 1e-12)
            let scale = variance * variance.squareRoot() * Double(points.count)
            let sign = abs(third) > 1e-6 * scale ? third : first
            if sign < 0 { axes[k] = -axes[k] }
        }
        let x = axes[0], y = axes[1]
        let z = SIMD3(x.y * y.z - x.z * y.y, x.z * y.x - x.x * y.z, x.x * y.y - x.y * y.x)
        return Quaternion(rows: (SIMD3<Float>(x), SIMD3<Float>(y), SIMD3<Float>(z)))
    }

    /// Eigenvalues and eigenvectors (columns) of a symmetric 3x3 matrix by Jacobi rotations.
    static func symmetricEigen(_ m: [[Double]]) -> ([Double], [[Double]]) {
        var a = m
        var v: [[Double]] = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
        for _ in 0..<50 {
            let off = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2]
            if off < 1e-22 * max(1, a[0][0] * a[0][0] + a[1][1] * a[1][1] + a[2][2] * a[2][2]) { break }
            for (p, q) in [(0, 1), (0, 2), (1, 2)] where a[p][q] != 0 {
                let theta = (a[q][q] - a[p][p]) / (2 * a[p][q])
                let t = (theta >= 0 ? 1 : -1) / (abs(theta) + (theta * theta + 1).squareRoot())
                let c = 1 / (t * t + 1).squareRoot(), s = t * c
                for k in 0..<3 {
                    let akp = a[k][p], akq = a[k][q]
                    a[k][p] = c * akp - s * akq
                    a[k][q] = s * akp + c * akq
                }
                for k in 0..<3 {
                    let apk = a[p][k], aqk = a[q][k]
                    a[p][k] = c * apk - s * aqk
                    a[q][k] = s * apk + c * aqk
                }
                for k in 0..<3 {
                    let vkp = v[k][p], vkq = v[k][q]
                    v[k][p] = c * vkp - s * vkq
                    v[k][q] = s * vkp + c * vkq
                }
            }
        }
        return ([a[0][0], a[1][1], a[2][2]], v)
    }
}

extension Quaternion {
    /// The rotation whose matrix has these rows (orthonormal, right-handed): it takes each row's
    /// direction onto x, y and z.
    public init(rows r: (SIMD3<Float>, SIMD3<Float>, SIMD3<Float>)) {
        // m[i][j] = row i, column j.
        let m00 = r.0.x, m01 = r.0.y, m02 = r.0.z, m10 = r.1.x, m11 = r.1.y, m12 = r.1.z, m20 = r.2.x, m21 = r.2.y, m22 = r.2.z
        let trace = m00 + m11 + m22
        if trace > 0 {
            let s = (trace + 1).squareRoot() * 2
            self.init(x: (m21 - m12) / s, y: (m02 - m20) / s, z: (m10 - m01) / s, w: s / 4)
        } else if m00 > m11 && m00 > m22 {
            let s = (1 + m00 - m11 - m22).squareRoot() * 2
            self.init(x: s / 4, y: (m01 + m10) / s, z: (m02 + m20) / s, w: (m21 - m12) / s)
        } else if m11 > m22 {
            let s = (1 + m11 - m00 - m22).squareRoot() * 2
            self.init(x: (m01 + m10) / s, y: s / 4, z: (m12 + m21) / s, w: (m02 - m20) / s)
        } else {
            let s = (1 + m22 - m00 - m11).squareRoot() * 2
            self.init(x: (m02 + m20) / s, y: (m12 + m21) / s, z: s / 4, w: (m10 - m01) / s)
        }
        self = normalized
    }
}

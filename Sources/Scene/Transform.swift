/// A rotation as a unit quaternion: composes without gimbal lock and renormalizes cheaply.
public struct Quaternion: Sendable, Equatable {
    public var x: Float, y: Float, z: Float, w: Float

    public static let identity = Quaternion(x: 0, y: 0, z: 0, w: 1)

    public init(x: Float, y: Float, z: Float, w: Float) {
        self.x = x
        self.y = y
        self.z = z
        self.w = w
    }

    /// A turn of `radians` about `axis` (any length but zero).
    public init(angle radians: Float, axis: SIMD3<Float>) {
        let n = axis / axis.length
        let s = (radians / 2).sin
        self.init(x: n.x * s, y: n.y * s, z: n.z * s, w: (radians / 2).cos)
    }

    /// `a * b` turns by `b` first, then by `a`.
    public static func * (a: Quaternion, b: Quaternion) -> Quaternion {
        Quaternion(x: a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                   y: a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                   z: a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
                   w: a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z)
    }

    public var normalized: Quaternion {
        let n = (x * x + y * y + z * z + w * w).squareRoot()
        return n > 0 ? Quaternion(x: x / n, y: y / n, z: z / n, w: w / n) : .identity
    }

    /// The turn back (the conjugate, for a unit quaternion).
    public var inverse: Quaternion { Quaternion(x: -x, y: -y, z: -z, w: w) }

    public func rotate(_ v: SIMD3<Float>) -> SIMD3<Float> {
        let m = matrix
        return m.0 * v.x + m.1 * v.y + m.2 * v.z
    }

    /// The rotation matrix as three columns.
    public var matrix: (SIMD3<Float>, SIMD3<Float>, SIMD3<Float>) {
        let xx = x * x, yy = y * y, zz = z * z, xy = x * y, xz = x * z, yz = y * z, wx = w * x, wy = w * y, wz = w * z
        return (SIMD3(1 - 2 * (yy + zz), 2 * (xy + wz), 2 * (xz - wy)),
                SIMD3(2 * (xy - wz), 1 - 2 * (xx + zz), 2 * (yz + wx)),
                SIMD3(2 * (xz + wy), 2 * (yz - wx), 1 - 2 * (xx + yy)))
    }
}

extension Float {
    @inline(__always) var sin: Float { Float(_sin(Double(self))) }
    @inline(__always) var cos: Float { Float(_cos(Double(self))) }
}

@inline(__always) func _sin(_ x: Double) -> Double {
    #if canImport(Glibc)
    return Glibc.sin(x)
    #else
    return Darwin.sin(x)
    #endif
}

@inline(__always) func _cos(_ x: Double) -> Double {
    #if canImport(Glibc)
    return Glibc.cos(x)
    #else
    return Darwin.cos(x)
    #endif
}

#if canImport(Glibc)
import Core
import Glibc
#else
import Darwin
#endif

/// A 4x4 matrix in column-major order, as OpenGL takes it.
public struct Matrix4: Sendable, Equatable {
    public var columns: (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>)

    public static let identity = Matrix4(columns: (SIMD4(1, 0, 0, 0), SIMD4(0, 1, 0, 0), SIMD4(0, 0, 1, 0), SIMD4(0, 0, 0, 1)))

    public init(columns: (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>)) { self.columns = columns }

    public static func == (a: Matrix4, b: Matrix4) -> Bool {
        a.columns.0 == b.columns.0 && a.columns.1 == b.columns.1 && a.columns.2 == b.columns.2 && a.columns.3 == b.columns.3
    }

    public static func translation(_ t: SIMD3<Float>) -> Matrix4 {
        var m = identity
        m.columns.3 = SIMD4(t.x, t.y, t.z, 1)
        return m
    }

    public static func rotation(_ q: Quaternion) -> Matrix4 {
        let r = q.matrix
        return Matrix4(columns: (SIMD4(r.0, 0), SIMD4(r.1, 0), SIMD4(r.2, 0), SIMD4(0, 0, 0, 1)))
    }

    public static func orthographic(left: Float, right: Float, bottom: Float, top: Float, near: Float, far: Float) -> Matrix4 {
        Matrix4(columns: (SIMD4(2 / (right - left), 0, 0, 0),
                          SIMD4(0, 2 / (top - bottom), 0, 0),
                          SIMD4(0, 0, -2 / (far - near), 0),
                          SIMD4(-(right + left) / (right - left), -(top + bottom) / (top - bottom), -(far + near) / (far - near), 1)))
    }

    public static func perspective(halfWidth: Float, halfHeight: Float, near: Float, far: Float) -> Matrix4 {
        // halfWidth/halfHeight: the view's half extents at distance 1.
        Matrix4(columns: (SIMD4(1 / halfWidth, 0, 0, 0),
                          SIMD4(0, 1 / halfHeight, 0, 0),
                          SIMD4(0, 0, -(far + near) / (far - near), -1),
                          SIMD4(0, 0, -2 * far * near / (far - near), 0)))
    }

    public static func * (a: Matrix4, b: Matrix4) -> Matrix4 {
        Matrix4(columns: (a * b.columns.0, a * b.columns.1, a * b.columns.2, a * b.columns.3))
    }

    public static func * (m: Matrix4, v: SIMD4<Float>) -> SIMD4<Float> {
        m.columns.0 * v.x + m.columns.1 * v.y + m.columns.2 * v.z + m.columns.3 * v.w
    }

    /// The 16 values, column after column.
    public var values: [Float] {
        [columns.0.x, columns.0.y, columns.0.z, columns.0.w, columns.1.x, columns.1.y, columns.1.z, columns.1.w,
         columns.2.x, columns.2.y, columns.2.z, columns.2.w, columns.3.x, columns.3.y, columns.3.z, columns.3.w]
    }
}

import Core
import Foundation

// Small vector helpers for the mesh builders (cartoons, exported spheres and bonds) and whoever else turns vectors.
@inlinable public func dot(_ a: SIMD3<Float>, _ b: SIMD3<Float>) -> Float { (a * b).sum() }
@inlinable public func length(_ a: SIMD3<Float>) -> Float { a.length }
@inlinable public func normalize(_ a: SIMD3<Float>) -> SIMD3<Float> { let l = length(a); return l > 0 ? a / l : SIMD3(1, 0, 0) }
@inlinable public func cross(_ a: SIMD3<Float>, _ b: SIMD3<Float>) -> SIMD3<Float> {
    SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
}
/// A unit vector perpendicular to `t`.
@inlinable public func perpendicular(_ t: SIMD3<Float>) -> SIMD3<Float> {
    normalize(cross(t, abs(t.x) < 0.9 ? SIMD3(1, 0, 0) : SIMD3(0, 1, 0)))
}
@inlinable public func sine(_ x: Float) -> Float { Float(sin(Double(x))) }
@inlinable public func cosine(_ x: Float) -> Float { Float(cos(Double(x))) }

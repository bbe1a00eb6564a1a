import Core
import Foundation

// Small vector helpers for the mesh builders (cartoons, exported spheres and bonds) and whoever else
// turns vectors (`dot` and `cross` are Core's, beside `length`).
@inlinable public func length(_ a: SIMD3<Float>) -> Float { a.length }
@inlinable public func normalize(_ a: SIMD3<Float>) -> SIMD3<Float> { let l = length(a); return l > 0 ? a / l : SIMD3(1, 0, 0) }
/// A unit vector perpendicular to `t`.
@inlinable public func perpendicular(_ t: SIMD3<Float>) -> SIMD3<Float> {
    normalize(cross(t, abs(t.x) < 0.9 ? SIMD3(1, 0, 0) : SIMD3(0, 1, 0)))
}
@inlinable public func sine(_ x: Float) -> Float { Float(sin(Double(x))) }
@inlinable public func cosine(_ x: Float) -> Float { Float(cos(Double(x))) }

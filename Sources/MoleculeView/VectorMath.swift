import Foundation

// Small vector helpers shared by the mesh builders (cartoons, exported spheres and bonds).
@inline(__always) func dot(_ a: SIMD3<Float>, _ b: SIMD3<Float>) -> Float { (a * b).sum() }
@inline(__always) func length(_ a: SIMD3<Float>) -> Float { (a * a).sum().squareRoot() }
@inline(__always) func normalize(_ a: SIMD3<Float>) -> SIMD3<Float> { let l = length(a); return l > 0 ? a / l : SIMD3(1, 0, 0) }
@inline(__always) func cross(_ a: SIMD3<Float>, _ b: SIMD3<Float>) -> SIMD3<Float> {
    SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
}
/// A unit vector perpendicular to `t`.
func perpendicular(_ t: SIMD3<Float>) -> SIMD3<Float> {
    normalize(cross(t, abs(t.x) < 0.9 ? SIMD3(1, 0, 0) : SIMD3(0, 1, 0)))
}
@inline(__always) func sine(_ x: Float) -> Float { Float(sin(Double(x))) }
@inline(__always) func cosine(_ x: Float) -> Float { Float(cos(Double(x))) }

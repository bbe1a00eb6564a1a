extension SIMD where Scalar: FloatingPoint {
    /// Euclidean length.
    @inlinable public var length: Scalar { (self * self).sum().squareRoot() }
}

/// The dot product of two vectors.
@inlinable public func dot<T: FloatingPoint & SIMDScalar>(_ a: SIMD3<T>, _ b: SIMD3<T>) -> T { (a * b).sum() }

/// The cross product of two vectors (right-handed).
@inlinable public func cross<T: FloatingPoint & SIMDScalar>(_ a: SIMD3<T>, _ b: SIMD3<T>) -> SIMD3<T> {
    SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
}

extension SIMD where Scalar: FloatingPoint {
    /// Euclidean length.
    @inlinable public var length: Scalar { (self * self).sum().squareRoot() }
}

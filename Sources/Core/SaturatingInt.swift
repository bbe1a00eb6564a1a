extension Int {
    /// `value` rounded toward zero and clamped to what an Int holds, NaN as 0: for sizes and counts
    /// worked out from numbers a user or a file gave, where `Int(_:)` would stop the process.
    public init(saturating value: Double) {
        if value.isNaN { self = 0 } else if value >= 9.0e18 { self = Int.max } else if value <= -9.0e18 { self = Int.min } else { self = Int(value) }
    }
}

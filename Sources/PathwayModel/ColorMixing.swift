import Core

/// Colours mixed and weighed as maps' styles and themes need them.
extension Color {
    /// Relative luminance (Rec. 709 weights on the stored values).
    package var luminance: Float { 0.2126 * red + 0.7152 * green + 0.0722 * blue }

    /// `self` moved a fraction `t` of the way to `other` (alpha kept).
    package func mixed(with other: Color, _ t: Float) -> Color {
        Color(red: red + (other.red - red) * t, green: green + (other.green - green) * t, blue: blue + (other.blue - blue) * t,
              alpha: alpha)
    }
}

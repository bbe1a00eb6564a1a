import Core
import Foundation

/// Colours mixed and weighed as maps' styles and themes need them.
extension Color {
    /// Relative luminance (Rec. 709 weights on the stored values).
    package var luminance: Float { 0.2126 * red + 0.7152 * green + 0.0722 * blue }

    /// WCAG's relative luminance: the sRGB values made linear, then weighed.
    package var wcagLuminance: Double {
        func linear(_ v: Float) -> Double {
            let c = Double(max(0, min(1, v)))
            return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)
    }

    /// WCAG's contrast ratio between two colours (1 to 21; 4.5 is its least for text).
    package func contrast(with other: Color) -> Double {
        let a = wcagLuminance, b = other.wcagLuminance
        return (max(a, b) + 0.05) / (min(a, b) + 0.05)
    }

    /// `self` laid over `below` at its own alpha (the result opaque).
    package func over(_ below: Color) -> Color {
        let t = max(0, min(1, alpha))
        return Color(red: below.red + (red - below.red) * t, green: below.green + (green - below.green) * t,
                     blue: below.blue + (blue - below.blue) * t, alpha: 1)
    }

    /// `self` moved a fraction `t` of the way to `other` (alpha kept).
    package func mixed(with other: Color, _ t: Float) -> Color {
        Color(red: red + (other.red - red) * t, green: green + (other.green - green) * t, blue: blue + (other.blue - blue) * t,
              alpha: alpha)
    }
}

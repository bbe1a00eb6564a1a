/// A straight (not premultiplied) RGBA color, each component in 0...1: the one color type of
/// requests, themes and drawing.
public struct Color: Sendable, Hashable {
    public var red: Float
    public var green: Float
    public var blue: Float
    public var alpha: Float

    public init(red: Float, green: Float, blue: Float, alpha: Float = 1) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// From 0xRRGGBB, opaque.
    public init(rgb: UInt32, alpha: Float = 1) {
        self.init(red: Float(rgb >> 16 & 0xFF) / 255, green: Float(rgb >> 8 & 0xFF) / 255, blue: Float(rgb & 0xFF) / 255,
                  alpha: alpha)
    }

    public static let white = Color(red: 1, green: 1, blue: 1)
    public static let black = Color(red: 0, green: 0, blue: 0)
    public static let transparent = Color(red: 0, green: 0, blue: 0, alpha: 0)

    /// Colors by name, those PyMOL and Jmol users write most.
    public static let names: [String: UInt32] = [
        "red": 0xFF0000, "green": 0x00FF00, "blue": 0x0000FF, "yellow": 0xFFFF00, "cyan": 0x00FFFF, "magenta": 0xFF00FF,
        "orange": 0xFF8000, "purple": 0xA020F0, "pink": 0xFFC0CB, "salmon": 0xFF9999, "white": 0xFFFFFF, "gray": 0x808080,
        "grey": 0x808080, "black": 0x000000, "wheat": 0xF5DEB3, "slate": 0x7F7FFF, "lightblue": 0xBFBFFF, "teal": 0x00BFBF,
        // PyMOL's own names for its palette (its color table's RGB, to the nearest 8 bits).
        "forest": 0x339933, "firebrick": 0xB22222, "marine": 0x0080FF, "skyblue": 0x3380CC, "violet": 0xFF80FF,
        "lime": 0x80FF80, "olive": 0xC4B200, "brown": 0xA65229, "deepblue": 0x4040A6, "hotpink": 0xFF0080,
        "raspberry": 0xB24D66, "palegreen": 0xA6E6A6, "lightpink": 0xFFBFDE, "limon": 0xBFFF40, "deepteal": 0x1A9999,
        "lightorange": 0xFFCC80, "gold": 0xFFD124, "sand": 0xB88C4D, "deepsalmon": 0xFF8080, "greencyan": 0x40FFBF,
        "palecyan": 0xCCFFFF, "lightmagenta": 0xFF33CC, "silver": 0xBFBFBF,
    ]

    /// A color name (`names`, any case), `transparent` (or `none`), `#RRGGBB` or `#RRGGBBAA` (the
    /// `#` optional); nil otherwise.
    public init?(parsing text: String) {
        switch text.lowercased() {
        case "transparent", "none": self = .transparent
        case let name where Color.names[name] != nil: self.init(rgb: Color.names[name]!)
        default:
            var hex = Substring(text)
            if hex.hasPrefix("#") { hex = hex.dropFirst() }
            guard hex.count == 6 || hex.count == 8, hex.allSatisfy(\.isHexDigit), let v = UInt32(hex, radix: 16) else {
                return nil
            }
            if hex.count == 6 {
                self.init(rgb: v)
            } else {
                self.init(rgb: v >> 8, alpha: Float(v & 0xFF) / 255)
            }
        }
    }

    public var simd: SIMD4<Float> { SIMD4(red, green, blue, alpha) }
    public init(_ v: SIMD4<Float>) { self.init(red: v.x, green: v.y, blue: v.z, alpha: v.w) }

    public var isOpaque: Bool { alpha >= 1 }

    /// 0xRRGGBB, rounded.
    public var rgb: UInt32 {
        func byte(_ c: Float) -> UInt32 { UInt32(max(0, min(1, c)) * 255 + 0.5) }
        return byte(red) << 16 | byte(green) << 8 | byte(blue)
    }

    /// R, G, B, A as bytes, rounded down as GL's clear does for exact values.
    public var bytes: (UInt8, UInt8, UInt8, UInt8) {
        (UInt8(red * 255), UInt8(green * 255), UInt8(blue * 255), UInt8(alpha * 255))
    }
}

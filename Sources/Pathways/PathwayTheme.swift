import PathwayModel
import Core

/// Colors and sizes a map is drawn with, over what its file says: `standard` keeps the file's
/// colors on white; `dark` puts them on a dark ground with light text and lightened lines;
/// `print` is black lines and text on white with the fills kept light, for papers.
public struct PathwayTheme: Sendable, Equatable {
    public enum Name: String, Sendable, CaseIterable {
        case standard, dark, print
    }

    public var name: Name
    public var background: Color
    /// Labels below this height in pixels are left out rather than smeared.
    public var smallestLabel: Double = 6
    /// Where set (the viewer's overview tiles), labels too small to read are set at this height
    /// instead, the most connected nodes first, as many as fit without covering one another: an
    /// overview names its hubs rather than showing bare dots.
    public var raisedLabels: Double? = nil
    /// Multiplies every label's size and every line's width.
    public var labelScale: Double = 1
    public var lineScale: Double = 1
    /// Compartment boxes: their outline width in map units.
    public var compartmentLine: Double = 4
    /// Node outlines, in map units.
    public var nodeLine: Double = 1.5

    public init(_ name: Name) {
        self.name = name
        background = name == .dark ? Color(rgb: 0x1E1F24) : .white
    }

    /// The rim around letters that keeps them readable over lines: the background, where it is opaque.
    public var halo: UInt32? { background.alpha > 0.5 ? background.rgb : nil }

    /// A line's or an outline's color as this theme draws it.
    public func line(_ c: Color) -> Color {
        switch name {
        case .standard: return c
        case .dark: return c.luminance < 0.55 ? c.mixed(with: .white, 0.55) : c
        case .print: return Color(red: 0.1, green: 0.1, blue: 0.1, alpha: c.alpha)
        }
    }

    /// A node's fill.
    public func fill(_ c: Color) -> Color {
        switch name {
        case .standard: return c
        case .dark: return c.mixed(with: Color(rgb: 0x1E1F24), 0.8)
        case .print: return c.mixed(with: .white, 0.7)
        }
    }

    public func text(_ c: Color) -> Color {
        switch name {
        case .standard: return c
        case .dark: return c.luminance < 0.55 ? c.mixed(with: .white, 0.85) : c
        case .print: return .black
        }
    }
}

import CFreeType
import Foundation
import Graphics
import Core

/// Text set with FreeType from a font file, drawn onto images: crisp at any pixel size because
/// each size is rasterized from the outlines, not scaled from a bitmap.
public final class Font: @unchecked Sendable {
    private var library: FT_Library?
    private var face: FT_Face?
    private let lock = NSLock()
    public let pixelSize: Int

    /// A rendered glyph, kept: labels repeat letters, and a halo draws each nine times.
    private struct Glyph {
        var coverage: [UInt8]
        var width: Int
        var rows: Int
        var left: Int
        var top: Int
        var advance: Int
    }

    private var glyphs: [UInt32: Glyph] = [:]
    private var missing = Set<UInt32>()

    /// The glyph of `scalar`, rendered once (call with the lock held).
    private func glyph(_ scalar: Unicode.Scalar) -> Glyph? {
        if let g = glyphs[scalar.value] { return g }
        if missing.contains(scalar.value) { return nil }
        guard FT_Load_Char(face, FT_ULong(scalar.value), FT_Int32(FT_LOAD_RENDER)) == 0 else {
            missing.insert(scalar.value)
            return nil
        }
        let slot = face!.pointee.glyph.pointee
        let bitmap = slot.bitmap
        let w = Int(bitmap.width), h = Int(bitmap.rows), pitch = Int(bitmap.pitch)
        var coverage = [UInt8](repeating: 0, count: w * h)
        if let buffer = bitmap.buffer {
            for row in 0..<h { for col in 0..<w { coverage[row * w + col] = buffer[row * pitch + col] } }
        }
        let g = Glyph(coverage: coverage, width: w, rows: h, left: Int(slot.bitmap_left), top: Int(slot.bitmap_top),
                      advance: Int(slot.advance.x >> 6))
        glyphs[scalar.value] = g
        return g
    }

    /// DejaVu Sans, shipped in `Assets/fonts` with its license.
    public static func standard(pixelSize: Int) throws -> Font {
        try Font(path: Resources.asset("fonts/DejaVuSans.ttf").path, pixelSize: pixelSize)
    }

    public init(path: String, pixelSize: Int) throws {
        self.pixelSize = max(4, min(pixelSize, 512))
        guard FT_Init_FreeType(&library) == 0 else { throw MachineError("FreeType did not start") }
        guard FT_New_Face(library, path, 0, &face) == 0, let face else {
            FT_Done_FreeType(library)
            throw MachineError("cannot load the font \(path)")
        }
        FT_Set_Pixel_Sizes(face, 0, FT_UInt(self.pixelSize))
    }

    deinit {
        if let face { FT_Done_Face(face) }
        if let library { FT_Done_FreeType(library) }
    }

    /// Distance from the baseline up to the tallest letters and down to the lowest, in pixels.
    public var ascent: Int { Int(face!.pointee.size.pointee.metrics.ascender >> 6) }
    public var descent: Int { Int(-face!.pointee.size.pointee.metrics.descender >> 6) }

    /// Width in pixels of `text` set on one line.
    public func width(of text: String) -> Int {
        lock.lock()
        defer { lock.unlock() }
        return text.unicodeScalars.reduce(0) { $0 + (glyph($1)?.advance ?? 0) }
    }

    /// `text` cut with an ellipsis to fit `maxWidth` pixels.
    public func fitted(_ text: String, maxWidth: Int) -> String {
        if width(of: text) <= maxWidth { return text }
        var t = text
        while !t.isEmpty && width(of: t + "…") > maxWidth { t.removeLast() }
        return t + "…"
    }

    /// Draws `text` with its baseline starting at (`x`, `baseline`), blending `color` (0xRRGGBB) by
    /// glyph coverage; with `halo`, each glyph first gets a one-pixel rim of that color so that text
    /// stays readable over lines (all rims before any letter, so no rim covers a neighbour).
    public func draw(_ text: String, into image: inout RGBAImage, x: Int, baseline: Int, color: UInt32, halo: UInt32? = nil) {
        lock.lock()
        defer { lock.unlock() }
        if let halo {
            for (dx, dy) in [(-1, 0), (1, 0), (0, -1), (0, 1), (-1, -1), (1, 1), (-1, 1), (1, -1)] {
                pen(text, into: &image, x: x + dx, baseline: baseline + dy, color: halo, strength: dx != 0 && dy != 0 ? 0.5 : 0.9)
            }
        }
        pen(text, into: &image, x: x, baseline: baseline, color: color, strength: 1)
    }

    private func pen(_ text: String, into image: inout RGBAImage, x: Int, baseline: Int, color: UInt32, strength: Float) {
        let r = Float(color >> 16 & 0xFF), g = Float(color >> 8 & 0xFF), b = Float(color & 0xFF)
        var penX = x
        for scalar in text.unicodeScalars {
            guard let glyph = glyph(scalar) else { continue }
            let left = penX + glyph.left, top = baseline - glyph.top
            for row in 0..<glyph.rows {
                let y = top + row
                guard y >= 0 && y < image.height else { continue }
                for col in 0..<glyph.width {
                    let px = left + col
                    guard px >= 0 && px < image.width else { continue }
                    let coverage = Float(glyph.coverage[row * glyph.width + col]) / 255 * strength
                    if coverage == 0 { continue }
                    let i = (y * image.width + px) * 4
                    let da = Float(image.pixels[i + 3]) / 255
                    let outA = coverage + da * (1 - coverage)
                    func mix(_ src: Float, _ dst: UInt8) -> UInt8 {
                        UInt8(min(255, ((src * coverage + Float(dst) * da * (1 - coverage)) / max(outA, 1e-6)).rounded()))
                    }
                    image.pixels[i] = mix(r, image.pixels[i])
                    image.pixels[i + 1] = mix(g, image.pixels[i + 1])
                    image.pixels[i + 2] = mix(b, image.pixels[i + 2])
                    image.pixels[i + 3] = UInt8(min(255, (outA * 255).rounded()))
                }
            }
            penX += glyph.advance
        }
    }
}

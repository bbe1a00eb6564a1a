import CFreeType
import Foundation
import Core
import Imaging

/// Text set with FreeType from a font file, drawn onto images: crisp at any pixel size because
/// each size is rasterized from the outlines, not scaled from a bitmap.
///
/// Sendable without the checker's proof: FreeType's library and face are C handles, and every use
/// of them, and of the glyph cache, is behind `lock` (FreeType's objects are not thread-safe).
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

    /// A face of DejaVu Sans: upright or oblique, book or bold.
    public enum Face: Int, Sendable, Hashable, CaseIterable {
        case regular, bold, oblique, boldOblique

        public init(bold: Bool, italic: Bool) {
            self = bold ? (italic ? .boldOblique : .bold) : (italic ? .oblique : .regular)
        }

        var file: String {
            switch self {
            case .regular: return "fonts/DejaVuSans.ttf"
            case .bold: return "fonts/DejaVuSans-Bold.ttf"
            case .oblique: return "fonts/DejaVuSans-Oblique.ttf"
            case .boldOblique: return "fonts/DejaVuSans-BoldOblique.ttf"
            }
        }
    }

    /// DejaVu Sans in `face`, shipped in `Assets/fonts` with its license.
    public static func standard(pixelSize: Int, face: Face = .regular) throws -> Font {
        try Font(path: Resources.asset(face.file).path, pixelSize: pixelSize)
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
        stamp(text, color: color, halo: halo).draw(into: &image, x: x, baseline: baseline)
    }

    /// `text` in `color` with its `halo`, set as one layer to lay over pictures (a front end makes
    /// a map's stamps while the drawing thread is still busy, and keeps them with the map's scene).
    public func stamp(_ text: String, color: UInt32, halo: UInt32? = nil) -> TextStamp {
        lock.lock()
        defer { lock.unlock() }
        return makeStamp(text, color: color, halo: halo)
    }

    /// The rims (eight passes one pixel off, at 0.9 beside and 0.5 across) and the letters as one
    /// layer: layers of one color laid over each other are that color with alpha 1 - (1 - a1)(1 - a2)...,
    /// and the letters are laid over the rims, so one blend gives what nine passes over the picture
    /// would (call with the lock held).
    private func makeStamp(_ text: String, color: UInt32, halo: UInt32?) -> TextStamp {
        var placed: [(glyph: Glyph, x: Int)] = []
        var penX = 0
        for scalar in text.unicodeScalars {
            guard let g = glyph(scalar) else { continue }
            placed.append((g, penX + g.left))
            penX += g.advance
        }
        let rim = halo == nil ? 0 : 1
        var minX = Int.max, maxX = Int.min, minY = Int.max, maxY = Int.min
        for (g, x) in placed where g.width > 0 && g.rows > 0 {
            minX = min(minX, x - rim); maxX = max(maxX, x + g.width + rim)
            minY = min(minY, -g.top - rim); maxY = max(maxY, -g.top + g.rows + rim)
        }
        guard minX < maxX, minY < maxY else { return TextStamp(left: 0, top: 0, width: 0, height: 0, pixels: []) }
        let w = maxX - minX, h = maxY - minY
        // What each layer leaves of what lies under it (1 - alpha), letters and rims apart.
        var letters = [Float](repeating: 1, count: w * h)
        var rims = [Float](repeating: 1, count: w * h)
        func lay(_ keep: inout [Float], dx: Int, dy: Int, strength: Float) {
            for (g, x) in placed {
                for row in 0..<g.rows {
                    let base = (-g.top + row + dy - minY) * w + (x + dx - minX)
                    for col in 0..<g.width {
                        let c = g.coverage[row * g.width + col]
                        if c != 0 { keep[base + col] *= 1 - Float(c) / 255 * strength }
                    }
                }
            }
        }
        if halo != nil {
            for (dx, dy) in [(-1, 0), (1, 0), (0, -1), (0, 1), (-1, -1), (1, 1), (-1, 1), (1, -1)] {
                lay(&rims, dx: dx, dy: dy, strength: dx != 0 && dy != 0 ? 0.5 : 0.9)
            }
        }
        lay(&letters, dx: 0, dy: 0, strength: 1)
        let t = SIMD3<Float>(Float(color >> 16 & 0xFF), Float(color >> 8 & 0xFF), Float(color & 0xFF))
        let hc = halo.map { SIMD3<Float>(Float($0 >> 16 & 0xFF), Float($0 >> 8 & 0xFF), Float($0 & 0xFF)) } ?? .zero
        var pixels = [UInt8](repeating: 0, count: w * h * 4)
        for i in 0..<(w * h) {
            let at = 1 - letters[i], ah = 1 - rims[i]
            let alpha = at + (1 - at) * ah
            guard alpha > 0 else { continue }
            let premultiplied = t * at + hc * ((1 - at) * ah)
            pixels[4 * i] = UInt8(min(255, premultiplied.x.rounded()))
            pixels[4 * i + 1] = UInt8(min(255, premultiplied.y.rounded()))
            pixels[4 * i + 2] = UInt8(min(255, premultiplied.z.rounded()))
            pixels[4 * i + 3] = UInt8(min(255, (alpha * 255).rounded()))
        }
        return TextStamp(left: minX, top: minY, width: w, height: h, pixels: pixels)
    }
}

/// A line of text set once, letters and rims together, premultiplied RGBA: drawn anywhere by one
/// blend a pixel.
public struct TextStamp: Sendable {
    /// Where its top left pixel lies from the pen's start on the baseline.
    public let left: Int
    public let top: Int
    public let width: Int
    public let height: Int
    let pixels: [UInt8]

    /// Lays the stamp over `image` with the pen at (`x`, `baseline`).
    public func draw(into image: inout RGBAImage, x: Int, baseline: Int) {
        let x0 = x + left, y0 = baseline + top
        let firstCol = max(0, -x0), endCol = min(width, image.width - x0)
        let firstRow = max(0, -y0), endRow = min(height, image.height - y0)
        guard firstCol < endCol, firstRow < endRow else { return }
        let imageWidth = image.width
        image.pixels.withUnsafeMutableBufferPointer { out in
            pixels.withUnsafeBufferPointer { src in
                for row in firstRow..<endRow {
                    var s = (row * width + firstCol) * 4
                    var d = ((y0 + row) * imageWidth + x0 + firstCol) * 4
                    for _ in firstCol..<endCol {
                        let a = UInt32(src[s + 3])
                        if a == 255 {
                            out[d] = src[s]; out[d + 1] = src[s + 1]; out[d + 2] = src[s + 2]; out[d + 3] = 255
                        } else if a != 0 {
                            let da = UInt32(out[d + 3])
                            if da == 255 {
                                // Over an opaque pixel: P + (1 - a) dst.
                                let k = 255 - a
                                out[d] = UInt8(min(255, UInt32(src[s]) + (k * UInt32(out[d]) + 127) / 255))
                                out[d + 1] = UInt8(min(255, UInt32(src[s + 1]) + (k * UInt32(out[d + 1]) + 127) / 255))
                                out[d + 2] = UInt8(min(255, UInt32(src[s + 2]) + (k * UInt32(out[d + 2]) + 127) / 255))
                            } else {
                                let fa = Float(a) / 255, fd = Float(da) / 255
                                let outA = fa + fd * (1 - fa)
                                for c in 0..<3 {
                                    let v = (Float(src[s + c]) + Float(out[d + c]) * fd * (1 - fa)) / max(outA, 1e-6)
                                    out[d + c] = UInt8(min(255, v.rounded()))
                                }
                                out[d + 3] = UInt8(min(255, (outA * 255).rounded()))
                            }
                        }
                        s += 4
                        d += 4
                    }
                }
            }
        }
    }
}

import Core
import Foundation
import Graphics
import Imaging
import Text

/// Writes captions across the bottom of frames, in lines, dark on a light background and light on
/// a dark one. Keeps its font between frames; a lock lets frames be finished on several threads.
final class CaptionWriter: Sendable {
    private let background: Color
    /// The font of the last size asked for.
    private let kept = Locked<Font?>(nil)

    init(background: Color) { self.background = background }

    func draw(_ text: String, on image: inout RGBAImage) throws {
        let size = max(11, min(image.width, image.height) / 18)
        let font = try kept.withLock { (f: inout Font?) throws -> Font in
            if f == nil || f!.pixelSize != size { f = try Font.standard(pixelSize: size) }
            return f!
        }
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            let candidate = line.isEmpty ? String(word) : line + " " + word
            if font.width(of: candidate) > image.width - 2 * size && !line.isEmpty {
                lines.append(line)
                line = String(word)
            } else {
                line = candidate
            }
        }
        if !line.isEmpty { lines.append(line) }
        let bg = background
        let dark = bg.alpha < 0.5 || (bg.red + bg.green + bg.blue) > 1.5
        let color: UInt32 = dark ? 0x1A1A1A : 0xF2F2F2
        let lineHeight = font.ascent + font.descent + size / 4
        var baseline = image.height - size / 2 - font.descent - (lines.count - 1) * lineHeight
        for l in lines {
            let fitted = font.fitted(l, maxWidth: image.width - 4)
            font.draw(fitted, into: &image, x: (image.width - font.width(of: fitted)) / 2, baseline: baseline, color: color)
            baseline += lineHeight
        }
    }
}

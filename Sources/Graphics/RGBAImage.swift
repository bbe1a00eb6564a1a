/// An 8-bit RGBA image in memory, top row first, straight (not premultiplied) alpha.
public struct RGBAImage: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public var pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height * 4)
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    public init(width: Int, height: Int, fill: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0)) {
        self.width = width
        self.height = height
        var p = [UInt8](repeating: 0, count: width * height * 4)
        for i in stride(from: 0, to: p.count, by: 4) {
            p[i] = fill.0; p[i + 1] = fill.1; p[i + 2] = fill.2; p[i + 3] = fill.3
        }
        pixels = p
    }

    @inline(__always)
    public func pixel(_ x: Int, _ y: Int) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        let i = (y * width + x) * 4
        return (pixels[i], pixels[i + 1], pixels[i + 2], pixels[i + 3])
    }

    /// From rows read bottom-up (as glReadPixels gives them), averaging `factor` x `factor`
    /// blocks of a supersampled image. Colors are averaged weighted by alpha, so that edges
    /// against a transparent background do not darken.
    public static func downsampled(bottomUp source: UnsafeBufferPointer<UInt8>, width: Int, height: Int, factor: Int) -> RGBAImage {
        let outWidth = width / factor, outHeight = height / factor
        var out = [UInt8](repeating: 0, count: outWidth * outHeight * 4)
        out.withUnsafeMutableBufferPointer { dst in
            if factor == 1 {
                for y in 0..<outHeight {
                    let from = (height - 1 - y) * width * 4
                    let to = y * outWidth * 4
                    dst.baseAddress!.advanced(by: to).update(from: source.baseAddress!.advanced(by: from), count: outWidth * 4)
                }
                return
            }
            let n = UInt32(factor * factor)
            for y in 0..<outHeight {
                for x in 0..<outWidth {
                    var r: UInt32 = 0, g: UInt32 = 0, b: UInt32 = 0, a: UInt32 = 0
                    for sy in 0..<factor {
                        let row = (height - 1 - (y * factor + sy)) * width
                        var i = (row + x * factor) * 4
                        for _ in 0..<factor {
                            let alpha = UInt32(source[i + 3])
                            r += UInt32(source[i]) * alpha
                            g += UInt32(source[i + 1]) * alpha
                            b += UInt32(source[i + 2]) * alpha
                            a += alpha
                            i += 4
                        }
                    }
                    let o = (y * outWidth + x) * 4
                    if a > 0 {
                        dst[o] = UInt8((r + a / 2) / a)
                        dst[o + 1] = UInt8((g + a / 2) / a)
                        dst[o + 2] = UInt8((b + a / 2) / a)
                    }
                    dst[o + 3] = UInt8((a + n / 2) / n)
                }
            }
        }
        return RGBAImage(width: outWidth, height: outHeight, pixels: out)
    }
}

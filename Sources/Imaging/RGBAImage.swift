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

    /// True when every pixel has alpha 255.
    public var isOpaque: Bool {
        pixels.withUnsafeBytes { raw in
            let words = raw.bindMemory(to: UInt32.self)
            var all: UInt32 = 0xFF00_0000
            for w in words { all &= w }
            return all == 0xFF00_0000
        }
    }

    @inline(__always)
    public func pixel(_ x: Int, _ y: Int) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        let i = (y * width + x) * 4
        return (pixels[i], pixels[i + 1], pixels[i + 2], pixels[i + 3])
    }

    /// The image of samples read bottom-up (as glReadPixels gives them), `factor` x `factor`
    /// samples a pixel: turned over where there is one, averaged where there are more.
    public static func fromBottomUp(_ source: UnsafeBufferPointer<UInt8>, width: Int, height: Int, factor: Int) -> RGBAImage {
        if factor >= 2 { return downsampled(bottomUp: source, width: width, height: height, factor: factor) }
        var pixels = Array(source)
        pixels.withUnsafeMutableBufferPointer { flipRows($0, width: width, height: height) }
        return RGBAImage(width: width, height: height, pixels: pixels)
    }

    /// Turns RGBA rows over in place (bottom row first to top row first, or back).
    public static func flipRows(_ buffer: UnsafeMutableBufferPointer<UInt8>, width: Int, height: Int) {
        let rowBytes = width * 4
        let row = UnsafeMutablePointer<UInt8>.allocate(capacity: rowBytes)
        defer { row.deallocate() }
        for y in 0..<(height / 2) {
            let top = buffer.baseAddress! + y * rowBytes, bottom = buffer.baseAddress! + (height - 1 - y) * rowBytes
            row.update(from: top, count: rowBytes)
            top.update(from: bottom, count: rowBytes)
            bottom.update(from: row, count: rowBytes)
        }
    }

    /// From rows read bottom-up (as glReadPixels gives them), averaging `factor` x `factor`
    /// blocks of a supersampled image. Colors are averaged weighted by alpha, so that edges
    /// against a transparent background do not darken.
    public static func downsampled(bottomUp source: UnsafeBufferPointer<UInt8>, width: Int, height: Int, factor: Int) -> RGBAImage {
        precondition(factor >= 2, "one sample a pixel is read without averaging")
        let outWidth = width / factor, outHeight = height / factor
        var out = [UInt8](repeating: 0, count: outWidth * outHeight * 4)
        out.withUnsafeMutableBufferPointer { dst in
            if factor == 2 {
                downsampleByTwo(source.baseAddress!, width: width, height: height, into: dst.baseAddress!)
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

    /// The 2x2 case, the default: four samples a pixel summed as vectors; where all four are
    /// opaque the alpha weights cancel and a plain average is exact.
    private static func downsampleByTwo(_ source: UnsafePointer<UInt8>, width: Int, height: Int, into dst: UnsafeMutablePointer<UInt8>) {
        let outWidth = width / 2, outHeight = height / 2
        let rowBytes = width * 4
        for y in 0..<outHeight {
            let row0 = source + (height - 1 - 2 * y) * rowBytes
            let row1 = source + (height - 2 - 2 * y) * rowBytes
            var o = dst + y * outWidth * 4
            var i = 0
            for _ in 0..<outWidth {
                let p0 = SIMD4<UInt32>(truncatingIfNeeded: UnsafeRawPointer(row0 + i).loadUnaligned(as: SIMD4<UInt8>.self))
                let p1 = SIMD4<UInt32>(truncatingIfNeeded: UnsafeRawPointer(row0 + i + 4).loadUnaligned(as: SIMD4<UInt8>.self))
                let p2 = SIMD4<UInt32>(truncatingIfNeeded: UnsafeRawPointer(row1 + i).loadUnaligned(as: SIMD4<UInt8>.self))
                let p3 = SIMD4<UInt32>(truncatingIfNeeded: UnsafeRawPointer(row1 + i + 4).loadUnaligned(as: SIMD4<UInt8>.self))
                let a = p0.w + p1.w + p2.w + p3.w
                if a == 4 * 255 {
                    let sum = p0 &+ p1 &+ p2 &+ p3 &+ SIMD4(repeating: 2)
                    o[0] = UInt8(truncatingIfNeeded: sum.x / 4)
                    o[1] = UInt8(truncatingIfNeeded: sum.y / 4)
                    o[2] = UInt8(truncatingIfNeeded: sum.z / 4)
                    o[3] = 255
                } else if a > 0 {
                    let weighted = p0 &* p0.w &+ p1 &* p1.w &+ p2 &* p2.w &+ p3 &* p3.w
                    o[0] = UInt8(truncatingIfNeeded: (weighted.x + a / 2) / a)
                    o[1] = UInt8(truncatingIfNeeded: (weighted.y + a / 2) / a)
                    o[2] = UInt8(truncatingIfNeeded: (weighted.z + a / 2) / a)
                    o[3] = UInt8(truncatingIfNeeded: (a + 2) / 4)
                } else {
                    o[0] = 0; o[1] = 0; o[2] = 0; o[3] = 0
                }
                o += 4
                i += 8
            }
        }
    }
}

/// The largest picture side anything here draws or makes (GL's framebuffers, the ray caster,
/// every request's `size`): one number, GL-free, so that requests can be checked without GL.
public enum PictureBounds {
    public static let maximumSide = 8192
}

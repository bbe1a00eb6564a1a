/// Shrinking a picture by any factor with an area filter: each output pixel is the mean of the
/// source area it covers (fractional pixels weighted by how much of them it covers), in
/// premultiplied alpha so that transparent edges do not darken. What a 200 px image made from an
/// 800 px one needs: no aliasing (a nearest or bilinear pick of every fourth pixel shimmers), no
/// blur past the pixel.
extension RGBAImage {
    public func shrunk(width w: Int, height h: Int) -> RGBAImage {
        guard w > 0, h > 0, w <= width, h <= height, w != width || h != height else { return self }
        // Per axis: for each output index, the source indices it covers and their weights.
        func spans(_ from: Int, _ to: Int) -> [[(Int, Float)]] {
            let scale = Double(from) / Double(to)
            return (0..<to).map { i in
                let a = Double(i) * scale, b = Double(i + 1) * scale
                var out: [(Int, Float)] = []
                var s = Int(a)
                while Double(s) < b && s < from {
                    let cover = min(b, Double(s + 1)) - max(a, Double(s))
                    if cover > 1e-9 { out.append((s, Float(cover / scale))) }
                    s += 1
                }
                return out
            }
        }
        let xs = spans(width, w), ys = spans(height, h)
        // Rows first: premultiplied sums of each source row into w columns.
        var rows = [Float](repeating: 0, count: height * w * 4)
        pixels.withUnsafeBufferPointer { p in
            for y in 0..<height {
                for (ox, span) in xs.enumerated() {
                    var r: Float = 0, g: Float = 0, b: Float = 0, a: Float = 0
                    for (sx, weight) in span {
                        let i = (y * width + sx) * 4
                        let alpha = Float(p[i + 3]) * weight
                        r += Float(p[i]) * alpha
                        g += Float(p[i + 1]) * alpha
                        b += Float(p[i + 2]) * alpha
                        a += alpha
                    }
                    let o = (y * w + ox) * 4
                    rows[o] = r
                    rows[o + 1] = g
                    rows[o + 2] = b
                    rows[o + 3] = a
                }
            }
        }
        var out = [UInt8](repeating: 0, count: w * h * 4)
        for (oy, span) in ys.enumerated() {
            for x in 0..<w {
                var r: Float = 0, g: Float = 0, b: Float = 0, a: Float = 0
                for (sy, weight) in span {
                    let i = (sy * w + x) * 4
                    r += rows[i] * weight
                    g += rows[i + 1] * weight
                    b += rows[i + 2] * weight
                    a += rows[i + 3] * weight
                }
                let o = (oy * w + x) * 4
                if a > 0 {
                    out[o] = UInt8(max(0, min(255, (r / a).rounded())))
                    out[o + 1] = UInt8(max(0, min(255, (g / a).rounded())))
                    out[o + 2] = UInt8(max(0, min(255, (b / a).rounded())))
                }
                out[o + 3] = UInt8(max(0, min(255, a.rounded())))
            }
        }
        return RGBAImage(width: w, height: h, pixels: out)
    }
}

/// Enlarging a picture by any factor, bilinearly, in premultiplied alpha (a transparent
/// neighbour does not darken an edge): what a live view's frame drawn at a fraction of its size
/// while the view moves needs to be shown at full size.
extension RGBAImage {
    public func enlarged(width w: Int, height h: Int) -> RGBAImage {
        guard w > 0, h > 0, width > 0, height > 0, w >= width, h >= height, w != width || h != height else { return self }
        // Per axis: each output index's two source indices and the second's weight (pixel centres aligned).
        func taps(_ from: Int, _ to: Int) -> [(Int, Int, Float)] {
            let scale = Double(from) / Double(to)
            return (0..<to).map { i in
                let s = max(0, min(Double(from - 1), (Double(i) + 0.5) * scale - 0.5))
                let a = Int(s)
                return (a, min(a + 1, from - 1), Float(s - Double(a)))
            }
        }
        let xs = taps(width, w), ys = taps(height, h)
        var out = [UInt8](repeating: 0, count: w * h * 4)
        pixels.withUnsafeBufferPointer { p in
            out.withUnsafeMutableBufferPointer { o in
                for (oy, (y0, y1, fy)) in ys.enumerated() {
                    let row0 = y0 * width * 4, row1 = y1 * width * 4
                    for (ox, (x0, x1, fx)) in xs.enumerated() {
                        let w00 = (1 - fx) * (1 - fy), w10 = fx * (1 - fy), w01 = (1 - fx) * fy, w11 = fx * fy
                        let i00 = row0 + x0 * 4, i10 = row0 + x1 * 4, i01 = row1 + x0 * 4, i11 = row1 + x1 * 4
                        let a00 = Float(p[i00 + 3]) * w00, a10 = Float(p[i10 + 3]) * w10
                        let a01 = Float(p[i01 + 3]) * w01, a11 = Float(p[i11 + 3]) * w11
                        let alpha = a00 + a10 + a01 + a11
                        let d = (oy * w + ox) * 4
                        guard alpha > 0 else { continue }
                        for c in 0..<3 {
                            let v = (Float(p[i00 + c]) * a00 + Float(p[i10 + c]) * a10 + Float(p[i01 + c]) * a01 + Float(p[i11 + c]) * a11) / alpha
                            o[d + c] = UInt8(min(255, max(0, v.rounded())))
                        }
                        o[d + 3] = UInt8(min(255, max(0, alpha.rounded())))
                    }
                }
            }
        }
        return RGBAImage(width: w, height: h, pixels: out)
    }
}

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
        if let opaque = enlargedOpaque(w, h, xs, ys) { return opaque }
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

    /// A wholly opaque picture (a live frame on a coloured background), enlarged in integers: the
    /// weights in 1/256ths, no alpha to divide by. Nil where a pixel is not opaque. Within one
    /// level of the float blend.
    private func enlargedOpaque(_ w: Int, _ h: Int, _ xs: [(Int, Int, Float)], _ ys: [(Int, Int, Float)]) -> RGBAImage? {
        let opaque = pixels.withUnsafeBufferPointer { p in
            var all: UInt8 = 255
            for i in stride(from: 3, to: p.count, by: 4) { all &= p[i] }
            return all == 255
        }
        guard opaque else { return nil }
        if w == 2 * width && h == 2 * height { return doubledOpaque() }
        let wx = xs.map { (x0: $0.0 * 4, x1: $0.1 * 4, f: UInt32(($0.2 * 256).rounded())) }
        var out = [UInt8](repeating: 255, count: w * h * 4)
        pixels.withUnsafeBufferPointer { p in
            out.withUnsafeMutableBufferPointer { o in
                for (oy, (y0, y1, fy)) in ys.enumerated() {
                    let row0 = y0 * width * 4, row1 = y1 * width * 4
                    let gy = UInt32((fy * 256).rounded()), hy = 256 - gy
                    var d = oy * w * 4
                    for t in wx {
                        let gx = t.f, hx = 256 - gx
                        for c in 0..<3 {
                            let top = UInt32(p[row0 + t.x0 + c]) * hx + UInt32(p[row0 + t.x1 + c]) * gx
                            let bottom = UInt32(p[row1 + t.x0 + c]) * hx + UInt32(p[row1 + t.x1 + c]) * gx
                            o[d + c] = UInt8((top * hy + bottom * gy + 32768) >> 16)
                        }
                        d += 4
                    }
                }
            }
        }
        return RGBAImage(width: w, height: h, pixels: out)
    }

    /// An opaque picture at twice its size: each output pixel a quarter of the way from its source
    /// pixel to the neighbours on its side (weights 9, 3, 3 and 1 sixteenths; the edges clamped),
    /// as the general blend gives for this factor.
    private func doubledOpaque() -> RGBAImage {
        let w = 2 * width, h = 2 * height
        var out = [UInt8](repeating: 255, count: w * h * 4)
        pixels.withUnsafeBufferPointer { p in
            out.withUnsafeMutableBufferPointer { o in
                for oy in 0..<h {
                    // Output row oy: source rows y (weight 3) and its neighbour toward oy's side (weight 1).
                    let y = oy >> 1, yn = oy & 1 == 0 ? max(y - 1, 0) : min(y + 1, height - 1)
                    let near = y * width * 4, far = yn * width * 4
                    var d = oy * w * 4
                    for x in 0..<width {
                        let left = max(x - 1, 0) * 4, here = x * 4, right = min(x + 1, width - 1) * 4
                        for c in 0..<3 {
                            // Columns blended down first (3 near : 1 far), then across.
                            let l = UInt32(p[near + left + c]) * 3 + UInt32(p[far + left + c])
                            let m = UInt32(p[near + here + c]) * 3 + UInt32(p[far + here + c])
                            let r = UInt32(p[near + right + c]) * 3 + UInt32(p[far + right + c])
                            o[d + c] = UInt8((m * 3 + l + 8) >> 4)
                            o[d + 4 + c] = UInt8((m * 3 + r + 8) >> 4)
                        }
                        d += 8
                    }
                }
            }
        }
        return RGBAImage(width: w, height: h, pixels: out)
    }
}

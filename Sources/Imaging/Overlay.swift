/// Marks drawn over a finished picture, antialiased by their distance to each pixel centre and laid
/// over what is there (source over, straight alpha): axis arrows now, labels and distance lines
/// of figures later.
extension RGBAImage {
    /// Lays `color` over pixel (x, y) with `coverage` (0...1).
    @inline(__always)
    public mutating func blend(_ x: Int, _ y: Int, _ color: (UInt8, UInt8, UInt8), _ coverage: Float) {
        guard coverage > 0, x >= 0, y >= 0, x < width, y < height else { return }
        let a = min(1, coverage)
        let i = (y * width + x) * 4
        let below = Float(pixels[i + 3]) / 255
        let out = a + below * (1 - a)
        guard out > 0 else { return }
        for (k, c) in [color.0, color.1, color.2].enumerated() {
            let v = (Float(c) * a + Float(pixels[i + k]) * below * (1 - a)) / out
            pixels[i + k] = UInt8(max(0, min(255, v.rounded())))
        }
        pixels[i + 3] = UInt8(max(0, min(255, (out * 255).rounded())))
    }

    /// A line `width` pixels wide from `a` to `b` (pixel coordinates, y down), round-ended.
    public mutating func line(from a: SIMD2<Float>, to b: SIMD2<Float>, width stroke: Float, color: (UInt8, UInt8, UInt8)) {
        let half = stroke / 2
        guard a.x.isFinite, a.y.isFinite, b.x.isFinite, b.y.isFinite, half.isFinite else { return }
        let lo = SIMD2(min(a.x, b.x), min(a.y, b.y)) - half - 1, hi = SIMD2(max(a.x, b.x), max(a.y, b.y)) + half + 1
        // Wholly outside the picture: nothing to draw (and no empty range to walk).
        guard hi.x >= 0, hi.y >= 0, lo.x < Float(width), lo.y < Float(height) else { return }
        let d = b - a, l2 = max((d * d).sum(), 1e-6)
        // Clamped to the picture before converting: a mark reaching far outside must not trap.
        let y0 = Int(max(0, lo.y)), y1 = Int(max(0, min(Float(height - 1), hi.y)))
        let x0 = Int(max(0, lo.x)), x1 = Int(max(0, min(Float(width - 1), hi.x)))
        for y in y0...max(y0, y1) {
            for x in x0...max(x0, x1) {
                let p = SIMD2(Float(x) + 0.5, Float(y) + 0.5)
                let t = max(0, min(1, ((p - a) * d).sum() / l2))
                let q = a + d * t - p
                blend(x, y, color, half + 0.5 - (q * q).sum().squareRoot())
            }
        }
    }

    /// A dashed line: dashes `dash` pixels long with `gap` between them, from `a`; only the part
    /// inside the picture is walked (a segment from an atom far outside a zoomed view still shows
    /// where it crosses it). Segments of ten million pixels or more are not drawn: so far out, the
    /// dashes cannot be placed to a pixel.
    public mutating func dashedLine(from a: SIMD2<Float>, to b: SIMD2<Float>, width stroke: Float, dash: Float, gap: Float,
                                    color: (UInt8, UInt8, UInt8)) {
        let d = b - a, length = (d * d).sum().squareRoot()
        guard length.isFinite, length > 0, length < 1e7, a.x.isFinite, a.y.isFinite, dash > 0, gap >= 0 else { return }
        let unit = d / length, period = dash + gap, room = stroke + 1
        // The stretch [t0, t1] of the segment inside the picture and a stroke around it (Liang-Barsky).
        var t0: Float = 0, t1 = length
        for (p, q) in [(-unit.x, a.x + room), (unit.x, Float(width) + room - a.x), (-unit.y, a.y + room), (unit.y, Float(height) + room - a.y)] {
            if p == 0 {
                if q < 0 { return }
            } else if p < 0 {
                t0 = max(t0, q / p)
            } else {
                t1 = min(t1, q / p)
            }
        }
        guard t0 < t1 else { return }
        // Dashes keep their places along the whole segment: the first is the one t0 falls in.
        var t = (t0 / period).rounded(.down) * period
        while t < t1 {
            line(from: a + unit * t, to: a + unit * min(t + dash, length), width: stroke, color: color)
            t += period
        }
    }

    /// A filled triangle (pixel coordinates, y down), its edges antialiased.
    public mutating func triangle(_ p0: SIMD2<Float>, _ p1: SIMD2<Float>, _ p2: SIMD2<Float>, color: (UInt8, UInt8, UInt8)) {
        let ps = [p0, p1, p2]
        let area = (p1.x - p0.x) * (p2.y - p0.y) - (p1.y - p0.y) * (p2.x - p0.x)
        guard abs(area) > 1e-3 else { return }
        let sign: Float = area > 0 ? 1 : -1
        let lo = SIMD2(ps.map(\.x).min()!, ps.map(\.y).min()!) - 1, hi = SIMD2(ps.map(\.x).max()!, ps.map(\.y).max()!) + 1
        // Clamped to the picture before converting: a mark reaching far outside must not trap.
        let y0 = Int(max(0, lo.y)), y1 = Int(max(0, min(Float(height - 1), hi.y)))
        let x0 = Int(max(0, lo.x)), x1 = Int(max(0, min(Float(width - 1), hi.x)))
        for y in y0...max(y0, y1) {
            for x in x0...max(x0, x1) {
                let p = SIMD2(Float(x) + 0.5, Float(y) + 0.5)
                // Signed distance inside each edge; the least of the three, plus half a pixel.
                var inside = Float.greatestFiniteMagnitude
                for k in 0..<3 {
                    let a = ps[k], b = ps[(k + 1) % 3], e = b - a
                    let n = SIMD2(-e.y, e.x) * sign / max((e * e).sum().squareRoot(), 1e-6)
                    inside = min(inside, ((p - a) * n).sum())
                }
                blend(x, y, color, inside + 0.5)
            }
        }
    }

    /// A filled disc (`ring`: only its rim, `width` wide).
    public mutating func disc(at c: SIMD2<Float>, radius: Float, color: (UInt8, UInt8, UInt8), ring rim: Float? = nil) {
        for y in max(0, Int(c.y - radius - 1))...max(0, min(height - 1, Int(c.y + radius + 1))) {
            for x in max(0, Int(c.x - radius - 1))...max(0, min(width - 1, Int(c.x + radius + 1))) {
                let p = SIMD2(Float(x) + 0.5, Float(y) + 0.5) - c
                let r = (p * p).sum().squareRoot()
                let coverage = rim.map { $0 / 2 + 0.5 - abs(r - (radius - $0 / 2)) } ?? radius + 0.5 - r
                blend(x, y, color, coverage)
            }
        }
    }

    /// Three axis arrows in the bottom left corner, x red, y green, z blue: `directions` are where
    /// each axis points on the screen (x right, y up, z towards the viewer, unit length). An axis
    /// seen end on is a disc (towards the viewer) or a ring (away); those pointing away are drawn
    /// first. Sized to the picture: about a tenth of its shorter side, so a shrunk copy keeps them.
    public mutating func axisArrows(_ directions: [SIMD3<Float>]) {
        let side = Float(min(width, height))
        let length = max(12, side * 0.09), stroke = max(1.5, side / 220), head = max(5, side / 45)
        let origin = SIMD2(side * 0.04 + length, Float(height) - side * 0.04 - length)
        let colors: [(UInt8, UInt8, UInt8)] = [(220, 40, 40), (30, 160, 50), (40, 80, 230)]
        for k in directions.indices.sorted(by: { directions[$0].z < directions[$1].z }) {
            let d = directions[k], flat = SIMD2(d.x, -d.y)
            let seen = (flat * flat).sum().squareRoot()
            if seen < 0.25 {
                disc(at: origin, radius: head * 0.8, color: colors[k], ring: d.z > 0 ? nil : stroke)
                continue
            }
            let tip = origin + flat * length, along = flat / seen, across = SIMD2(-along.y, along.x)
            let base = tip - along * min(head * 1.6, seen * length * 0.6)
            line(from: origin, to: base, width: stroke, color: colors[k])
            triangle(tip, base + across * head * 0.6, base - across * head * 0.6, color: colors[k])
        }
    }
}

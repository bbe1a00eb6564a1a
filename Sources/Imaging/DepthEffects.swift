import Core
/// Depth cues drawn from a picture's depth buffer after drawing, on the CPU: silhouette outlines
/// where depth jumps, and screen-space ambient occlusion (crevices and contacts darkened by the
/// nearer surfaces around them). Measured on llvmpipe, this costs less than a second GPU pass
/// over a depth texture would (a full-screen pass is shaded at llvmpipe's fill rate, and the
/// CPU work runs at memory speed on rows that are already read back).
public struct DepthEffects: Sendable, Equatable {
    /// Outline width in output pixels; 0 draws none.
    public var outline: Float = 0
    /// How dark fully occluded surfaces get, 0 (off) to 1.
    public var occlusion: Float = 0
    /// How far around a point occluders count, in world units (Å).
    public var occlusionRadius: Float = 5
    /// The smallest depth gap, in world units, that counts as occluding: an atom's own curve rises
    /// at most its radius above its rim, so gaps below about an atom's radius mostly come from the
    /// same sphere and would darken every small atom's rim (and, blurred, the whole atom).
    public var occlusionBias: Float = 1.5
    /// The smallest depth jump, in world units, that makes an outline.
    public var outlineJump: Float = 5
    public var outlineColor: SIMD3<Float> = SIMD3(0.08, 0.08, 0.08)

    public init(outline: Float = 0, occlusion: Float = 0) {
        self.outline = outline
        self.occlusion = occlusion
    }

    public var isEmpty: Bool { outline <= 0 && occlusion <= 0 }

    /// How window depths of a projection turn into distances from the eye.
    public struct Projection: Sendable {
        public var near: Float
        public var far: Float
        public var orthographic: Bool
        /// World units a drawn pixel spans at the scene's center.
        public var unitsPerPixel: Float

        public init(near: Float, far: Float, orthographic: Bool, unitsPerPixel: Float) {
            self.near = near
            self.far = far
            self.orthographic = orthographic
            self.unitsPerPixel = unitsPerPixel
        }

        /// Distance from the eye of window depth `d`, infinity for the cleared depth (background).
        @inline(__always) func distance(_ d: Float) -> Float {
            if d >= 1 { return .infinity }
            return orthographic ? near + d * (far - near) : near * far / (far - d * (far - near))
        }
    }

    /// Applies the effects to `pixels` (RGBA, `width` x `height`, rows in either order as long as
    /// `depth` has the same), drawn at `samples` pixels per output pixel side.
    public func apply(to pixels: UnsafeMutableBufferPointer<UInt8>, depth: UnsafeBufferPointer<Float>, width: Int, height: Int,
                      samples: Int, projection: Projection) {
        guard !isEmpty, width > 2, height > 2, depth.count >= width * height, pixels.count >= width * height * 4 else { return }
        let distance = [Float](unsafeUninitializedCapacity: width * height) { out, count in
            for i in 0..<(width * height) { out[i] = projection.distance(depth[i]) }
            count = width * height
        }
        distance.withUnsafeBufferPointer { distance in
            if occlusion > 0 { occlude(pixels.baseAddress!, distance.baseAddress!, width, height, projection) }
            if outline > 0 { outline(pixels.baseAddress!, distance.baseAddress!, width, height, samples) }
        }
    }

    /// Darkens each surface pixel by the share of points around it (a disc of `occlusionRadius`
    /// on screen) that lie nearer the eye within that radius: 16 samples a point on a spiral turned
    /// by a 4 x 4 pattern, then a box blur over 4 x 4 points that averages the pattern away
    /// (256 samples in all). Where the radius spans many pixels the points are every other pixel
    /// each way (a quarter of the work; the blur covers 8 x 8 pixels then), as a half-resolution
    /// pass would.
    private func occlude(_ pixels: UnsafeMutablePointer<UInt8>, _ distance: UnsafePointer<Float>, _ w: Int, _ h: Int,
                         _ projection: Projection) {
        let radiusPixels = min(max(occlusionRadius / max(projection.unitsPerPixel, 1e-6), 2), 48)
        let shift = radiusPixels >= 12 ? 1 : 0, stride = 1 << shift
        let range = occlusionRadius, inverseRange = 1 / occlusionRadius
        let bias = max(projection.unitsPerPixel * 0.5 + 0.05, occlusionBias)
        let count = 16 // a multiple of four (the inner loop's steps)
        // Offsets for each of the 16 turns of the pattern: dx, dy and the index step dy * w + dx.
        var dxs = [Int](repeating: 0, count: 16 * count), dys = dxs, steps = dxs
        var reach = 0
        for turn in 0..<16 {
            let base = Float(turn) * (2 * Float.pi / 16) * 0.618
            for k in 0..<count {
                let r = radiusPixels * ((Float(k) + 0.5) / Float(count)).squareRoot()
                let a = base + Float(k) * 2.3999632
                let dx = Int((r * cosine(a)).rounded()), dy = Int((r * sine(a)).rounded())
                dxs[turn * count + k] = dx
                dys[turn * count + k] = dy
                steps[turn * count + k] = dy * w + dx
                reach = max(reach, abs(dx), abs(dy))
            }
        }
        // Occlusion at the points (pixels whose x and y are multiples of the stride), -1 off the surface.
        let occ = UnsafeMutablePointer<Float>.allocate(capacity: w * h)
        defer { occ.deallocate() }
        dxs.withUnsafeBufferPointer { dxs in
            dys.withUnsafeBufferPointer { dys in
                steps.withUnsafeBufferPointer { steps in
                    for y in Swift.stride(from: 0, to: h, by: stride) {
                        let rowInside = y >= reach && y < h - reach
                        let turnRow = ((y >> shift) & 3) * 4
                        for x in Swift.stride(from: 0, to: w, by: stride) {
                            let i = y * w + x
                            let d = distance[i]
                            if !d.isFinite { occ[i] = -1; continue }
                            let first = (turnRow + ((x >> shift) & 3)) * count
                            var sum: Float = 0
                            if rowInside && x >= reach && x < w - reach {
                                // Every sample inside the picture: no bounds to check. Four samples'
                                // weights at once (max and min as Swift's, lane for lane), added in
                                // order: the same sum.
                                var k = first
                                while k < first + count {
                                    let gap = SIMD4(repeating: d) - SIMD4(distance[i + steps[k]], distance[i + steps[k + 1]],
                                                                           distance[i + steps[k + 2]], distance[i + steps[k + 3]])
                                    var weight = 2 - gap * inverseRange
                                    weight.replace(with: 0, where: 0 .>= weight)
                                    weight.replace(with: 1, where: 1 .< weight)
                                    weight.replace(with: 0, where: .!(gap .> bias))
                                    sum += weight[0]
                                    sum += weight[1]
                                    sum += weight[2]
                                    sum += weight[3]
                                    k += 4
                                }
                            } else {
                                for k in first..<(first + count) {
                                    let sx = x + dxs[k], sy = y + dys[k]
                                    if sx < 0 || sy < 0 || sx >= w || sy >= h { continue }
                                    let gap = d - distance[sy * w + sx]
                                    if gap > bias && gap < range * 2 { sum += gap < range ? 1 : 2 - gap / range }
                                }
                            }
                            occ[i] = sum / Float(count)
                        }
                    }
                }
            }
        }
        // Box blur over the 4 x 4 points nearest each pixel (the background neither darkens nor counts):
        // across the rows of points first, then down.
        let across = UnsafeMutablePointer<SIMD2<Float>>.allocate(capacity: w * h)
        defer { across.deallocate() }
        for y in Swift.stride(from: 0, to: h, by: stride) {
            let row = occ + y * w, out = across + y * w
            for x in 0..<w {
                // The first point at or after x - 2 * stride.
                var c = max(0, ((x - stride - 1) >> shift) << shift)
                var s = SIMD2<Float>(0, 0)
                while c < x + 2 * stride && c < w {
                    let v = row[c]
                    if v >= 0 { s += SIMD2(v, 1) }
                    c += stride
                }
                out[x] = s
            }
        }
        let strength = min(max(occlusion, 0), 1)
        for y in 0..<h {
            let first = max(0, ((y - stride - 1) >> shift) << shift)
            let last = min(y + 2 * stride, h)
            for x in 0..<w where distance[y * w + x].isFinite {
                var s = SIMD2<Float>(0, 0)
                var k = first
                while k < last {
                    s += across[k * w + x]
                    k += stride
                }
                let o = s.y > 0 ? s.x / s.y : 0
                let keep = 1 - strength * min(o * 1.6, 1)
                let p = pixels + (y * w + x) * 4
                p[0] = UInt8(Float(p[0]) * keep + 0.5)
                p[1] = UInt8(Float(p[1]) * keep + 0.5)
                p[2] = UInt8(Float(p[2]) * keep + 0.5)
            }
        }
    }

    /// Paints the outline color on pixels next to (within the outline width of) a pixel nearer
    /// the eye by more than `outlineJump`: the silhouette against the background and the edges
    /// where one part passes in front of another. Pixels on a smooth surface are left alone.
    /// The nearest distance over the disc comes from running minimums along the rows, one for
    /// each half-width the disc has, then a minimum of those down its rows.
    private func outline(_ pixels: UnsafeMutablePointer<UInt8>, _ distance: UnsafePointer<Float>, _ w: Int, _ h: Int,
                         _ samples: Int) {
        // Under one sample wide, a one-sample line at that fraction of the colour (a half-pixel
        // outline on a picture drawn at half size and enlarged weighs what one pixel does).
        let exact = outline * Float(samples)
        let reach = max(1, Int(exact.rounded())), strength = min(1, exact)
        // Half-width of the disc on each row dy (-reach...reach).
        var halfWidths: [Int] = []
        for dy in -reach...reach {
            var k = 0
            while (k + 1) * (k + 1) + dy * dy <= reach * reach + reach { k += 1 }
            halfWidths.append(k)
        }
        let widths = Array(Set(halfWidths)).sorted()
        // The nearest distance over the disc at each pixel, folded in one half-width at a time:
        // that width's row minimums (one buffer, reused), then their minimum down the disc's rows
        // of that width. Two pictures' worth of memory whatever the width (a buffer for each
        // width was 32 at 2 x 2 samples and 16 px, half a gigabyte at 1024 px).
        let nearest = UnsafeMutablePointer<Float>.allocate(capacity: w * h)
        let rowMinimum = UnsafeMutablePointer<Float>.allocate(capacity: w * h)
        defer {
            nearest.deallocate()
            rowMinimum.deallocate()
        }
        nearest.initialize(repeating: .infinity, count: w * h)
        for k in widths {
            // Past the request's deadline the outline is left unfinished; the step around it throws.
            if WorkDeadline.stopped { break }
            for y in 0..<h {
                let row = distance + y * w, o = rowMinimum + y * w
                for x in 0..<w {
                    var m = row[x]
                    for sx in max(0, x - k)...min(w - 1, x + k) { m = min(m, row[sx]) }
                    o[x] = m
                }
            }
            for (j, width) in halfWidths.enumerated() where width == k {
                let dy = j - reach, first = max(0, -dy), end = min(h, h - dy)
                guard first < end else { continue }
                for y in first..<end {
                    let from = rowMinimum + (y + dy) * w, to = nearest + y * w
                    for x in 0..<w { to[x] = min(to[x], from[x]) }
                }
            }
        }
        let color = outlineColor * 255
        let r = UInt8(color.x + 0.5), g = UInt8(color.y + 0.5), b = UInt8(color.z + 0.5)
        let jump = outlineJump
        for y in 0..<h {
            for x in 0..<w {
                let d = distance[y * w + x]
                if d - nearest[y * w + x] > jump {
                    let p = pixels + (y * w + x) * 4
                    if strength >= 1 {
                        p[0] = r; p[1] = g; p[2] = b; p[3] = 255
                    } else {
                        // Over the pixel as it is (premultiplied, so a transparent one takes the colour alone).
                        let keep = Float(p[3]) / 255 * (1 - strength), a = strength + keep
                        for (c, v) in [r, g, b].enumerated() {
                            p[c] = UInt8(((Float(v) * strength + Float(p[c]) * keep) / a).rounded())
                        }
                        p[3] = UInt8((a * 255).rounded())
                    }
                }
            }
        }
    }
}

@inline(__always) private func sine(_ x: Float) -> Float { Float(_sinDouble(Double(x))) }
@inline(__always) private func cosine(_ x: Float) -> Float { Float(_sinDouble(Double(x) + .pi / 2)) }

#if canImport(Glibc)
import Glibc
@inline(__always) private func _sinDouble(_ x: Double) -> Double { Glibc.sin(x) }
#else
import Darwin
@inline(__always) private func _sinDouble(_ x: Double) -> Double { Darwin.sin(x) }
#endif

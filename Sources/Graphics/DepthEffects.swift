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
        guard !isEmpty, width > 2, height > 2 else { return }
        var distance = [Float](repeating: .infinity, count: width * height)
        for i in 0..<(width * height) { distance[i] = projection.distance(depth[i]) }
        distance.withUnsafeBufferPointer { distance in
            if occlusion > 0 { occlude(pixels, distance, width, height, projection) }
            if outline > 0 { outline(pixels, distance, width, height, samples) }
        }
    }

    /// Darkens each surface pixel by the share of points around it (a disc of `occlusionRadius`
    /// on screen) that lie nearer the eye within that radius: 16 samples a pixel on a spiral
    /// turned by a 4 x 4 pattern, then a 4 x 4 box blur that averages the pattern away.
    private func occlude(_ pixels: UnsafeMutableBufferPointer<UInt8>, _ distance: UnsafeBufferPointer<Float>, _ w: Int, _ h: Int,
                         _ projection: Projection) {
        let radiusPixels = min(max(occlusionRadius / max(projection.unitsPerPixel, 1e-6), 2), 48)
        let range = occlusionRadius
        let bias = projection.unitsPerPixel * 0.5 + 0.05
        let count = 16
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
        var occ = [Float](repeating: 0, count: w * h)
        occ.withUnsafeMutableBufferPointer { occ in
            dxs.withUnsafeBufferPointer { dxs in
                dys.withUnsafeBufferPointer { dys in
                    steps.withUnsafeBufferPointer { steps in
                        for y in 0..<h {
                            let rowInside = y >= reach && y < h - reach
                            for x in 0..<w {
                                let i = y * w + x
                                let d = distance[i]
                                if !d.isFinite { continue }
                                let first = ((y & 3) * 4 + (x & 3)) * count
                                var sum: Float = 0
                                if rowInside && x >= reach && x < w - reach {
                                    // Every sample inside the picture: no bounds to check.
                                    for k in first..<(first + count) {
                                        let gap = d - distance[i + steps[k]]
                                        if gap > bias && gap < range * 2 { sum += gap < range ? 1 : 2 - gap / range }
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
        }
        // 4 x 4 box blur over surface pixels only (the background neither darkens nor is counted).
        var rows = [Float](repeating: 0, count: w * h), weights = [Float](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                var s: Float = 0, n: Float = 0
                for k in max(0, x - 2)...min(w - 1, x + 1) where distance[y * w + k].isFinite {
                    s += occ[y * w + k]
                    n += 1
                }
                rows[y * w + x] = s
                weights[y * w + x] = n
            }
        }
        let strength = min(max(occlusion, 0), 1)
        for y in 0..<h {
            for x in 0..<w where distance[y * w + x].isFinite {
                var s: Float = 0, n: Float = 0
                for k in max(0, y - 2)...min(h - 1, y + 1) {
                    s += rows[k * w + x]
                    n += weights[k * w + x]
                }
                let o = n > 0 ? s / n : 0
                let keep = 1 - strength * min(o * 1.6, 1)
                let p = (y * w + x) * 4
                for c in 0..<3 { pixels[p + c] = UInt8(Float(pixels[p + c]) * keep + 0.5) }
            }
        }
    }

    /// Paints the outline color on pixels next to (within the outline width of) a pixel nearer
    /// the eye by more than `outlineJump`: the silhouette against the background and the edges
    /// where one part passes in front of another. Pixels on a smooth surface are left alone.
    private func outline(_ pixels: UnsafeMutableBufferPointer<UInt8>, _ distance: UnsafeBufferPointer<Float>, _ w: Int, _ h: Int,
                         _ samples: Int) {
        let reach = max(1, Int((outline * Float(samples)).rounded()))
        var disc: [(Int, Int)] = []
        for dy in -reach...reach {
            for dx in -reach...reach where (dx != 0 || dy != 0) && dx * dx + dy * dy <= reach * reach + reach { disc.append((dx, dy)) }
        }
        let color = outlineColor * 255
        var marked = [Bool](repeating: false, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                let d = distance[y * w + x]
                for (dx, dy) in disc {
                    let sx = x + dx, sy = y + dy
                    if sx < 0 || sy < 0 || sx >= w || sy >= h { continue }
                    if d - distance[sy * w + sx] > outlineJump {
                        marked[y * w + x] = true
                        break
                    }
                }
            }
        }
        for i in 0..<(w * h) where marked[i] {
            pixels[i * 4] = UInt8(color.x + 0.5)
            pixels[i * 4 + 1] = UInt8(color.y + 0.5)
            pixels[i * 4 + 2] = UInt8(color.z + 0.5)
            pixels[i * 4 + 3] = 255
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

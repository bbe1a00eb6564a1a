import Dispatch

/// Antialiasing after the fact: smooths the stair-stepped edges of a picture drawn with one sample
/// a pixel, at a small fraction of the cost of drawing it supersampled.
///
/// For every pixel on an edge (a jump of brightness, or of opacity against a transparent
/// background) it finds which way the edge runs, follows it both ways to where the step ends, and
/// from where the pixel sits along that step works out how much of the pixel the other side
/// covers; the pixel is blended with its neighbour across the edge by that much. Isolated pixels
/// that stand out from all around them (features thinner than a pixel) are softened toward their
/// surroundings. Colors blend premultiplied, so edges against transparency do not darken.
public enum EdgeSmoothing {
    /// An edge is a change of at least this fraction of the local maximum...
    static let relativeThreshold: Float = 0.125
    /// ... and at least this much on the 0-255 scale.
    static let absoluteThreshold: Float = 10
    /// How far below a full blend isolated sub-pixel features stop.
    static let subpixelStrength: Float = 0.3
    /// How many steps the search along an edge takes each way (out to 24 pixels: one at a time
    /// for six, then wider).
    static let searchSteps = 11

    /// The smoothed picture of `image`, worked out in `bands` bands of rows at once (each pixel's
    /// result depends only on the picture as given, so bands are independent): more than one where
    /// a frame's delay matters more than the total work, as in a live session.
    public static func smoothed(_ image: RGBAImage, bands: Int = 1) -> RGBAImage {
        smoothed(image, bands: bands, fourAtOnce: true)
    }

    /// `fourAtOnce` false: every pixel keyed and worked out on its own (`blend`) as before `blendFour`,
    /// for tests that compare the two.
    static func smoothed(_ image: RGBAImage, bands: Int, fourAtOnce: Bool) -> RGBAImage {
        let w = image.width, h = image.height
        guard w >= 10, h >= 3 else { return image }
        let bands = max(1, min(bands, h / 16))
        var out = image.pixels
        image.pixels.withUnsafeBufferPointer { src in
            // Two keys a pixel: the brightness of the color over black (premultiplied), and the
            // opacity. Each edge is followed in whichever key changes more across it.
            // (An opaque picture needs no opacity key: at 8192 x 8192 that is 256 MB not taken.)
            let opaque = image.isOpaque
            // Every key is written below, band by band: no zeros first.
            var luma = [Float](unsafeUninitializedCapacity: w * h) { _, count in count = w * h }
            var alpha = [Float](repeating: 0, count: opaque ? 1 : w * h)
            luma.withUnsafeMutableBufferPointer { luma in
                alpha.withUnsafeMutableBufferPointer { alpha in
                    // The bands write disjoint rows of the keys and only read the picture.
                    nonisolated(unsafe) let luma = luma, alpha = alpha, src = src
                    DispatchQueue.concurrentPerform(iterations: bands) { band in
                        let start = h * band / bands * w, end = h * (band + 1) / bands * w
                        var i = start
                        if opaque && fourAtOnce {
                            // Four pixels at once, lane for lane the arithmetic below (the same floats).
                            let bytes = UnsafeRawPointer(src.baseAddress!), keys = luma.baseAddress!
                            while i + 4 <= end {
                                let v = bytes.loadUnaligned(fromByteOffset: i * 4, as: SIMD16<UInt8>.self)
                                let r = SIMD4<Float>(SIMD4<Int32>(truncatingIfNeeded: v.evenHalf.evenHalf))
                                let g = SIMD4<Float>(SIMD4<Int32>(truncatingIfNeeded: v.oddHalf.evenHalf))
                                let b = SIMD4<Float>(SIMD4<Int32>(truncatingIfNeeded: v.evenHalf.oddHalf))
                                let a = SIMD4<Float>(SIMD4<Int32>(truncatingIfNeeded: v.oddHalf.oddHalf))
                                let l = r * 0.299 + g * 0.587 + b * 0.114
                                UnsafeMutableRawPointer(keys + i).storeBytes(of: l * a * (1 / 255), as: SIMD4<Float>.self)
                                i += 4
                            }
                        }
                        for i in i..<end {
                            let a = Float(src[i * 4 + 3])
                            let l = Float(src[i * 4]) * 0.299 + Float(src[i * 4 + 1]) * 0.587 + Float(src[i * 4 + 2]) * 0.114
                            luma[i] = l * a * (1 / 255)
                            if !opaque { alpha[i] = a }
                        }
                    }
                }
            }
            luma.withUnsafeBufferPointer { luma in
                alpha.withUnsafeBufferPointer { alpha in
                    out.withUnsafeMutableBufferPointer { dst in
                        // Each band writes its own rows of `dst` and only reads the rest.
                        nonisolated(unsafe) let shared = (src, luma, alpha, dst)
                        DispatchQueue.concurrentPerform(iterations: bands) { band in
                            let (src, luma, alpha, dst) = shared
                            let first = max(1, (h * band) / bands), last = min(h - 1, (h * (band + 1)) / bands)
                            smoothRows(first..<last, src: src, luma: luma, alpha: alpha, dst: dst, w: w, h: h, opaque: opaque,
                                       fourAtOnce: fourAtOnce)
                        }
                    }
                }
            }
        }
        return RGBAImage(width: w, height: h, pixels: out)
    }

    /// Smooths rows `rows` of `src` into `dst` (only those rows' pixels are written).
    private static func smoothRows(_ rows: Range<Int>, src: UnsafeBufferPointer<UInt8>, luma: UnsafeBufferPointer<Float>,
                                   alpha: UnsafeBufferPointer<Float>, dst: UnsafeMutableBufferPointer<UInt8>, w: Int, h: Int, opaque: Bool,
                                   fourAtOnce: Bool) {
        for y in rows {
            // Eight pixels at a time, find those on an edge in either key...
            var x = 1
            while x < w - 1 {
                let x0 = min(x, w - 9)
                let i0 = y * w + x0
                var edge = candidates(luma, i0, w)
                if !opaque { edge .|= candidates(alpha, i0, w) }
                var lanes = bits(edge) & (0xFF << UInt32(x - x0))
                // ... and work out those of an opaque picture four at a time (in small pictures
                // of many atoms nearly every pixel of the molecule is on an edge), or each on its own.
                if opaque && lanes != 0 && fourAtOnce {
                    // Four at a time: eight lanes of floats spill out of SSE's registers.
                    if lanes & 0xF != 0 {
                        blendFour(luma, lanes: lanes & 0xF, x0: x0, y: y, w: w, h: h) { lane, t, j in mix(src, i0 + lane, j, t, into: dst) }
                    }
                    if lanes >> 4 != 0 {
                        blendFour(luma, lanes: lanes >> 4, x0: x0 + 4, y: y, w: w, h: h) { lane, t, j in mix(src, i0 + 4 + lane, j, t, into: dst) }
                    }
                    lanes = 0
                }
                while lanes != 0 {
                    let lane = lanes.trailingZeroBitCount
                    lanes &= lanes - 1
                    let i = i0 + lane
                    let key = !opaque && range(alpha, i, w) > range(luma, i, w) ? alpha : luma
                    if let (t, j) = blend(key, x: x0 + lane, y: y, w: w, h: h) {
                        mix(src, i, j, t, into: dst)
                    }
                }
                x = x0 + 8
            }
        }
    }

    /// `blend` for the four pixels from (x0, y) at once, lane for lane the same arithmetic in the
    /// same order (so the same results, bit for bit), calling `apply(lane, t, j)` for each lane of
    /// `lanes` that blends. The search along the edge takes its steps in all lanes together until
    /// every lane has ended, so no lane waits on a mispredicted branch of another.
    @inline(__always)
    private static func blendFour(_ k: UnsafeBufferPointer<Float>, lanes: UInt32, x0: Int, y: Int, w: Int, h: Int,
                                   apply: (Int, Float, Int) -> Void) {
        typealias F = SIMD4<Float>
        typealias I = SIMD4<Int32>
        let i0 = y * w + x0
        let base = UnsafeRawPointer(k.baseAddress!)
        @inline(__always) func load(_ j: Int) -> F { base.loadUnaligned(fromByteOffset: j * 4, as: F.self) }
        @inline(__always) func hi(_ a: F, _ b: F) -> F { a.replacing(with: b, where: b .> a) }
        @inline(__always) func lo(_ a: F, _ b: F) -> F { a.replacing(with: b, where: b .< a) }
        @inline(__always) func magnitude(_ a: F) -> F {
            unsafeBitCast(unsafeBitCast(a, to: SIMD4<UInt32>.self) & 0x7FFF_FFFF, to: F.self)
        }
        let m = load(i0), n = load(i0 - w), s = load(i0 + w), e = load(i0 + 1), west = load(i0 - 1)
        let nw = load(i0 - w - 1), ne = load(i0 - w + 1), sw = load(i0 + w - 1), se = load(i0 + w + 1)
        let highest = hi(hi(hi(m, n), hi(s, e)), west), lowest = lo(lo(lo(m, n), lo(s, e)), west)
        let contrast = highest - lowest

        let acrossRows = magnitude(n + s - 2 * m) * 2 + magnitude(nw + sw - 2 * west) + magnitude(ne + se - 2 * e)
        let acrossColumns = magnitude(e + west - 2 * m) * 2 + magnitude(nw + ne - 2 * n) + magnitude(sw + se - 2 * s)
        let alongRows = acrossRows .>= acrossColumns

        let before = west.replacing(with: n, where: alongRows), after = e.replacing(with: s, where: alongRows)
        let towardBefore = magnitude(before - m) .>= magnitude(after - m)
        let other = after.replacing(with: before, where: towardBefore)
        let gradient = hi(magnitude(before - m), magnitude(after - m))
        let lane = I(0, 1, 2, 3)
        let xs = I(repeating: Int32(truncatingIfNeeded: x0)) &+ lane
        let wI = I(repeating: Int32(truncatingIfNeeded: w)), yI = I(repeating: Int32(truncatingIfNeeded: y))
        let hI = I(repeating: Int32(truncatingIfNeeded: h))
        let one = I(repeating: 1)
        // across = (alongRows ? w : 1) * (towardBefore ? -1 : 1); step = alongRows ? 1 : w.
        let acrossSize = one.replacing(with: wI, where: alongRows)
        let across = acrossSize.replacing(with: 0 &- acrossSize, where: towardBefore)
        let step = wI.replacing(with: one, where: alongRows)
        let limitBack = yI.replacing(with: xs, where: alongRows)
        let limitAhead = (hI &- 1 &- yI).replacing(with: wI &- 1 &- xs, where: alongRows)

        // The edge's midline at offsets `at` from i0 (and `across` beyond), in the lanes of `look`;
        // the others read i0's own (always in the picture) and are not used. Four loads a key,
        // without a branch.
        let p = k.baseAddress! + i0
        @inline(__always) func midline(at: I, look: SIMDMask<I>) -> F {
            let a = lane.replacing(with: at, where: look), b = a &+ across.replacing(with: 0, where: .!look)
            let first = F(p[Int(a[0])], p[Int(a[1])], p[Int(a[2])], p[Int(a[3])])
            let second = F(p[Int(b[0])], p[Int(b[1])], p[Int(b[2])], p[Int(b[3])])
            return (first + second) / 2
        }
        let edgeKey = (m + other) / 2
        let tolerance = gradient / 4
        var back = I(repeating: 0), ahead = I(repeating: 0)
        var backDelta = F(repeating: 0), aheadDelta = F(repeating: 0)
        // Lanes not asked for start done.
        let asked = I(Int32(lanes & 1), Int32(lanes >> 1 & 1), Int32(lanes >> 2 & 1), Int32(lanes >> 3 & 1)) .!= 0
        var backDone = .!asked, aheadDone = .!asked
        var d: Int32 = 0
        for t in 0..<searchSteps {
            d += t < 6 ? 1 : t < 9 ? 2 : t == 9 ? 4 : 8
            let dI = I(repeating: d)
            // Back: lanes still searching, ended at the picture's side or where the midline leaves the edge.
            let backOut = .!backDone .& (dI .> limitBack)
            back.replace(with: limitBack, where: backOut)
            let backLook = .!backDone .& .!backOut
            let midBack = midline(at: lane &- dI &* step, look: backLook)
            backDelta.replace(with: midBack - edgeKey, where: backLook)
            back.replace(with: dI, where: backLook)
            backDone = backDone .| backOut .| (backLook .& (magnitude(midBack - edgeKey) .>= tolerance))

            let aheadOut = .!aheadDone .& (dI .> limitAhead)
            ahead.replace(with: limitAhead, where: aheadOut)
            let aheadLook = .!aheadDone .& .!aheadOut
            let midAhead = midline(at: lane &+ dI &* step, look: aheadLook)
            aheadDelta.replace(with: midAhead - edgeKey, where: aheadLook)
            ahead.replace(with: dI, where: aheadLook)
            aheadDone = aheadDone .| aheadOut .| (aheadLook .& (magnitude(midAhead - edgeKey) .>= tolerance))
            if all(backDone .& aheadDone) { break }
        }

        let sum = back &+ ahead
        let length = F(sum)
        let backNearer = back .< ahead
        let nearerDelta = aheadDelta.replacing(with: backDelta, where: backNearer)
        let nearest = F(ahead.replacing(with: back, where: backNearer))
        let turns = (nearerDelta .< 0) .!= (m .< edgeKey)
        var offset = F(repeating: 0)
        offset.replace(with: 0.5 - nearest / length, where: (sum .> 0) .& turns)

        let average = (2 * (n + s + e + west) + nw + ne + sw + se) / 12
        let ratio = magnitude(average - m) / contrast
        let lone = ratio.replacing(with: 1, where: ratio .> 1)
        let smooth = lone * lone * (3 - 2 * lone)
        let subpixel = smooth * smooth * subpixelStrength
        let t = hi(offset, subpixel)
        var chosen = lanes
        while chosen != 0 {
            let l = chosen.trailingZeroBitCount
            chosen &= chosen - 1
            if t[l] > 1.0 / 64 { apply(l, t[l], i0 + l + Int(across[l])) }
        }
    }

    /// The lanes of `mask` as the low eight bits of a word.
    @inline(__always)
    private static func bits(_ mask: SIMDMask<SIMD8<Int32>>) -> UInt32 {
        let words = unsafeBitCast(mask, to: SIMD8<Int32>.self) & SIMD8(1, 2, 4, 8, 16, 32, 64, 128)
        return UInt32(truncatingIfNeeded: words.wrappedSum())
    }

    /// Which of the eight pixels from `i` differ enough from their four neighbours to be on an edge.
    @inline(__always)
    private static func candidates(_ k: UnsafeBufferPointer<Float>, _ i: Int, _ w: Int) -> SIMDMask<SIMD8<Int32>> {
        let base = UnsafeRawPointer(k.baseAddress!)
        @inline(__always) func load(_ j: Int) -> SIMD8<Float> { base.loadUnaligned(fromByteOffset: j * 4, as: SIMD8<Float>.self) }
        let m = load(i), n = load(i - w), s = load(i + w), e = load(i + 1), west = load(i - 1)
        @inline(__always) func hi(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> { a.replacing(with: b, where: b .> a) }
        @inline(__always) func lo(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> { a.replacing(with: b, where: b .< a) }
        let highest = hi(hi(hi(m, n), hi(s, e)), west)
        let lowest = lo(lo(lo(m, n), lo(s, e)), west)
        let needed = hi(SIMD8(repeating: absoluteThreshold), highest * relativeThreshold)
        return highest - lowest .>= needed
    }

    @inline(__always)
    private static func range(_ k: UnsafeBufferPointer<Float>, _ i: Int, _ w: Int) -> Float {
        let m = k[i], n = k[i - w], s = k[i + w], e = k[i + 1], west = k[i - 1]
        // Two-argument max and min: the variadic forms allocate an array per call.
        return max(max(max(m, n), max(s, e)), west) - min(min(min(m, n), min(s, e)), west)
    }

    /// How much of pixel (x, y) to blend with which neighbour, or nil where it is not on an edge.
    @inline(__always)
    private static func blend(_ k: UnsafeBufferPointer<Float>, x: Int, y: Int, w: Int, h: Int) -> (Float, Int)? {
        let i = y * w + x
        let m = k[i], n = k[i - w], s = k[i + w], e = k[i + 1], west = k[i - 1]
        let highest = max(max(max(m, n), max(s, e)), west), lowest = min(min(min(m, n), min(s, e)), west)
        let contrast = highest - lowest
        guard contrast >= max(absoluteThreshold, highest * relativeThreshold) else { return nil }
        let nw = k[i - w - 1], ne = k[i - w + 1], sw = k[i + w - 1], se = k[i + w + 1]

        // Does the edge run along the rows (brightness changes up-down) or the columns?
        let acrossRows = abs(n + s - 2 * m) * 2 + abs(nw + sw - 2 * west) + abs(ne + se - 2 * e)
        let acrossColumns = abs(e + west - 2 * m) * 2 + abs(nw + ne - 2 * n) + abs(sw + se - 2 * s)
        let alongRows = acrossRows >= acrossColumns

        // The side of the pixel the edge lies on: toward the neighbour that differs most.
        let before = alongRows ? n : west, after = alongRows ? s : e
        let towardBefore = abs(before - m) >= abs(after - m)
        let other = towardBefore ? before : after
        let gradient = max(abs(before - m), abs(after - m))
        let across = (alongRows ? w : 1) * (towardBefore ? -1 : 1)
        let step = alongRows ? 1 : w
        let limitBack = alongRows ? x : y
        let limitAhead = (alongRows ? w - 1 - x : h - 1 - y)

        // Follow the edge's midline both ways until the values there leave the edge's.
        let edgeKey = (m + other) / 2
        let tolerance = gradient / 4
        @inline(__always) func midline(_ d: Int) -> Float { (k[i + d * step] + k[i + d * step + across]) / 2 }
        var back = 0, ahead = 0
        var backDelta: Float = 0, aheadDelta: Float = 0
        var backDone = false, aheadDone = false
        var d = 0
        for step in 0..<searchSteps {
            d += step < 6 ? 1 : step < 9 ? 2 : step == 9 ? 4 : 8
            if !backDone {
                if d > limitBack { back = limitBack; backDone = true } else {
                    backDelta = midline(-d) - edgeKey
                    back = d
                    backDone = abs(backDelta) >= tolerance
                }
            }
            if !aheadDone {
                if d > limitAhead { ahead = limitAhead; aheadDone = true } else {
                    aheadDelta = midline(d) - edgeKey
                    ahead = d
                    aheadDone = abs(aheadDelta) >= tolerance
                }
            }
            if backDone && aheadDone { break }
        }

        // Where the pixel sits along the step: near an end it is mostly one side's.
        var offset: Float = 0
        let length = Float(back + ahead)
        if length > 0 {
            let nearerDelta = back < ahead ? backDelta : aheadDelta
            // Only the end that turns the right way makes a step this pixel belongs to.
            if (nearerDelta < 0) != (m < edgeKey) {
                offset = 0.5 - Float(min(back, ahead)) / length
            }
        }

        // Sub-pixel features: a pixel unlike the average around it.
        let average = (2 * (n + s + e + west) + nw + ne + sw + se) / 12
        let lone = min(abs(average - m) / contrast, 1)
        let smooth = lone * lone * (3 - 2 * lone)
        let subpixel = smooth * smooth * subpixelStrength
        let t = max(offset, subpixel)
        return t > 1.0 / 64 ? (t, i + across) : nil
    }

    /// dst[i] = src[i] blended with src[j] by t, premultiplied, stored straight.
    @inline(__always)
    private static func mix(_ src: UnsafeBufferPointer<UInt8>, _ i: Int, _ j: Int, _ t: Float,
                            into dst: UnsafeMutableBufferPointer<UInt8>) {
        if src[i * 4 + 3] == 255 && src[j * 4 + 3] == 255 {
            // Both opaque: a plain blend.
            for c in 0..<3 {
                dst[i * 4 + c] = UInt8(Float(src[i * 4 + c]) * (1 - t) + Float(src[j * 4 + c]) * t + 0.5)
            }
            return
        }
        let a0 = Float(src[i * 4 + 3]) * (1 - t), a1 = Float(src[j * 4 + 3]) * t
        let a = a0 + a1
        guard a > 0 else { return }
        for c in 0..<3 {
            let v = (Float(src[i * 4 + c]) * a0 + Float(src[j * 4 + c]) * a1) / a
            dst[i * 4 + c] = UInt8(min(255, v + 0.5))
        }
        dst[i * 4 + 3] = UInt8(min(255, a + 0.5))
    }
}


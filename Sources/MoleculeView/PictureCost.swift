/// What a picture costs before it is drawn, the same wherever a size is set: a request's size and
/// look (images), and a `resize` in a replay or a live session, checked against one budget.
extension RenderRequest {
    /// Its samples (pixels times antialias squared) times one for the drawing and one more for
    /// each full-picture effect it may take (occlusion; outlines by their width in samples
    /// squared, over 32; an effect left to the look counts as taken).
    /// `size=4096&antialias=4&occlusion=1&outline=16` was 6.7 GB and 36 s.
    public var samples: Int {
        let aa = max(antialias, 1)
        let occlusion = takesOcclusion ? 1 : 0
        // An outline looks across a disc of its width in samples: its work grows as that width squared.
        let reach = Int((min(max(outline ?? 1, 0), 16) * Float(aa)).rounded())
        let outline = reach > 0 ? max(1, reach * reach / 32) : 0
        return max(width, 0) * max(height, 0) * aa * aa * (1 + occlusion + outline)
    }

    /// The bytes a picture takes while it is made, estimated before it starts: measured with
    /// `/usr/bin/time` on `molshot render` at 1024 px, 4 x 4 samples, about 12 bytes a sample
    /// plain (colour, depth, their copies, smoothing, the PNG) and 10 more for each full-picture
    /// effect (occlusion, outlines).
    public var estimatedBytes: Int {
        let aa = max(antialias, 1)
        let effects = (takesOcclusion ? 1 : 0) + ((outline ?? 1) > 0 ? 1 : 0)
        return max(width, 0) * max(height, 0) * aa * aa * (12 + 10 * effects)
    }

    /// Whether a picture may take ambient occlusion: asked for, or left to the look.
    public var takesOcclusion: Bool { (occlusion ?? 1) > 0 }
}

import PathwayModel
import Foundation
import Core

/// Triangles in map units with a color per vertex, as `map2d.vert` takes them (x, y, r, g, b, a,
/// and two unused texture coordinates). Every shape is filled or stroked here on the CPU, so that
/// one draw call puts a whole map on the screen: thick lines are quads with bevelled joins,
/// curves are flattened, outlines are rings.
struct MapMesh: Sendable {
    private(set) var floats: [Float] = []
    /// Pixels per map unit the mesh is built for: curves get enough pieces and lines at least a pixel.
    let scale: Double

    init(scale: Double) { self.scale = scale }

    var vertexCount: Int { floats.count / 8 }

    /// The smallest width that still draws: one pixel.
    var hairline: Double { 1 / scale }

    /// `across` and `half` feed the line coverage of `map2d.frag` (half 0: a plain fill).
    private mutating func vertex(_ p: SIMD2<Double>, _ c: SIMD4<Float>, across: Double = 0, half: Double = 0) {
        // One at a time: an array literal here would be a heap allocation per vertex.
        floats.append(Float(p.x)); floats.append(Float(p.y))
        floats.append(c.x); floats.append(c.y); floats.append(c.z); floats.append(c.w)
        floats.append(Float(across)); floats.append(Float(half))
    }

    mutating func triangle(_ a: SIMD2<Double>, _ b: SIMD2<Double>, _ c: SIMD2<Double>, _ color: Color) {
        let k = color.simd
        vertex(a, k)
        vertex(b, k)
        vertex(c, k)
    }

    /// A quad of a line: the corners `a ± n`, `b ± n`, `n` the offset to the widened edge.
    private mutating func lineQuad(_ a: SIMD2<Double>, _ b: SIMD2<Double>, _ n: SIMD2<Double>, extent: Double, half: Double, _ k: SIMD4<Float>) {
        vertex(a + n, k, across: extent, half: half)
        vertex(b + n, k, across: extent, half: half)
        vertex(b - n, k, across: -extent, half: half)
        vertex(a + n, k, across: extent, half: half)
        vertex(b - n, k, across: -extent, half: half)
        vertex(a - n, k, across: -extent, half: half)
    }

    /// A convex polygon (or any star-shaped one about its first point).
    mutating func fill(_ points: [SIMD2<Double>], _ color: Color) {
        guard points.count >= 3, color.alpha > 0 else { return }
        for i in 1..<(points.count - 1) { triangle(points[0], points[i], points[i + 1], color) }
    }

    /// A line through `points`, `width` map units wide (at least a pixel), with bevelled joins. Its
    /// quads reach half a pixel past the edge, where the fragment shader fades them out.
    mutating func stroke(_ points: [SIMD2<Double>], width: Double, _ color: Color, closed: Bool = false) {
        guard points.count >= 2, color.alpha > 0 else { return }
        let half = max(width, hairline) / 2
        let extent = half + 0.5 / scale
        let k = color.simd
        var path = points
        if closed { path.append(points[0]) }
        var previous: (left: SIMD2<Double>, right: SIMD2<Double>)? = nil
        var first: (left: SIMD2<Double>, right: SIMD2<Double>)? = nil
        for i in 0..<(path.count - 1) {
            let a = path[i], b = path[i + 1]
            let d = b - a, length = d.length
            guard length > 1e-9 else { continue }
            let u = SIMD2(-d.y, d.x) / length
            lineQuad(a, b, u * extent, extent: extent, half: half, k)
            if let p = previous { wedge(a, p, (a + u * extent, a - u * extent), extent: extent, half: half, k) }
            if first == nil { first = (a + u * extent, a - u * extent) }
            previous = (b + u * extent, b - u * extent)
        }
        if closed, let p = previous, let f = first { wedge(path[0], p, f, extent: extent, half: half, k) }
    }

    /// Fills the gap between two quads at a joint (the side inside is hidden under them).
    private mutating func wedge(_ a: SIMD2<Double>, _ from: (left: SIMD2<Double>, right: SIMD2<Double>),
                                _ to: (left: SIMD2<Double>, right: SIMD2<Double>), extent: Double, half: Double, _ k: SIMD4<Float>) {
        vertex(a, k, across: 0, half: half)
        vertex(from.left, k, across: extent, half: half)
        vertex(to.left, k, across: extent, half: half)
        vertex(a, k, across: 0, half: half)
        vertex(from.right, k, across: -extent, half: half)
        vertex(to.right, k, across: -extent, half: half)
    }

    /// The most dashes one line is cut into: past it (an outline thousands of times the picture's
    /// size, as a hostile file's box can be) the dashes grow longer, so the walk along it stays bounded.
    static let mostDashes = 20_000.0

    /// `points` as dashes `dash` long with `gap` between them.
    mutating func dashed(_ points: [SIMD2<Double>], width: Double, _ color: Color, dash: Double, gap: Double) {
        guard points.count >= 2 else { return }
        let length = zip(points, points.dropFirst()).reduce(0.0) { $0 + PathwayMap.distance($1.0, $1.1) }
        guard length.isFinite, dash > 0, gap > 0 else { return stroke(points, width: width, color) }
        let stretch = max(1, length / (dash + gap) / Self.mostDashes)
        let (dash, gap) = (dash * stretch, gap * stretch)
        var on = true, left = dash
        var piece: [SIMD2<Double>] = [points[0]]
        for i in 0..<(points.count - 1) {
            var a = points[i]
            let b = points[i + 1]
            var rest = PathwayMap.distance(a, b)
            while rest > 0 {
                let step = min(rest, left)
                let p = a + (b - a) * (step / rest)
                if on { piece.append(p) }
                rest -= step
                left -= step
                a = p
                if left <= 1e-9 {
                    if on { stroke(piece, width: width, color) }
                    on.toggle()
                    left = on ? dash : gap
                    piece = [a]
                }
            }
        }
        if on && piece.count >= 2 { stroke(piece, width: width, color) }
    }

    /// Points around an ellipse, more where it is larger on the screen.
    func ellipse(center: SIMD2<Double>, radii: SIMD2<Double>) -> [SIMD2<Double>] {
        let n = max(12, min(96, Int(saturating: max(radii.x, radii.y) * scale)))
        return (0..<n).map { k in
            let t = Double(k) / Double(n) * 2 * .pi
            return center + SIMD2(cos(t), sin(t)) * radii
        }
    }

    /// Points around a rectangle whose corners are rounded by `radius`.
    func roundRectangle(min lo: SIMD2<Double>, max hi: SIMD2<Double>, radius: Double) -> [SIMD2<Double>] {
        let r = Swift.min(radius, (hi.x - lo.x) / 2, (hi.y - lo.y) / 2)
        guard r * scale >= 1 else { return [lo, SIMD2(hi.x, lo.y), hi, SIMD2(lo.x, hi.y)] }
        let n = max(2, min(12, Int(saturating: r * scale / 2)))
        var points: [SIMD2<Double>] = []
        let corners: [(SIMD2<Double>, Double)] = [(SIMD2(hi.x - r, lo.y + r), -.pi / 2), (SIMD2(hi.x - r, hi.y - r), 0),
                                                  (SIMD2(lo.x + r, hi.y - r), .pi / 2), (SIMD2(lo.x + r, lo.y + r), .pi)]
        for (c, start) in corners {
            for k in 0...n {
                let t = start + Double(k) / Double(n) * .pi / 2
                points.append(c + SIMD2(cos(t), sin(t)) * r)
            }
        }
        return points
    }
}

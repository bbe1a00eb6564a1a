import PathwayModel
import Core
import Foundation

/// Builds the triangles of a map at one scale: compartments first, then edges (trimmed where they
/// meet a node's outline, with their arrowheads, bars and circles), then nodes over the edge ends.
/// Highlighted nodes and edges (a tapped node with its neighbours) are drawn wider in one color.
struct MapGeometry {
    static let highlight = Color(rgb: 0xFF8C00)

    let map: PathwayMap
    let theme: PathwayTheme
    /// The tapped node, whose edges are highlighted.
    let focus: String?
    /// Nodes ringed: the tapped one and its neighbours.
    let selected: Set<String>
    private let nodesByID: [String: PathwayMap.Node]

    init(map: PathwayMap, theme: PathwayTheme, focus: String? = nil) {
        self.map = map
        self.theme = theme
        self.focus = focus
        selected = focus.map { MapGeometry.neighbourhood(of: $0, in: map) } ?? []
        nodesByID = Dictionary(map.nodes.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
    }

    /// The ids of a node, its edges' other ends and, for a reaction, the nodes its edges join.
    static func neighbourhood(of id: String, in map: PathwayMap) -> Set<String> {
        var ids: Set<String> = [id]
        for e in map.edges where e.from == id || e.to == id || e.reaction == id {
            if let f = e.from { ids.insert(f) }
            if let t = e.to { ids.insert(t) }
            if let r = e.reaction { ids.insert(r) }
        }
        return ids
    }

    func mesh(scale: Double) -> MapMesh {
        var mesh = MapMesh(scale: scale)
        for c in map.compartments { compartment(c, into: &mesh) }
        for e in map.edges { edge(e, into: &mesh) }
        for n in map.nodes { node(n, into: &mesh) }
        return mesh
    }

    // MARK: Compartments and nodes

    private func compartment(_ c: PathwayMap.Compartment, into mesh: inout MapMesh) {
        // The outline in the shape the file names, as a node of that shape would have it.
        func outline(inset: Double) -> [SIMD2<Double>]? {
            let lo = c.origin + inset, size = c.size - 2 * inset
            guard size.x > 0, size.y > 0 else { return nil }
            if c.shape == .roundRectangle { return mesh.roundRectangle(min: lo, max: lo + size, radius: max(1, min(20, min(size.x, size.y) * 0.2))) }
            return self.outline(of: PathwayMap.Node(id: c.id, kind: .other, center: lo + size / 2, size: size, shape: c.shape), mesh)
        }
        let width = (c.lineWidth ?? theme.compartmentLine) * theme.lineScale
        // Its own fill, else its colour faintly.
        var fill = theme.fill(c.fill ?? c.color)
        if c.fill == nil { fill.alpha = 0.10 }
        if let pieces = MapGeometry.cellular(c.shape, lo: c.origin, hi: c.origin + c.size) {
            // A cellular component in its own outline: filled where the file fills it, stroked.
            for piece in pieces {
                switch piece {
                case .loop(let points):
                    let p = c.turned(points)
                    if !c.unfilled {
                        let mid = p.reduce(SIMD2<Double>(0, 0), +) / Double(p.count)
                        for i in p.indices { mesh.triangle(mid, p[i], p[(i + 1) % p.count], fill) }
                    }
                    mesh.stroke(p, width: width, theme.line(c.color), closed: true)
                case .band(let left, let right):
                    let l = c.turned(left), r = c.turned(right)
                    if !c.unfilled {
                        for i in 0..<(min(l.count, r.count) - 1) {
                            mesh.triangle(l[i], r[i], l[i + 1], fill)
                            mesh.triangle(r[i], r[i + 1], l[i + 1], fill)
                        }
                    }
                    mesh.stroke(l + r.reversed(), width: width, theme.line(c.color), closed: true)
                case .line(let points):
                    mesh.stroke(c.turned(points), width: width * 0.8, theme.line(c.color), closed: true)
                }
            }
            return
        }
        guard let outer = outline(inset: 0).map(c.turned) else { return }
        if c.shape.isOpen {
            // A brace or an arc: its line, and where the file fills it (PathVisio does) the region
            // its line closes with the chord between its ends, fanned from the chord's middle.
            if !c.unfilled, let f = c.fill, let first = outer.first, let last = outer.last {
                let middle = (first + last) / 2
                for (a, b) in zip(outer, outer.dropFirst()) { mesh.triangle(middle, a, b, theme.fill(f)) }
            }
            mesh.stroke(outer, width: width, theme.line(c.color))
            return
        }
        if !c.unfilled { mesh.fill(outer, fill) }
        mesh.stroke(outer, width: width, theme.line(c.color), closed: true)
        // PathVisio's double line: a second, thinner, a little inside; CellDesigner's at the band's
        // width, the inside filled in its own colour.
        let inset = c.band.map { max(1, min($0, min(c.size.x, c.size.y) / 4)) } ?? max(3, 2.5 * width)
        if c.doubleLine, let inner = outline(inset: inset).map(c.turned) {
            if !c.unfilled, let inside = c.innerFill { mesh.fill(inner, theme.fill(inside)) }
            mesh.stroke(inner, width: width * 0.5, theme.line(c.color), closed: true)
        }
    }

    func outline(of n: PathwayMap.Node, _ mesh: MapMesh) -> [SIMD2<Double>]? {
        let (lo, hi) = n.frame
        guard n.size.x > 0, n.size.y > 0 else { return nil }
        switch n.shape {
        case .none: return nil
        case .rectangle, .process: return [lo, SIMD2(hi.x, lo.y), hi, SIMD2(lo.x, hi.y)]
        case .roundRectangle: return mesh.roundRectangle(min: lo, max: hi, radius: min(n.size.x, n.size.y) * 0.25)
        case .ellipse, .sourceSink, .existence, .location, .mitochondria: return mesh.ellipse(center: n.center, radii: n.size / 2)
        case .endoplasmicReticulum, .golgiApparatus, .sarcoplasmicReticulum:
            // As a node's outline (a label of that shape), its first piece's loop or band.
            switch MapGeometry.cellular(n.shape, lo: lo, hi: hi)?.first {
            case .loop(let p)?: return p
            case .band(let l, let r)?: return l + r.reversed()
            default: return [lo, SIMD2(hi.x, lo.y), hi, SIMD2(lo.x, hi.y)]
            }
        case .stadium: return mesh.roundRectangle(min: lo, max: hi, radius: min(n.size.x, n.size.y) / 2)
        case .cutRectangle:
            let c = min(min(n.size.x, n.size.y) * 0.2, 14)
            return [SIMD2(lo.x + c, lo.y), SIMD2(hi.x - c, lo.y), SIMD2(hi.x, lo.y + c), SIMD2(hi.x, hi.y - c),
                    SIMD2(hi.x - c, hi.y), SIMD2(lo.x + c, hi.y), SIMD2(lo.x, hi.y - c), SIMD2(lo.x, lo.y + c)]
        case .bottomRounded:
            // The round rectangle's bottom half below its top corners' straight edge.
            let r = min(n.size.x, n.size.y) * 0.3
            let rounded = mesh.roundRectangle(min: lo, max: hi, radius: r)
            return [lo, SIMD2(hi.x, lo.y)] + rounded.filter { $0.y > lo.y + r + 1e-9 }
        case .hexagon:
            let d = min(n.size.x / 2, n.size.y / 2)
            return [SIMD2(lo.x + d, lo.y), SIMD2(hi.x - d, lo.y), SIMD2(hi.x, n.center.y), SIMD2(hi.x - d, hi.y), SIMD2(lo.x + d, hi.y),
                    SIMD2(lo.x, n.center.y)]
        case .concaveHexagon:
            let d = min(n.size.x / 4, n.size.y / 2)
            return [lo, SIMD2(hi.x, lo.y), SIMD2(hi.x - d, n.center.y), hi, SIMD2(lo.x, hi.y), SIMD2(lo.x + d, n.center.y)]
        case .tag:
            let d = min(n.size.x / 2, n.size.y / 2)
            return [lo, SIMD2(hi.x - d, lo.y), SIMD2(hi.x, n.center.y), SIMD2(hi.x - d, hi.y), SIMD2(lo.x, hi.y)]
        case .tagLeft:
            let d = min(n.size.x / 2, n.size.y / 2)
            return [SIMD2(lo.x + d, lo.y), SIMD2(hi.x, lo.y), hi, SIMD2(lo.x + d, hi.y), SIMD2(lo.x, n.center.y)]
        case .parallelogram, .parallelogramLeft:
            let d = min(n.size.x / 4, n.size.y / 2) * (n.shape == .parallelogram ? 1 : -1)
            return [SIMD2(lo.x + max(d, 0), lo.y), SIMD2(hi.x + min(d, 0), lo.y), SIMD2(hi.x - max(d, 0), hi.y), SIMD2(lo.x - min(d, 0), hi.y)]
        case .note:
            let c = MapGeometry.fold(n)
            return [lo, SIMD2(hi.x - c, lo.y), SIMD2(hi.x, lo.y + c), hi, SIMD2(lo.x, hi.y)]
        case .receptor:
            // The top notched down a fifth of the height in the middle, the bottom a point as deep.
            let d = n.size.y * 0.2
            return [lo, SIMD2(n.center.x, lo.y + d), SIMD2(hi.x, lo.y), SIMD2(hi.x, hi.y - d), SIMD2(n.center.x, hi.y),
                    SIMD2(lo.x, hi.y - d)]
        case .ionChannel:
            return mesh.roundRectangle(min: lo, max: hi, radius: min(n.size.x, n.size.y) * 0.25)
        case .triangle, .pentagon, .octagon:
            // PathVisio's regular polygon: vertices 360/n degrees apart from the east, clockwise on
            // the page, its own extent stretched to the box.
            let sides = n.shape == .triangle ? 3 : n.shape == .pentagon ? 5 : 8
            let unit = (0..<sides).map { k -> SIMD2<Double> in
                let a = 2 * Double.pi * Double(k) / Double(sides)
                return SIMD2(cos(a), sin(a))
            }
            return Self.stretched(unit, into: lo, hi)
        case .brace:
            // Two quadratic curls up to the point at the top middle (PathVisio's 12 by 4 brace).
            func quad(_ a: SIMD2<Double>, _ c: SIMD2<Double>, _ b: SIMD2<Double>) -> [SIMD2<Double>] {
                (1...8).map { k in
                    let t = Double(k) / 8, u = 1 - t
                    return u * u * a + 2 * u * t * c + t * t * b
                }
            }
            let start = SIMD2<Double>(0, 4)
            let unit = [start] + quad(start, SIMD2(0, 2), SIMD2(3, 2)) + quad(SIMD2(3, 2), SIMD2(6, 2), SIMD2(6, 0))
                + quad(SIMD2(6, 0), SIMD2(6, 2), SIMD2(9, 2)) + quad(SIMD2(9, 2), SIMD2(12, 2), SIMD2(12, 4))
            return Self.stretched(unit, into: lo, hi)
        case .arc:
            // The lower half of the ellipse, from east through south to west, filling the box.
            let unit = (0...24).map { k -> SIMD2<Double> in
                let a = Double.pi * Double(k) / 24
                return SIMD2(cos(a), sin(a))
            }
            return Self.stretched(unit, into: lo, hi)
        case .truncated:
            // The round box's left half; on the right a break: down from the top corner to 3/5 of
            // the height, back up and in to 2/5, then down to the bottom a fifth of the width in.
            let cut = min(n.size.x * 0.2, n.size.y * 0.5)
            var left = mesh.roundRectangle(min: lo, max: hi, radius: min(n.size.x, n.size.y) * 0.25).filter { $0.x < n.center.x }
            if let first = left.first, first.y < n.center.y { left.reverse() }  // bottom to top, as the outline runs
            // From the inner corner of the break, where a fill's fan starts (it sees all of the shape).
            return [SIMD2(hi.x - cut, lo.y + n.size.y * 0.4), SIMD2(hi.x - cut, hi.y)] + left
                + [SIMD2(hi.x, lo.y), SIMD2(hi.x, lo.y + n.size.y * 0.6)]
        }
    }

    /// A piece of a cellular component's drawing: a loop star-shaped about its centre, a band
    /// between two lines (filled as a strip), or a closed line only.
    enum Piece {
        case loop([SIMD2<Double>])
        case band(left: [SIMD2<Double>], right: [SIMD2<Double>])
        case line([SIMD2<Double>])
    }

    /// PathVisio's cellular components drawn in the box from `lo` to `hi` (Molshot's own drawings
    /// of them): nil for every other shape.
    static func cellular(_ shape: PathwayMap.Shape, lo: SIMD2<Double>, hi: SIMD2<Double>) -> [Piece]? {
        let c = (lo + hi) / 2, r = (hi - lo) / 2
        guard r.x > 0, r.y > 0 else { return nil }
        let n = 96
        func around(_ f: (Double) -> SIMD2<Double>) -> [SIMD2<Double>] { (0..<n).map { f(2 * Double.pi * Double($0) / Double(n)) } }
        switch shape {
        case .mitochondria:
            // The outer membrane an oval; the inner one a loop folded in from above and below.
            let outer = around { c + SIMD2(cos($0), sin($0)) * r }
            let inner = around { t -> SIMD2<Double> in
                let fold = 0.5 + 0.5 * cos(9 * t)
                return c + SIMD2(cos(t) * r.x * 0.82, sin(t) * r.y * 0.72 * (1 - 0.75 * fold))
            }
            return [.loop(outer), .line(inner)]
        case .sarcoplasmicReticulum:
            return [.loop(around { c + SIMD2(cos($0), sin($0)) * r * (0.9 + 0.1 * sin(6 * $0)) })]
        case .endoplasmicReticulum:
            // A band folded back and forth from top to bottom, as wide as a fifth of the box.
            let band = r.x * 0.22, steps = 64
            var left: [SIMD2<Double>] = [], right: [SIMD2<Double>] = []
            for k in 0...steps {
                let t = Double(k) / Double(steps)
                let y = lo.y + band + t * (2 * r.y - 2 * band)
                let x = c.x + (r.x - band) * sin(3 * Double.pi * t)
                left.append(SIMD2(x - band, y))
                right.append(SIMD2(x + band, y))
            }
            return [.band(left: left, right: right)]
        case .golgiApparatus:
            // Three crescents side by side, opening to the right.
            let w = 2 * r.x / 3
            return (0..<3).map { k -> Piece in
                let x0 = lo.x + Double(k) * w, steps = 32
                var outer: [SIMD2<Double>] = [], inner: [SIMD2<Double>] = []
                for j in 0...steps {
                    let t = Double(j) / Double(steps), y = lo.y + t * 2 * r.y
                    let bulge = sin(Double.pi * t)
                    outer.append(SIMD2(x0 + w * 0.15 + (1 - bulge) * w * 0.55, y))
                    inner.append(SIMD2(x0 + w * 0.15 + (1 - bulge) * w * 0.55 + w * 0.35 * (0.3 + 0.7 * bulge), y))
                }
                return .band(left: outer, right: inner)
            }
        default:
            return nil
        }
    }

    /// `points` moved and scaled so their own extent fills the box from `lo` to `hi`.
    static func stretched(_ points: [SIMD2<Double>], into lo: SIMD2<Double>, _ hi: SIMD2<Double>) -> [SIMD2<Double>] {
        let a = points.reduce(points[0], pointwiseMin), b = points.reduce(points[0], pointwiseMax)
        let span = pointwiseMax(b - a, SIMD2(1e-12, 1e-12))
        return points.map { lo + ($0 - a) / span * (hi - lo) }
    }

    /// The size of a note's folded corner.
    static func fold(_ n: PathwayMap.Node) -> Double { min(min(n.size.x, n.size.y) * 0.25, 12) }

    /// The part of a shape below `y` (map units grow downwards): a convex outline cut by a line
    /// (Sutherland-Hodgman with one edge), for clone markers.
    static func below(_ points: [SIMD2<Double>], y: Double) -> [SIMD2<Double>] {
        var out: [SIMD2<Double>] = []
        for i in points.indices {
            let a = points[i], b = points[(i + 1) % points.count]
            let aIn = a.y >= y, bIn = b.y >= y
            if aIn { out.append(a) }
            if aIn != bIn { out.append(a + (b - a) * ((y - a.y) / (b.y - a.y))) }
        }
        return out
    }

    /// CellDesigner's ion channel: a round box and, on its right, a narrow one (a fifth as wide).
    static func ionChannelParts(_ n: PathwayMap.Node) -> [PathwayMap.Node] {
        let (lo, hi) = n.frame, narrow = min(n.size.x * 0.2, n.size.y * 0.5)
        var main = n, channel = n
        main.shape = .roundRectangle
        main.size.x = n.size.x - narrow
        main.center.x = lo.x + main.size.x / 2
        channel.shape = .roundRectangle
        channel.size.x = narrow
        channel.center.x = hi.x - narrow / 2
        return [main, channel]
    }

    private func node(_ n: PathwayMap.Node, into mesh: inout MapMesh) {
        if n.shape == .ionChannel, n.size.x > 0, n.size.y > 0 {
            for part in MapGeometry.ionChannelParts(n) { node(part, into: &mesh) }
            return
        }
        guard let points = outline(of: n, mesh) else {
            if selected.contains(n.id), n.kind == .reaction {
                // A reaction drawn only as a label: a ring marks it.
                mesh.stroke(mesh.ellipse(center: n.center, radii: SIMD2(14, 14)), width: 4, MapGeometry.highlight, closed: true)
            }
            return
        }
        if let f = n.fill, !n.shape.isOpen {
            if n.shape == .concaveHexagon || n.shape == .receptor {
                // Not convex, but star-shaped about its centre.
                for i in points.indices { mesh.triangle(n.center, points[i], points[(i + 1) % points.count], theme.fill(f)) }
            } else {
                mesh.fill(points, theme.fill(f))
            }
        }
        if n.cloneMarker != nil {
            // SBGN's clone marker: the lower 30% of the shape filled dark.
            mesh.fill(MapGeometry.below(points, y: n.center.y + n.size.y * 0.2), theme.line(Color(rgb: 0x4A4A4A)))
        }
        let stroke = n.stroke ?? (n.fill == nil ? .black : n.fill!.mixed(with: .black, 0.45))
        let width = (n.lineWidth.map { min($0, 4) / 1.5 } ?? 1) * theme.nodeLine * theme.lineScale
        if selected.contains(n.id) {
            mesh.stroke(points, width: max(theme.nodeLine * 3, 3 / mesh.scale), MapGeometry.highlight, closed: true)
        } else {
            if n.dashed {
                mesh.dashed(points + [points[0]], width: width, theme.line(stroke), dash: max(4 * width, 4 / mesh.scale),
                            gap: max(3 * width, 3 / mesh.scale))
            } else {
                mesh.stroke(points, width: width, theme.line(stroke), closed: !n.shape.isOpen)
            }
            if n.shape == .note {
                // The fold: the corner turned down inside the cut.
                let c = MapGeometry.fold(n), (lo, hi) = n.frame
                mesh.stroke([SIMD2(hi.x - c, lo.y), SIMD2(hi.x - c, lo.y + c), SIMD2(hi.x, lo.y + c)], width: width, theme.line(stroke))
            }
            if n.shape == .existence {
                // The right half filled in the line's colour.
                let half = mesh.ellipse(center: n.center, radii: n.size / 2).filter { $0.x >= n.center.x - 1e-9 }
                mesh.fill([SIMD2(n.center.x, n.frame.min.y)] + half.sorted { $0.y < $1.y } + [SIMD2(n.center.x, n.frame.max.y)],
                          theme.line(stroke))
            }
            if n.shape == .location {
                // Crossed from corner to corner of the circle.
                let r = n.size / 2 * 0.7071
                mesh.stroke([n.center - r, n.center + r], width: width, theme.line(stroke))
                mesh.stroke([n.center + SIMD2(-r.x, r.y), n.center + SIMD2(r.x, -r.y)], width: width, theme.line(stroke))
            }
            if n.shape == .sourceSink {
                // Struck through from the bottom left to the top right.
                let r = n.size / 2 * 0.7071
                mesh.stroke([n.center + SIMD2(-r.x, r.y), n.center + SIMD2(r.x, -r.y)], width: width, theme.line(stroke))
            }
        }
    }

    // MARK: Edges

    /// Whether `p` lies inside the node's shape.
    static func contains(_ n: PathwayMap.Node, _ p: SIMD2<Double>) -> Bool {
        guard n.shape != .none, n.size.x > 0, n.size.y > 0 else { return false }
        let d = (p - n.center) / (n.size / 2)
        return [.ellipse, .existence, .location].contains(n.shape) ? (d * d).sum() <= 1 : abs(d.x) <= 1 && abs(d.y) <= 1
    }

    /// `points` cut where they first enter `n` walking back from the end, then `gap` short of it.
    static func trimmed(_ points: [SIMD2<Double>], endingIn n: PathwayMap.Node, gap: Double) -> [SIMD2<Double>] {
        guard points.count >= 2, contains(n, points[points.count - 1]) else { return points }
        var k = points.count - 1
        while k > 0 && contains(n, points[k - 1]) { k -= 1 }
        guard k > 0 else { return points }  // wholly inside: nothing sensible to cut
        var outside = points[k - 1], inside = points[k]
        for _ in 0..<24 {
            let mid = (outside + inside) / 2
            if contains(n, mid) { inside = mid } else { outside = mid }
        }
        var result = Array(points[..<k])
        result.append(outside)
        return shortened(result, by: gap)
    }

    /// `points` with `length` taken off the end (at least a tiny stub is left).
    static func shortened(_ points: [SIMD2<Double>], by length: Double) -> [SIMD2<Double>] {
        guard length > 0, points.count >= 2 else { return points }
        var rest = length
        var result = points
        while result.count >= 2 {
            let a = result[result.count - 2], b = result[result.count - 1]
            let d = b - a, l = d.length
            if l > rest {
                result[result.count - 1] = b - d * (rest / l)
                return result
            }
            if result.count == 2 {
                result[1] = a + d * 0.01
                return result
            }
            rest -= l
            result.removeLast()
        }
        return result
    }

    /// The unit direction in which the path arrives at its last point.
    static func arrival(_ points: [SIMD2<Double>]) -> SIMD2<Double>? {
        let end = points[points.count - 1]
        for p in points.reversed().dropFirst() {
            let d = end - p, l = d.length
            if l > 1e-9 { return d / l }
        }
        return nil
    }

    private func edge(_ e: PathwayMap.Edge, into mesh: inout MapMesh) {
        let isSelected = focus != nil && (e.from == focus || e.to == focus || e.reaction == focus)
        let color = isSelected ? MapGeometry.highlight : theme.line(e.color)
        let width = max(e.width * theme.lineScale * (isSelected ? 1.6 : 1), mesh.hairline)
        // Enough pieces for a smooth curve at this scale.
        var controlLength = 0.0, last = e.start
        for s in e.segments {
            switch s {
            case .line(let p): controlLength += PathwayMap.distance(last, p)
            case .cubic(let c1, let c2, let p):
                controlLength += PathwayMap.distance(last, c1) + PathwayMap.distance(c1, c2) + PathwayMap.distance(c2, p)
            }
            last = s.end
        }
        var points = e.polyline(pieces: max(4, min(48, Int(saturating: controlLength * mesh.scale / 6))))
        let gap = max(width * 0.6, 1.5)
        if let id = e.to, let n = nodesByID[id] { points = MapGeometry.trimmed(points, endingIn: n, gap: gap) }
        if let id = e.from, let n = nodesByID[id] {
            points = MapGeometry.trimmed(points.reversed(), endingIn: n, gap: gap).reversed()
        }
        guard points.count >= 2 else { return }
        let headDirection = MapGeometry.arrival(points)
        let tailDirection = MapGeometry.arrival(points.reversed())
        let (length, half) = MapGeometry.headSize(width: width)
        var line = points
        line = MapGeometry.shortened(line, by: MapGeometry.setBack(e.head, length: length, half: half))
        line = MapGeometry.shortened(line.reversed(), by: MapGeometry.setBack(e.tail, length: length, half: half)).reversed()
        if e.dashed {
            mesh.dashed(line, width: width, color, dash: max(4 * width, 4 / mesh.scale), gap: max(3 * width, 3 / mesh.scale))
        } else {
            mesh.stroke(line, width: width, color)
        }
        if let d = headDirection { head(e.head, tip: points[points.count - 1], direction: d, width: width, color, into: &mesh) }
        if let d = tailDirection { head(e.tail, tip: points[0], direction: d, width: width, color, into: &mesh) }
    }

    /// An arrowhead's length and half width for a line `width` wide.
    static func headSize(width: Double) -> (length: Double, half: Double) { (2.2 * width + 5, 1.2 * width + 3) }

    /// How much of the line a head replaces.
    static func setBack(_ head: PathwayMap.Head, length: Double, half: Double) -> Double {
        switch head {
        case .none, .bar, .doubleBar: return 0
        case .arrow: return length * 0.8
        case .openArrow, .diamond, .barArrow: return length
        case .doubleOpenArrow: return 2 * length
        case .circle, .dot: return half * 1.6
        }
    }

    private func head(_ kind: PathwayMap.Head, tip: SIMD2<Double>, direction d: SIMD2<Double>, width: Double, _ color: Color,
                      into mesh: inout MapMesh) {
        let (length, half) = MapGeometry.headSize(width: width)
        let n = SIMD2(-d.y, d.x)
        switch kind {
        case .none: return
        case .arrow:
            mesh.triangle(tip, tip - d * length + n * half, tip - d * length - n * half, color)
            // A hairline round it smooths its edges.
            mesh.stroke([tip, tip - d * length + n * half, tip - d * length - n * half], width: mesh.hairline * 0.5, color, closed: true)
        case .openArrow:
            let corners = [tip, tip - d * length + n * half, tip - d * length - n * half]
            mesh.fill(corners, theme.background)
            mesh.stroke(corners, width: max(width * 0.5, mesh.hairline), color, closed: true)
        case .bar:
            let t = max(width, 2 / mesh.scale)
            let c = tip - d * (t / 2)
            mesh.stroke([c + n * half * 1.3, c - n * half * 1.3], width: t, color)
        case .diamond:
            let corners = [tip, tip - d * (length / 2) + n * half, tip - d * length, tip - d * (length / 2) - n * half]
            mesh.fill(corners, theme.background)
            mesh.stroke(corners, width: max(width * 0.5, mesh.hairline), color, closed: true)
        case .barArrow:
            let corners = [tip, tip - d * length + n * half, tip - d * length - n * half]
            mesh.fill(corners, theme.background)
            mesh.stroke(corners, width: max(width * 0.5, mesh.hairline), color, closed: true)
            let t = max(width, 2 / mesh.scale)
            let c = tip - d * (length + 2.5 * t)
            mesh.stroke([c + n * half * 1.1, c - n * half * 1.1], width: t, color)
        case .doubleOpenArrow:
            for back in [0, length] {
                let t = tip - d * back
                let corners = [t, t - d * length + n * half, t - d * length - n * half]
                mesh.fill(corners, theme.background)
                mesh.stroke(corners, width: max(width * 0.5, mesh.hairline), color, closed: true)
            }
        case .doubleBar:
            let t = max(width, 2 / mesh.scale)
            for back in [t / 2, 3.5 * t] {
                let c = tip - d * back
                mesh.stroke([c + n * half * 1.3, c - n * half * 1.3], width: t, color)
            }
        case .circle, .dot:
            let r = half * 0.8
            let ring = mesh.ellipse(center: tip - d * r, radii: SIMD2(r, r))
            if kind == .dot {
                mesh.fill(ring, color)
                return
            }
            mesh.fill(ring, theme.background)
            mesh.stroke(ring, width: max(width * 0.5, mesh.hairline), color, closed: true)
        }
    }
}

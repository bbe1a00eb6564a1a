import Core
import Foundation

/// A pathway graph as the readers leave it and the renderer draws it: nodes, edges and
/// compartments, each with its place, size, shape, color and label, in map units (x right, y
/// down, as every supported format has them).
public struct PathwayMap: Sendable {
    public enum NodeKind: String, Sendable, Codable, CaseIterable {
        case metabolite, reaction, geneProduct = "gene-product", pathway, label, marker, other
    }

    public enum Shape: String, Sendable, Codable, CaseIterable {
        case rectangle, roundRectangle = "round-rectangle", ellipse, process, none
        /// SBGN's complex: a rectangle with its corners cut off.
        case cutRectangle = "cut-rectangle"
        /// SBGN's nucleic acid feature: a rectangle with its bottom corners rounded.
        case bottomRounded = "bottom-rounded"
        /// SBGN's phenotype: a hexagon pointed left and right.
        case hexagon
        /// SBGN's perturbing agent: a rectangle with a notch in its left and right sides.
        case concaveHexagon = "concave-hexagon"
        /// SBGN's tag (and terminal): a box pointed to the right.
        case tag
        /// A tag pointed to the left.
        case tagLeft = "tag-left"
        /// SBGN's source and sink: a circle struck through.
        case sourceSink = "source-sink"
        /// SBGN's annotation: a note with its top right corner folded down.
        case note
        /// CellDesigner's RNA: a parallelogram leaning right (its top edge moved right).
        case parallelogram
        /// CellDesigner's antisense RNA: a parallelogram leaning left.
        case parallelogramLeft = "parallelogram-left"
        /// CellDesigner's receptor: notched at the top, pointed at the bottom.
        case receptor
        /// CellDesigner's ion channel: a round box with a narrow one beside it on the right.
        case ionChannel = "ion-channel"
        /// CellDesigner's truncated protein: rounded on the left, its right end broken off.
        case truncated
        /// PathVisio's regular polygons, a vertex pointing right (east), stretched to the box.
        case triangle, pentagon, octagon
        /// PathVisio's open line shapes: a brace (its point at the top middle) and an arc (the
        /// lower half of an ellipse), stroked, never filled.
        case brace, arc

        /// PathVisio's cellular components in their own outlines: a mitochondrion (an oval with
        /// folded cristae inside), the endoplasmic reticulum (a folded band), the Golgi apparatus
        /// (three stacked crescents), the sarcoplasmic reticulum (a wavy oval).
        case mitochondria
        case endoplasmicReticulum = "endoplasmic-reticulum"
        case golgiApparatus = "golgi-apparatus"
        case sarcoplasmicReticulum = "sarcoplasmic-reticulum"
        /// SBGN's capsule (a state variable, ER's variable value): a box with round ends.
        case stadium
        /// SBGN Entity Relationship's existence (a circle, its right half filled) and location
        /// (a circle crossed) on an entity's border.
        case existence, location

        /// Shapes drawn as an open line.
        public var isOpen: Bool { self == .brace || self == .arc }
    }

    public struct Node: Sendable {
        public var id: String
        public var name: String
        public var kind: NodeKind
        public var center: SIMD2<Double>
        public var size: SIMD2<Double>
        public var shape: Shape
        public var fill: Color?
        public var stroke: Color?
        public var label: String
        /// Where the label goes (its center, or with `labelFromStart` its left end on the
        /// baseline, as Escher places them); the node's center when nil.
        public var labelPosition: SIMD2<Double>?
        public var labelFromStart = false
        /// Label height in map units.
        public var fontSize: Double
        public var textColor: Color
        /// SBGN's clone marker: the lower part of the shape filled dark, with its label if any.
        public var cloneMarker: String?
        /// Line width of the outline in map units where the file gives one (SBGN's and SBML's render styles).
        public var lineWidth: Double?
        /// The label is kept inside the node's box, wrapped at its blanks and made smaller where it
        /// is wider (KEGG's gene and map boxes); others are drawn at their size wherever they reach.
        public var fitsLabel = false
        /// The outline drawn dashed (CellDesigner's ring round an active species).
        public var dashed = false
        /// The label set bold or italic (GPML's FontWeight and FontStyle, SBML Render's font-weight and font-style).
        public var bold = false
        public var italic = false

        public init(id: String, name: String = "", kind: NodeKind, center: SIMD2<Double>, size: SIMD2<Double>, shape: Shape,
                    fill: Color? = nil, stroke: Color? = nil, label: String = "", labelPosition: SIMD2<Double>? = nil,
                    fontSize: Double = 10, textColor: Color = .black) {
            self.id = id
            self.name = name
            self.kind = kind
            self.center = center
            self.size = size
            self.shape = shape
            self.fill = fill
            self.stroke = stroke
            self.label = label
            self.labelPosition = labelPosition
            self.fontSize = fontSize
            self.textColor = textColor
        }

        public var frame: (min: SIMD2<Double>, max: SIMD2<Double>) { (center - size / 2, center + size / 2) }
    }

    public enum EdgeKind: String, Sendable, Codable, CaseIterable {
        case substrate, product, catalysis, inhibition, stimulation, plain
    }

    /// What an edge ends in.
    public enum Head: String, Sendable, Codable {
        case none, arrow, openArrow = "open-arrow", bar, circle
        /// SBGN's modulation: an open diamond.
        case diamond
        /// SBGN's necessary stimulation: an open arrow with a bar behind it.
        case barArrow = "bar-arrow"
        /// SBGN Entity Relationship's absolute stimulation (two open arrows) and absolute inhibition (two bars).
        case doubleOpenArrow = "double-open-arrow"
        case doubleBar = "double-bar"
        /// A filled circle (SBML Render's modifier ending as SBMLDiagrams writes it).
        case dot
    }

    /// A piece of an edge's path after its start: a straight line or a cubic Bezier curve.
    public enum Segment: Sendable {
        case line(to: SIMD2<Double>)
        case cubic(c1: SIMD2<Double>, c2: SIMD2<Double>, to: SIMD2<Double>)

        public var end: SIMD2<Double> {
            switch self {
            case .line(let p): return p
            case .cubic(_, _, let p): return p
            }
        }
    }

    public struct Edge: Sendable {
        public var id: String
        public var from: String?
        public var to: String?
        public var kind: EdgeKind
        public var start: SIMD2<Double>
        public var segments: [Segment]
        public var head: Head
        public var tail: Head
        public var color: Color
        /// In map units.
        public var width: Double
        public var dashed: Bool
        /// The id of the reaction node this edge is a part of (colored with it by a data overlay).
        public var reaction: String?

        public init(id: String, from: String?, to: String?, kind: EdgeKind, start: SIMD2<Double>, segments: [Segment],
                    head: Head = .none, tail: Head = .none, color: Color = .black, width: Double = 1, dashed: Bool = false,
                    reaction: String? = nil) {
            self.id = id
            self.reaction = reaction
            self.from = from
            self.to = to
            self.kind = kind
            self.start = start
            self.segments = segments
            self.head = head
            self.tail = tail
            self.color = color
            self.width = width
            self.dashed = dashed
        }

        /// The path as points, each Bezier flattened into `pieces` straight pieces.
        public func polyline(pieces: Int = 16) -> [SIMD2<Double>] {
            var points = [start]
            for s in segments {
                switch s {
                case .line(let p): points.append(p)
                case .cubic(let c1, let c2, let p):
                    let p0 = points[points.count - 1]
                    for k in 1...pieces {
                        let t = Double(k) / Double(pieces), u = 1 - t
                        points.append(u * u * u * p0 + 3 * u * u * t * c1 + 3 * u * t * t * c2 + t * t * t * p)
                    }
                }
            }
            return points
        }
    }

    public struct Compartment: Sendable {
        public var id: String
        public var name: String
        public var origin: SIMD2<Double>
        public var size: SIMD2<Double>
        public var color: Color
        /// The box the file gives for the name (SBGN's label bbox); the top left corner inside when nil.
        public var labelBox: (origin: SIMD2<Double>, size: SIMD2<Double>)?
        /// The fill where the file gives one (a render style); `color` lightened when nil.
        public var fill: Color?
        /// The outline's shape: a round rectangle unless the file names another (GPML's shapes).
        public var shape: Shape = .roundRectangle
        /// Drawn with a second line inside the first (PathVisio's double line: a nucleus, a mitochondrion).
        public var doubleLine = false
        /// CellDesigner's double line: the band between the lines this wide in map units, filled
        /// with `fill`, and the inside within the inner line with `innerFill` (white in CellDesigner).
        public var band: Double?
        public var innerFill: Color?
        /// Far larger than everything it holds (SBML maps with a compartment of 15,574 x 8,700
        /// round species in 1,300 x 700): left out of the map's extent, drawn as far as the picture reaches.
        public var beyondExtent = false
        /// The outline's width in map units where the file gives one; the theme's when nil.
        public var lineWidth: Double?
        /// No fill at all (a GPML shape without a fill colour).
        public var unfilled = false
        /// Turned about its centre, in radians clockwise on the page (GPML's Rotation).
        public var rotation = 0.0

        /// `points` turned with it: by `rotation` (clockwise on the page, y down) about its centre.
        public func turned(_ points: [SIMD2<Double>]) -> [SIMD2<Double>] {
            guard rotation != 0 else { return points }
            let center = origin + size / 2, s = sin(rotation), k = cos(rotation)
            return points.map { p in
                let d = p - center
                return center + SIMD2(d.x * k - d.y * s, d.x * s + d.y * k)
            }
        }

        /// The corners of its box, turned with it.
        public var corners: [SIMD2<Double>] {
            let hi = origin + size
            return turned([origin, SIMD2(hi.x, origin.y), hi, SIMD2(origin.x, hi.y)])
        }

        public init(id: String, name: String, origin: SIMD2<Double>, size: SIMD2<Double>, color: Color) {
            self.id = id
            self.name = name
            self.origin = origin
            self.size = size
            self.color = color
        }
    }

    /// Free text placed on the map.
    public struct Text: Sendable {
        public var text: String
        public var center: SIMD2<Double>
        public var fontSize: Double
        public var color: Color
        /// A mark on an edge (KEGG's +p): placed after every node's label, where there is room.
        public var isEdgeMark = false
        /// Set bold or italic, as the file says.
        public var bold = false
        public var italic = false

        public init(text: String, center: SIMD2<Double>, fontSize: Double, color: Color = .black) {
            self.text = text
            self.center = center
            self.fontSize = fontSize
            self.color = color
        }
    }

    public var title = ""
    /// The format it was read from.
    public var format = ""
    public var nodes: [Node] = []
    public var edges: [Edge] = []
    /// Edges the file states but its own tool does not draw unless asked (KGML relations):
    /// `showingRelations()` adds them to `edges`.
    public var relations: [Edge] = []
    public var compartments: [Compartment] = []
    public var texts: [Text] = []
    /// What the reader left out of a file its own tool opens, said once each (the commands print
    /// them on stderr): a KGML relation to an entry the file does not declare, say.
    public var warnings: [String] = []
    /// The drawing area the file states (Escher's canvas, GPML's board), if any.
    public var canvas: (origin: SIMD2<Double>, size: SIMD2<Double>)?
    /// The file gave no positions: `PathwayLayout` places the nodes.
    public var needsLayout = false

    public init() {}

    /// The graph alone, to be laid out anew: nodes without their places, edges between two nodes
    /// (not the lines inside one, as SBGN's port lines), no markers drawn on other nodes (state
    /// variables, multimer outlines), no compartments, free text or canvas.
    public func unplaced() -> PathwayMap {
        var map = PathwayMap()
        map.title = title
        map.format = format
        // Markers joined to others by an edge (Escher's midmarkers) are part of the graph.
        var joined = Set<String>()
        for e in edges { if let f = e.from, let t = e.to, f != t { joined.insert(f); joined.insert(t) } }
        map.nodes = nodes.filter { $0.kind != .marker || joined.contains($0.id) }
        let ids = Set(map.nodes.map(\.id))
        map.edges = edges.filter { e in
            guard let f = e.from, let t = e.to else { return false }
            return f != t && ids.contains(f) && ids.contains(t)
        }
        map.relations = relations
        map.needsLayout = true
        return map
    }

    /// The map with its relations drawn as edges too.
    public func showingRelations() -> PathwayMap {
        var map = self
        map.edges += map.relations
        map.relations = []
        return map
    }

    /// The smallest rectangle holding every node, edge point, compartment and text.
    public var bounds: (min: SIMD2<Double>, max: SIMD2<Double>) {
        var lo = SIMD2<Double>(repeating: .greatestFiniteMagnitude), hi = -lo
        func take(_ p: SIMD2<Double>) {
            lo = pointwiseMin(lo, p)
            hi = pointwiseMax(hi, p)
        }
        func label(_ text: String, size: Double, at a: SIMD2<Double>, fromStart: Bool) {
            guard let box = PathwayMap.estimatedBox(of: text, size: size, at: a, fromStart: fromStart) else { return }
            take(box.min)
            take(box.max)
        }
        for n in nodes {
            if n.size.x > 0 || n.size.y > 0 || n.label.isEmpty {
                take(n.frame.min)
                take(n.frame.max)
            }
            label(n.label, size: n.fontSize, at: n.labelPosition ?? n.center, fromStart: n.labelFromStart)
        }
        for e in edges { for p in e.polyline(pieces: 4) { take(p) } }
        for c in compartments where !c.beyondExtent {
            if c.rotation == 0 {
                take(c.origin)
                take(c.origin + c.size)
            } else {
                for p in c.corners { take(p) }
            }
        }
        for t in texts { label(t.text, size: t.fontSize, at: t.center, fromStart: false) }
        if lo.x > hi.x { return (.zero, SIMD2(1, 1)) }
        return (lo, hi)
    }

    public func node(_ id: String) -> Node? { nodes.first { $0.id == id } }

    /// Whether the box from `lo` to `hi` holds the one from `a` to `b`, edges included (a point where `a == b`).
    package static func box(_ lo: SIMD2<Double>, _ hi: SIMD2<Double>, holds a: SIMD2<Double>, _ b: SIMD2<Double>) -> Bool {
        lo.x <= a.x && lo.y <= a.y && hi.x >= b.x && hi.y >= b.y
    }

    package static func distance(_ a: SIMD2<Double>, _ b: SIMD2<Double>) -> Double { ((a - b) * (a - b)).sum().squareRoot() }

    /// A label's extent, estimated before any font is at hand (an average letter is about 0.6 of
    /// the font size wide, a line 1.2 high): centered on `a`, or from `a` on the first baseline.
    package static func estimatedBox(of text: String, size: Double, at a: SIMD2<Double>, fromStart: Bool) -> (min: SIMD2<Double>, max: SIMD2<Double>)? {
        guard !text.isEmpty else { return nil }
        let lines = text.split(whereSeparator: \.isNewline)
        let e = SIMD2(0.6 * size * Double(lines.map(\.count).max() ?? 0), 1.2 * size * Double(lines.count))
        return fromStart ? (a - SIMD2(0, size), a + SIMD2(e.x, e.y - size)) : (a - e / 2, a + e / 2)
    }
}

/// A pathway file whose content is wrong: the file and where (a line, an element or a key).
public struct PathwayError: Fault, Sendable, Equatable {
    public var file: String
    public var location: String?
    public var message: String
    public var kind: FaultKind { .input }

    public init(file: String, at location: String? = nil, _ message: String) {
        self.file = file
        self.location = location
        self.message = message
    }

    public var description: String { location.map { "\(file): \($0): \(message)" } ?? "\(file): \(message)" }
}

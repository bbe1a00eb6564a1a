import Core

/// Reads SBML with the Layout package, as libSBML, COPASI and CellDesigner write it: the Level 3
/// package (`layout:listOfLayouts` in the model) or the Level 2 annotation
/// (`<annotation><listOfLayouts xmlns="http://projects.eml.org/bioinformatics/sbml/level2">`).
/// The first layout is drawn: compartment glyphs as boxes, species glyphs as round rectangles,
/// reaction glyphs as small process squares with their own curve, species reference glyphs as
/// edges by role (products and side products end in arrows, modifiers and activators in circles,
/// inhibitors in bars), line segments and cubic Beziers as the file gives them, and text glyphs as
/// labels where their box is. Names come from the model's species, reactions and compartments.
/// Colors from the Render package are not read; the theme's are used.
enum SBMLLayoutReader {
    static let speciesFill = Color(rgb: 0xCCFFCC)
    static let lineColor = Color(rgb: 0x404040)

    /// An attribute by its local name (`layout:x` and `x` alike).
    static func attribute(_ e: XMLElementNode, _ name: String) -> String? { e.attribute(local: name) }

    static func number(_ e: XMLElementNode, _ name: String) -> Double? {
        attribute(e, name).flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }.flatMap { $0.isFinite ? $0 : nil }
    }

    /// A model without a layout: its species and reactions as a graph for `PathwayLayout` to place
    /// (reactants into each reaction, the reaction to its products, modifiers as catalysis), as a
    /// map made from a file without positions is.
    static func graph(_ model: XMLElementNode, names: [String: String], file: String) throws -> PathwayMap {
        var map = PathwayMap()
        map.format = "sbml"
        map.title = attribute(model, "name") ?? attribute(model, "id") ?? ""
        map.needsLayout = true
        var species = Set<String>()
        for s in model.child("listOfSpecies")?.all("species") ?? [] {
            guard let id = attribute(s, "id") else { throw PathwayError(file: file, at: s.place, "a species without an id") }
            species.insert(id)
            let name = names[id] ?? id
            map.nodes.append(PathwayMap.Node(id: id, name: name, kind: .metabolite, center: .zero, size: SIMD2(30, 30), shape: .ellipse,
                                             fill: Color(rgb: 0xE0865B), stroke: .black, label: name, fontSize: 12))
        }
        for r in model.child("listOfReactions")?.all("reaction") ?? [] {
            guard let id = attribute(r, "id") else { throw PathwayError(file: file, at: r.place, "a reaction without an id") }
            map.nodes.append(PathwayMap.Node(id: id, name: names[id] ?? id, kind: .reaction, center: .zero, size: SIMD2(10, 10),
                                             shape: .process, fill: .white, stroke: .black))
            func references(_ list: String) throws -> [String] {
                try (r.child(list)?.children ?? []).compactMap { ref in
                    guard let s = attribute(ref, "species") else { return nil }
                    guard species.contains(s) else { throw PathwayError(file: file, at: ref.place, "\(s) is not a species of the model") }
                    return s
                }
            }
            let color = Color(rgb: 0x334E75)
            for s in try references("listOfReactants") {
                map.edges.append(PathwayMap.Edge(id: "\(id)-\(s)", from: s, to: id, kind: .substrate, start: .zero, segments: [.line(to: .zero)],
                                                 tail: attribute(r, "reversible") == "true" ? .arrow : .none, color: color, width: 2, reaction: id))
            }
            for s in try references("listOfProducts") {
                map.edges.append(PathwayMap.Edge(id: "\(id)+\(s)", from: id, to: s, kind: .product, start: .zero, segments: [.line(to: .zero)],
                                                 head: .arrow, color: color, width: 2, reaction: id))
            }
            for s in try references("listOfModifiers") {
                map.edges.append(PathwayMap.Edge(id: "\(id)*\(s)", from: s, to: id, kind: .catalysis, start: .zero, segments: [.line(to: .zero)],
                                                 head: .circle, color: color, width: 2, reaction: id))
            }
        }
        guard !map.nodes.isEmpty else { throw PathwayError(file: file, at: model.place, "the model has no species and no layout: nothing to draw") }
        return map
    }

    static func read(_ root: XMLElementNode, file: String) throws -> PathwayMap {
        func fail(_ e: XMLElementNode, _ message: String) -> PathwayError { PathwayError(file: file, at: e.place, message) }
        guard var model = root.child("model") else { throw fail(root, "an SBML file holds a <model>") }
        // A composed model (`comp`) is flattened first, as libSBML does.
        var flatteningWarnings: [String] = []
        if let flat = try SBMLComp.flattened(model, root: root, file: file) {
            model = flat.model
            flatteningWarnings = flat.warnings
        }
        var map = try read(model: model, file: file)
        map.warnings += flatteningWarnings
        return map
    }

    static func read(model: XMLElementNode, file: String) throws -> PathwayMap {
        func fail(_ e: XMLElementNode, _ message: String) -> PathwayError { PathwayError(file: file, at: e.place, message) }
        var names: [String: String] = [:]
        for list in ["listOfCompartments", "listOfSpecies", "listOfReactions"] {
            for e in model.child(list)?.children ?? [] {
                if let id = attribute(e, "id") { names[id] = attribute(e, "name").flatMap { $0.isEmpty ? nil : $0 } ?? id }
            }
        }
        guard let layout = model.descendants("listOfLayouts").first?.all("layout").first else {
            // CellDesigner keeps its own diagram in the model's annotation.
            if let diagram = CellDesignerReader.diagram(of: model) {
                return try CellDesignerReader.read(model, diagram: diagram, names: names, file: file)
            }
            return try graph(model, names: names, file: file)
        }
        func box(_ glyph: XMLElementNode) throws -> (origin: SIMD2<Double>, size: SIMD2<Double>) {
            guard let b = glyph.child("boundingBox"), let p = b.child("position"), let d = b.child("dimensions"),
                  let x = number(p, "x"), let y = number(p, "y"), let w = number(d, "width"), let h = number(d, "height") else {
                throw fail(glyph, "needs a <boundingBox> with a position (x, y) and dimensions (width, height)")
            }
            return (SIMD2(x, y), SIMD2(w, h))
        }
        func point(_ e: XMLElementNode?, _ owner: XMLElementNode) throws -> SIMD2<Double> {
            guard let e, let x = number(e, "x"), let y = number(e, "y") else { throw fail(owner, "a curve point needs x and y") }
            return SIMD2(x, y)
        }
        /// A curve's start and its segments (lines, and cubic Beziers with two base points).
        func curve(_ owner: XMLElementNode) throws -> (start: SIMD2<Double>, segments: [PathwayMap.Segment])? {
            guard let list = owner.child("curve")?.child("listOfCurveSegments") else { return nil }
            var start: SIMD2<Double>?
            var segments: [PathwayMap.Segment] = []
            for s in list.all("curveSegment") {
                let a = try point(s.child("start"), s), b = try point(s.child("end"), s)
                if start == nil { start = a } else if let last = segments.last?.end, last != a { segments.append(.line(to: a)) }
                if let b1 = s.child("basePoint1"), let b2 = s.child("basePoint2") {
                    segments.append(.cubic(c1: try point(b1, s), c2: try point(b2, s), to: b))
                } else {
                    segments.append(.line(to: b))
                }
            }
            guard let start else { return nil }
            return (start, segments)
        }

        // The Render package's colours: the layout's own render information, else the global one.
        let own = RenderStyles(under: layout)
        let styles = own.isEmpty ? RenderStyles(under: model.descendants("listOfLayouts").first) : own
        var map = PathwayMap()
        map.format = "sbml"
        map.title = attribute(model, "name") ?? attribute(model, "id") ?? ""
        if let d = layout.child("dimensions"), let w = number(d, "width"), let h = number(d, "height") {
            map.canvas = (.zero, SIMD2(w, h))
        }
        for g in layout.child("listOfCompartmentGlyphs")?.all("compartmentGlyph") ?? [] {
            let (origin, size) = try box(g)
            let id = attribute(g, "id") ?? ""
            var c = PathwayMap.Compartment(id: id, name: attribute(g, "compartment").map { names[$0] ?? $0 } ?? "",
                                           origin: origin, size: size, color: Color(rgb: 0x9AA5B1))
            styles.apply(to: &c, type: "COMPARTMENTGLYPH", role: g.attribute(local: "objectRole"))
            map.compartments.append(c)
        }
        var glyphIDs = Set<String>()
        for g in layout.child("listOfSpeciesGlyphs")?.all("speciesGlyph") ?? [] {
            guard let id = attribute(g, "id") else { throw fail(g, "a species glyph without an id") }
            let (origin, size) = try box(g)
            let species = attribute(g, "species") ?? ""
            let name = names[species] ?? species
            var node = PathwayMap.Node(id: id, name: name, kind: .metabolite, center: origin + size / 2, size: size,
                                       shape: .roundRectangle, fill: speciesFill, stroke: .black, label: name,
                                       fontSize: max(6, min(12, size.y * 0.45)))
            styles.apply(to: &node, type: "SPECIESGLYPH", reshape: true, role: g.attribute(local: "objectRole"))
            map.nodes.append(node)
            glyphIDs.insert(id)
        }
        // A glyph that holds others (a complex round its members) is drawn before them, whatever
        // the file's order: by how many glyphs hold each (a map of a few thousand species; larger
        // ones keep the file's order).
        if map.nodes.count <= 3_000 {
            func holds(_ p: PathwayMap.Node, _ q: PathwayMap.Node) -> Bool {
                PathwayMap.box(p.frame.min, p.frame.max, holds: q.frame.min, q.frame.max) && p.size.x * p.size.y > q.size.x * q.size.y
            }
            let depth = map.nodes.map { q in map.nodes.reduce(0) { $0 + (holds($1, q) ? 1 : 0) } }
            if depth.contains(where: { $0 > 0 }) {
                map.nodes = map.nodes.indices.sorted { (depth[$0], $0) < (depth[$1], $1) }.map { map.nodes[$0] }
            }
        }
        for g in layout.child("listOfReactionGlyphs")?.all("reactionGlyph") ?? [] {
            guard let id = attribute(g, "id") else { throw fail(g, "a reaction glyph without an id") }
            let reaction = attribute(g, "reaction") ?? ""
            let own = try curve(g)
            var center: SIMD2<Double>, drawn = true
            if let own {
                let points = PathwayMap.Edge(id: "", from: nil, to: nil, kind: .plain, start: own.start, segments: own.segments).polyline(pieces: 8)
                center = points[points.count / 2]
                map.edges.append(PathwayMap.Edge(id: "\(id).curve", from: nil, to: nil, kind: .plain, start: own.start, segments: own.segments,
                                                 color: lineColor, width: 1.5, reaction: id))
            } else {
                let (origin, size) = try box(g)
                center = origin + size / 2
                // SBW and JDesigner write an empty box at the origin and put the reaction only in its
                // species references' curves: the reaction is where those curves leave their species
                // (the ends away from them), and no process square is drawn at a place the file never gave.
                if size.x <= 0 && size.y <= 0 {
                    var ends: [SIMD2<Double>] = []
                    for r in g.child("listOfSpeciesReferenceGlyphs")?.all("speciesReferenceGlyph") ?? [] {
                        guard let path = try curve(r), let species = attribute(r, "speciesGlyph"), let c = map.node(species)?.center,
                              let last = path.segments.last?.end else { continue }
                        ends.append(PathwayMap.distance(path.start, c) > PathwayMap.distance(last, c) ? path.start : last)
                    }
                    if !ends.isEmpty {
                        center = ends.reduce(SIMD2<Double>(0, 0), +) / Double(ends.count)
                        drawn = false
                    }
                }
            }
            var process = PathwayMap.Node(id: id, name: names[reaction] ?? reaction, kind: .reaction, center: center,
                                          size: SIMD2(8, 8), shape: drawn ? .process : .none, fill: .white, stroke: .black)
            // A reaction glyph styled with a shape (SBMLDiagrams' circles) is that shape at its box's size.
            if drawn, let style = styles.style(id: id, type: "REACTIONGLYPH", role: g.attribute(local: "objectRole")), style.shape != nil,
               let b = g.child("boundingBox"), let d = b.child("dimensions"), let w = number(d, "width"), let h = number(d, "height"),
               w > 0, h > 0, w < 1e4, h < 1e4 {
                styles.apply(to: &process, type: "REACTIONGLYPH", reshape: true, role: g.attribute(local: "objectRole"))
                process.size = SIMD2(w, h)
            }
            map.nodes.append(process)
            glyphIDs.insert(id)
            for r in g.child("listOfSpeciesReferenceGlyphs")?.all("speciesReferenceGlyph") ?? [] {
                let rid = attribute(r, "id") ?? "\(id).\(map.edges.count)"
                guard let species = attribute(r, "speciesGlyph") else { throw fail(r, "a species reference glyph without a speciesGlyph") }
                guard glyphIDs.contains(species) || map.node(species) != nil else { throw fail(r, "\(species) is not a species glyph of the layout") }
                let role = (attribute(r, "role") ?? "").lowercased()
                let kind: PathwayMap.EdgeKind
                switch role {
                case "substrate", "sidesubstrate": kind = .substrate
                case "product", "sideproduct": kind = .product
                case "inhibitor": kind = .inhibition
                case "activator": kind = .stimulation
                case "modifier": kind = .catalysis
                default: kind = .plain
                }
                let toSpecies = kind == .product
                var head: PathwayMap.Head = [.product: .arrow, .inhibition: .bar, .stimulation: .openArrow, .catalysis: .circle][kind] ?? .none
                let speciesCenter = map.node(species)!.center
                var path = try curve(r) ?? (toSpecies ? center : speciesCenter, [.line(to: toSpecies ? speciesCenter : center)])
                // The file's curve runs from the reaction to the species; edges into the reaction turn round.
                if !toSpecies, let first = path.segments.last?.end, PathwayMap.distance(first, speciesCenter) < PathwayMap.distance(path.start, speciesCenter) {
                    path = PathwayMap.reversed(path)
                }
                let style = styles.style(id: rid, type: "SPECIESREFERENCEGLYPH", role: r.attribute(local: "objectRole") ?? attribute(r, "role"))
                    ?? styles.style(id: id, type: "REACTIONGLYPH", role: g.attribute(local: "objectRole"))
                // The line ending the style names, where the render information defines it.
                if let own = styles.head(of: style) { head = own }
                map.edges.append(PathwayMap.Edge(id: rid, from: toSpecies ? id : species, to: toSpecies ? species : id, kind: kind,
                                                 start: path.start, segments: path.segments, head: head, color: style?.stroke ?? lineColor,
                                                 width: style?.width.map { max(0.5, min($0, 4)) } ?? 1.5, reaction: id))
            }
        }
        var labelled = Set<String>()
        for t in layout.child("listOfTextGlyphs")?.all("textGlyph") ?? [] {
            let (origin, size) = try box(t)
            let text = attribute(t, "text") ?? attribute(t, "originOfText").map { names[$0] ?? $0 } ?? ""
            // The text glyph's own style sets its weight and slant (font-weight, font-style).
            let style = styles.style(id: attribute(t, "id") ?? "", type: "TEXTGLYPH", role: t.attribute(local: "objectRole"))
            // A node's first text glyph is its label; a second (SBMLDiagrams gives a reaction an "R"
            // in its circle and its name beside it) is drawn as free text where it says.
            if let object = attribute(t, "graphicalObject"), let k = map.nodes.firstIndex(where: { $0.id == object }), !labelled.contains(object) {
                labelled.insert(object)
                if !text.isEmpty { map.nodes[k].label = text }
                map.nodes[k].labelPosition = origin + size / 2
                // Set to the top or bottom of its box where its style says (SBMLDiagrams' complexes name themselves at the bottom).
                let line = (style?.fontSize ?? map.nodes[k].fontSize) * 0.6
                if style?.verticalAnchor == "bottom" || style?.verticalAnchor == "baseline" {
                    map.nodes[k].labelPosition = SIMD2(origin.x + size.x / 2, origin.y + max(size.y - line - 2, size.y / 2))
                } else if style?.verticalAnchor == "top" {
                    map.nodes[k].labelPosition = SIMD2(origin.x + size.x / 2, origin.y + min(line + 2, size.y / 2))
                }
                if let b = style?.bold { map.nodes[k].bold = b }
                if let i = style?.italic { map.nodes[k].italic = i }
                if let c = style?.stroke { map.nodes[k].textColor = c }
                if let f = style?.fontSize { map.nodes[k].fontSize = f }
            } else if let object = attribute(t, "graphicalObject"), let k = map.compartments.firstIndex(where: { $0.id == object }) {
                // A compartment's name where its text glyph puts it.
                if !text.isEmpty { map.compartments[k].name = text }
                map.compartments[k].labelBox = (origin, size)
            } else if !text.isEmpty {
                var free = PathwayMap.Text(text: text, center: origin + size / 2, fontSize: style?.fontSize ?? max(6, min(14, size.y * 0.6)))
                free.bold = style?.bold ?? false
                free.italic = style?.italic ?? false
                if let c = style?.stroke { free.color = c }
                map.texts.append(free)
            }
        }
        // Compartments round everything and far larger than it do not set the extent (the
        // picture would hold the map small in a corner of them).
        func holds(_ c: PathwayMap.Compartment, _ lo: SIMD2<Double>, _ hi: SIMD2<Double>) -> Bool {
            PathwayMap.box(c.origin, c.origin + c.size, holds: lo, hi)
        }
        var content = map
        content.compartments = map.compartments.filter { c in !map.nodes.allSatisfy { holds(c, $0.center, $0.center) } }
        let inner = content.bounds, area = (inner.max.x - inner.min.x) * (inner.max.y - inner.min.y)
        if !map.nodes.isEmpty, area > 0 {
            for k in map.compartments.indices where holds(map.compartments[k], inner.min, inner.max) {
                if map.compartments[k].size.x * map.compartments[k].size.y > 4 * area { map.compartments[k].beyondExtent = true }
            }
        }
        return map
    }
}

extension PathwayMap {
    /// A path walked the other way.
    static func reversed(_ path: (start: SIMD2<Double>, segments: [Segment])) -> (start: SIMD2<Double>, segments: [Segment]) {
        var points = [path.start] + path.segments.map(\.end)
        var out: [Segment] = []
        for k in stride(from: path.segments.count - 1, through: 0, by: -1) {
            let to = points[k]
            switch path.segments[k] {
            case .line: out.append(.line(to: to))
            case .cubic(let c1, let c2, _): out.append(.cubic(c1: c2, c2: c1, to: to))
            }
        }
        points.reverse()
        return (points[0], out)
    }
}

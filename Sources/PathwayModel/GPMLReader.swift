import Core

/// Reads GPML 2021 and GPML 2013a (WikiPathways; 2013a is what most of its files still come in):
/// data nodes with their graphics (shape, colors, font size), interactions and graphical lines
/// through their points with the arrowheads the file names (elbow connectors routed in right
/// angles), labels as free text, shapes as outlined areas. 2013a spells the same things with
/// capitals (`TextLabel`, `GraphId`, `CenterX`), one `Color` for text and border, and its points
/// inside `<Graphics>`.
enum GPMLReader {
    /// The 2013a spelling of a 2021 attribute.
    static let older: [String: String] = [
        "textLabel": "TextLabel", "elementId": "GraphId", "type": "Type", "centerX": "CenterX", "centerY": "CenterY",
        "width": "Width", "height": "Height", "fillColor": "FillColor", "borderColor": "Color", "textColor": "Color",
        "shapeType": "ShapeType", "fontSize": "FontSize", "lineColor": "Color", "lineWidth": "LineThickness",
        "lineStyle": "LineStyle", "arrowHead": "ArrowHead", "elementRef": "GraphRef", "x": "X", "y": "Y",
        "boardWidth": "BoardWidth", "boardHeight": "BoardHeight", "connectorType": "ConnectorType", "title": "Name",
        "relX": "RelX", "relY": "RelY", "zOrder": "ZOrder", "fontWeight": "FontWeight", "fontStyle": "FontStyle", "rotation": "Rotation",
    ]

    static func read(_ root: XMLElementNode, file: String) throws -> PathwayMap {
        guard root.name == "Pathway" else { throw PathwayError(file: file, at: root.place, "a GPML file's root is <Pathway>") }
        let namespace = root.attributes["xmlns"] ?? ""
        if namespace.contains("pathvisio.org/GPML/") && !namespace.hasSuffix("2013a") && !namespace.contains("2021") {
            throw PathwayError(file: file, at: root.place, "GPML of \(namespace.split(separator: "/").last ?? "") is not read: GPML 2013a and 2021 are")
        }
        // Each element read in either spelling.
        func value(_ e: XMLElementNode, _ key: String) -> String? { e.attributes[key] ?? older[key].flatMap { e.attributes[$0] } }
        func number(_ e: XMLElementNode, _ key: String) -> Double? {
            value(e, key).flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }.flatMap { $0.isFinite ? $0 : nil }
        }
        var map = PathwayMap()
        map.format = "gpml"
        map.title = value(root, "title") ?? ""
        if let g = root.child("Graphics"), let w = number(g, "boardWidth"), let h = number(g, "boardHeight") { map.canvas = (.zero, SIMD2(w, h)) }
        func color(_ text: String?, _ fallback: Color?) -> Color? {
            guard let text, text.lowercased() != "transparent" else { return text == nil ? fallback : nil }
            return Color(parsing: text) ?? fallback
        }
        func frame(_ element: XMLElementNode) throws -> (XMLElementNode, SIMD2<Double>, SIMD2<Double>) {
            guard let g = element.child("Graphics"), let x = number(g, "centerX"), let y = number(g, "centerY") else {
                throw PathwayError(file: file, at: element.place, "needs <Graphics> with centerX and centerY (CenterX and CenterY in GPML 2013a)")
            }
            return (g, SIMD2(x, y), SIMD2(number(g, "width") ?? 0, number(g, "height") ?? 0))
        }
        // FontWeight="Bold" and FontStyle="Italic" (2013a), fontWeight/fontStyle (2021).
        func face(_ g: XMLElementNode) -> (bold: Bool, italic: Bool) {
            (value(g, "fontWeight")?.lowercased() == "bold", value(g, "fontStyle")?.lowercased() == "italic")
        }
        // A data node's or state's shape: as a Shape's, or none.
        func shape(_ name: String?) -> PathwayMap.Shape {
            name == "None" ? .none : areaShape(name ?? "Rectangle")
        }
        // Shapes as PathVisio draws them: in their shape type, with their fill (none unless
        // given), border colour and thickness, PathVisio's double line; behind the nodes, one
        // over another in their ZOrder (the file's order among equals).
        var shapes: [(z: Double, area: PathwayMap.Compartment)] = []
        for element in root.descendants("Shape") {
            let (g, c, size) = try frame(element)
            var area = PathwayMap.Compartment(id: value(element, "elementId") ?? "", name: value(element, "textLabel") ?? "",
                                              origin: c - size / 2, size: size,
                                              color: color(value(g, "borderColor"), .black) ?? .black)
            let type = value(g, "shapeType") ?? "Rectangle"
            area.shape = areaShape(type)
            let fill = value(g, "fillColor")
            area.fill = color(fill, nil)
            area.unfilled = (area.fill?.alpha ?? 0) == 0
            area.lineWidth = number(g, "borderWidth") ?? number(g, "lineWidth") ?? 1
            let properties = element.all("Attribute").reduce(into: [String: String]()) { $0[$1.attributes["Key"] ?? $1.attributes["key"] ?? ""] = $1.attributes["Value"] ?? $1.attributes["value"] }
            area.doubleLine = properties["org.pathvisio.DoubleLineProperty"] == "Double" || value(g, "borderStyle") == "Double"
                || ["Nucleus", "Cell"].contains(type) && properties["org.pathvisio.DoubleLineProperty"] != "Single"
            if value(g, "lineStyle") == "Double" { area.doubleLine = true }
            // Radians, clockwise (or the schema's side names, Top being none).
            if let turn = value(g, "rotation") {
                let sides = ["Top": 0, "Right": Double.pi / 2, "Bottom": Double.pi, "Left": 3 * Double.pi / 2]
                if let r = sides[turn] ?? Double(turn.trimmingCharacters(in: .whitespaces)), r.isFinite {
                    area.rotation = r.truncatingRemainder(dividingBy: 2 * Double.pi)
                }
            }
            shapes.append((number(g, "zOrder") ?? 0, area))
        }
        map.compartments += shapes.enumerated().sorted { ($0.element.z, $0.offset) < ($1.element.z, $1.offset) }.map(\.element.area)
        // Groups as PathVisio draws them: a Complex an octagon round its members, a 2013a group
        // without a style (None) a dashed grey box, a plain Group nothing. 2013a: members'
        // GroupRef is the group's GroupId; 2021: its elementId.
        var drawn: [String: (id: String, complex: Bool)] = [:]
        for group in root.descendants("Group") {
            let style = group.attributes["Style"] ?? group.attributes["type"] ?? (namespace.hasSuffix("2013a") ? "None" : "")
            guard style == "Complex" || (style == "None" && namespace.hasSuffix("2013a")) else { continue }
            for key in [group.attributes["GroupId"], group.attributes["elementId"]].compactMap({ $0 }) {
                drawn[key] = (value(group, "elementId") ?? key, style == "Complex")
            }
        }
        var memberFrames: [String: (lo: SIMD2<Double>, hi: SIMD2<Double>, complex: Bool)] = [:]
        for node in root.descendants("DataNode") {
            guard let ref = node.attributes["GroupRef"] ?? node.attributes["groupRef"], let group = drawn[ref],
                  let (_, c, size) = try? frame(node) else { continue }
            let lo = c - size / 2, hi = c + size / 2
            let f = memberFrames[group.id] ?? (lo, hi, group.complex)
            memberFrames[group.id] = (pointwiseMin(f.lo, lo), pointwiseMax(f.hi, hi), group.complex)
        }
        for (group, f) in memberFrames.sorted(by: { $0.key < $1.key }) {
            let pad = SIMD2<Double>(8, 8)
            if f.complex {
                var area = PathwayMap.Compartment(id: group, name: "", origin: f.lo - pad, size: f.hi - f.lo + 2 * pad, color: Color(rgb: 0x808080))
                area.shape = .cutRectangle
                area.fill = Color(rgb: 0xF0F0F0)
                area.lineWidth = 1
                map.compartments.append(area)
            } else {
                // Drawn before the members (under them), a marker: it is not tapped or laid out.
                var box = PathwayMap.Node(id: group + ".group", kind: .marker, center: (f.lo + f.hi) / 2, size: f.hi - f.lo + 2 * pad,
                                          shape: .rectangle, stroke: Color(rgb: 0xA0A0A0))
                box.dashed = true
                map.nodes.append(box)
            }
        }
        for node in root.descendants("DataNode") {
            guard let id = value(node, "elementId") else { throw PathwayError(file: file, at: node.place, "a DataNode without an elementId (GraphId in GPML 2013a)") }
            let (g, c, size) = try frame(node)
            let kind: PathwayMap.NodeKind
            switch value(node, "type") ?? "" {
            case "Metabolite": kind = .metabolite
            case "GeneProduct", "Protein", "Rna", "Complex": kind = .geneProduct
            case "Pathway": kind = .pathway
            default: kind = .other
            }
            var n = PathwayMap.Node(id: id, name: value(node, "textLabel") ?? "", kind: kind, center: c, size: size,
                                    shape: shape(value(g, "shapeType")), fill: color(value(g, "fillColor"), .white),
                                    stroke: color(value(g, "borderColor"), .black), label: value(node, "textLabel") ?? "",
                                    fontSize: number(g, "fontSize") ?? 10, textColor: color(value(g, "textColor"), .black) ?? .black)
            (n.bold, n.italic) = face(g)
            map.nodes.append(n)
        }
        // States: small glyphs on a data node's edge (relX, relY from -1 to 1 across it), nested in
        // the node in GPML 2021, beside it with a GraphRef in 2013a.
        let nodeFrames = Dictionary(map.nodes.map { ($0.id, ($0.center, $0.size)) }, uniquingKeysWith: { a, _ in a })
        var states: [(owner: String, state: XMLElementNode)] = []
        for node in root.descendants("DataNode") {
            for st in node.child("States")?.all("State") ?? [] { if let id = value(node, "elementId") { states.append((id, st)) } }
        }
        for st in root.all("State") { if let owner = value(st, "elementRef") { states.append((owner, st)) } }
        for (owner, state) in states {
            guard let g = state.child("Graphics"), let (center, size) = nodeFrames[owner] else { continue }
            let rel = SIMD2(number(g, "relX") ?? 0, number(g, "relY") ?? 0)
            let w = number(g, "width") ?? 15, h = number(g, "height") ?? 15
            let text = value(state, "textLabel") ?? ""
            map.nodes.append(PathwayMap.Node(id: value(state, "elementId") ?? "\(owner).state", name: text, kind: .marker,
                                             center: center + rel * size / 2, size: SIMD2(w, h), shape: shape(value(g, "shapeType")),
                                             fill: color(value(g, "fillColor"), .white), stroke: color(value(g, "borderColor"), .black),
                                             label: text, fontSize: max(5, h * 0.6)))
        }
        // A label is free text, or with a shape type (other than None) a box with its text in it,
        // its fill and border as given.
        for label in root.descendants("Label") {
            let (g, c, size) = try frame(label)
            let text = value(label, "textLabel") ?? "", fontSize = number(g, "fontSize") ?? 10
            let textColor = color(value(g, "textColor"), .black) ?? .black
            if let type = value(g, "shapeType"), type != "None", size.x > 0, size.y > 0 {
                var node = PathwayMap.Node(id: value(label, "elementId") ?? "", name: text, kind: .label, center: c, size: size,
                                           shape: areaShape(type), fill: color(value(g, "fillColor"), nil),
                                           stroke: color(value(g, "borderColor"), textColor), label: text,
                                           fontSize: fontSize, textColor: textColor)
                node.lineWidth = number(g, "borderWidth") ?? number(g, "lineWidth")
                (node.bold, node.italic) = face(g)
                map.nodes.append(node)
                continue
            }
            var free = PathwayMap.Text(text: text, center: c, fontSize: fontSize, color: textColor)
            (free.bold, free.italic) = face(g)
            map.texts.append(free)
        }
        for line in root.descendants("Interaction") + root.descendants("GraphicalLine") {
            let id = value(line, "elementId") ?? ""
            let g = line.child("Graphics")
            let points = line.child("Waypoints")?.all("Point") ?? g?.all("Point") ?? []
            guard points.count >= 2 else { throw PathwayError(file: file, at: line.place, "a line needs two or more points") }
            var xy = try points.map { p -> SIMD2<Double> in
                guard let x = number(p, "x"), let y = number(p, "y") else { throw PathwayError(file: file, at: p.place, "a Point needs x and y") }
                return SIMD2(x, y)
            }
            // The side of its node a connector leaves or enters by (RelX/RelY of -1 or 1), as a
            // direction out of the node.
            func side(_ p: XMLElementNode) -> SIMD2<Double>? {
                let rx = number(p, "relX") ?? 0, ry = number(p, "relY") ?? 0
                if abs(ry) > 0.99 && abs(ry) >= abs(rx) { return SIMD2(0, ry > 0 ? 1 : -1) }
                if abs(rx) > 0.99 { return SIMD2(rx > 0 ? 1 : -1, 0) }
                return nil
            }
            let startSide = side(points.first!), endSide = side(points.last!)
            var segments: [PathwayMap.Segment]
            switch g.flatMap({ value($0, "connectorType") }) {
            case "Elbow":
                xy = GPMLReader.elbow(xy, startSide: startSide, endSide: endSide)
                segments = xy.dropFirst().map { .line(to: $0) }
            case "Curved":
                segments = GPMLReader.curve(xy, startSide: startSide, endSide: endSide)
            default:
                segments = xy.dropFirst().map { .line(to: $0) }
            }
            func head(_ name: String?) -> PathwayMap.Head {
                switch name ?? "Undirected" {
                case "Directed", "Arrow", "mim-conversion", "mim-translocation", "mim-transcription-translation", "Conversion": return .arrow
                case "Catalysis", "mim-catalysis": return .circle
                case "Inhibition", "mim-inhibition", "TBar": return .bar
                case "mim-necessary-stimulation": return .barArrow
                case "Stimulation", "mim-stimulation", "mim-modification", "Binding", "mim-binding": return .openArrow
                default: return .none
                }
            }
            let last = head(value(points.last!, "arrowHead")), first = head(value(points.first!, "arrowHead"))
            let kind: PathwayMap.EdgeKind
            switch last {
            case .arrow: kind = .product
            case .circle, .dot: kind = .catalysis
            case .bar, .doubleBar: kind = .inhibition
            case .openArrow, .barArrow, .diamond, .doubleOpenArrow: kind = .stimulation
            case .none: kind = .plain
            }
            map.edges.append(PathwayMap.Edge(id: id, from: value(points.first!, "elementRef"), to: value(points.last!, "elementRef"),
                                             kind: kind, start: xy[0], segments: segments, head: last, tail: first,
                                             color: g.flatMap { color(value($0, "lineColor"), .black) } ?? .black,
                                             width: g.flatMap { number($0, "lineWidth") } ?? 1,
                                             dashed: ["Dashed", "Broken"].contains(g.flatMap { value($0, "lineStyle") } ?? "")))
        }
        return map
    }

    /// The outline a GPML shape type is drawn in: PathVisio's basic shapes and its cellular
    /// components (a mitochondrion or a nucleus is a round outline, drawn double).
    static func areaShape(_ type: String) -> PathwayMap.Shape {
        switch type {
        case "Rectangle": return .rectangle
        case "Mitochondria": return .mitochondria
        case "Endoplasmic Reticulum", "EndoplasmicReticulum": return .endoplasmicReticulum
        case "Golgi Apparatus", "GolgiApparatus": return .golgiApparatus
        case "Sarcoplasmic Reticulum", "SarcoplasmicReticulum": return .sarcoplasmicReticulum
        case "RoundedRectangle", "RoundRectangle", "Cell", "Organelle", "ExtracellularRegion": return .roundRectangle
        case "Oval", "Ellipse", "Circle", "Nucleus", "Vesicle", "Lysosome", "Peroxisome": return .ellipse
        case "Octagon": return .octagon
        case "Hexagon": return .hexagon
        case "Triangle": return .triangle
        case "Pentagon": return .pentagon
        case "Brace": return .brace
        case "Arc": return .arc
        default: return .rectangle
        }
    }

    /// An elbow connector: right angles only. Where the ends say which side of their node they
    /// leave by, a short stub goes straight out of that side first, then the line turns once or
    /// twice to come into the other end straight; between waypoints, along the longer direction
    /// to halfway, across, and on.
    static func elbow(_ xy: [SIMD2<Double>], startSide: SIMD2<Double>?, endSide: SIMD2<Double>?) -> [SIMD2<Double>] {
        var routed = [xy[0]]
        if xy.count == 2, let ds = startSide ?? endSide.map({ -$0 }) {
            let a = xy[0], b = xy[1], stub = 15.0
            let a1 = a + ds * stub, b1 = endSide.map { b + $0 * stub } ?? b
            // The routes with one or two turns from a1 to b1; the one that never doubles back on
            // itself (out of a side and straight back) and turns least wins.
            let mx = (a1.x + b1.x) / 2, my = (a1.y + b1.y) / 2
            // (Halfway turns first: among equals, PathVisio's look.)
            let candidates: [[SIMD2<Double>]] = [[SIMD2(mx, a1.y), SIMD2(mx, b1.y)], [SIMD2(a1.x, my), SIMD2(b1.x, my)],
                                                 [SIMD2(b1.x, a1.y)], [SIMD2(a1.x, b1.y)]]
            func cost(_ corners: [SIMD2<Double>]) -> Double {
                let path = [a, a1] + corners + [b1, b]
                var backs = 0, turns = 0, length = 0.0
                var previous: SIMD2<Double>? = nil
                for (p, q) in zip(path, path.dropFirst()) where PathwayMap.distance(p, q) > 1e-9 {
                    let d = (q - p) / PathwayMap.distance(p, q)
                    length += PathwayMap.distance(p, q)
                    if let previous {
                        let dot = (previous * d).sum()
                        if dot < -0.5 { backs += 1 } else if dot < 0.5 { turns += 1 }
                    }
                    previous = d
                }
                return Double(backs) * 1e6 + Double(turns) * 1e3 + length
            }
            routed.append(a1)
            routed += candidates.min { cost($0) < cost($1) }!
            routed += [b1, b]
            // Corners that are not corners (three in a line, or a point twice) go.
            var clean: [SIMD2<Double>] = []
            for p in routed {
                if let last = clean.last, PathwayMap.distance(last, p) < 1e-9 { continue }
                if clean.count >= 2 {
                    let u = clean[clean.count - 1] - clean[clean.count - 2], v = p - clean[clean.count - 1]
                    if abs(u.x * v.y - u.y * v.x) < 1e-9 && (u * v).sum() > 0 { clean[clean.count - 1] = p; continue }
                }
                clean.append(p)
            }
            return clean
        }
        for (a, b) in zip(xy, xy.dropFirst()) where a != b {
            let d = b - a
            if abs(d.x) >= abs(d.y) {
                routed += [SIMD2(a.x + d.x / 2, a.y), SIMD2(a.x + d.x / 2, b.y), b]
            } else {
                routed += [SIMD2(a.x, a.y + d.y / 2), SIMD2(b.x, a.y + d.y / 2), b]
            }
        }
        return routed
    }

    /// A curved connector: a smooth curve through every point (Catmull-Rom as cubic Beziers),
    /// leaving and entering straight out of the sides the ends name.
    static func curve(_ xy: [SIMD2<Double>], startSide: SIMD2<Double>?, endSide: SIMD2<Double>?) -> [PathwayMap.Segment] {
        var out: [PathwayMap.Segment] = []
        for i in 0..<(xy.count - 1) {
            let a = xy[i], b = xy[i + 1], length = PathwayMap.distance(a, b)
            var ta = i > 0 ? (b - xy[i - 1]) / 2 : (b - a)
            var tb = i + 2 < xy.count ? (xy[i + 2] - a) / 2 : (b - a)
            if i == 0, let ds = startSide { ta = ds * length }
            if i + 2 == xy.count, let de = endSide { tb = -de * length }
            out.append(.cubic(c1: a + ta / 3, c2: b - tb / 3, to: b))
        }
        return out
    }
}

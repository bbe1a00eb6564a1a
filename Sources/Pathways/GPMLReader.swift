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
    ]

    static func read(_ root: XMLElementNode, file: String) throws -> PathwayMap {
        guard root.name == "Pathway" else { throw PathwayError(file: file, at: root.place, "a GPML file's root is <Pathway>") }
        let namespace = root.attributes["xmlns"] ?? ""
        if namespace.contains("pathvisio.org/GPML/") && !namespace.hasSuffix("2013a") && !namespace.contains("2021") {
            throw PathwayError(file: file, at: root.place, "GPML of \(namespace.split(separator: "/").last ?? "") is not read: GPML 2013a and 2021 are")
        }
        // Each element read in either spelling.
        func value(_ e: XMLElementNode, _ key: String) -> String? { e.attributes[key] ?? older[key].flatMap { e.attributes[$0] } }
        func number(_ e: XMLElementNode, _ key: String) -> Double? { value(e, key).flatMap { Double($0.trimmingCharacters(in: .whitespaces)) } }
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
        func shape(_ name: String?) -> PathwayMap.Shape {
            switch name ?? "Rectangle" {
            case "RoundedRectangle", "RoundRectangle": return .roundRectangle
            case "Oval", "Ellipse", "Circle": return .ellipse
            case "None": return .none
            default: return .rectangle
            }
        }
        for group in root.descendants("Shape") {
            let (g, c, size) = try frame(group)
            map.compartments.append(PathwayMap.Compartment(id: value(group, "elementId") ?? "", name: value(group, "textLabel") ?? "",
                                                           origin: c - size / 2, size: size,
                                                           color: color(value(g, "borderColor"), Color(rgb: 0x999999)) ?? Color(rgb: 0x999999)))
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
            map.nodes.append(PathwayMap.Node(id: id, name: value(node, "textLabel") ?? "", kind: kind, center: c, size: size,
                                             shape: shape(value(g, "shapeType")), fill: color(value(g, "fillColor"), .white),
                                             stroke: color(value(g, "borderColor"), .black), label: value(node, "textLabel") ?? "",
                                             fontSize: number(g, "fontSize") ?? 10,
                                             textColor: color(value(g, "textColor"), .black) ?? .black))
        }
        for label in root.descendants("Label") {
            let (g, c, _) = try frame(label)
            map.texts.append(PathwayMap.Text(text: value(label, "textLabel") ?? "", center: c, fontSize: number(g, "fontSize") ?? 10,
                                             color: color(value(g, "textColor"), .black) ?? .black))
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
            // An elbow connector runs in right angles: between two points, along the longer
            // direction to halfway, across, and on (PathVisio routes by the sides it leaves from;
            // this keeps its look without the nodes' sides).
            if let g, value(g, "connectorType") == "Elbow" {
                var routed = [xy[0]]
                for (a, b) in zip(xy, xy.dropFirst()) where a != b {
                    let d = b - a
                    if abs(d.x) >= abs(d.y) {
                        routed += [SIMD2(a.x + d.x / 2, a.y), SIMD2(a.x + d.x / 2, b.y), b]
                    } else {
                        routed += [SIMD2(a.x, a.y + d.y / 2), SIMD2(b.x, a.y + d.y / 2), b]
                    }
                }
                xy = routed
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
            case .circle: kind = .catalysis
            case .bar: kind = .inhibition
            case .openArrow, .barArrow, .diamond: kind = .stimulation
            case .none: kind = .plain
            }
            map.edges.append(PathwayMap.Edge(id: id, from: value(points.first!, "elementRef"), to: value(points.last!, "elementRef"),
                                             kind: kind, start: xy[0], segments: xy.dropFirst().map { .line(to: $0) }, head: last, tail: first,
                                             color: g.flatMap { color(value($0, "lineColor"), .black) } ?? .black,
                                             width: g.flatMap { number($0, "lineWidth") } ?? 1, dashed: g.flatMap { value($0, "lineStyle") } == "Dashed"))
        }
        return map
    }
}

import Core

/// Reads GPML 2021 (WikiPathways): data nodes with their graphics (shape, colors, font size),
/// interactions and graphical lines through their waypoints with the arrowheads the file names,
/// labels as free text, shapes as outlined areas.
enum GPMLReader {
    static func read(_ root: XMLElementNode, file: String) throws -> PathwayMap {
        guard root.name == "Pathway" else { throw PathwayError(file: file, at: root.place, "a GPML file's root is <Pathway>") }
        var map = PathwayMap()
        map.format = "gpml"
        map.title = root.attributes["title"] ?? root.attributes["Name"] ?? ""
        if let g = root.child("Graphics"), let w = g.double("boardWidth"), let h = g.double("boardHeight") { map.canvas = (.zero, SIMD2(w, h)) }
        func color(_ text: String?, _ fallback: Color?) -> Color? {
            guard let text, text.lowercased() != "transparent" else { return text == nil ? fallback : nil }
            return Color(parsing: text) ?? fallback
        }
        func frame(_ element: XMLElementNode) throws -> (XMLElementNode, SIMD2<Double>, SIMD2<Double>) {
            guard let g = element.child("Graphics"), let x = g.double("centerX"), let y = g.double("centerY") else {
                throw PathwayError(file: file, at: element.place, "needs <Graphics> with centerX and centerY")
            }
            return (g, SIMD2(x, y), SIMD2(g.double("width") ?? 0, g.double("height") ?? 0))
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
            map.compartments.append(PathwayMap.Compartment(id: group.attributes["elementId"] ?? "", name: group.attributes["textLabel"] ?? "",
                                                           origin: c - size / 2, size: size,
                                                           color: color(g.attributes["borderColor"], Color(rgb: 0x999999)) ?? Color(rgb: 0x999999)))
        }
        for node in root.descendants("DataNode") {
            guard let id = node.attributes["elementId"] else { throw PathwayError(file: file, at: node.place, "a DataNode without an elementId") }
            let (g, c, size) = try frame(node)
            let kind: PathwayMap.NodeKind
            switch node.attributes["type"] ?? "" {
            case "Metabolite": kind = .metabolite
            case "GeneProduct", "Protein", "Rna", "Complex": kind = .geneProduct
            case "Pathway": kind = .pathway
            default: kind = .other
            }
            map.nodes.append(PathwayMap.Node(id: id, name: node.attributes["textLabel"] ?? "", kind: kind, center: c, size: size,
                                             shape: shape(g.attributes["shapeType"]), fill: color(g.attributes["fillColor"], .white),
                                             stroke: color(g.attributes["borderColor"], .black), label: node.attributes["textLabel"] ?? "",
                                             fontSize: g.double("fontSize") ?? 10,
                                             textColor: color(g.attributes["textColor"], .black) ?? .black))
        }
        for label in root.descendants("Label") {
            let (g, c, _) = try frame(label)
            map.texts.append(PathwayMap.Text(text: label.attributes["textLabel"] ?? "", center: c, fontSize: g.double("fontSize") ?? 10,
                                             color: color(g.attributes["textColor"], .black) ?? .black))
        }
        for line in root.descendants("Interaction") + root.descendants("GraphicalLine") {
            let id = line.attributes["elementId"] ?? ""
            let points = line.child("Waypoints")?.all("Point") ?? []
            guard points.count >= 2 else { throw PathwayError(file: file, at: line.place, "a line needs two or more waypoints") }
            let xy = try points.map { p -> SIMD2<Double> in
                guard let x = p.double("x"), let y = p.double("y") else { throw PathwayError(file: file, at: p.place, "a Point needs x and y") }
                return SIMD2(x, y)
            }
            func head(_ name: String?) -> PathwayMap.Head {
                switch name ?? "Undirected" {
                case "Directed", "Arrow", "mim-conversion", "mim-translocation", "mim-transcription-translation", "Conversion": return .arrow
                case "Catalysis", "mim-catalysis": return .circle
                case "Inhibition", "mim-inhibition", "TBar": return .bar
                case "Stimulation", "mim-stimulation", "mim-necessary-stimulation", "mim-modification", "Binding", "mim-binding": return .openArrow
                default: return .none
                }
            }
            let last = head(points.last!.attributes["arrowHead"]), first = head(points.first!.attributes["arrowHead"])
            let kind: PathwayMap.EdgeKind
            switch last {
            case .arrow: kind = .product
            case .circle: kind = .catalysis
            case .bar: kind = .inhibition
            case .openArrow: kind = .stimulation
            case .none: kind = .plain
            }
            let g = line.child("Graphics")
            map.edges.append(PathwayMap.Edge(id: id, from: points.first!.attributes["elementRef"], to: points.last!.attributes["elementRef"],
                                             kind: kind, start: xy[0], segments: xy.dropFirst().map { .line(to: $0) }, head: last, tail: first,
                                             color: color(g?.attributes["lineColor"], .black) ?? .black,
                                             width: g?.double("lineWidth") ?? 1, dashed: g?.attributes["lineStyle"] == "Dashed"))
        }
        return map
    }
}

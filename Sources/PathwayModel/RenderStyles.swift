import Core

/// The colours of SBML's Render package, which SBGN-ML's render extension uses too: colour
/// definitions, gradients (drawn as the colour halfway between their end stops: the map is drawn
/// with flat fills), and styles giving glyphs a stroke, a fill and a line width, by id (`idList`)
/// or by kind of glyph (`typeList`). Where a style's `<g>` holds a shape (`<rectangle>`,
/// `<ellipse>`, `<polygon>`), that shape's colours count as the style's and an ellipse or a
/// rectangle gives the node its shape; `font-weight` and `font-style` (on the `<g>` or its
/// `<text>`) set the label bold or italic.
struct RenderStyles {
    struct Style {
        var stroke: Color?
        var fill: Color?
        var width: Double?
        var shape: PathwayMap.Shape?
        var bold: Bool?
        var italic: Bool?
        /// The line ending its lines end in (`endHead`), by the ending's id.
        var endHead: String?
        /// Text: its colour (a text's `stroke`) and size (`font-size`).
        var fontSize: Double?
        /// Where text sits in its box from top to bottom (`vtext-anchor`: top, middle, bottom, baseline).
        var verticalAnchor: String?
    }

    /// What a line ending draws, as the nearest head Molshot has: a polygon is an arrow (or a
    /// bar, where it is far narrower than it is tall), an ellipse a dot (a circle where unfilled),
    /// nothing where its group is empty.
    private(set) var endings: [String: PathwayMap.Head] = [:]

    private(set) var byID: [String: Style] = [:]
    private(set) var byType: [String: Style] = [:]
    /// By the role a glyph plays (`roleList` against a glyph's `render:objectRole`, or a species
    /// reference glyph's role): after its id, before its type, as the Render package orders them.
    private(set) var byRole: [String: Style] = [:]
    private(set) var background: Color?

    var isEmpty: Bool { byID.isEmpty && byType.isEmpty && byRole.isEmpty }

    /// The first `renderInformation` under `root` (the layout's own, or a global one).
    init(under root: XMLElementNode?) {
        guard let info = root?.descendants("renderInformation").first else { return }
        var colors: [String: Color] = [:]
        for d in info.descendants("colorDefinition") {
            if let id = d.attribute(local: "id"), let value = d.attribute(local: "value"), let c = Color(parsing: value) { colors[id] = c }
        }
        for g in info.descendants("linearGradient") + info.descendants("radialGradient") {
            guard let id = g.attribute(local: "id") else { continue }
            let stops = g.all("stop").compactMap { s in s.attribute(local: "stop-color").flatMap { colors[$0] ?? Color(parsing: $0) } }
            if let a = stops.first, let b = stops.last { colors[id] = a.mixed(with: b, 0.5) }
        }
        func color(_ text: String?) -> Color? {
            guard let text, text.lowercased() != "none" else { return nil }
            return colors[text] ?? Color(parsing: text)
        }
        // A line width the picture can use: a finite number, not negative.
        func lineWidth(_ e: XMLElementNode) -> Double? {
            e.attribute(local: "stroke-width").flatMap { Double($0) }.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
        }
        background = color(info.attribute(local: "backgroundColor"))
        for e in info.descendants("lineEnding") {
            guard let id = e.attribute(local: "id") else { continue }
            let g = e.child("g")
            let shape = g?.children.first { ["polygon", "ellipse", "rectangle", "curve"].contains($0.name) }
            let filled = color(shape?.attribute(local: "fill") ?? g?.attribute(local: "fill")) != nil
            let box = e.child("boundingBox")?.child("dimensions")
            let (w, h) = (box.flatMap { $0.double("width") } ?? 0, box.flatMap { $0.double("height") } ?? 0)
            switch shape?.name {
            case "ellipse": endings[id] = filled ? .dot : .circle
            case "polygon", "rectangle": endings[id] = h > 0 && w < h / 3 ? .bar : (filled ? .arrow : .openArrow)
            case "curve": endings[id] = .arrow
            default: endings[id] = PathwayMap.Head.none
            }
        }
        for style in info.descendants("style") {
            guard let g = style.child("g") else { continue }
            var s = Style(stroke: color(g.attribute(local: "stroke")), fill: color(g.attribute(local: "fill")),
                          width: lineWidth(g))
            if let shape = g.children.first(where: { ["rectangle", "ellipse", "polygon", "curve"].contains($0.name) }) {
                s.stroke = color(shape.attribute(local: "stroke")) ?? s.stroke
                s.fill = color(shape.attribute(local: "fill")) ?? s.fill
                s.width = lineWidth(shape) ?? s.width
                if shape.name == "ellipse" { s.shape = .ellipse }
                if shape.name == "rectangle" {
                    let rounded = [shape.attribute(local: "rx"), shape.attribute(local: "ry")].contains { ($0.flatMap { Double($0.replacingOccurrences(of: "%", with: "")) } ?? 0) > 0 }
                    s.shape = rounded ? .roundRectangle : .rectangle
                }
            }
            s.endHead = g.attribute(local: "endHead")
            s.verticalAnchor = (g.child("text")?.attribute(local: "vtext-anchor") ?? g.attribute(local: "vtext-anchor"))?.lowercased()
            s.fontSize = g.attribute(local: "font-size").flatMap { Double($0) }.flatMap { $0.isFinite && $0 > 0 ? min($0, 200) : nil }
            let text = g.child("text")
            if let weight = text?.attribute(local: "font-weight") ?? g.attribute(local: "font-weight") { s.bold = weight.lowercased() == "bold" }
            if let style = text?.attribute(local: "font-style") ?? g.attribute(local: "font-style") { s.italic = style.lowercased() == "italic" }
            guard s.stroke != nil || s.fill != nil || s.width != nil || s.shape != nil || s.bold != nil || s.italic != nil
                || s.endHead != nil || s.fontSize != nil else { continue }
            for id in (style.attribute(local: "idList") ?? "").split(whereSeparator: \.isWhitespace) where byID[String(id)] == nil {
                byID[String(id)] = s
            }
            for role in (style.attribute(local: "roleList") ?? "").split(whereSeparator: \.isWhitespace) where byRole[role.lowercased()] == nil {
                byRole[role.lowercased()] = s
            }
            for type in (style.attribute(local: "typeList") ?? "").split(whereSeparator: \.isWhitespace) where byType[type.uppercased()] == nil {
                byType[type.uppercased()] = s
            }
        }
    }

    /// The style of a glyph: its own, else its role's, else its kind's (`SPECIESGLYPH`,
    /// `COMPARTMENTGLYPH`, ...), else `ANY`'s.
    func style(id: String, type: String, role: String? = nil) -> Style? {
        byID[id] ?? role.flatMap { byRole[$0.lowercased()] } ?? byType[type.uppercased()] ?? byType["ANY"]
    }

    /// The head a style's `endHead` names, where it names a line ending of the render information.
    func head(of style: Style?) -> PathwayMap.Head? { style?.endHead.flatMap { endings[$0] } }

    /// Applies a style to the node `id` (colours, line width, and an ellipse or rectangle shape where `reshape`).
    func apply(to node: inout PathwayMap.Node, type: String, reshape: Bool, role: String? = nil) {
        guard let s = style(id: node.id, type: type, role: role) else { return }
        if let f = s.fill { node.fill = f }
        if let k = s.stroke { node.stroke = k }
        if let w = s.width { node.lineWidth = w }
        if reshape, let shape = s.shape { node.shape = shape }
        if let b = s.bold { node.bold = b }
        if let i = s.italic { node.italic = i }
    }

    func apply(to c: inout PathwayMap.Compartment, type: String, role: String? = nil) {
        guard let s = style(id: c.id, type: type, role: role) else { return }
        if let k = s.stroke ?? s.fill { c.color = k }
        if let f = s.fill { c.fill = f }
    }
}

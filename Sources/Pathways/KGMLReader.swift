import Core

/// Reads KEGG KGML: entries with their `graphics` (rectangles for genes and orthologs, circles
/// for compounds, round rectangles for linked maps, `line` graphics as polylines), reactions as
/// substrate-to-enzyme and enzyme-to-product edges, and the relations KEGG draws (activation,
/// inhibition, expression, maplink).
enum KGMLReader {
    static func read(_ root: XMLElementNode, file: String) throws -> PathwayMap {
        guard root.name == "pathway" else { throw PathwayError(file: file, at: root.place, "a KGML file's root is <pathway>") }
        var map = PathwayMap()
        map.format = "kgml"
        map.title = root.attributes["title"] ?? root.attributes["name"] ?? ""
        for entry in root.all("entry") {
            guard let id = entry.attributes["id"] else { throw PathwayError(file: file, at: entry.place, "an entry without an id") }
            let type = entry.attributes["type"] ?? ""
            for (k, g) in entry.all("graphics").enumerated() {
                let fg = g.attributes["fgcolor"].flatMap(Color.init(parsing:)) ?? .black
                let bg = g.attributes["bgcolor"].flatMap(Color.init(parsing:)) ?? .white
                let nodeID = k == 0 ? id : "\(id).\(k)"
                if g.attributes["type"] == "line" {
                    let v = (g.attributes["coords"] ?? "").split(separator: ",").compactMap { Double($0) }
                    guard v.count >= 4, v.count % 2 == 0 else { throw PathwayError(file: file, at: g.place, "a line needs coords x1,y1,x2,y2,...") }
                    let points = stride(from: 0, to: v.count, by: 2).map { SIMD2(v[$0], v[$0 + 1]) }
                    map.edges.append(PathwayMap.Edge(id: nodeID, from: nil, to: nil, kind: .plain, start: points[0],
                                                     segments: points.dropFirst().map { .line(to: $0) }, color: fg, width: 2))
                    continue
                }
                guard let x = g.double("x"), let y = g.double("y") else {
                    throw PathwayError(file: file, at: g.place, "graphics without x and y")
                }
                let w = g.double("width") ?? 46, h = g.double("height") ?? 17
                let label = g.attributes["name"] ?? ""
                switch type {
                case "compound", "glycan":
                    var node = PathwayMap.Node(id: nodeID, name: entry.attributes["name"] ?? label, kind: .metabolite, center: SIMD2(x, y),
                                               size: SIMD2(w, h), shape: .ellipse, fill: bg, stroke: fg, label: label,
                                               labelPosition: SIMD2(x, y + h / 2 + 7), fontSize: 8, textColor: .black)
                    if w < 2 { node.size = SIMD2(8, 8) }
                    map.nodes.append(node)
                case "map":
                    map.nodes.append(PathwayMap.Node(id: nodeID, name: entry.attributes["name"] ?? label, kind: .pathway, center: SIMD2(x, y),
                                                     size: SIMD2(w, h), shape: .roundRectangle, fill: bg, stroke: fg, label: label,
                                                     fontSize: min(10, h * 0.5)))
                case "group":
                    continue
                default:
                    map.nodes.append(PathwayMap.Node(id: nodeID, name: entry.attributes["name"] ?? label, kind: .geneProduct,
                                                     center: SIMD2(x, y), size: SIMD2(w, h), shape: .rectangle, fill: bg, stroke: fg,
                                                     label: label, fontSize: min(10, h * 0.6)))
                }
            }
        }
        let centers = Dictionary(map.nodes.map { ($0.id, $0.center) }, uniquingKeysWith: { a, _ in a })
        func center(_ id: String?, _ element: XMLElementNode, _ what: String) throws -> SIMD2<Double> {
            guard let id, let c = centers[id] else {
                throw PathwayError(file: file, at: element.place, "\(what) \(id ?? "(none)") is not an entry of the map")
            }
            return c
        }
        for reaction in root.all("reaction") {
            let enzymeID = reaction.attributes["id"]
            let enzyme = try center(enzymeID, reaction, "the reaction's enzyme entry")
            let reversible = reaction.attributes["type"] == "reversible"
            for s in reaction.all("substrate") {
                let id = s.attributes["id"]
                map.edges.append(PathwayMap.Edge(id: "\(enzymeID!)-\(id ?? "")", from: id, to: enzymeID, kind: .substrate,
                                                 start: try center(id, s, "substrate"), segments: [.line(to: enzyme)],
                                                 tail: reversible ? .arrow : .none, color: Color(rgb: 0x404040), reaction: enzymeID))
            }
            for p in reaction.all("product") {
                let id = p.attributes["id"]
                map.edges.append(PathwayMap.Edge(id: "\(enzymeID!)+\(id ?? "")", from: enzymeID, to: id, kind: .product, start: enzyme,
                                                 segments: [.line(to: try center(id, p, "product"))], head: .arrow,
                                                 color: Color(rgb: 0x404040), reaction: enzymeID))
            }
        }
        for relation in root.all("relation") {
            let a = relation.attributes["entry1"], b = relation.attributes["entry2"]
            let from = try center(a, relation, "entry1"), to = try center(b, relation, "entry2")
            let subtypes = Set(relation.all("subtype").compactMap { $0.attributes["name"] })
            let type = relation.attributes["type"] ?? ""
            // ECrel only says two enzymes share a compound: KEGG draws no line for it.
            if type == "ECrel" { continue }
            var kind = PathwayMap.EdgeKind.plain, head = PathwayMap.Head.arrow
            if subtypes.contains("inhibition") || subtypes.contains("repression") { (kind, head) = (.inhibition, .bar) }
            if subtypes.contains("activation") || subtypes.contains("expression") { kind = .stimulation }
            let dashed = type == "maplink" || subtypes.contains("indirect effect")
            if type == "maplink" { head = .none }
            map.edges.append(PathwayMap.Edge(id: "\(a!)~\(b!)", from: a, to: b, kind: kind, start: from, segments: [.line(to: to)],
                                             head: head, color: Color(rgb: 0x808080), dashed: dashed))
        }
        return map
    }
}

import Core

/// Reads KEGG KGML 0.6.1 to 0.7.2 as KEGG draws it: entries with their `graphics` (rectangles for
/// genes and orthologs labelled with their first name, small circles for compounds with their
/// names below, round rectangles for linked maps, `line` graphics as polylines: the global maps),
/// groups as a frame around their members, reactions as substrate-to-enzyme and
/// enzyme-to-product edges (a reaction without an id, KGML 0.6.1, through the entries whose
/// `reaction` names it; one whose enzyme is a `line` is that line), and relations (activation,
/// inhibition, expression, maplink). KEGG's pictures of metabolic maps (numbers below 02000)
/// leave the relations out, so there they are kept apart in `relations`, drawn when asked; its
/// signalling, disease and other maps draw them, so there they are edges, in KEGG's styles
/// (`relationStyle`). Biopython and KEGGgraph read a reaction or relation naming an entry the
/// file does not declare (a glycan id, say): it is left out with a warning, not refused.
enum KGMLReader {
    /// A graphics name's first name: "PCK1, PEPCK-C, PEPCK1..." is PCK1; "TITLE:Citrate cycle" is the title.
    static func firstName(_ name: String) -> String {
        var first = name.hasPrefix("TITLE:") ? String(name.dropFirst(6)) : name
        // Names are listed ", " apart (a compound's own name may hold a comma: 2,3-Bisphosphoglycerate).
        if let comma = first.range(of: ", "), !name.hasPrefix("TITLE:") { first = String(first[..<comma.lowerBound]) }
        if first.hasSuffix("...") { first.removeLast(3) }
        return first.trimmingCharacters(in: .whitespaces)
    }

    static func read(_ root: XMLElementNode, file: String) throws -> PathwayMap {
        guard root.name == "pathway" else { throw PathwayError(file: file, at: root.place, "a KGML file's root is <pathway>") }
        var map = PathwayMap()
        map.format = "kgml"
        map.title = root.attributes["title"] ?? root.attributes["name"] ?? ""
        var lineEntries = Set<String>(), groups: [(XMLElementNode, String)] = []
        let entryIDs = Set(root.all("entry").compactMap { $0.attributes["id"] })
        for entry in root.all("entry") {
            guard let id = entry.attributes["id"] else { throw PathwayError(file: file, at: entry.place, "an entry without an id") }
            let type = entry.attributes["type"] ?? ""
            if type == "group" {
                groups.append((entry, id))
                continue
            }
            for (k, g) in entry.all("graphics").enumerated() {
                let fg = g.attributes["fgcolor"].flatMap(Color.init(parsing:)) ?? .black
                let bg = g.attributes["bgcolor"].flatMap(Color.init(parsing:)) ?? .white
                let nodeID = k == 0 ? id : "\(id).\(k)"
                if g.attributes["type"] == "line" {
                    lineEntries.insert(id)
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
                // Genes and orthologs list their names ", " apart: KEGG shows the first. A map's or a
                // compound's name is one name, commas and all.
                let graphicsName = g.attributes["name"] ?? ""
                let label = ["map", "compound", "glycan"].contains(type)
                    ? (graphicsName.hasPrefix("TITLE:") ? String(graphicsName.dropFirst(6)) : graphicsName) : firstName(graphicsName)
                switch type {
                case "compound", "glycan":
                    var node = PathwayMap.Node(id: nodeID, name: entry.attributes["name"] ?? label, kind: .metabolite, center: SIMD2(x, y),
                                               size: SIMD2(w, h), shape: .ellipse, fill: bg, stroke: fg, label: label,
                                               labelPosition: SIMD2(x, y + h / 2 + 7), fontSize: 8, textColor: .black)
                    if w < 2 { node.size = SIMD2(8, 8) }
                    map.nodes.append(node)
                case "map":
                    // A linked map's name is wrapped inside its rounded box, as KEGG writes it.
                    var node = PathwayMap.Node(id: nodeID, name: entry.attributes["name"] ?? label, kind: .pathway, center: SIMD2(x, y),
                                               size: SIMD2(w, h), shape: .roundRectangle, fill: bg, stroke: fg, label: label,
                                               fontSize: 10)
                    node.fitsLabel = true
                    map.nodes.append(node)
                default:
                    var node = PathwayMap.Node(id: nodeID, name: entry.attributes["name"] ?? label, kind: .geneProduct,
                                               center: SIMD2(x, y), size: SIMD2(w, h), shape: .rectangle, fill: bg, stroke: fg,
                                               label: label, fontSize: min(10, h * 0.6))
                    node.fitsLabel = true
                    map.nodes.append(node)
                }
            }
        }
        for (entry, id) in groups where !entry.all("graphics").isEmpty || !entry.all("component").isEmpty {
            let memberIDs = Set(entry.all("component").compactMap { $0.attributes["id"] })
            let members = map.nodes.filter { memberIDs.contains($0.id) }
            if entry.all("graphics").isEmpty && members.isEmpty { continue }
            if memberIDs.isEmpty, let g = entry.all("graphics").first, let x = g.double("x"), let y = g.double("y") {
                let size = SIMD2(g.double("width") ?? 46, g.double("height") ?? 17)
                map.compartments.append(PathwayMap.Compartment(id: id, name: "", origin: SIMD2(x, y) - size / 2, size: size, color: Color(rgb: 0x909090)))
                continue
            }
            guard !members.isEmpty else { continue }
            var lo = members[0].center - members[0].size / 2, hi = members[0].center + members[0].size / 2
            for m in members {
                lo = pointwiseMin(lo, m.center - m.size / 2)
                hi = pointwiseMax(hi, m.center + m.size / 2)
            }
            let pad = SIMD2<Double>(3, 3)
            map.compartments.append(PathwayMap.Compartment(id: id, name: "", origin: lo - pad, size: hi - lo + 2 * pad, color: Color(rgb: 0x909090)))
        }
        var centers = Dictionary(map.nodes.map { ($0.id, $0.center) }, uniquingKeysWith: { a, _ in a })
        for c in map.compartments { centers[c.id] = c.origin + c.size / 2 }
        // KGML 0.6.1: a reaction has no id; its enzymes are the entries whose `reaction` names it.
        var enzymesOf: [String: [String]] = [:]
        for entry in root.all("entry") {
            guard let id = entry.attributes["id"], let names = entry.attributes["reaction"] else { continue }
            for name in names.split(separator: " ") { enzymesOf[String(name), default: []].append(id) }
        }
        // KGML 0.6.1 names a reaction's compounds (`name="cpd:C00065"`), not their entries: the
        // entry of that name nearest the enzyme (a compound may be drawn in several places).
        var entriesNamed: [String: [String]] = [:]
        for entry in root.all("entry") where centers[entry.attributes["id"] ?? ""] != nil {
            entriesNamed[entry.attributes["name"] ?? "", default: []].append(entry.attributes["id"]!)
        }
        func endpoint(_ element: XMLElementNode, near: SIMD2<Double>?, _ what: String) throws -> (id: String, center: SIMD2<Double>) {
            if let id = element.attributes["id"] { return (id, try center(id, element, what)) }
            let named = (entriesNamed[element.attributes["name"] ?? ""] ?? []).compactMap { id in centers[id].map { (id: id, center: $0) } }
            guard let first = named.first else {
                throw PathwayError(file: file, at: element.place, "\(what) \(element.attributes["name"] ?? "(none)") is not an entry of the map")
            }
            guard let near else { return first }
            return named.min { (($0.center - near) * ($0.center - near)).sum() < (($1.center - near) * ($1.center - near)).sum() } ?? first
        }
        func center(_ id: String?, _ element: XMLElementNode, _ what: String) throws -> SIMD2<Double> {
            guard let id, let c = centers[id] else {
                throw PathwayError(file: file, at: element.place, "\(what) \(id ?? "(none)") is not an entry of the map")
            }
            return c
        }
        // A reaction's compound or enzyme the file does not declare: that edge left out, with a warning.
        func tolerated<T>(_ body: () throws -> T) -> T? {
            do { return try body() } catch let error as PathwayError {
                map.warnings.append(error.description + ": left out")
                return nil
            } catch { return nil }
        }
        for reaction in root.all("reaction") {
            let reversible = reaction.attributes["type"] == "reversible"
            let names = (reaction.attributes["name"] ?? "").split(separator: " ").map(String.init)
            let enzymes: [String?] = reaction.attributes["id"].map { [$0] }
                ?? { let found = names.flatMap { enzymesOf[$0] ?? [] }; return found.isEmpty ? [nil] : found }()
            for enzymeID in enzymes {
                // A global map's reaction is drawn as its enzyme's line.
                if let enzymeID, lineEntries.contains(enzymeID) { continue }
                let substrates = reaction.all("substrate"), products = reaction.all("product")
                guard let enzymeID else {
                    // No enzyme entry names it: substrate to product.
                    let id = names.first ?? "reaction"
                    for s in substrates {
                        guard let a = tolerated({ try endpoint(s, near: nil, "substrate") }) else { continue }
                        for p in products {
                            guard let b = tolerated({ try endpoint(p, near: a.center, "product") }) else { continue }
                            map.edges.append(PathwayMap.Edge(id: "\(id):\(a.id)>\(b.id)", from: a.id, to: b.id, kind: .product, start: a.center,
                                                             segments: [.line(to: b.center)], head: .arrow, tail: reversible ? .arrow : .none,
                                                             color: Color(rgb: 0x404040), reaction: id))
                        }
                    }
                    continue
                }
                guard let enzyme = tolerated({ try center(enzymeID, reaction, "the reaction's enzyme entry") }) else { continue }
                for s in substrates {
                    guard let a = tolerated({ try endpoint(s, near: enzyme, "substrate") }) else { continue }
                    map.edges.append(PathwayMap.Edge(id: "\(enzymeID)-\(a.id)", from: a.id, to: enzymeID, kind: .substrate,
                                                     start: a.center, segments: [.line(to: enzyme)],
                                                     tail: reversible ? .arrow : .none, color: Color(rgb: 0x404040), reaction: enzymeID))
                }
                for p in products {
                    guard let b = tolerated({ try endpoint(p, near: enzyme, "product") }) else { continue }
                    map.edges.append(PathwayMap.Edge(id: "\(enzymeID)+\(b.id)", from: enzymeID, to: b.id, kind: .product, start: enzyme,
                                                     segments: [.line(to: b.center)], head: .arrow,
                                                     color: Color(rgb: 0x404040), reaction: enzymeID))
                }
            }
        }
        // Metabolic maps (00xxx, 01xxx) as KEGG draws them, without relations; the rest with.
        let number = root.attributes["number"].flatMap { Int($0) }
            ?? (root.attributes["name"] ?? "").split(separator: ":").last.flatMap { Int($0.drop(while: { $0.isLetter })) }
        let drawsRelations = (number ?? 0) >= 2000
        for relation in root.all("relation") {
            let a = relation.attributes["entry1"], b = relation.attributes["entry2"]
            // One to an entry the file lacks is left out with a warning (Biopython reads it); to an
            // entry the map does not draw as a place (a line) it is left out.
            if let missing = [(a, "entry1"), (b, "entry2")].first(where: { !($0.0.map(entryIDs.contains) ?? false) }) {
                map.warnings.append("\(file): \(relation.place): \(missing.1) \(missing.0 ?? "(none)") is not an entry of the map: the relation is left out")
                continue
            }
            guard let from = a.flatMap({ centers[$0] }), let to = b.flatMap({ centers[$0] }) else { continue }
            let subtypes = relation.all("subtype").map { ($0.attributes["name"] ?? "", $0.attributes["value"] ?? "") }
            let type = relation.attributes["type"] ?? ""
            // ECrel only says two enzymes share a compound: KEGG draws no line for it.
            if type == "ECrel" { continue }
            let style = relationStyle(type: type, subtypes: subtypes.map(\.0))
            // A compound subtype names the entry the relation goes through (A -> compound -> B).
            var segments: [PathwayMap.Segment] = [.line(to: to)]
            if let through = subtypes.first(where: { $0.0 == "compound" }).flatMap({ centers[$0.1] }), through != from, through != to {
                segments = [.line(to: through), .line(to: to)]
            }
            let edge = PathwayMap.Edge(id: "\(a!)~\(b!)", from: a, to: b, kind: style.kind, start: from, segments: segments,
                                       head: style.head, color: drawsRelations ? .black : Color(rgb: 0x808080), dashed: style.dashed)
            if drawsRelations {
                map.edges.append(edge)
                // +p, -p, +u...: written beside the line's middle, as KEGG writes them.
                let marks = subtypes.compactMap { relationMarks[$0.0] }
                if !marks.isEmpty {
                    let end = segments.count == 2 ? segments[0].end : to
                    var mark = PathwayMap.Text(text: marks.joined(separator: " "), center: (from + end) / 2 + SIMD2(0, -5), fontSize: 8)
                    mark.isEdgeMark = true
                    map.texts.append(mark)
                }
            } else {
                map.relations.append(edge)
            }
        }
        return map
    }

    /// How KEGG draws a relation (its KGML subtypes): activation and expression an arrow,
    /// inhibition and repression a bar, indirect effect a dashed arrow, state change a dashed
    /// line, binding/association, dissociation and missing interaction a line without a head;
    /// maplinks dashed without a head. Several subtypes: the head of the strongest.
    static func relationStyle(type: String, subtypes: [String]) -> (kind: PathwayMap.EdgeKind, head: PathwayMap.Head, dashed: Bool) {
        let s = Set(subtypes)
        if type == "maplink" { return (.plain, .none, true) }
        if s.contains("inhibition") || s.contains("repression") { return (.inhibition, .bar, s.contains("indirect effect")) }
        if s.contains("activation") || s.contains("expression") { return (.stimulation, .arrow, s.contains("indirect effect")) }
        if s.contains("indirect effect") { return (.stimulation, .arrow, true) }
        if s.contains("state change") { return (.plain, .none, true) }
        if s.contains("binding/association") || s.contains("dissociation") || s.contains("missing interaction") { return (.plain, .none, false) }
        // Phosphorylation and the other modifications alone: an arrow with its mark.
        return (.plain, .arrow, false)
    }

    /// The marks KEGG writes beside a relation for a modification.
    static let relationMarks = ["phosphorylation": "+p", "dephosphorylation": "-p", "glycosylation": "+g",
                                "ubiquitination": "+u", "ubiquination": "+u", "methylation": "+m"]
}

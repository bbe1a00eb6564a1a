import Core

/// Reads SBGN-ML (Process Description): glyphs by class in the shapes of the SBGN PD Level 1
/// specification (simple chemicals and unspecified entities as ellipses, macromolecules as round
/// rectangles, nucleic acid features rounded below, complexes with cut corners, perturbing agents
/// notched, phenotypes as hexagons, tags and terminals pointed, source and sink struck through,
/// multimers doubled, clone markers filled dark; processes as small squares with their port
/// lines, dissociation as two circles, compartments as boxes behind everything, their names in
/// the label boxes the file gives), the render extension's colours, glyphs in glyphs
/// (complex members, state variables as "value@variable", units of information, submap
/// terminals) over their parents, and arcs by class (production arrows, catalysis circles,
/// inhibition bars, stimulation open arrows), with the points the file gives. Entity
/// Relationship and Activity Flow maps are refused by name.
enum SBGNReader {
    static func read(_ root: XMLElementNode, file: String) throws -> PathwayMap {
        guard root.name == "sbgn", let mapElement = root.child("map") else {
            throw PathwayError(file: file, at: root.place, "an SBGN-ML file is <sbgn> holding a <map>")
        }
        var map = PathwayMap()
        map.format = "sbgn"
        // Newt keeps a map's name in its extension (mapProperties/mapName); libsbgn's files have
        // only an id ("map1"), which lists show as the file's name instead.
        let named = mapElement.child("extension")?.descendants("mapName").first?.text.trimmingCharacters(in: .whitespacesAndNewlines)
        map.title = named.flatMap { $0.isEmpty ? nil : $0 } ?? mapElement.attributes["id"] ?? ""
        // Process Description, Activity Flow and Entity Relationship maps, each in its own
        // glyphs and arcs (the languages share compartments, logic, tags and submaps).
        // The render extension's colours (the SBML Render package's XML inside <extension>).
        let styles = RenderStyles(under: mapElement.child("extension"))
        let entityRelationship = (mapElement.attributes["language"] ?? "").lowercased() == "entity relationship"
        var owner: [String: String] = [:]  // port id -> glyph id
        var compartmentOrder: [String: Double] = [:]
        var portLines: [(glyph: String, center: SIMD2<Double>, port: SIMD2<Double>)] = []
        var portPoint: [String: SIMD2<Double>] = [:]
        // Glyphs in glyphs (a complex's members, state variables, units of information, a
        // submap's terminals) after their parent, so they are drawn over it.
        func add(_ glyph: XMLElementNode) throws {
            guard let id = glyph.attributes["id"] else { throw PathwayError(file: file, at: glyph.place, "a glyph without an id") }
            let cls = glyph.attributes["class"] ?? ""
            guard let box = glyph.child("bbox"), let x = box.double("x"), let y = box.double("y"), let w = box.double("w"),
                  let h = box.double("h") else {
                throw PathwayError(file: file, at: glyph.place, "a glyph needs a <bbox> with x, y, w and h")
            }
            var label = glyph.child("label")?.attributes["text"] ?? ""
            let center = SIMD2(x + w / 2, y + h / 2)
            for port in glyph.all("port") {
                guard let p = port.attributes["id"] else { continue }
                owner[p] = id
                // A port at (0,0) away from its glyph is a placeholder some exporters write: none.
                if let px = port.double("x"), let py = port.double("y"),
                   !SBGNReader.isPlaceholder(SIMD2(px, py), box: (SIMD2(x, y), SIMD2(x + w, y + h))) {
                    portLines.append((id, center, SIMD2(px, py)))
                    portPoint[p] = SIMD2(px, py)
                }
            }
            let small = min(14, h * 0.3)
            switch cls {
            case "compartment":
                var c = PathwayMap.Compartment(id: id, name: label, origin: SIMD2(x, y), size: SIMD2(w, h), color: Color(rgb: 0x9AA5B1))
                if let b = glyph.child("label")?.child("bbox"), let lx = b.double("x"), let ly = b.double("y"), let lw = b.double("w"),
                   let lh = b.double("h") {
                    c.labelBox = (SIMD2(lx, ly), SIMD2(lw, lh))
                } else {
                    // Without a box, the name at the top in the middle, as SBGN's renderers put it.
                    c.labelBox = (SIMD2(x, y + 6), SIMD2(w, min(26, max(12, h * 0.12))))
                }
                styles.apply(to: &c, type: "COMPARTMENTGLYPH")
                compartmentOrder[id] = glyph.double("compartmentOrder") ?? 0
                map.compartments.append(c)
            case "process", "omitted process", "uncertain process", "association", "dissociation":
                map.nodes.append(PathwayMap.Node(id: id, name: label, kind: .reaction, center: center, size: SIMD2(w, h),
                                                 shape: cls == "association" || cls == "dissociation" ? .ellipse : .process,
                                                 fill: cls == "association" ? .black : .white, stroke: .black,
                                                 label: cls == "omitted process" ? "\\\\" : cls == "uncertain process" ? "?" : "",
                                                 fontSize: h * 0.7))
                if cls == "dissociation" {
                    // Two circles, one in the other.
                    map.nodes.append(PathwayMap.Node(id: id + ".inner", name: "", kind: .marker, center: center, size: SIMD2(w, h) * 0.55,
                                                     shape: .ellipse, fill: .white, stroke: .black))
                }
            case "state variable":
                // "value@variable", as the SBGN PD specification writes it.
                let state = glyph.child("state")
                let value = state?.attributes["value"] ?? "", variable = state?.attributes["variable"] ?? ""
                label = variable.isEmpty ? value : value + "@" + variable
                // Its text kept inside the ellipse (made smaller where it is longer); a capsule in
                // Entity Relationship maps, as libsbgn's reference cards draw them.
                var marker = PathwayMap.Node(id: id, name: label, kind: .marker, center: center, size: SIMD2(w, h),
                                             shape: entityRelationship ? .stadium : .ellipse,
                                             fill: .white, stroke: .black, label: label, fontSize: max(5, h * 0.5))
                marker.fitsLabel = true
                map.nodes.append(marker)
            case "unit of information", "cardinality", "stoichiometry":
                label = glyph.child("label")?.attributes["text"] ?? ""
                // Activity Flow's units of information take the shape of the entity they name.
                let entity = glyph.child("entity")?.attributes["name"] ?? ""
                let shape: PathwayMap.Shape = ["simple chemical": .ellipse, "unspecified entity": .ellipse, "macromolecule": .roundRectangle,
                                               "nucleic acid feature": .bottomRounded, "complex": .cutRectangle,
                                               "perturbation": .concaveHexagon][entity] ?? .rectangle
                var node = PathwayMap.Node(id: id, name: label, kind: .marker, center: center, size: SIMD2(w, h), shape: shape,
                                           fill: .white, stroke: .black, label: label, fontSize: max(5, min(h * 0.5, 10)))
                node.fitsLabel = true
                map.nodes.append(node)
            case "simple chemical", "simple chemical multimer", "unspecified entity", "source and sink", "perturbing agent",
                 "macromolecule", "macromolecule multimer", "nucleic acid feature", "nucleic acid feature multimer",
                 "complex", "complex multimer":
                let base = cls.replacingOccurrences(of: " multimer", with: "")
                let shape: PathwayMap.Shape = ["simple chemical": .ellipse, "unspecified entity": .ellipse, "source and sink": .sourceSink,
                                               "perturbing agent": .concaveHexagon, "macromolecule": .roundRectangle,
                                               "nucleic acid feature": .bottomRounded, "complex": .cutRectangle][base] ?? .rectangle
                let chemical = base == "simple chemical" || base == "unspecified entity" || base == "source and sink"
                let fill = base == "source and sink" || base == "perturbing agent" ? Color.white
                    : chemical ? Color(rgb: 0xFFF5D6) : base == "complex" ? Color(rgb: 0xEEF4FA) : Color(rgb: 0xDCEBFA)
                var node = PathwayMap.Node(id: id, name: label, kind: chemical ? .metabolite : .geneProduct, center: center,
                                           size: SIMD2(w, h), shape: shape, fill: fill, stroke: .black, label: label, fontSize: small)
                if let clone = glyph.child("clone") {
                    let text = clone.child("label")?.attributes["text"] ?? ""
                    node.cloneMarker = text
                    if !text.isEmpty {
                        // The clone marker's label, white on the dark band.
                        map.texts.append(PathwayMap.Text(text: text, center: SIMD2(center.x, y + h * 0.85), fontSize: max(4, h * 0.18),
                                                         color: .white))
                    }
                }
                styles.apply(to: &node, type: "SPECIESGLYPH", reshape: false)
                if cls.hasSuffix("multimer") {
                    // A multimer: a second outline behind, offset down and to the right.
                    var shadow = node
                    shadow.id = id + ".multimer"
                    shadow.kind = .marker
                    shadow.label = ""
                    shadow.center += SIMD2(min(w, h) * 0.12, min(w, h) * 0.12)
                    map.nodes.append(shadow)
                }
                map.nodes.append(node)
            case "and", "or", "not", "delay":
                map.nodes.append(PathwayMap.Node(id: id, name: cls, kind: .reaction, center: center, size: SIMD2(w, h), shape: .ellipse,
                                                 fill: .white, stroke: .black, label: cls == "delay" ? "\u{03C4}" : cls.uppercased(),
                                                 fontSize: max(5, h * 0.35)))
            case "biological activity", "perturbation", "entity", "observable":
                // Activity Flow's activity (a rectangle) and perturbation (PD's perturbing agent);
                // Entity Relationship's entity (a round rectangle) and observable (a hexagon).
                let shape: PathwayMap.Shape = ["biological activity": .rectangle, "perturbation": .concaveHexagon, "entity": .roundRectangle,
                                               "observable": .hexagon][cls] ?? .rectangle
                var node = PathwayMap.Node(id: id, name: label, kind: cls == "perturbation" || cls == "observable" ? .other : .geneProduct,
                                           center: center, size: SIMD2(w, h), shape: shape,
                                           fill: cls == "biological activity" || cls == "entity" ? Color(rgb: 0xDCEBFA) : .white,
                                           stroke: .black, label: label, fontSize: small)
                styles.apply(to: &node, type: "SPECIESGLYPH", reshape: false)
                map.nodes.append(node)
            case "outcome", "interaction", "influence target":
                // Entity Relationship's points on arcs: an outcome a filled dot, the others open.
                map.nodes.append(PathwayMap.Node(id: id, name: label, kind: .reaction, center: center, size: SIMD2(w, h), shape: .ellipse,
                                                 fill: cls == "outcome" ? .black : .white, stroke: .black))
            case "existence", "location", "variable value", "implicit xor":
                // On an entity's border: existence a circle half filled, location a circle crossed;
                // a variable's value a capsule with its text.
                let shape: PathwayMap.Shape = ["existence": .existence, "location": .location, "variable value": .stadium][cls] ?? .ellipse
                map.nodes.append(PathwayMap.Node(id: id, name: label, kind: .marker, center: center, size: SIMD2(w, h),
                                                 shape: shape, fill: .white, stroke: .black, label: label, fontSize: max(5, h * 0.5)))
            case "phenotype", "submap", "tag", "terminal":
                let orientation = glyph.attributes["orientation"] ?? "right"
                let shape: PathwayMap.Shape = cls == "phenotype" ? .hexagon : cls == "submap" ? .rectangle : orientation == "left" ? .tagLeft : .tag
                var node = PathwayMap.Node(id: id, name: label, kind: cls == "submap" ? .pathway : .other, center: center,
                                           size: SIMD2(w, h), shape: shape, fill: .white, stroke: .black, label: label, fontSize: small)
                styles.apply(to: &node, type: "SPECIESGLYPH", reshape: false)
                map.nodes.append(node)
            case "annotation":
                // A note: a pale box, its callout a line to the point it remarks on.
                var node = PathwayMap.Node(id: id, name: label, kind: .other, center: center, size: SIMD2(w, h), shape: .note,
                                           fill: Color(rgb: 0xF2F2F2), stroke: Color(rgb: 0x808080), label: label, fontSize: small)
                node.fitsLabel = true
                styles.apply(to: &node, type: "TEXTGLYPH", reshape: false)
                if let p = glyph.child("callout")?.child("point"), let px = p.double("x"), let py = p.double("y") {
                    map.edges.append(PathwayMap.Edge(id: id + ".callout", from: id, to: nil, kind: .plain, start: center,
                                                     segments: [.line(to: SIMD2(px, py))], color: Color(rgb: 0x808080), width: 1.5))
                }
                map.nodes.append(node)
            default:
                var node = PathwayMap.Node(id: id, name: label, kind: .other, center: center, size: SIMD2(w, h), shape: .rectangle,
                                           fill: .white, stroke: .black, label: label, fontSize: small)
                styles.apply(to: &node, type: "SPECIESGLYPH", reshape: false)
                map.nodes.append(node)
            }
            // A complex's label sits at its bottom edge, clear of its members.
            let auxiliary: Set<String> = ["state variable", "unit of information"]
            if cls.hasPrefix("complex"), glyph.all("glyph").contains(where: { !auxiliary.contains($0.attributes["class"] ?? "") }),
               let i = map.nodes.indices.last {
                map.nodes[i].labelPosition = SIMD2(center.x, y + h - small * 0.8)
            }
            for child in glyph.all("glyph") { try add(child) }
        }
        for glyph in mapElement.all("glyph") { try add(glyph) }
        // Compartments drawn lowest compartmentOrder first (file order among equals), as the specification orders them.
        map.compartments = map.compartments.enumerated().sorted {
            (compartmentOrder[$0.element.id] ?? 0, $0.offset) < (compartmentOrder[$1.element.id] ?? 0, $1.offset)
        }.map(\.element)
        // Process, association and dissociation nodes: the short lines out to their ports.
        for (glyph, center, port) in portLines {
            map.edges.append(PathwayMap.Edge(id: glyph + ".port", from: glyph, to: glyph, kind: .plain, start: center,
                                             segments: [.line(to: port)], width: 1.5))
        }
        // Entity Relationship's arc groups (an interaction glyph and its arcs) count as the map's.
        let groups = mapElement.all("arcgroup")
        let arcElements = mapElement.all("arc") + groups.flatMap { $0.all("arc") }
        for g in groups.flatMap({ $0.all("glyph") }) { try add(g) }
        // Glyphs on arcs (cardinality, Entity Relationship's outcomes) before any arc names them.
        for arc in arcElements {
            for g in arc.all("glyph") { try add(g) }
        }
        let glyphs = Set(map.nodes.map(\.id) + map.compartments.map(\.id))
        // Entity Relationship's arcs end on other arcs: such an end is where the file puts it.
        let arcIDs = Set(arcElements.compactMap { $0.attributes["id"] } + arcElements.flatMap { $0.all("port").compactMap { $0.attributes["id"] } })
        func resolve(_ ref: String?, _ arc: XMLElementNode, _ what: String) throws -> String? {
            guard let ref else { throw PathwayError(file: file, at: arc.place, "an arc without a \(what)") }
            if glyphs.contains(ref) { return ref }
            if let g = owner[ref] { return g }
            if arcIDs.contains(ref) { return nil }
            throw PathwayError(file: file, at: arc.place, "the \(what) \(ref) is not a glyph, port or arc of the map")
        }
        // Where an arc end that is a placeholder (0,0) goes: its port, else its glyph's centre
        // (the edge is cut at the glyph's outline when drawn), as SBGNview joins them.
        var frames: [String: (SIMD2<Double>, SIMD2<Double>)] = [:]
        for n in map.nodes { frames[n.id] = n.frame }
        for c in map.compartments { frames[c.id] = (c.origin, c.origin + c.size) }
        func joined(_ point: SIMD2<Double>, _ ref: String?, _ glyph: String?) -> SIMD2<Double> {
            guard let glyph, let frame = frames[glyph], SBGNReader.isPlaceholder(point, box: frame) else { return point }
            if let ref, let p = portPoint[ref] { return p }
            return (frame.0 + frame.1) / 2
        }
        let pointKinds = Set(map.nodes.filter { $0.kind == .reaction }.map(\.id))
        // An end with no coordinates (`<start/>`, as Newt writes the arcs of maps made from SIF):
        // joined to its glyph (its port, else its centre) as Newt draws it, and said in a warning.
        var emptyEnds = 0
        func end(_ element: XMLElementNode?, _ ref: String?, _ glyph: String?) -> SIMD2<Double>? {
            if let element, let x = element.double("x"), let y = element.double("y") { return joined(SIMD2(x, y), ref, glyph) }
            guard let glyph, let frame = frames[glyph] else { return nil }
            emptyEnds += 1
            if let ref, let p = portPoint[ref] { return p }
            return (frame.0 + frame.1) / 2
        }
        for arc in arcElements {
            let from = try resolve(arc.attributes["source"], arc, "source"), to = try resolve(arc.attributes["target"], arc, "target")
            guard let start = end(arc.child("start"), arc.attributes["source"], from),
                  let finish = end(arc.child("end"), arc.attributes["target"], to) else {
                throw PathwayError(file: file, at: arc.place, "an arc needs <start> and <end> with x and y (or a glyph at each end to join)")
            }
            var segments: [PathwayMap.Segment] = arc.all("next").compactMap { n in
                guard let x = n.double("x"), let y = n.double("y") else { return nil }
                return .line(to: SIMD2(x, y))
            }
            segments.append(.line(to: finish))
            let (kind, head): (PathwayMap.EdgeKind, PathwayMap.Head)
            switch arc.attributes["class"] ?? "" {
            case "consumption": (kind, head) = (.substrate, .none)
            case "production": (kind, head) = (.product, .arrow)
            case "catalysis": (kind, head) = (.catalysis, .circle)
            case "inhibition": (kind, head) = (.inhibition, .bar)
            case "stimulation": (kind, head) = (.stimulation, .openArrow)
            case "absolute stimulation": (kind, head) = (.stimulation, .doubleOpenArrow)
            case "necessary stimulation": (kind, head) = (.stimulation, .barArrow)
            case "modulation": (kind, head) = (.stimulation, .diamond)
            case "absolute inhibition": (kind, head) = (.inhibition, .doubleBar)
            // Activity Flow's influences; Entity Relationship's assignment.
            case "positive influence": (kind, head) = (.stimulation, .openArrow)
            case "negative influence": (kind, head) = (.inhibition, .bar)
            case "unknown influence": (kind, head) = (.stimulation, .diamond)
            case "assignment": (kind, head) = (.product, .arrow)
            // Newt's SIF relations (Pathway Commons' types): the directed ones point at their target.
            case let sif where sif.hasPrefix("controls-") || ["catalysis-precedes", "chemical-affects", "consumption-controlled-by",
                                                                "used-to-produce"].contains(sif):
                (kind, head) = (.stimulation, .arrow)
            default: (kind, head) = (.plain, .none)
            }
            // An Entity Relationship interaction points at the entities it joins, not at its
            // interaction glyph.
            var tail = PathwayMap.Head.none
            var arcHead = head
            if arc.attributes["class"] == "interaction" {
                arcHead = to.map(pointKinds.contains) ?? true ? .none : .arrow
                tail = from.map(pointKinds.contains) ?? true ? .none : .arrow
            }
            let arcID = arc.attributes["id"] ?? "\(from ?? "arc")->\(to ?? "arc")"
            let style = styles.style(id: arcID, type: "SPECIESREFERENCEGLYPH")
            map.edges.append(PathwayMap.Edge(id: arcID, from: from, to: to, kind: kind, start: start, segments: segments,
                                             head: arcHead, tail: tail, color: style?.stroke ?? .black, width: style?.width.map { min($0, 4) } ?? 1.5))
        }
        if emptyEnds > 0 {
            map.warnings.append("\(file): \(emptyEnds) arc ends have no coordinates (<start/> or <end/> empty, as Newt writes maps made from SIF): joined to their glyphs")
        }
        return map
    }

    /// Whether a point is the (0,0) placeholder some exporters write for an arc end or a port:
    /// exactly the origin, with its glyph nowhere near it.
    static func isPlaceholder(_ p: SIMD2<Double>, box: (SIMD2<Double>, SIMD2<Double>)) -> Bool {
        guard p == .zero else { return false }
        let reach = max(box.1.x - box.0.x, box.1.y - box.0.y, 1)
        return box.0.x > reach || box.0.y > reach || box.1.x < -reach || box.1.y < -reach
    }
}

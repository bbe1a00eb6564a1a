import Core
import Foundation

/// Reads the diagram CellDesigner keeps in its SBML annotation (`<celldesigner:extension>` in the
/// model's annotation, CellDesigner 4.x; MINERVA and the disease maps write the same): compartment
/// aliases with their bounds, double line and colour (closed-up compartments run to the map's
/// edge), complex aliases and species aliases at their `bounds`, each in the shape CellDesigner
/// gives its class (protein a round box, gene a box, RNA a parallelogram, simple molecule an
/// ellipse, complex a box with cut corners, phenotype a hexagon, degraded a struck circle) and the
/// colour of its usual view; reactions as CellDesigner lays them out: the base line from the
/// reactant's anchor through the edit points (in CellDesigner's own frame: x from the first
/// alias's centre to the second's, y at right angles to it, to the right) to the product's, the
/// process square on the segment the file names, associations and dissociations joined at their
/// point, additional reactants and products, and modifiers (catalysis a circle, inhibition a bar,
/// stimulation an open arrow, modulation a diamond, trigger a barred arrow; unknown ones dashed).
/// Direct influences (positive, negative, reduced ones) are single lines without a process.
enum CellDesignerReader {
    /// The model's CellDesigner extension when it places species; nil when the model has none.
    static func diagram(of model: XMLElementNode) -> XMLElementNode? {
        // CellDesigner 4 on SBML Level 2 Version 4 wraps its elements in <celldesigner:extension>;
        // on Version 1 they sit in the annotation itself.
        guard let annotation = model.child("annotation"), let ext = (annotation.all("extension") + [annotation]).first(where: {
            $0.child("listOfSpeciesAliases") != nil || $0.child("listOfComplexSpeciesAliases") != nil
        }) else { return nil }
        let aliases = (ext.child("listOfSpeciesAliases")?.children.count ?? 0) + (ext.child("listOfComplexSpeciesAliases")?.children.count ?? 0)
        return aliases > 0 ? ext : nil
    }

    /// A name as CellDesigner writes it (`_br_` a line break, `_alpha_` α, and its other escapes).
    static func decoded(_ name: String) -> String {
        guard name.contains("_") else { return name }
        let escapes: [(String, String)] = [
            ("_br_", "\n"), ("_BR_", "\n"), ("_space_", " "), ("_plus_", "+"), ("_minus_", "-"), ("_slash_", "/"),
            ("_underscore_", "_"), ("_alpha_", "α"), ("_beta_", "β"), ("_gamma_", "γ"), ("_delta_", "δ"), ("_epsilon_", "ε"),
            ("_kappa_", "κ"), ("_mu_", "μ"), ("_sigma_", "σ"), ("_tau_", "τ"), ("_omega_", "ω"), ("_sub_", ""), ("_endsub_", ""),
            ("_super_", ""), ("_endsuper_", ""),
        ]
        var s = name
        for (from, to) in escapes where s.contains(from) { s = s.replacingOccurrences(of: from, with: to) }
        return s.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// CellDesigner's colours are ARGB in hex ("ffccffcc"); nil for none or fully transparent.
    static func color(_ text: String?) -> Color? {
        guard let text, text.count == 8, let v = UInt32(text, radix: 16) else { return nil }
        let alpha = Float(v >> 24) / 255
        guard alpha > 0 else { return nil }
        return Color(rgb: v & 0xFFFFFF, alpha: alpha)
    }

    /// What a species is: its name, CellDesigner's class of it, and for a protein its kind in the
    /// protein list, how many copies it is (a homodimer's) and its residues' states.
    struct Identity {
        var name: String
        var kind: String
        var protein: String? = nil
        var copies = 1
        var modifications: [(residue: String, state: String)] = []
        /// Its structural state ("open", "pro"), drawn in an oval on its border.
        var structural: String? = nil
    }

    /// A protein, gene or RNA of the model's lists: its type (GENERIC, RECEPTOR, ION_CHANNEL,
    /// TRUNCATED for proteins) and its modification residues (a protein's, at an angle) or
    /// modification sites (a gene's or RNA's, along the top edge) with their name and place.
    struct Protein {
        var type: String
        /// In id order, at most `residuesDrawn` of them.
        var residues: [(id: String, name: String, place: ResiduePlace)]

        init(type: String, residues: [String: (name: String, place: ResiduePlace)]) {
            self.type = type
            self.residues = residues.sorted { $0.key < $1.key }.prefix(CellDesignerReader.residuesDrawn).map { ($0.key, $0.value.name, $0.value.place) }
        }
    }

    /// Where a residue sits: at an angle round a protein (radians, counter-clockwise from east),
    /// or at a fraction of a gene's or RNA's width on its top edge.
    enum ResiduePlace {
        case angle(Double)
        case top(Double)
    }

    /// The most copies of a homodimer drawn (CellDesigner's own editor stops well below).
    static let copiesDrawn = 8
    /// The most residues drawn on one alias: each alias of a protein draws all of the protein's,
    /// so a protein of thousands referred to by thousands of aliases would multiply into millions.
    static let residuesDrawn = 64

    /// The letters CellDesigner writes in a modified residue's circle (its files spell palmitoylated
    /// "palmytoylated").
    static let stateSymbols: [String: String] = [
        "phosphorylated": "P", "acetylated": "Ac", "ubiquitinated": "Ub", "methylated": "Me", "hydroxylated": "OH",
        "glycosylated": "G", "myristoylated": "My", "palmitoylated": "Pa", "palmytoylated": "Pa", "prenylated": "Pr", "protonated": "H", "sulfated": "S",
        "don't care": "*", "unknown": "?", "empty": "",
    ]

    /// Where a residue at `angle` (radians, counter-clockwise from east, as CellDesigner keeps it)
    /// sits on a box: the point at that angle on a square's border, stretched to the box.
    static func residuePoint(angle: Double, center: SIMD2<Double>, size: SIMD2<Double>) -> SIMD2<Double> {
        let d = SIMD2(cos(angle), -sin(angle))
        let m = max(abs(d.x), abs(d.y))
        return center + d / (2 * m) * size
    }

    /// A `<celldesigner:line>`'s colour and width (kept between 0.5 and 6), where it gives them.
    static func lineStyle(_ line: XMLElementNode?) -> (color: Color?, width: Double?) {
        (color(line?.attributes["color"]), line?.double("width").map { max(0.5, min($0, 6)) })
    }

    static func shape(for kind: String) -> (PathwayMap.Shape, PathwayMap.NodeKind) {
        switch kind {
        case "GENE": return (.rectangle, .geneProduct)
        case "RNA": return (.parallelogram, .geneProduct)
        case "ANTISENSE_RNA": return (.parallelogramLeft, .geneProduct)
        case "SIMPLE_MOLECULE", "ION": return (.ellipse, .metabolite)
        case "UNKNOWN": return (.ellipse, .other)
        case "PHENOTYPE": return (.hexagon, .other)
        case "COMPLEX": return (.cutRectangle, .geneProduct)
        case "DEGRADED": return (.sourceSink, .other)
        case "DRUG": return (.roundRectangle, .metabolite)
        default: return (.roundRectangle, .geneProduct)  // proteins of every type
        }
    }

    static func read(_ model: XMLElementNode, diagram ext: XMLElementNode, names: [String: String], file: String) throws -> PathwayMap {
        func fail(_ e: XMLElementNode, _ message: String) -> PathwayError { PathwayError(file: file, at: e.place, message) }
        func text(_ e: XMLElementNode?) -> String? {
            guard let t = e?.text.trimmingCharacters(in: .whitespacesAndNewlines), !t.isEmpty else { return nil }
            return t
        }
        var map = PathwayMap()
        map.format = "sbml-celldesigner"
        map.title = SBMLLayoutReader.attribute(model, "name") ?? SBMLLayoutReader.attribute(model, "id") ?? ""
        if let d = ext.child("modelDisplay"), let w = d.double("sizeX"), let h = d.double("sizeY"), w > 0, h > 0 {
            map.canvas = (.zero, SIMD2(w, h))
        }
        let canvas = map.canvas?.size

        // Species: the model's and those only inside complexes (CellDesigner's included species).
        var identity: [String: Identity] = [:]
        func identify(_ id: String, name: String, speciesIdentity: XMLElementNode?) {
            let kind = text(speciesIdentity?.child("class")) ?? "PROTEIN"
            let reference = ["proteinReference", "geneReference", "rnaReference", "antisensernaReference"].lazy
                .compactMap { text(speciesIdentity?.child($0)) }.first
            var who = Identity(name: decoded(name), kind: kind, protein: reference)
            if let state = speciesIdentity?.child("state") {
                if let n = text(state.child("homodimer")).flatMap(Int.init), n > 1 { who.copies = min(n, copiesDrawn) }
                for m in state.child("listOfModifications")?.all("modification") ?? [] {
                    if let r = m.attributes["residue"] { who.modifications.append((r, m.attributes["state"] ?? "empty")) }
                }
                let structural = state.child("listOfStructuralStates")?.all("structuralState").first ?? state.child("structuralState")
                if let value = structural?.attributes["structuralState"].map(decoded), !value.isEmpty { who.structural = value }
            }
            identity[id] = who
        }
        // Proteins, genes and RNAs by id (their ids do not overlap in CellDesigner's files).
        var proteins: [String: Protein] = [:]
        for p in ext.child("listOfProteins")?.all("protein") ?? [] {
            guard let id = p.attributes["id"] else { continue }
            var residues: [String: (name: String, place: ResiduePlace)] = [:]
            for r in p.child("listOfModificationResidues")?.all("modificationResidue") ?? [] {
                guard let rid = r.attributes["id"], let angle = r.double("angle"), angle.isFinite else { continue }
                residues[rid] = (decoded(r.attributes["name"] ?? ""), .angle(angle))
            }
            proteins[id] = Protein(type: p.attributes["type"] ?? "GENERIC", residues: residues)
        }
        for (list, item) in [("listOfGenes", "gene"), ("listOfRNAs", "RNA"), ("listOfAntisenseRNAs", "AntisenseRNA")] {
            for g in ext.child(list)?.all(item) ?? [] {
                guard let id = g.attributes["id"], proteins[id] == nil else { continue }
                var sites: [String: (name: String, place: ResiduePlace)] = [:]
                for r in g.child("listOfRegions")?.all("region") ?? [] where r.attributes["type"] == "Modification Site" {
                    guard let rid = r.attributes["id"], let pos = r.double("pos"), pos.isFinite else { continue }
                    sites[rid] = (decoded(r.attributes["name"] ?? ""), .top(max(0, min(pos, 1))))
                }
                proteins[id] = Protein(type: g.attributes["type"] ?? item.uppercased(), residues: sites)
            }
        }
        for s in model.child("listOfSpecies")?.all("species") ?? [] {
            guard let id = SBMLLayoutReader.attribute(s, "id") else { continue }
            let annotation = s.child("annotation")
            // CellDesigner 4 nests the identity in an extension; 3.x put it in the annotation.
            let si = annotation?.child("extension")?.child("speciesIdentity") ?? annotation?.child("speciesIdentity")
            identify(id, name: names[id] ?? id, speciesIdentity: si)
        }
        for s in ext.child("listOfIncludedSpecies")?.all("species") ?? [] {
            guard let id = s.attributes["id"] else { continue }
            identify(id, name: s.attributes["name"] ?? id, speciesIdentity: s.child("annotation")?.child("speciesIdentity"))
        }

        // Compartments, the largest first (drawn beneath the ones inside them).
        var compartments: [(area: Double, c: PathwayMap.Compartment)] = []
        for a in ext.child("listOfCompartmentAliases")?.all("compartmentAlias") ?? [] {
            let compartment = a.attributes["compartment"] ?? ""
            let name = decoded(names[compartment] ?? compartment)
            let kind = text(a.child("class")) ?? "SQUARE"
            var origin: SIMD2<Double>, size: SIMD2<Double>
            if let b = a.child("bounds"), let x = b.double("x"), let y = b.double("y"), let w = b.double("w"), let h = b.double("h") {
                origin = SIMD2(x, y)
                size = SIMD2(w, h)
            } else if kind.hasPrefix("SQUARE_CLOSEUP_"), let p = a.child("point"), let x = p.double("x"), let y = p.double("y") {
                // A compartment closed up to the map's edge: its wall at the point, on the named side.
                let edge = canvas ?? SIMD2(x, y) * 2
                let side = kind.dropFirst("SQUARE_CLOSEUP_".count)
                let lo = SIMD2(side.contains("WEST") ? x : 0, side.contains("NORTH") ? y : 0)
                let hi = SIMD2(side.contains("EAST") ? x : edge.x, side.contains("SOUTH") ? y : edge.y)
                origin = lo
                size = pointwiseMax(hi - lo, SIMD2(0, 0))
            } else {
                throw fail(a, "a compartment alias needs <bounds> with x, y, w and h (or a closed-up compartment's <point>)")
            }
            var c = PathwayMap.Compartment(id: a.attributes["id"] ?? compartment, name: name, origin: origin, size: size,
                                           color: color(a.child("paint")?.attributes["color"]) ?? Color(rgb: 0xCCCC00))
            c.shape = kind == "OVAL" ? .ellipse : .roundRectangle
            c.doubleLine = true
            c.lineWidth = a.child("doubleLine")?.double("outerWidth").map { max(0.5, min($0, 6)) }
            // CellDesigner fills the band between its two lines in the compartment's colour, faintly,
            // and leaves the inside white.
            c.fill = c.color.mixed(with: .white, 0.6)
            c.band = a.child("doubleLine")?.double("thickness").map { max(2, min($0, 40)) } ?? 12
            c.innerFill = .white
            if let p = a.child("namePoint"), let x = p.double("x"), let y = p.double("y"), !name.isEmpty {
                let box = PathwayMap.estimatedBox(of: name, size: 12, at: .zero, fromStart: false)!
                c.labelBox = (SIMD2(x, y), box.max - box.min)
            }
            compartments.append((size.x * size.y, c))
        }
        map.compartments = compartments.sorted { $0.area > $1.area }.map(\.c)

        // Species aliases: complexes first (the larger first), then the rest, so members lie on top.
        // An alias is one node (edges meet it) with, before it, an active species' dashed ring and a
        // homodimer's copies behind, and after it its modified residues on its border.
        var byAlias: [String: PathwayMap.Node] = [:]
        func alias(_ a: XMLElementNode, complex: Bool) throws -> (node: PathwayMap.Node, behind: [PathwayMap.Node], over: [PathwayMap.Node]) {
            guard let id = a.attributes["id"] else { throw fail(a, "a species alias without an id") }
            let species = a.attributes["species"] ?? ""
            guard let b = a.child("bounds"), var x = b.double("x"), var y = b.double("y"), let w = b.double("w"), let h = b.double("h") else {
                throw fail(a, "a species alias needs <bounds> with x, y, w and h")
            }
            if let shift = spread[a.attributes["complexSpeciesAlias"] ?? id] {
                x += shift.x
                y += shift.y
            }
            let who = identity[species] ?? Identity(name: decoded(names[species] ?? species), kind: complex ? "COMPLEX" : "PROTEIN")
            var (shape, kind) = shape(for: complex ? "COMPLEX" : who.kind)
            let protein = who.protein.flatMap { proteins[$0] }
            if !complex, who.kind == "PROTEIN" {
                shape = ["RECEPTOR": .receptor, "ION_CHANNEL": .ionChannel, "TRUNCATED": .truncated][protein?.type ?? ""] ?? shape
            }
            let view = a.child("usualView")
            let fill = color(view?.child("paint")?.attributes["color"]) ?? Color(rgb: complex ? 0xF7F7F7 : 0xCCFFCC)
            let size = SIMD2(max(w, 0), max(h, 0))
            let fontSize = a.child("font")?.double("size").map { max(4, min($0, 72)) } ?? 12
            // A homodimer: its copies stacked down and to the right inside the bounds, the first on top.
            let step = who.copies > 1 ? min(6, min(size.x, size.y) / Double(4 * (who.copies - 1))) : 0
            let front = size - step * Double(who.copies - 1)
            var node = PathwayMap.Node(id: id, name: who.name, kind: kind, center: SIMD2(x, y) + front / 2, size: front, shape: shape,
                                       fill: fill, stroke: .black, label: who.kind == "DEGRADED" ? "" : who.name, fontSize: fontSize)
            node.lineWidth = view?.child("singleLine")?.double("width").map { max(0.5, min($0, 4)) }
            if complex {
                // CellDesigner writes a complex's name at the bottom, inside.
                node.labelPosition = SIMD2(node.center.x, y + front.y - fontSize * 0.9)
            }
            // A name wider than its box is wrapped and made smaller to fit (a complex's in two lines at its bottom).
            node.fitsLabel = true
            var behind: [PathwayMap.Node] = []
            if text(a.child("activity")) == "active" {
                // CellDesigner rings an active species with a dashed outline of its shape.
                var ring = node
                ring.id = id + ".active"
                ring.kind = .marker
                ring.label = ""
                ring.fill = nil
                ring.dashed = true
                ring.center = SIMD2(x, y) + size / 2
                ring.size = size + 8
                behind.append(ring)
            }
            for k in stride(from: who.copies - 1, through: 1, by: -1) {
                var copy = node
                copy.id = id + ".copy\(k)"
                copy.kind = .marker
                copy.label = ""
                copy.center += step * Double(k)
                behind.append(copy)
            }
            var over: [PathwayMap.Node] = []
            if let value = who.structural {
                // An oval on the border at the alias's angle (the top middle unless it says).
                let angle = a.child("structuralState")?.double("angle") ?? Double.pi / 2
                let at = residuePoint(angle: angle, center: node.center, size: front)
                let size = max(6, min(fontSize * 0.8, 10))
                let box = PathwayMap.estimatedBox(of: value, size: size, at: .zero, fromStart: false)!
                var oval = PathwayMap.Node(id: id + ".structure", name: value, kind: .marker, center: at,
                                           size: SIMD2(box.max.x - box.min.x + size * 1.6, size * 1.8), shape: .ellipse, fill: .white,
                                           stroke: .black, label: value, fontSize: size)
                oval.fitsLabel = true
                over.append(oval)
            }
            // Every residue of the protein, on each of its species: empty where this one leaves it so.
            let states = Dictionary(who.modifications.map { ($0.residue, $0.state) }, uniquingKeysWith: { a, _ in a })
            let diameter = min(14, max(6, min(front.x, front.y) * 0.45))
            for (k, residue) in (protein?.residues ?? []).enumerated() {
                let at: SIMD2<Double>
                switch residue.place {
                case .angle(let a): at = residuePoint(angle: a, center: node.center, size: front)
                case .top(let f): at = SIMD2(node.frame.min.x + f * front.x, node.frame.min.y)
                }
                let symbol = stateSymbols[states[residue.id] ?? "empty"] ?? "?"
                var circle = PathwayMap.Node(id: id + ".residue\(k)", name: residue.name, kind: .marker, center: at,
                                             size: SIMD2(diameter, diameter), shape: .ellipse, fill: .white, stroke: .black,
                                             label: symbol, fontSize: diameter * 0.6)
                circle.fitsLabel = true
                over.append(circle)
                if !residue.name.isEmpty {
                    // The residue's name inside the border beside its circle: below or above it on the
                    // top or bottom edge, right or left of it on a side, kept within the box.
                    let size = max(4, fontSize * 0.6)
                    let box = PathwayMap.estimatedBox(of: residue.name, size: size, at: .zero, fromStart: false)!
                    let half = (box.max - box.min) / 2, r = diameter / 2 + 1
                    let (lo, hi) = node.frame, d = (at - node.center) / front
                    var place = at
                    if abs(d.y) >= abs(d.x) {
                        place.y += d.y < 0 ? r + half.y : -(r + half.y)
                    } else {
                        place.x += d.x < 0 ? r + half.x : -(r + half.x)
                    }
                    place.x = min(max(place.x, lo.x + half.x + 2), max(lo.x + half.x + 2, hi.x - half.x - 2))
                    map.texts.append(PathwayMap.Text(text: residue.name, center: place, fontSize: size, color: .black))
                }
            }
            return (node, behind, over)
        }
        let spread = spreadStacked(ext, map: &map, file: file)
        var complexes: [(node: PathwayMap.Node, behind: [PathwayMap.Node], over: [PathwayMap.Node])] = []
        for a in ext.child("listOfComplexSpeciesAliases")?.all("complexSpeciesAlias") ?? [] {
            complexes.append(try alias(a, complex: true))
        }
        complexes.sort { $0.node.size.x * $0.node.size.y > $1.node.size.x * $1.node.size.y }
        var main: [PathwayMap.Node] = []
        for c in complexes {
            map.nodes += c.behind + [c.node] + c.over
            main.append(c.node)
        }
        for a in ext.child("listOfSpeciesAliases")?.all("speciesAlias") ?? [] {
            let s = try alias(a, complex: false)
            map.nodes += s.behind + [s.node] + s.over
            main.append(s.node)
        }
        for n in main { byAlias[n.id] = n }

        for r in model.child("listOfReactions")?.all("reaction") ?? [] {
            try reaction(r, into: &map, aliases: byAlias, file: file)
        }
        return map
    }

    /// The most aliases at one point that are drawn where they are; more are a map whose tool
    /// (a converter, a script) never placed them.
    static let stackedAtOnePoint = 5

    /// Aliases outside complexes stacked at one point (more than `stackedAtOnePoint` with the same
    /// top left corner: 789 at (50,50) in one real map) spread in a grid below the rest of the map,
    /// in the order of the file, with a warning. Gives each moved alias's shift (by its id; members
    /// of a moved complex move with it through their complex's id).
    static func spreadStacked(_ ext: XMLElementNode, map: inout PathwayMap, file: String) -> [String: SIMD2<Double>] {
        struct Box { let id: String, x: Double, y: Double, w: Double, h: Double }
        var boxes: [Box] = []
        for (list, item) in [("listOfComplexSpeciesAliases", "complexSpeciesAlias"), ("listOfSpeciesAliases", "speciesAlias")] {
            for a in ext.child(list)?.all(item) ?? [] where a.attributes["complexSpeciesAlias"] == nil {
                guard let id = a.attributes["id"], let b = a.child("bounds"), let x = b.double("x"), let y = b.double("y"),
                      let w = b.double("w"), let h = b.double("h") else { continue }
                boxes.append(Box(id: id, x: x, y: y, w: max(0, min(w, 1e6)), h: max(0, min(h, 1e6))))
            }
        }
        var byPoint: [SIMD2<Double>: [Box]] = [:]
        for b in boxes { byPoint[SIMD2(b.x, b.y), default: []].append(b) }
        let stacks = byPoint.filter { $0.value.count > stackedAtOnePoint }.sorted { ($0.key.y, $0.key.x) < ($1.key.y, $1.key.x) }
        guard !stacks.isEmpty else { return [:] }
        let stacked = Set(stacks.flatMap { $0.value.map(\.id) })
        // Below everything else the map places (its other aliases and its compartments).
        let rest = boxes.filter { !stacked.contains($0.id) }
        var left = rest.map(\.x).min() ?? stacks[0].key.x, bottom = rest.map { $0.y + $0.h }.max() ?? stacks[0].key.y
        for c in map.compartments {
            left = min(left, c.origin.x)
            bottom = max(bottom, c.origin.y + c.size.y)
        }
        let moved = stacks.flatMap(\.value)
        let cell = SIMD2(moved.map(\.w).max() ?? 80, moved.map(\.h).max() ?? 40) + 20
        let columns = max(1, Int(Double(moved.count).squareRoot().rounded(.up)))
        var shifts: [String: SIMD2<Double>] = [:]
        for (k, b) in moved.enumerated() {
            let at = SIMD2(left, bottom + 60) + SIMD2(Double(k % columns) * cell.x, Double(k / columns) * cell.y)
            shifts[b.id] = at - SIMD2(b.x, b.y)
        }
        if let canvas = map.canvas {
            let rows = (moved.count + columns - 1) / columns
            let far = SIMD2(left + Double(columns) * cell.x, bottom + 60 + Double(rows) * cell.y)
            map.canvas = (canvas.origin, pointwiseMax(canvas.size, far - canvas.origin))
        }
        for (point, group) in stacks {
            map.warnings.append("\(file): \(group.count) species aliases stacked at one point (\(point.x), \(point.y)), as a tool leaves those it never placed: spread in a grid below the map")
        }
        return shifts
    }

    // MARK: Reactions

    /// A point of an alias's box by CellDesigner's anchor name (N, NNE, NE, ... NNW); its centre
    /// when there is none (the line is cut at the outline when drawn).
    static func anchor(_ n: PathwayMap.Node, _ position: String?) -> SIMD2<Double> {
        let compass: [String: SIMD2<Double>] = [
            "N": SIMD2(0, -1), "NNE": SIMD2(0.5, -1), "NE": SIMD2(1, -1), "ENE": SIMD2(1, -0.5), "E": SIMD2(1, 0),
            "ESE": SIMD2(1, 0.5), "SE": SIMD2(1, 1), "SSE": SIMD2(0.5, 1), "S": SIMD2(0, 1), "SSW": SIMD2(-0.5, 1),
            "SW": SIMD2(-1, 1), "WSW": SIMD2(-1, 0.5), "W": SIMD2(-1, 0), "WNW": SIMD2(-1, -0.5), "NW": SIMD2(-1, -1), "NNW": SIMD2(-0.5, -1),
        ]
        guard let position, let d = compass[position] else { return n.center }
        if n.shape == .ellipse || n.shape == .sourceSink {
            let length = (d.x * d.x + d.y * d.y).squareRoot()
            return n.center + d / length * n.size / 2
        }
        return n.center + d * n.size / 2
    }

    /// Where a line from a node's centre toward `q` leaves its outline (its box, or its ellipse);
    /// the centre where `q` is inside. CellDesigner measures a reaction's segments (and so puts its
    /// process) between outlines, not centres.
    static func outline(_ n: PathwayMap.Node, toward q: SIMD2<Double>) -> SIMD2<Double> {
        let d = q - n.center, half = n.size / 2
        guard half.x > 0, half.y > 0, d.x != 0 || d.y != 0 else { return n.center }
        let t: Double
        if n.shape == .ellipse || n.shape == .sourceSink {
            t = 1 / ((d.x / half.x) * (d.x / half.x) + (d.y / half.y) * (d.y / half.y)).squareRoot()
        } else {
            t = min(d.x == 0 ? .infinity : half.x / abs(d.x), d.y == 0 ? .infinity : half.y / abs(d.y))
        }
        return t >= 1 ? n.center : n.center + t * d
    }

    /// A path whose first and last points are the centres of unanchored aliases, cut at their outlines.
    static func trimmed(_ path: [SIMD2<Double>], from a: (node: PathwayMap.Node, anchor: String?)?,
                        to b: (node: PathwayMap.Node, anchor: String?)?) -> [SIMD2<Double>] {
        guard path.count >= 2 else { return path }
        var out = path
        if let a, a.anchor == nil { out[0] = outline(a.node, toward: path[1]) }
        if let b, b.anchor == nil { out[out.count - 1] = outline(b.node, toward: path[path.count - 2]) }
        return out
    }

    /// Points in CellDesigner's frame from `a` to `b`: x along a→b, y at right angles (to the right).
    static func placed(_ points: [SIMD2<Double>], from a: SIMD2<Double>, to b: SIMD2<Double>) -> [SIMD2<Double>] {
        let v = b - a, w = SIMD2(-v.y, v.x)
        return points.map { a + $0.x * v + $0.y * w }
    }

    /// "x,y x,y ..." as points; pairs that are not two numbers within `limit` are left out. Edit
    /// points are fractions of the distance between two aliases (a few units at most in real
    /// maps; 100 leaves room); a logic gate's own place is in map units.
    static func editPoints(_ text: String, limit: Double = 100) -> [SIMD2<Double>] {
        text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }).compactMap { pair in
            let xy = pair.split(separator: ",")
            guard xy.count == 2, let x = Double(xy[0]), let y = Double(xy[1]), abs(x) <= limit, abs(y) <= limit else { return nil }
            return SIMD2(x, y)
        }
    }

    /// The middle of segment `k` of a polyline (the last one where `k` is past the end).
    static func middle(of points: [SIMD2<Double>], segment k: Int) -> SIMD2<Double> {
        guard points.count >= 2 else { return points.first ?? .zero }
        let i = max(0, min(k, points.count - 2))
        return (points[i] + points[i + 1]) / 2
    }

    /// How a modifier or a direct influence ends: its edge kind, head and whether it is dashed.
    static func modifierStyle(_ type: String) -> (PathwayMap.EdgeKind, PathwayMap.Head, Bool) {
        let unknown = type.hasPrefix("UNKNOWN_")
        let base = type.replacingOccurrences(of: "UNKNOWN_", with: "").replacingOccurrences(of: "REDUCED_", with: "")
        switch base {
        case "CATALYSIS": return (.catalysis, .circle, unknown)
        case "INHIBITION", "NEGATIVE_INFLUENCE", "TRANSCRIPTIONAL_INHIBITION", "TRANSLATIONAL_INHIBITION":
            return (.inhibition, .bar, unknown || base.hasPrefix("TRANSCRIPTIONAL") || base.hasPrefix("TRANSLATIONAL"))
        case "MODULATION": return (.stimulation, .diamond, unknown)
        case "TRIGGER": return (.stimulation, .barArrow, unknown)
        case "PHYSICAL_STIMULATION", "POSITIVE_INFLUENCE", "TRANSCRIPTIONAL_ACTIVATION", "TRANSLATIONAL_ACTIVATION":
            return (.stimulation, .openArrow, unknown || base.hasPrefix("TRANSCRIPTIONAL") || base.hasPrefix("TRANSLATIONAL"))
        default: return (.catalysis, .circle, unknown)
        }
    }

    static func reaction(_ r: XMLElementNode, into map: inout PathwayMap, aliases: [String: PathwayMap.Node], file: String) throws {
        guard let id = SBMLLayoutReader.attribute(r, "id") else { throw PathwayError(file: file, at: r.place, "a reaction without an id") }
        // A reaction CellDesigner never drew has no reaction type in its annotation.
        guard let annotation = r.child("annotation"),
              let ext = annotation.child("reactionType") != nil ? annotation : annotation.child("extension") else { return }
        let type = ext.child("reactionType")?.text.trimmingCharacters(in: .whitespacesAndNewlines) ?? "STATE_TRANSITION"
        func ends(_ list: String, _ item: String) throws -> [(node: PathwayMap.Node, anchor: String?)] {
            try (ext.child(list)?.all(item) ?? []).map { b in
                guard let a = b.attributes["alias"], let n = aliases[a] else {
                    throw PathwayError(file: file, at: b.place, "\(b.attributes["alias"] ?? "(no alias)") is not a species alias of the diagram")
                }
                return (n, b.child("linkAnchor")?.attributes["position"])
            }
        }
        let reactants = try ends("baseReactants", "baseReactant"), products = try ends("baseProducts", "baseProduct")
        guard let first = reactants.first, let last = products.first else { return }
        let style = lineStyle(ext.child("line"))
        let color = style.color ?? .black, width = style.width ?? 1
        let edit = ext.child("editPoints")
        let points = editPoints(edit?.text ?? "")
        /// An edge of the reaction, in the reaction's line style unless it has its own.
        func edge(_ suffix: String, from: String?, to: String?, kind: PathwayMap.EdgeKind, _ path: [SIMD2<Double>],
                  head: PathwayMap.Head = .none, dashed: Bool = false, color own: Color? = nil, width ownWidth: Double? = nil) {
            guard path.count >= 2 else { return }
            map.edges.append(PathwayMap.Edge(id: "\(id)\(suffix)", from: from, to: to, kind: kind, start: path[0],
                                             segments: path.dropFirst().map { .line(to: $0) }, head: head, color: own ?? color,
                                             width: ownWidth ?? width, dashed: dashed, reaction: id))
        }

        // A direct influence (positive, negative, reduced ...): one line, no process.
        let process = ["STATE_TRANSITION", "KNOWN_TRANSITION_OMITTED", "UNKNOWN_TRANSITION", "TRANSCRIPTION", "TRANSLATION", "TRANSPORT",
                       "HETERODIMER_ASSOCIATION", "DISSOCIATION", "TRUNCATION"].contains(type)
        let dashedBase = type == "TRANSCRIPTION" || type == "TRANSLATION" || type == "UNKNOWN_TRANSITION"
        var center: SIMD2<Double>
        if reactants.count >= 2 || products.count >= 2 {
            // An association (two reactants joined at a point) or a dissociation (split at one):
            // the point in the frame of the three aliases' centres, each branch's edit points in
            // the frame from its alias to the point; the process on the single side's branch.
            let joinsReactants = reactants.count >= 2
            let a = joinsReactants ? reactants[0].node : first.node
            let b = joinsReactants ? reactants[1].node : products[0].node
            let c = joinsReactants ? last.node : products[1].node
            var counts = [0, 0, 0]
            for k in 0..<3 { counts[k] = max(0, Int(edit?.attributes["num\(k)"] ?? "") ?? 0) }
            let p = points.last.map { a.center + $0.x * (b.center - a.center) + $0.y * (c.center - a.center) }
                ?? (a.center + b.center + c.center) / 3
            var cursor = 0
            func branch(_ k: Int, from x: SIMD2<Double>, to y: SIMD2<Double>) -> [SIMD2<Double>] {
                let n = min(counts[k], max(0, points.count - 1 - cursor))
                defer { cursor += n }
                return [x] + placed(Array(points[cursor..<(cursor + n)]), from: x, to: y) + [y]
            }
            let t = max(0, Int(edit?.attributes["tShapeIndex"] ?? "") ?? 0)
            // A branch toward a reactant has its edit points in the frame from the point to the
            // reactant (CellDesigner stores every branch outward from the point), read then reversed.
            func inward(_ k: Int, _ r: (node: PathwayMap.Node, anchor: String?)) -> [SIMD2<Double>] {
                trimmed(Array(branch(k, from: p, to: anchor(r.node, r.anchor)).reversed()), from: r, to: nil)
            }
            if joinsReactants {
                let b0 = inward(0, reactants[0]), b1 = inward(1, reactants[1])
                let out = trimmed(branch(2, from: p, to: anchor(last.node, last.anchor)), from: nil, to: last)
                center = middle(of: out, segment: t)
                let i = max(0, min(t, out.count - 2))
                edge(":r0", from: reactants[0].node.id, to: id, kind: .substrate, b0 + Array(out[1..<(i + 1)]) + [center], dashed: dashedBase)
                edge(":r1", from: reactants[1].node.id, to: id, kind: .substrate, b1 + Array(out[1..<(i + 1)]) + [center], dashed: dashedBase)
                edge(":p0", from: id, to: last.node.id, kind: .product, [center] + Array(out[(i + 1)...]), head: .arrow, dashed: dashedBase)
                // A third and further reactant joins at the same point.
                for (k, r) in reactants.enumerated().dropFirst(2) {
                    edge(":r\(k)", from: r.node.id, to: id, kind: .substrate,
                         trimmed([anchor(r.node, r.anchor), p], from: r, to: nil) + Array(out[1..<(i + 1)]) + [center], dashed: dashedBase)
                }
            } else {
                // A dissociation: the complex's branch, its process counted from the point (so it
                // lies outside the complex, between its outline and the point).
                let into = inward(0, first)
                let p0 = trimmed(branch(1, from: p, to: anchor(products[0].node, products[0].anchor)), from: nil, to: products[0])
                let p1 = trimmed(branch(2, from: p, to: anchor(products[1].node, products[1].anchor)), from: nil, to: products[1])
                let i = max(0, min(into.count - 2 - t, into.count - 2))
                center = middle(of: into, segment: i)
                edge(":r0", from: first.node.id, to: id, kind: .substrate, Array(into[...i]) + [center], dashed: dashedBase)
                let rest = [center] + Array(into[(i + 1)...])
                edge(":p0", from: id, to: products[0].node.id, kind: .product, rest + p0.dropFirst(), head: .arrow, dashed: dashedBase)
                edge(":p1", from: id, to: products[1].node.id, kind: .product, rest + p1.dropFirst(), head: .arrow, dashed: dashedBase)
                for (k, q) in products.enumerated().dropFirst(2) {
                    edge(":p\(k)", from: id, to: q.node.id, kind: .product, rest + trimmed([p, anchor(q.node, q.anchor)], from: nil, to: q).dropFirst(),
                         head: .arrow, dashed: dashedBase)
                }
            }
        } else {
            let path = trimmed([anchor(first.node, first.anchor)] + placed(points, from: first.node.center, to: last.node.center)
                + [anchor(last.node, last.anchor)], from: first, to: last)
            if !process {
                let (kind, head, dashed) = modifierStyle(type)
                edge(":line", from: first.node.id, to: last.node.id, kind: kind, path, head: head, dashed: dashed)
                return
            }
            let k = Int(ext.child("connectScheme")?.attributes["rectangleIndex"] ?? "") ?? (path.count - 2) / 2
            center = middle(of: path, segment: k)
            let i = max(0, min(k, path.count - 2))
            edge(":r0", from: first.node.id, to: id, kind: .substrate, Array(path[...i]) + [center], dashed: dashedBase)
            edge(":p0", from: id, to: last.node.id, kind: .product, [center] + Array(path[(i + 1)...]), head: .arrow, dashed: dashedBase)
        }
        map.nodes.append(PathwayMap.Node(id: id, name: SBMLLayoutReader.attribute(r, "name").map(decoded) ?? id, kind: .reaction,
                                         center: center, size: SIMD2(10, 10), shape: .process, fill: .white, stroke: color))

        // Additional reactants and products: straight to and from the process, through their edit points.
        for (list, item, isProduct) in [("listOfReactantLinks", "reactantLink", false), ("listOfProductLinks", "productLink", true)] {
            for (k, l) in (ext.child(list)?.all(item) ?? []).enumerated() {
                guard let a = l.attributes["alias"], let n = aliases[a] else { continue }
                let end = anchor(n, l.child("linkAnchor")?.attributes["position"])
                let via = editPoints(l.child("editPoints")?.text ?? "")
                var path = [end] + placed(via, from: n.center, to: center) + [center]
                if isProduct { path = [center] + placed(via, from: center, to: n.center) + [end] }
                edge(isProduct ? ":p+\(k)" : ":r+\(k)", from: isProduct ? id : n.id, to: isProduct ? n.id : id,
                     kind: isProduct ? .product : .substrate, path, head: isProduct ? .arrow : .none, dashed: dashedBase,
                     color: lineStyle(l.child("line")).color)
            }
        }
        // Modifiers. A logic gate is drawn where the file puts it (its last edit point, in map
        // units) with one line on to the process; the modifications that follow it for its own
        // aliases run to the gate, without a head.
        var gates: [String: (id: String, center: SIMD2<Double>)] = [:]  // alias -> its gate
        for (k, m) in (ext.child("listOfModification")?.all("modification") ?? []).enumerated() {
            let type = m.attributes["type"] ?? "CATALYSIS"
            let names = (m.attributes["aliases"] ?? m.child("linkTarget")?.attributes["alias"] ?? "").split(separator: ",").map(String.init)
            let gate = type.hasPrefix("BOOLEAN_LOGIC_GATE")
            let via = editPoints(m.child("editPoints")?.text ?? m.attributes["editPoints"] ?? "", limit: gate ? 1e6 : 100)
            let own = lineStyle(m.child("line"))
            let stroke = own.color ?? color, lineWidth = own.width ?? 1
            if gate, let at = via.last {
                let style = modifierStyle(m.attributes["modificationType"] ?? "CATALYSIS")
                let node = "\(id).gate\(k)"
                let symbol = ["AND": "&", "OR": "|", "NOT": "!"][String(type.dropFirst("BOOLEAN_LOGIC_GATE_".count))] ?? "?"
                map.nodes.append(PathwayMap.Node(id: node, kind: .marker, center: at, size: SIMD2(14, 14), shape: .ellipse, fill: .white,
                                                 stroke: stroke, label: symbol, fontSize: 10))
                edge(":g\(k)", from: node, to: id, kind: style.0, [at, center], head: style.1, dashed: style.2, color: stroke, width: lineWidth)
                for a in names { gates[a] = (node, at) }
                continue
            }
            let style = modifierStyle(type)
            for (j, a) in names.enumerated() {
                guard let n = aliases[a] else { continue }
                let position = m.all("linkTarget").first { $0.attributes["alias"] == a }?.child("linkAnchor")?.attributes["position"]
                // To its gate without a head, else to the process with the modification's head.
                let (target, at, head) = gates[a].map { ($0.id, $0.center, PathwayMap.Head.none) } ?? (id, center, style.1)
                edge(":m\(k).\(j)", from: n.id, to: target, kind: style.0, [anchor(n, position)] + placed(via, from: n.center, to: at) + [at],
                     head: head, dashed: style.2, color: stroke, width: lineWidth)
            }
        }
    }
}

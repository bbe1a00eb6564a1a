import Core
import Foundation
import Imaging
import Scene
import Structure
import Text

/// What a figure carries over the molecule, drawn on the finished picture where the camera puts
/// the atoms: labels (PyMOL's `label`), distances and angles (PyMOL's `distance` and `angle`), a
/// colour key and a scale bar. Text is set with FreeType at a size in points (at 96 dpi for a
/// 512 px picture, scaled with the picture), with a halo of the background's colour, and kept
/// inside the picture, beside the atoms it names rather than on them.
public struct Annotations: Sendable, Equatable {
    /// `SELECTION: FORMAT`: a label per residue of the selection, or per atom where the format
    /// names atom fields (%name, %elem, %b, %q).
    public struct Label: Sendable, Equatable {
        public var selection: Selection
        public var format: String
        public var text: String
    }

    /// Selections measured between: two for a distance, three for an angle.
    public struct Measure: Sendable, Equatable {
        public var selections: [Selection]
        public var text: String
    }

    /// A selection whose interactions with what surrounds it are drawn (`InteractionFinder`).
    public struct InteractionsAsked: Sendable, Equatable {
        public var selection: Selection
        public var text: String
    }
    /// The other side of `interactions`, where given (`interactions-with`): else every atom the selection does not take.
    public var interactionPartners: InteractionsAsked?

    public var labels: [Label] = []
    public var interactions: InteractionsAsked?
    public var distances: [Measure] = []
    public var angles: [Measure] = []
    public var legend = false
    public var scaleBar = false
    /// Text size in points (12 by default).
    public var points: Float = 12

    public init() {}

    /// Most of each kind one picture takes (labels, distances, angles).
    public static let maxEach = 32
    /// Most labels one picture draws: a label per atom of a whole protein would be a grey smear.
    public static let maxLabels = 400
    /// Most atom pairs a distance looks through for its closest pair.
    public static let maxPairs = 1_000_000
    /// The fields a label's format may name.
    public static let labelFields = ["%resn", "%resi", "%chain", "%name", "%elem", "%b", "%q"]

    public var isEmpty: Bool { interactions == nil && interactionPartners == nil && !drawnOnPicturesOnly }

    /// Whether it asks for what a view's frames do not draw: labels, measures, keys, a scale bar
    /// (a ligand's interactions are drawn over live views and replays too).
    public var drawnOnPicturesOnly: Bool { !labels.isEmpty || !distances.isEmpty || !angles.isEmpty || legend || scaleBar }

    /// Each kind's colour, as Mol*'s interaction-type theme has it (salt bridges its ionic yellow).
    public static func color(_ kind: InteractionKind) -> UInt32 {
        switch kind {
        case .hbond: 0x2B83BA
        case .hydrophobic: 0x808080
        case .halogen: 0x40FFBF
        case .saltbridge: 0xF0C814
        case .metal: 0x8C4099
        case .pication: 0xFF8000
        case .pistacking: 0x8CB366
        case .waterbridge: 0x8080FF  // PLIP's PyMOL sessions draw bridges and their waters light blue; a shade darker to show on white
        }
    }

    /// The settings as text, for the request's canonical line.
    var canonical: String {
        guard !isEmpty else { return "" }
        return " labels=" + labels.map(\.text).joined(separator: "|") + (interactions.map { " interactions=" + $0.text } ?? "") + (interactionPartners.map { " interactions-with=" + $0.text } ?? "") + " distances=" + distances.map(\.text).joined(separator: "|")
            + " angles=" + angles.map(\.text).joined(separator: "|") + " legend=\(legend) scale-bar=\(scaleBar) label-size=\(points)"
    }

    static func parseLabel(_ text: String) throws(RequestError) -> Label {
        guard let colon = text.firstIndex(of: ":") else {
            throw RequestError(field: "label", "must be SELECTION: FORMAT, as \"name CA and resi 10-20: %resn %resi\" (got \(Excerpt.of(text)))")
        }
        let selectionText = String(text[..<colon]).trimmingCharacters(in: .whitespaces)
        let format = String(text[text.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
        // No format: the default, resolved against the picture's model (`defaultLabelFormat`).
        guard format.count <= 80 else { throw RequestError(field: "label", "format is longer than 80 characters") }
        // Every %word a field: an unknown one (%resname) would be filled in part ("THRame").
        var rest = Substring(format)
        while let percent = rest.firstIndex(of: "%") {
            let word = rest[rest.index(after: percent)...].prefix { $0.isLetter }
            rest = rest[word.endIndex...]
            guard !word.isEmpty else { continue }
            let field = "%" + word
            guard labelFields.contains(field) else {
                throw RequestError(field: "label", "%\(word) is not a label field\(NearMiss.hint(for: field, among: labelFields)); "
                                   + "the fields are \(labelFields.joined(separator: " ")) (in \"\(Excerpt.of(text))\")")
            }
        }
        let selection: Selection
        do { selection = try Selection(parsing: selectionText) } catch { throw RequestError(field: "label", "\(error)") }
        return Label(selection: selection, format: format, text: text)
    }

    static func parseMeasure(_ text: String, field: String, count: Int) throws(RequestError) -> Measure {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == count, !parts.contains(where: \.isEmpty) else {
            throw RequestError(field: field, "must be \(count) selections separated by commas, as \""
                               + (count == 2 ? "resn 478 and name O1, resi 25 and name OD1 and chain A" : "resi 10 and name N, resi 10 and name CA, resi 10 and name C")
                               + "\" (got \(Excerpt.of(text)))")
        }
        var selections: [Selection] = []
        for p in parts {
            do { selections.append(try Selection(parsing: p)) } catch { throw RequestError(field: field, "\(error)") }
        }
        return Measure(selections: selections, text: text)
    }

    // MARK: Drawing

    /// Draws everything onto `image`, the finished picture of `prepared` through `camera`.
    /// `request` gives the background and colours; a selection that picks no atom, or too many
    /// labels, is a `RequestError` naming its field.
    /// Returns the boxes (x0, y0, x1, y1 in pixels) of the text it set: labels, measures, the interactions' key.
    @discardableResult
    public func draw(into image: inout RGBAImage, prepared: PreparedMolecule, camera: Camera, request: RenderRequest) throws -> [SIMD4<Int>] {
        try drawLabelled(into: &image, prepared: prepared, camera: camera, request: request).boxes
    }

    /// A label as set: its text, the atom it names and its box (x0, y0, x1, y1 in pixels).
    public struct PlacedLabel: Sendable, Equatable {
        public var text: String
        public var atom: Int
        public var box: SIMD4<Int>
    }

    /// `draw`, with the labels it set.
    public func drawLabelled(into image: inout RGBAImage, prepared: PreparedMolecule, camera: Camera,
                             request: RenderRequest) throws -> (boxes: [SIMD4<Int>], labels: [PlacedLabel]) {
        guard !isEmpty else { return ([], []) }
        var labelsSet: [PlacedLabel] = []
        let model = prepared.model
        let scale = max(0.5, Float(min(image.width, image.height)) / 512)
        let pixelSize = max(8, Int((points * 4 / 3 * scale).rounded()))
        let font = try Font.standard(pixelSize: pixelSize)
        let small = try Font.standard(pixelSize: max(7, Int((Float(pixelSize) * 0.85).rounded())))
        let light = request.background.alpha < 0.5 || luminance(request.background.rgb) > 0.5
        let ink: UInt32 = light ? 0x1A1A1A : 0xF2F2F2
        let halo: UInt32 = light ? (request.background.alpha < 0.5 ? 0xFFFFFF : request.background.rgb) : request.background.rgb
        let dash: (UInt8, UInt8, UInt8) = light ? (0x33, 0x33, 0x33) : (0xFF, 0xE0, 0x40)
        let w = image.width, h = image.height
        var placed: [Rect] = [], obstacles: [Rect] = []
        func project(_ p: SIMD3<Float>) -> SIMD2<Float> { camera.project(p, width: w, height: h) }
        func onScreen(_ p: SIMD2<Float>) -> Bool { p.x.isFinite && p.y.isFinite && p.x >= 0 && p.y >= 0 && p.x < Float(w) && p.y < Float(h) }

        // Interactions: a dashed line a contact in its kind's colour, with a key of the kinds drawn.
        if interactionPartners != nil && interactions == nil {
            throw RequestError(field: "interactions-with", "goes with interactions (the selection whose interactions are drawn)")
        }
        if let asked = interactions {
            // The lines are in the scene (`InteractionLines`); here their key, of the interactions
            // the geometry was made with (found again only for a molecule prepared without them).
            let found = try prepared.interactions ?? Self.interactions(asked, in: model, partners: interactionPartners)
            if let key = drawInteractionKey(Set(found.map(\.kind)), into: &image, font: small, ink: ink, halo: halo, scale: scale) { placed.append(key) }
            // The selection's atoms (the ligand) are kept clear of text: a box an atom, 1 Å about it.
            let r = Int((1 / camera.worldUnitsPerPixel(width: w, height: h)).rounded())
            for i in asked.selection.atoms(in: model).prefix(2000) {
                let q = project(model.atoms[i].position)
                guard onScreen(q) else { continue }
                let box = Rect(x0: Int(q.x) - r, y0: Int(q.y) - r, x1: Int(q.x) + r, y1: Int(q.y) + r)
                obstacles.append(box)
                placed.append(box)
            }
        }
        // Distances: the closest pair of atoms between the two selections.
        for d in distances {
            let a = try atoms(d.selections[0], model, field: "distance", text: d.text)
            let b = try atoms(d.selections[1], model, field: "distance", text: d.text)
            guard a.count * b.count <= Self.maxPairs else {
                throw RequestError(field: "distance", "\(Excerpt.of(d.text)) pairs \(a.count) atoms with \(b.count): at most \(Self.maxPairs) pairs; select fewer")
            }
            let best = Self.closestPair(a, b, in: model)
            let p = project(model.atoms[best.first].position), q = project(model.atoms[best.second].position)
            image.dashedLine(from: p, to: q, width: 2 * scale, dash: 7 * scale, gap: 5 * scale, color: dash)
            let text = String(format: "%.1f Å", best.distance)
            place(text, font: small, near: (p + q) / 2, reach: 3 * scale, ink: ink, halo: halo, into: &image, placed: &placed)
        }
        // Angles: at the second selection's centre, between the first's and the third's.
        for angle in angles {
            var centres: [SIMD3<Float>] = []
            for s in angle.selections {
                let list = try atoms(s, model, field: "angle", text: angle.text)
                centres.append(list.reduce(SIMD3<Float>(0, 0, 0)) { $0 + model.atoms[$1].position } / Float(list.count))
            }
            let u = centres[0] - centres[1], v = centres[2] - centres[1]
            let cosine = (u * v).sum() / max(1e-6, ((u * u).sum() * (v * v).sum()).squareRoot())
            let degrees = acos(max(-1, min(1, cosine))) * 180 / .pi
            let p = centres.map(project)
            image.dashedLine(from: p[1], to: p[0], width: 2 * scale, dash: 7 * scale, gap: 5 * scale, color: dash)
            image.dashedLine(from: p[1], to: p[2], width: 2 * scale, dash: 7 * scale, gap: 5 * scale, color: dash)
            // An arc between the two arms on screen.
            let radius = 18 * scale
            let a0 = atan2(p[0].y - p[1].y, p[0].x - p[1].x), a2 = atan2(p[2].y - p[1].y, p[2].x - p[1].x)
            var sweep = a2 - a0
            if sweep > .pi { sweep -= 2 * .pi }
            if sweep < -.pi { sweep += 2 * .pi }
            let steps = 16
            for k in 0..<steps {
                let t0 = a0 + sweep * Float(k) / Float(steps), t1 = a0 + sweep * Float(k + 1) / Float(steps)
                image.line(from: p[1] + radius * SIMD2(cos(t0), sin(t0)), to: p[1] + radius * SIMD2(cos(t1), sin(t1)), width: 1.5 * scale, color: dash)
            }
            let mid = a0 + sweep / 2
            place(String(format: "%.1f°", degrees), font: small, near: p[1] + (radius + 4 * scale) * SIMD2(cos(mid), sin(mid)), reach: 2 * scale,
                  ink: ink, halo: halo, into: &image, placed: &placed)
        }
        // Labels, beside their atoms, nearest first dropped where they would cover another.
        var anchors: [(atom: Int, format: String)] = []
        for label in labels {
            let list = try atoms(label.selection, model, field: "label", text: label.text)
            let format = label.format.isEmpty ? Self.defaultLabelFormat(model) : label.format
            let perAtom = ["%name", "%elem", "%b", "%q"].contains { format.contains($0) }
            if perAtom {
                anchors += list.map { ($0, format) }
            } else {
                var seen = Set<Int32>()
                for i in list where seen.insert(model.atoms[i].residue).inserted {
                    anchors.append((Self.residueAnchor(model, residue: Int(model.atoms[i].residue), among: list), format))
                }
            }
            guard anchors.count <= Self.maxLabels else {
                throw RequestError(field: "label", "\(Excerpt.of(label.text)) makes more than \(Self.maxLabels) labels; select fewer atoms "
                                   + "(name CA labels one a residue)")
            }
        }
        // Labels stand off an atom by its size on screen (1.2 Å), at most 40 pixels at 512.
        let offset = min(1.2 / camera.worldUnitsPerPixel(width: w, height: h), 40 * scale) + 3 * scale
        // A residue's label covers none of the labelled residues' atoms (its own included): each
        // such atom, drawn, is a box the size of a ball-and-stick atom.
        let labelled = Set(anchors.map { model.atoms[$0.atom].residue })
        let atomBox = max(2, Int((0.45 / camera.worldUnitsPerPixel(width: w, height: h)).rounded()))
        var residueBoxes: [Rect] = []
        var drawnAtoms = [Bool](repeating: false, count: model.atoms.count)
        for part in prepared.parts where !part.representation.isTrace { for a in part.atoms { drawnAtoms[Int(a)] = true } }
        for r in labelled {
            let residue = model.residues[Int(r)]
            for i in Int(residue.atoms.lowerBound)..<Int(residue.atoms.upperBound) where drawnAtoms[i] {
                let q = project(model.atoms[i].position)
                guard onScreen(q) else { continue }
                residueBoxes.append(Rect(x0: Int(q.x) - atomBox, y0: Int(q.y) - atomBox, x1: Int(q.x) + atomBox, y1: Int(q.y) + atomBox))
            }
        }
        placed += residueBoxes
        obstacles += residueBoxes
        for (atom, format) in anchors {
            let p = project(model.atoms[atom].position)
            guard onScreen(p) else { continue }
            let text = Self.fill(format, atom: atom, model: model)
            if let box = place(text, font: font, near: p, reach: offset, ink: ink, halo: halo, into: &image, placed: &placed, required: false) {
                labelsSet.append(PlacedLabel(text: text, atom: atom, box: SIMD4(box.x0, box.y0, box.x1, box.y1)))
            }
        }
        if legend { try drawLegend(into: &image, model: model, request: request, font: small, ink: ink, halo: halo, scale: scale) }
        if scaleBar { drawScaleBar(into: &image, camera: camera, font: small, ink: ink, halo: halo, scale: scale) }
        return (placed.filter { !obstacles.contains($0) }.map { SIMD4($0.x0, $0.y0, $0.x1, $0.y1) }, labelsSet)
    }

    /// The closest pair of atoms between `a` and `b` (distinct atoms) and their distance in Å.
    public static func closestPair(_ a: [Int], _ b: [Int], in model: Model) -> (first: Int, second: Int, distance: Float) {
        var best = (i: a[0], j: b[0], d2: Float.greatestFiniteMagnitude)
        for i in a {
            for j in b where i != j {
                let v = model.atoms[i].position - model.atoms[j].position, d2 = (v * v).sum()
                if d2 < best.d2 { best = (i, j, d2) }
            }
        }
        return (best.i, best.j, best.d2 == .greatestFiniteMagnitude ? 0 : best.d2.squareRoot())
    }

    /// The atoms `selection` picks (shown or not), at least one.
    private func atoms(_ selection: Selection, _ model: Model, field: String, text: String) throws(RequestError) -> [Int] {
        let list = selection.atoms(in: model)
        guard !list.isEmpty else { throw RequestError(field: field, "\"\(Excerpt.of(text))\" selects no atoms") }
        return list
    }

    /// Where a residue's label points: its CA (or C1', P), else the atom nearest its centre.
    static func residueAnchor(_ model: Model, residue: Int, among: [Int]) -> Int {
        let r = model.residues[residue]
        let range = Int(r.atoms.lowerBound)..<Int(r.atoms.upperBound)
        for name in ["CA", "C1'", "P"] { if let i = range.first(where: { model.atoms[$0].name.description == name }) { return i } }
        let centre = range.reduce(SIMD3<Float>(0, 0, 0)) { $0 + model.atoms[$1].position } / Float(max(1, range.count))
        return range.min { a, b in
            let u = model.atoms[a].position - centre, v = model.atoms[b].position - centre
            return (u * u).sum() < (v * v).sum()
        } ?? among[0]
    }

    /// A label's text: PyMOL's fields filled from the atom and its residue.
    /// A label with no format names its residue, and its chain where the model has polymer chains
    /// of more than one id (1hpv's two Asp25s are `ASP25 A` and `ASP25 B`).
    public static func defaultLabelFormat(_ model: Model) -> String {
        var ids = Set<String>()
        for chain in model.chains where chain.residues.contains(where: { model.residues[Int($0)].inPolymer }) {
            ids.insert(chain.id)
            if ids.count > 1 { return "%resn%resi %chain" }
        }
        return "%resn%resi"
    }

    public static func fill(_ format: String, atom i: Int, model: Model) -> String {
        let atom = model.atoms[i], residue = model.residues[Int(atom.residue)]
        let chain = model.chains[Int(residue.chain)].id
        let resi = "\(residue.number)" + (residue.insertionCode > 32 ? String(UnicodeScalar(residue.insertionCode)) : "")
        let element = Element.symbols[Int(atom.element.atomicNumber)]
        var out = format
        // Longest first: %resn before %resi before nothing shorter that shares a prefix.
        for (field, value) in [("%resn", residue.name.description), ("%resi", resi), ("%chain", chain), ("%name", atom.name.description),
                               ("%elem", element), ("%b", String(format: "%.2f", atom.bFactor)), ("%q", String(format: "%.2f", atom.occupancy))] {
            out = out.replacingOccurrences(of: field, with: value)
        }
        return out
    }

    struct Rect: Equatable {
        var x0, y0, x1, y1: Int
        func overlaps(_ o: Rect) -> Bool { x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1 }
    }

    /// Sets `text` beside `p`, `reach` pixels off it: the first of eight places around it that lies
    /// inside the picture and covers no text set before; where none does, the first inside.
    /// Sets `text` beside `p`: the first of eight places around it, `reach` pixels off, that lies
    /// inside the picture and covers no text set before; where none is free, the same further out
    /// (twice, then three times as far) with a leader line back to `p`. Where still none is, a
    /// `required` text (a measure's value) takes the first place moved inside the picture, and a
    /// label is left out: labels never cover one another.
    @discardableResult
    private func place(_ text: String, font: Font, near p: SIMD2<Float>, reach: Float, ink: UInt32, halo: UInt32,
                       into image: inout RGBAImage, placed: inout [Rect], required: Bool = true) -> Rect? {
        // Far outside the picture (a distance to an atom out of a zoomed view): nothing to set beside.
        guard p.x.isFinite, p.y.isFinite, abs(p.x) < 1e6, abs(p.y) < 1e6, !text.isEmpty else { return nil }
        let stamp = font.stamp(text, color: ink, halo: halo)
        let tw = font.width(of: text) + 2, ascent = font.ascent, descent = font.descent
        let px = Int(p.x.rounded()), py = Int(p.y.rounded())
        // (left, baseline) of each place: right-up, right-down, left-up, left-down, above, below, right, left.
        func places(_ r: Int) -> [(Int, Int)] {
            [(px + r, py - r), (px + r, py + r + ascent), (px - r - tw, py - r), (px - r - tw, py + r + ascent),
             (px - tw / 2, py - r - descent), (px - tw / 2, py + r + ascent), (px + r, py + ascent / 2), (px - r - tw, py + ascent / 2)]
        }
        func rect(_ left: Int, _ baseline: Int) -> Rect { Rect(x0: left - 1, y0: baseline - ascent - 1, x1: left + tw + 1, y1: baseline + descent + 1) }
        func inside(_ q: Rect) -> Bool { q.x0 >= 0 && q.y0 >= 0 && q.x1 <= image.width && q.y1 <= image.height }
        for (k, factor) in [Float(1), 2, 3].enumerated() {
            let r = Int((reach * factor).rounded())
            guard let (left, baseline) = places(r).first(where: { inside(rect($0.0, $0.1)) && !placed.contains(where: rect($0.0, $0.1).overlaps) }) else { continue }
            if k > 0 {
                // A leader from the atom to the nearest point of the text's box, stopping short of both.
                let box = rect(left, baseline)
                let q = SIMD2(Float(min(max(px, box.x0), box.x1)), Float(min(max(py, box.y0), box.y1)))
                let d = q - p, length = (d * d).sum().squareRoot()
                if length > reach * 0.6 {
                    let u = d / length, c = Self.bytes(ink)
                    image.line(from: p + u * (reach * 0.35), to: q - u * 2, width: 1, color: c)
                }
            }
            stamp.draw(into: &image, x: left, baseline: baseline)
            placed.append(rect(left, baseline))
            return rect(left, baseline)
        }
        guard required else { return nil }
        // Nowhere free: the first place, moved inside the picture.
        let (left0, baseline0) = places(Int(reach.rounded()))[0]
        let left = max(1, min(image.width - tw - 1, left0)), baseline = max(ascent + 1, min(image.height - descent - 1, baseline0))
        stamp.draw(into: &image, x: left, baseline: baseline)
        placed.append(rect(left, baseline))
        return rect(left, baseline)
    }

    // MARK: Legend and scale bar

    /// The schemes a key is drawn for: the request's colour, or with shows, each keyable scheme the
    /// shows colour by (one key each, stacked up from the bottom-right corner).
    static let keyable: Set<ColorTheme> = [.bfactor, .hydrophobicity, .rainbow, .plddt, .secondaryStructure, .chain, .copy]

    private func drawLegend(into image: inout RGBAImage, model: Model, request: RenderRequest, font: Font, ink: UInt32, halo: UInt32,
                            scale: Float) throws {
        var themes: [ColorTheme] = []
        if request.shows.isEmpty {
            guard case .theme(let theme) = request.color else {
                throw RequestError(field: "legend", "keys a colour scheme (color=bfactor, hydrophobicity, rainbow, plddt, chain); one colour needs none")
            }
            themes = [theme]
        } else {
            for show in request.shows {
                if let t = show.theme(request.color), Self.keyable.contains(t), !themes.contains(t) { themes.append(t) }
            }
            guard !themes.isEmpty else {
                throw RequestError(field: "legend", "keys the colour schemes the shows use (\"surface hydrophobicity: polymer\", \"cartoon bfactor: chain A\"); "
                                   + "these colour by element, one colour or residue, which need no key")
            }
        }
        // A B-factor scale spans what its colours were made from: the trace's atoms where every
        // part coloured by it is drawn as a trace (putty, cartoon).
        let bfactorShows = request.shows.filter { $0.theme(request.color) == .bfactor }
        let traced = request.shows.isEmpty ? request.mode.isTrace : (!bfactorShows.isEmpty && bfactorShows.allSatisfy { $0.representation.isTrace })
        var bottom = 0
        for theme in themes {
            bottom += try drawKey(theme, into: &image, model: model, font: font, ink: ink, halo: halo, scale: scale, bottom: bottom,
                                  traced: traced) + Int(8 * scale)
        }
    }

    /// One scheme's key in the bottom-right corner, `bottom` pixels above the margin, its height
    /// returned: a bar from one end of a continuous scheme to the other with its end values, or
    /// swatches of pLDDT's bands, secondary structure or the chains' colours.
    private func drawKey(_ theme: ColorTheme, into image: inout RGBAImage, model: Model, font: Font, ink: UInt32, halo: UInt32,
                         scale: Float, bottom: Int, traced: Bool) throws -> Int {
        let margin = Int(10 * scale), barH = max(6, Int(10 * scale))
        let w = image.width, h = image.height - bottom
        switch theme {
        case .bfactor, .hydrophobicity, .rainbow:
            let (title, lo, hi): (String, String, String)
            let color: (Float) -> UInt32
            switch theme {
            case .bfactor:
                let range = ColorTheme.bfactorRange(of: model, traced: traced)
                (title, lo, hi) = ("B-factor (Å²)", String(format: "%.0f", range.lo), String(format: "%.0f", range.hi))
                color = { ColorTheme.blueWhiteRed($0) }
            case .hydrophobicity:
                (title, lo, hi) = ("Kyte-Doolittle", "-4.5", "4.5")
                color = { ColorTheme.hydrophobicityColor(($0 * 2 - 1) * 4.5) }
            default:
                (title, lo, hi) = ("chain", "N", "C")
                color = { ColorTheme.rainbow($0) }
            }
            let barW = max(40, Int(Float(w) * 0.28))
            let x0 = w - margin - barW, y1 = h - margin - font.ascent - font.descent - Int(3 * scale), y0 = y1 - barH
            guard x0 > 0, y0 > font.ascent + 2 else { return 0 }
            for x in x0..<(x0 + barW) {
                let c = color(Float(x - x0) / Float(max(1, barW - 1)))
                for y in y0..<y1 { image.blend(x, y, Self.bytes(c), 1) }
            }
            frame(&image, x0: x0, y0: y0, x1: x0 + barW, y1: y1, ink: ink)
            let baseline = y1 + Int(3 * scale) + font.ascent
            font.stamp(lo, color: ink, halo: halo).draw(into: &image, x: x0, baseline: baseline)
            font.stamp(hi, color: ink, halo: halo).draw(into: &image, x: x0 + barW - font.width(of: hi), baseline: baseline)
            font.stamp(title, color: ink, halo: halo).draw(into: &image, x: x0 + (barW - font.width(of: title)) / 2, baseline: y0 - Int(3 * scale) - font.descent)
            return h - (y0 - Int(3 * scale) - font.descent - font.ascent)
        case .plddt, .chain, .copy, .entity, .auto, .element, .secondaryStructure, .residue, .muted, .ligand:
            let entries: [(String, UInt32)]
            switch theme {
            case .plddt:
                entries = [("> 90", ColorTheme.plddtColor(95)), ("70-90", ColorTheme.plddtColor(80)), ("50-70", ColorTheme.plddtColor(60)),
                           ("< 50", ColorTheme.plddtColor(40))]
            case .secondaryStructure:
                entries = [("helix", 0xFF3333), ("strand", 0xFFD91A), ("coil", 0x33CC33)]
            case .chain, .copy:
                // Deposited chains (copies alike), or every chain as built.
                let polymer = ColorTheme.polymerResidues(model)
                let byCopy = theme == .copy
                let ids = byCopy ? model.chainIDs : model.depositedChainIDs
                var shown: [(String, UInt32)] = []
                for (k, id) in ids.enumerated() where model.chains.contains(where: { (byCopy ? $0.id : $0.deposited) == id && $0.residues.contains { polymer[Int($0)] } }) {
                    shown.append(("chain \(id)", ColorTheme.chainPalette[k % ColorTheme.chainPalette.count]))
                }
                entries = Array(shown.prefix(12))
            default:
                throw RequestError(field: "legend", "keys bfactor, hydrophobicity, rainbow, plddt, secondary-structure, chain and an assembly's copy colours (not \(theme.rawValue))")
            }
            let line = font.ascent + font.descent + Int(2 * scale), box = font.ascent
            let widest = entries.map { font.width(of: $0.0) }.max() ?? 0
            let x0 = w - margin - box - Int(5 * scale) - widest
            var baseline = h - margin - font.descent - (entries.count - 1) * line
            for (name, c) in entries {
                let top = baseline - box
                for y in top..<(top + box) { for x in x0..<(x0 + box) { image.blend(x, y, Self.bytes(c), 1) } }
                frame(&image, x0: x0, y0: top, x1: x0 + box, y1: top + box, ink: ink)
                font.stamp(name, color: ink, halo: halo).draw(into: &image, x: x0 + box + Int(5 * scale), baseline: baseline)
                baseline += line
            }
            return margin + font.descent + entries.count * line
        }
    }

    /// The interactions of `asked.selection` with the rest of `model`, refused where it selects
    /// nothing (found once a model and question: `InteractionPartners`).
    public static func interactions(_ asked: InteractionsAsked, in model: Model, partners: InteractionsAsked? = nil) throws -> [Interaction] {
        guard asked.selection.mask(in: model).contains(true) else {
            throw RequestError(field: "interactions", "\"\(Excerpt.of(asked.text))\" selects no atoms")
        }
        do {
            return try InteractionPartners.interactions(of: asked.selection, with: partners?.selection, in: model)
        } catch let error as InteractionFinder.TooManyAtoms {
            throw RequestError(field: "interactions", "\(error); select a ligand, a residue or a chain")
        }
    }

    /// The kinds drawn, a short dashed line in each one's colour and its name, in the top-left corner.
    private func drawInteractionKey(_ kinds: Set<InteractionKind>, into image: inout RGBAImage, font: Font, ink: UInt32, halo: UInt32, scale: Float) -> Rect? {
        guard !kinds.isEmpty else { return nil }
        let margin = Int(10 * scale), line = font.ascent + font.descent + Int(2 * scale), sample = Int(22 * scale)
        var baseline = margin + font.ascent
        let widest = InteractionKind.allCases.filter(kinds.contains).map { font.width(of: $0.title) }.max() ?? 0
        let box = Rect(x0: margin - 2, y0: margin - 2, x1: margin + sample + Int(5 * scale) + widest + 2,
                       y1: margin + kinds.count * line + 2)
        for kind in InteractionKind.allCases where kinds.contains(kind) {
            let c = Self.color(kind)
            let y = Float(baseline - font.ascent / 2)
            image.dashedLine(from: SIMD2(Float(margin), y), to: SIMD2(Float(margin + sample), y), width: 2.5 * scale, dash: 4 * scale, gap: 3 * scale,
                             color: Self.bytes(c))
            font.stamp(kind.title, color: ink, halo: halo).draw(into: &image, x: margin + sample + Int(5 * scale), baseline: baseline)
            baseline += line
        }
        return box
    }

    private func frame(_ image: inout RGBAImage, x0: Int, y0: Int, x1: Int, y1: Int, ink: UInt32) {
        let c = Self.bytes(ink)
        for x in x0..<x1 { image.blend(x, y0, c, 0.8); image.blend(x, y1 - 1, c, 0.8) }
        for y in y0..<y1 { image.blend(x0, y, c, 0.8); image.blend(x1 - 1, y, c, 0.8) }
    }

    /// A bar of a round length (1, 2 or 5 times a power of ten Å, about a fifth of the width) in
    /// the bottom-left corner, at the scale of the view's centre (a perspective view's nearer
    /// atoms are larger).
    private func drawScaleBar(into image: inout RGBAImage, camera: Camera, font: Font, ink: UInt32, halo: UInt32, scale: Float) {
        let perPixel = camera.worldUnitsPerPixel(width: image.width, height: image.height)
        guard perPixel.isFinite, perPixel > 0 else { return }
        let target = Float(image.width) * 0.2 * perPixel
        let power = powf(10, floorf(log10f(target)))
        let length = [5, 2, 1].map { Float($0) * power }.first { $0 <= target } ?? power
        let pixels = length / perPixel
        let margin = 12 * scale, y = Float(image.height) - margin - 2 * scale
        let c = Self.bytes(ink)
        image.line(from: SIMD2(margin, y), to: SIMD2(margin + pixels, y), width: 3 * scale, color: c)
        image.line(from: SIMD2(margin, y - 5 * scale), to: SIMD2(margin, y + 2 * scale), width: 2 * scale, color: c)
        image.line(from: SIMD2(margin + pixels, y - 5 * scale), to: SIMD2(margin + pixels, y + 2 * scale), width: 2 * scale, color: c)
        let text = (length >= 1 ? String(format: "%g", length) : String(format: "%.1f", length)) + " Å"
        font.stamp(text, color: ink, halo: halo).draw(into: &image, x: Int(margin + pixels / 2) - font.width(of: text) / 2,
                                                      baseline: Int(y - 6 * scale) - font.descent)
    }

    /// 0xRRGGBB as the (r, g, b) an image's lines and blends take.
    private static func bytes(_ rgb: UInt32) -> (UInt8, UInt8, UInt8) {
        (UInt8(rgb >> 16 & 0xFF), UInt8(rgb >> 8 & 0xFF), UInt8(rgb & 0xFF))
    }

    private func luminance(_ rgb: UInt32) -> Float {
        (0.2126 * Float(rgb >> 16 & 0xFF) + 0.7152 * Float(rgb >> 8 & 0xFF) + 0.0722 * Float(rgb & 0xFF)) / 255
    }
}

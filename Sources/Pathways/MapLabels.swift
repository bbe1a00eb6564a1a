import Core
import Graphics
import Imaging
import PathwayModel
import Text

/// Fonts by pixel size and face, loaded once.
final class FontCache {
    private struct Key: Hashable { let pixels: Int, face: Font.Face }
    private var fonts: [Key: Font] = [:]

    func font(_ pixels: Int, _ face: Font.Face = .regular) throws -> Font {
        let key = Key(pixels: pixels, face: face)
        if let f = fonts[key] { return f }
        let f = try Font.standard(pixelSize: pixels, face: face)
        fonts[key] = f
        return f
    }
}

/// A label set at one scale, in picture pixels of the whole map at that scale (map point `p` at
/// `p * scale`): a picture of part of the map draws it shifted by its own origin.
struct PlacedLabel: Sendable {
    /// One or more lines, each centered on the block (or from its left end).
    var lines: [(text: String, x: Double)]
    /// Each line set in its font, color and the theme's halo.
    var stamps: [TextStamp]
    /// The first line's baseline; the others follow a line height apart.
    var baseline: Double
    var lineHeight: Double
    var color: Color
    /// The rim round its letters (the theme's background), nil where the letters are as light as it.
    var halo: UInt32?
    /// What it is set on: the fill of its node, else of the compartments under it, else the background.
    var backdrop: Color
    /// The node it names (its index in the map), if any.
    var node: Int? = nil
    /// Left, top, right, bottom.
    var box: SIMD4<Double>
}

/// Places the labels of a map at one scale: each at the size and place its file gives, left out
/// when smaller than the theme's smallest legible size, and moved a little (up, down, right, left)
/// or else left out where it would cover a label already placed. Free text and compartment names
/// come first, then reactions, metabolites and the rest.
struct MapLabels {
    let theme: PathwayTheme
    let fonts: FontCache

    func place(_ map: PathwayMap, scale: Double) throws -> [PlacedLabel] {
        struct Wanted {
            var text: String
            var size: Double
            var anchor: SIMD2<Double>
            var fromStart: Bool
            var color: Color
            /// How many edges touch the node (raised labels go most connected first).
            var degree = 0
            /// The box (map units) the label is kept inside, for nodes that fit their label.
            var box: SIMD2<Double>? = nil
            var face = Font.Face.regular
            /// Raised past its own size (an overview's): moved or left out like any other.
            var raised = false
            /// The node it names, whose fill it may be set on.
            var node: Int? = nil
            /// The box of the node it is centred in: raised, it is fitted to it and kept in it.
            var frame: SIMD2<Double>? = nil
        }
        var wanted: [Wanted] = []
        for t in map.texts where !t.text.isEmpty && !t.isEdgeMark {
            wanted.append(Wanted(text: t.text, size: t.fontSize, anchor: t.center, fromStart: false, color: t.color,
                                 face: Font.Face(bold: t.bold, italic: t.italic)))
        }
        for c in map.compartments where !c.name.isEmpty {
            if let box = c.labelBox, box.size.y > 0 {
                // The file's own box: the name centred in it, as tall as the box allows.
                let lines = Double(c.name.split(whereSeparator: \.isNewline).count)
                wanted.append(Wanted(text: c.name, size: max(6, min(40, box.size.y * 0.75 / max(lines, 1))), anchor: box.origin + box.size / 2,
                                     fromStart: false, color: c.color.mixed(with: .black, 0.3)))
                continue
            }
            let size = max(12, min(40, c.size.y * 0.05))
            wanted.append(Wanted(text: c.name, size: size, anchor: c.origin + SIMD2(12, 12 + size * 0.8), fromStart: true,
                                 color: c.color.mixed(with: .black, 0.3)))
        }
        var degree: [String: Int] = [:]
        if theme.raisedLabels != nil {
            for e in map.edges {
                if let f = e.from { degree[f, default: 0] += 1 }
                if let t = e.to { degree[t, default: 0] += 1 }
            }
        }
        let order: [PathwayMap.NodeKind] = [.reaction, .metabolite, .geneProduct, .pathway, .label, .other, .marker]
        for kind in order {
            for (k, n) in map.nodes.enumerated() where n.kind == kind && !n.label.isEmpty {
                // An ion channel's name goes in its main part, clear of the narrow one.
                let main = n.shape == .ionChannel && n.labelPosition == nil ? MapGeometry.ionChannelParts(n)[0] : n
                var w = Wanted(text: n.label, size: n.fontSize, anchor: n.labelPosition ?? main.center, fromStart: n.labelFromStart,
                               color: n.textColor, degree: degree[n.id] ?? 0,
                               box: n.fitsLabel ? (n.labelPosition == nil ? main.size : SIMD2(main.size.x, n.fontSize * 2.6)) : nil,
                               face: Font.Face(bold: n.bold, italic: n.italic), node: k)
                // A name set in the middle of its box (GPML's data nodes) stays in it when raised.
                if n.labelPosition == nil, n.shape != .none, !n.shape.isOpen, n.size.x > 0, n.size.y > 0 { w.frame = main.size }
                wanted.append(w)
            }
        }
        for t in map.texts where !t.text.isEmpty && t.isEdgeMark {
            wanted.append(Wanted(text: t.text, size: t.fontSize, anchor: t.center, fromStart: false, color: t.color))
        }
        // Too small to read: raised to the theme's height, after every label that is legible as it
        // is, most connected first (free text and compartments before nodes); the rest left out.
        if let raised = theme.raisedLabels {
            let small = { (w: Wanted) in w.size * theme.labelScale * scale < theme.smallestLabel }
            var lifted = wanted.enumerated().filter { small($0.element) }
            lifted.sort { ($0.element.degree, -$0.offset) > ($1.element.degree, -$1.offset) }
            wanted = wanted.filter { !small($0) } + lifted.map { w in
                var w = w.element
                w.size = raised / (theme.labelScale * scale)
                w.raised = true
                return w
            }
        }
        var placed: [PlacedLabel] = []
        var grid = BoxGrid(cell: 64)
        // Maps repeat their labels (h_c, atp_c): each is set once a size and color.
        struct StampKey: Hashable { let text: String, pixels: Int, color: UInt32, face: Font.Face, halo: UInt32? }
        var stamps: [StampKey: TextStamp] = [:]
        for w in wanted {
            let pixels = w.size * theme.labelScale * scale
            guard pixels >= theme.smallestLabel else { continue }
            var font = try fonts.font(Int(saturating: min(pixels, 256).rounded()), w.face)
            var texts = w.text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
                .map { String($0).trimmingCharacters(in: .whitespaces) }
            // Raised past its size, a name centred in its box is fitted to it, not set beside it.
            let kept = w.raised ? w.frame : nil
            if let box = kept ?? w.box, let fitted = try fit(texts.joined(separator: " "), pixels: pixels, box: box * scale, font: font, face: w.face) {
                (texts, font) = fitted
            }
            let widths = texts.map { Double(font.width(of: $0)) }
            let width = widths.max() ?? 0, ascent = Double(font.ascent), descent = Double(font.descent)
            let lineHeight = ascent + descent
            let height = lineHeight * Double(texts.count)
            let a = w.anchor * scale
            let x = w.fromStart ? a.x : a.x - width / 2
            let baseline = w.fromStart ? a.y : a.y - height / 2 + ascent
            // A label kept inside its node stays there (a complex's member, a state variable): moved,
            // it would sit on the node's border or another's; it is set in place even where it
            // meets another label, as the file's own tool draws it.
            let inside = w.box != nil && !w.raised
            if let frame = kept, width > frame.x * scale + 1 || height > frame.y * scale + 1 {
                continue  // too long for its box even at the smallest legible size: left out, not set beside it
            }
            let moves: [SIMD2<Double>] = inside || kept != nil ? [.zero]
                : [.zero, SIMD2(0, -height - 1), SIMD2(0, height + 1), SIMD2(0.6 * width, 0), SIMD2(-0.6 * width, 0)]
            for m in moves {
                let box = SIMD4(x + m.x, baseline + m.y - ascent, x + m.x + width, baseline + m.y - ascent + height)
                if !inside && grid.overlaps(box) { continue }
                grid.insert(box)
                let lines = zip(texts, widths).map { (text: $0.0, x: x + m.x + (w.fromStart ? 0 : (width - $0.1) / 2)) }
                let backdrop = self.backdrop(at: (SIMD2((box.x + box.z) / 2, (box.y + box.w) / 2)) / scale, node: w.node, in: map)
                let (color, halo) = readable(theme.text(w.color), on: backdrop)
                let lineStamps = lines.map { line -> TextStamp in
                    let key = StampKey(text: line.text, pixels: font.pixelSize, color: color.rgb, face: w.face, halo: halo)
                    if let s = stamps[key] { return s }
                    let s = font.stamp(line.text, color: color.rgb, halo: halo)
                    stamps[key] = s
                    return s
                }
                placed.append(PlacedLabel(lines: lines, stamps: lineStamps, baseline: baseline + m.y, lineHeight: lineHeight,
                                          color: color, halo: halo, backdrop: backdrop, node: w.node, box: box))
                break
            }
        }
        return placed
    }

    /// WCAG's least contrast for text.
    static let leastContrast = 4.5
    /// Past this many compartments a label's backdrop is its node's or the background (each label
    /// would look through all of them).
    static let compartmentsLookedThrough = 2_000

    /// What a label at `p` (map units) is set on, as drawn: its node's fill where it lies inside
    /// its node, else the compartments under it laid over one another (their faint fill, or their
    /// inside), else the background.
    func backdrop(at p: SIMD2<Double>, node: Int?, in map: PathwayMap) -> Color {
        func inside(_ lo: SIMD2<Double>, _ hi: SIMD2<Double>) -> Bool { PathwayMap.box(lo, hi, holds: p, p) }
        if let k = node, map.nodes.indices.contains(k), let fill = map.nodes[k].fill, !map.nodes[k].shape.isOpen,
           map.nodes[k].shape != .none, inside(map.nodes[k].frame.min, map.nodes[k].frame.max) {
            return theme.fill(fill).over(theme.background)
        }
        var color = theme.background
        guard map.compartments.count <= Self.compartmentsLookedThrough else { return color }
        for c in map.compartments where !c.unfilled && inside(c.origin, c.origin + c.size) {
            var fill = theme.fill(c.fill ?? c.color)
            if c.fill == nil { fill.alpha = 0.10 }
            color = fill.over(color)
            if c.doubleLine, let band = c.band, let f = c.innerFill, inside(c.origin + band, c.origin + c.size - band) {
                color = theme.fill(f).over(color)
            }
        }
        return color
    }

    /// A label's colour and rim on `backdrop`: its own colour where it reads at WCAG's 4.5:1, else
    /// black or white, whichever reads better; the theme's halo where it stands apart from the
    /// letters (a white rim would blur white letters on a dark header).
    func readable(_ color: Color, on backdrop: Color) -> (Color, UInt32?) {
        var text = color
        if text.contrast(with: backdrop) < Self.leastContrast {
            text = Color.black.contrast(with: backdrop) >= Color.white.contrast(with: backdrop) ? .black : .white
        }
        let halo = theme.halo.flatMap { Color(rgb: $0).contrast(with: text) >= 3 ? $0 : nil }
        return (text, halo)
    }

    /// The longest label fitted to its box, in bytes: a name, not a paragraph.
    static let longestFitted = 400

    /// A label kept inside its node's box (`box` in pixels, less a pixel each side): as it is if it
    /// fits, else wrapped at its blanks into as few lines as the box's width needs, and made smaller,
    /// a tenth at a time down to the smallest legible size, until the lines fit its height too.
    /// Nil where it fits as it is; at the smallest size the best wrapping, whatever it reaches.
    func fit(_ text: String, pixels: Double, box: SIMD2<Double>, font: Font, face: Font.Face = .regular) throws -> (lines: [String], font: Font)? {
        let room = box - 2
        // A name, not a paragraph: longer text is drawn as it is (fitting costs a measure a word a size).
        guard room.x > 0, room.y > 0, text.utf8.count <= Self.longestFitted else { return nil }
        if Double(font.width(of: text)) <= room.x { return nil }
        // Broken at blanks, and after an "@" (SBGN's value@variable states have no blank).
        let words = text.split(separator: " ").flatMap { word -> [String] in
            var parts: [String] = [], current = ""
            for c in word {
                current.append(c)
                if c == "@" { parts.append(current); current = "" }
            }
            if !current.isEmpty || parts.isEmpty { parts.append(current) }
            return parts
        }
        var size = pixels
        var best: (lines: [String], font: Font)? = nil
        while true {
            let f = try fonts.font(Int(saturating: min(size, 256).rounded()), face)
            // Greedy wrapping: each line takes words while they fit the width.
            var lines: [String] = []
            for word in words {
                let joiner = lines.last?.hasSuffix("@") == true ? "" : " "
                if let last = lines.last, Double(f.width(of: last + joiner + word)) <= room.x {
                    lines[lines.count - 1] = last + joiner + word
                } else {
                    lines.append(word)
                }
            }
            best = (lines, f)
            let tall = Double(f.ascent + f.descent) * Double(lines.count)
            if tall <= room.y && lines.allSatisfy({ Double(f.width(of: $0)) <= room.x }) { return best }
            let smaller = size * 0.9
            if smaller < theme.smallestLabel { return best }
            size = smaller
        }
    }

    /// Draws the labels that reach into a picture whose top left corner is at `corner` (whole-map pixels).
    func draw(_ labels: [PlacedLabel], into image: inout RGBAImage, corner: SIMD2<Double>) throws {
        let w = Double(image.width), h = Double(image.height)
        for l in labels {
            guard l.box.z > corner.x, l.box.x < corner.x + w, l.box.w > corner.y, l.box.y < corner.y + h else { continue }
            for (k, line) in l.lines.enumerated() {
                l.stamps[k].draw(into: &image, x: Int(saturating: (line.x - corner.x).rounded(.down)),
                                 baseline: Int(saturating: (l.baseline + Double(k) * l.lineHeight - corner.y).rounded(.down)))
            }
        }
    }
}

/// Boxes in a uniform grid, for overlap tests that stay fast with thousands of labels.
struct BoxGrid {
    let cell: Double
    private var cells: [SIMD2<Int>: [SIMD4<Double>]] = [:]

    init(cell: Double) { self.cell = cell }

    private func range(_ b: SIMD4<Double>) -> (ClosedRange<Int>, ClosedRange<Int>) {
        (Int(saturating: (b.x / cell).rounded(.down))...Int(saturating: (b.z / cell).rounded(.down)), Int(saturating: (b.y / cell).rounded(.down))...Int(saturating: (b.w / cell).rounded(.down)))
    }

    func overlaps(_ b: SIMD4<Double>) -> Bool {
        let (xs, ys) = range(b)
        for i in xs { for j in ys { for o in cells[SIMD2(i, j)] ?? [] where o.x < b.z && b.x < o.z && o.y < b.w && b.y < o.w { return true } } }
        return false
    }

    mutating func insert(_ b: SIMD4<Double>) {
        let (xs, ys) = range(b)
        for i in xs { for j in ys { cells[SIMD2(i, j), default: []].append(b) } }
    }
}

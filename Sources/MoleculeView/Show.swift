import Core
import Structure

/// One part of a picture: a representation of the atoms a selection names, in its own colors, as
/// PyMOL's `show cartoon, polymer` and Mol*'s components do. Written `REPRESENTATION [COLOR]:
/// SELECTION`:
///
///     cartoon: polymer              ball-and-stick: ligand         sticks element: resn HEM
///     spacefill #FF8000: chain B    cartoon residue: chain A       lines
///
/// COLOR is a color theme (element, chain, residue, bfactor), a name (red, orange, ...) or
/// #RRGGBB; without it the request's `color`. Without a selection, every atom.
public struct Show: Sendable, Equatable {
    public enum Coloring: Sendable, Equatable {
        /// The request's color theme.
        case request
        case theme(ColorTheme)
        /// One 0xRRGGBB color for every atom.
        case fixed(UInt32)
    }

    /// A representation, or `auto`.
    public var representation: DrawMode
    public var coloring: Coloring
    public var selection: Selection
    /// As written, for the request's canonical line.
    public var text: String
    /// Draws the main chain's N, C and O of residues a cartoon traces where the selection takes
    /// them (a binding site's backbone partners), which shows otherwise leave to the cartoon.
    public var keepsMainChain = false

    /// The selection as written (after the colon), `all` where there is none.
    public var selectionText: String {
        text.firstIndex(of: ":").map { String(text[text.index(after: $0)...]).trimmingCharacters(in: .whitespaces) } ?? "all"
    }

    /// The mode of a picture made of shows (a thumbnail's name and a replay's mode say it).
    public static let mode = DrawMode.shows

    /// Shows one picture may have: each is a selection evaluated over every atom and a
    /// representation built, so their number is bounded like a selection's length.
    public static let maxCount = 16

    public init(representation: DrawMode, coloring: Coloring = .request, selection: Selection = .all, text: String? = nil) {
        self.representation = representation
        self.coloring = coloring
        self.selection = selection
        self.text = text ?? representation.name
    }

    /// Reads `REPRESENTATION [COLOR]: SELECTION`; a `RequestError` for the field `show` says what is wrong.
    public init(parsing text: String) throws(RequestError) {
        // Errors quote the show's start only, however long it is.
        let quoted = Excerpt.of(text)
        let colon = text.firstIndex(of: ":")
        let head = colon.map { text[..<$0] } ?? Substring(text)
        let words = head.split(whereSeparator: \.isWhitespace).map(String.init)
        let known = Representations.names + [Representations.automatic]
        guard let name = words.first.flatMap(Representations.canonical).flatMap(DrawMode.init(rawValue:)) else {
            throw RequestError(field: "show", "must start with a representation, one of: \(known.joined(separator: ", ")) "
                               + "(as in \"cartoon: polymer\"; got \(text.isEmpty ? "nothing" : "\"\(quoted)\""))"
                               + (words.first.map { NearMiss.hint(for: $0, among: known) } ?? ""))
        }
        guard words.count <= 2 else {
            throw RequestError(field: "show", "takes REPRESENTATION [COLOR]: SELECTION; \"\(words[2...].joined(separator: " "))\" "
                               + "is left over before the colon in \"\(quoted)\"")
        }
        var coloring = Coloring.request
        if words.count == 2 {
            switch AtomColoring(parsing: words[1]) {
            case .theme(let theme)?: coloring = .theme(theme)
            case .fixed(let c)?: coloring = .fixed(c)
            case nil:
                throw RequestError(field: "show", "color \"\(words[1])\" is none of: \(ColorTheme.allCases.map(\.rawValue).joined(separator: ", ")), "
                                   + "a color name (\(Color.names.keys.sorted().joined(separator: ", "))) or #RRGGBB (in \"\(quoted)\")"
                                   + AtomColoring.hint(for: words[1]))
            }
        }
        var selection = Selection.all
        if let colon {
            let expression = text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if expression.isEmpty {
                throw RequestError(field: "show", "has nothing after the colon in \"\(quoted)\"; give a selection (polymer, ligand, chain A, ...) or leave out the colon")
            }
            do {
                selection = try Selection(parsing: expression)
            } catch let e as SelectionError {
                throw RequestError(field: "show", "in \"\(quoted)\": \(e)")
            } catch {
                throw RequestError(field: "show", "in \"\(quoted)\": \(error)")
            }
        }
        self.init(representation: name, coloring: coloring, selection: selection, text: text.trimmingCharacters(in: .whitespaces))
    }

    /// A color per atom of `model`: the show's own, or by `theme` (the request's).
    func colors(for model: Model, theme: AtomColoring, elements: ElementTable, secondaryStructure: [SecondaryStructureRange]) -> [UInt32] {
        let traced = representation.isTrace
        switch coloring {
        case .request: return theme.colors(for: model, elements: elements, secondaryStructure: secondaryStructure, traced: traced)
        case .theme(let t): return t.colors(for: model, elements: elements, secondaryStructure: secondaryStructure, traced: traced)
        case .fixed(let c): return [UInt32](repeating: c, count: model.atoms.count)
        }
    }

    /// The theme the show's colors come from (nil for one color).
    func theme(_ requested: AtomColoring) -> ColorTheme? {
        switch coloring {
        case .request: return requested.theme
        case .theme(let t): return t
        case .fixed: return nil
        }
    }
}

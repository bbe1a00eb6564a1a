import Core

/// A selection of atoms in the small language PyMOL and Jmol users read at sight:
///
///     chain A and resi 10-20           resn HEM or elem Fe        not (water or hydrogen)
///     name CA+CB                       polymer and not chain B    within 5 of resn HEM
///     byres (resn HEM around 5)        sidechain and chain A      het and not water
///
/// Words: `all`, `none`, `polymer` (`protein` and `nucleic` apart), `ligand` (neither polymer nor
/// water), `water`, `hydrogen`, `hetatm` (`het`), `backbone` (of polymer residues), `sidechain`
/// (protein atoms but N, CA, C, O, OXT), `modres` (modified polymer residues: MSE, PSU);
/// `entity IDS` (mmCIF `label_entity_id`, PDB MOL_ID), `label_asym IDS` (mmCIF `label_asym_id`); `chain IDS`, `resn NAMES`, `name NAMES`, `elem SYMBOLS`
/// (in an assembly, `chain A` is chain A in every copy and `chain A-2` the one copy, as in Mol*;
/// `copy RANGES` and `operator NAMES` the copies an assembly's operators made)
/// (lists joined by `+` or `,`; `*` ends a name prefix, `C*`), `resi RANGES` (`5`, `10-20`,
/// `-3--1`, joined by `+` or `,`), `within D of S` (S included), `S around D` (PyMOL's: within D
/// of S, S left out), `byres S` (whole residues of S), `interacting S` (the residues with a
/// non-covalent interaction with S, as `InteractionFinder` finds them: a ligand's binding residues,
/// a bridge's waters; `interacting S with P`: with P's atoms only) and `partners S` (the atoms
/// those interactions end on); `ion` (lone ions);
/// `and`, `or`, `not` (binding tighter in
/// that order: not, and, or) and parentheses. Keywords and names are read in any case; chain ids
/// as written. A bad expression is an error that says what was expected where.
public indirect enum Selection: Sendable, Equatable {
    case all
    case none
    case protein
    case nucleic
    case polymer
    case ligand
    case water
    /// Lone ions (`ResidueKind.ion`): Zn, Mg, Na, Cl.
    case ion
    case hydrogen
    case hetatm
    case backbone
    case sidechain
    case modified
    /// An integrative model's beads (`ResidueKind.coarse`).
    case coarse
    case entity([String])
    case labelAsym([String])
    case chain([String])
    case copy([ClosedRange<Int>])
    case operatorName([String])
    case residueName([String])
    case atomName([String])
    case element([String])
    case residueNumber([ClosedRange<Int>])
    case within(Float, Selection)
    case around(Float, Selection)
    case byResidue(Selection)
    /// The atoms the non-covalent interactions of the inner selection (with the atoms `with`
    /// selects, or every other) end on, and with `residues` their whole residues (`interacting`);
    /// a water bridge's water counts.
    case interacting(Selection, with: Selection?, residues: Bool)
    case and(Selection, Selection)
    case or(Selection, Selection)
    case not(Selection)

    /// Amino acids (with the common modified ones kept in chains) and nucleotides.
    public static let aminoAcids: Set<String> = ["ALA", "ARG", "ASN", "ASP", "CYS", "GLN", "GLU", "GLY", "HIS", "ILE", "LEU", "LYS", "MET",
                                          "PHE", "PRO", "SER", "THR", "TRP", "TYR", "VAL", "MSE", "SEC", "PYL", "UNK", "HID", "HIE",
                                          "HIP", "CYX", "ASX", "GLX"]
    public static let nucleotides: Set<String> = ["A", "C", "G", "U", "T", "I", "N", "DA", "DC", "DG", "DT", "DU", "DI", "DN"]
    static let backboneNames: Set<String> = ["N", "CA", "C", "O", "OXT", "P", "OP1", "OP2", "O1P", "O2P", "O5'", "C5'", "C4'", "C3'", "O3'"]
    static let proteinBackbone: Set<String> = ["N", "CA", "C", "O", "OXT", "H", "HA", "H1", "H2", "H3"]

    // MARK: Parsing

    /// What one expression may hold, checked before it is read: a parser and an evaluation that
    /// recurse as deep as the expression nests, and whose work grows with its words, are bounded
    /// by these (PyMOL users' selections are a few words and two or three parentheses deep).
    public enum Limits {
        /// Characters in one expression.
        public static let length = 2000
        /// Words, parentheses and operators in one expression.
        public static let words = 256
        /// Parentheses, `not`, `byres` and `within` inside one another.
        public static let depth = 32
    }

    /// Reads an expression; `SelectionError` says where it goes wrong.
    public init(parsing text: String) throws {
        guard text.utf8.count <= Limits.length else {
            throw SelectionError(expression: text, position: Limits.length + 1,
                                 message: "longer than \(Limits.length) characters: a selection is a few words, not a program")
        }
        var parser = Parser(text: text)
        if parser.tokens.count > Limits.words {
            throw parser.error(at: parser.tokens[Limits.words], "more than \(Limits.words) words and operators: this is as far as a selection may go")
        }
        self = try parser.expression()
        if let extra = parser.peek() {
            throw parser.error(at: extra, "expected and, or or the end, found \(extra.text)")
        }
    }

    private struct Token {
        var text: String
        /// 1-based character position in the expression.
        var position: Int
        var lower: String { text.lowercased() }
    }

    private struct Parser {
        let text: String
        var tokens: [Token] = []
        var next = 0
        /// Parentheses, `not`, `byres` and `within` open around the token being read.
        var depth = 0

        init(text: String) {
            self.text = text
            var current = "", start = 0
            for (i, c) in text.enumerated() {
                if c == "(" || c == ")" || c.isWhitespace {
                    if !current.isEmpty { tokens.append(Token(text: current, position: start + 1)) }
                    current = ""
                    if !c.isWhitespace { tokens.append(Token(text: String(c), position: i + 1)) }
                } else {
                    if current.isEmpty { start = i }
                    current.append(c)
                }
            }
            if !current.isEmpty { tokens.append(Token(text: current, position: start + 1)) }
        }

        func peek() -> Token? { next < tokens.count ? tokens[next] : nil }

        /// The token last taken, nil past the end (an error there points at the end).
        var previous: Token? { tokens.indices.contains(next - 1) ? tokens[next - 1] : nil }

        mutating func take() -> Token? {
            defer { next += 1 }
            return peek()
        }

        func error(at token: Token?, _ message: String) -> SelectionError {
            SelectionError(expression: text, position: token?.position ?? text.count + 1, message: message)
        }

        mutating func expression() throws -> Selection {
            var left = try conjunction()
            while peek()?.lower == "or" {
                next += 1
                left = .or(left, try conjunction())
            }
            return left
        }

        mutating func conjunction() throws -> Selection {
            var left = try negation()
            while peek()?.lower == "and" {
                next += 1
                left = .and(left, try negation())
            }
            return left
        }

        /// Counts one more level of nesting around `body`, refused past `Limits.depth`.
        mutating func nested<T>(at token: Token?, _ body: (inout Parser) throws -> T) throws -> T {
            guard depth < Limits.depth else {
                throw error(at: token, "nested more than \(Limits.depth) deep (parentheses, not, byres, within): this is as deep as a selection may go")
            }
            depth += 1
            defer { depth -= 1 }
            return try body(&self)
        }

        mutating func negation() throws -> Selection {
            if peek()?.lower == "not" {
                next += 1
                return .not(try nested(at: previous) { try $0.negation() })
            }
            if peek()?.lower == "byres" || peek()?.lower == "br." {
                next += 1
                return .byResidue(try nested(at: previous) { try $0.negation() })
            }
            if let word = peek()?.lower, word == "interacting" || word == "partners" {
                next += 1
                let inner = try nested(at: previous) { try $0.negation() }
                // `interacting S with P`: the other side narrowed (a DNA strand's protein partners).
                var partners: Selection?
                if peek()?.lower == "with" {
                    next += 1
                    partners = try nested(at: previous) { try $0.negation() }
                }
                return .interacting(inner, with: partners, residues: word == "interacting")
            }
            var inner = try primary()
            // PyMOL's postfix `S around D`.
            while peek()?.lower == "around" {
                let word = take()!
                guard let d = take(), let distance = Float(d.text), distance.isFinite, distance >= 0 else {
                    throw error(at: previous, "expected a distance in Å after \(word.text)")
                }
                inner = .around(distance, inner)
            }
            return inner
        }

        /// The list after a property word: one token of items joined by `+` or `,`.
        mutating func list(after word: Token, _ what: String) throws -> [String] {
            guard let t = take(), !["(", ")", "and", "or", "not"].contains(t.lower) else {
                throw error(at: previous, "expected \(what) after \(word.text)")
            }
            let items = t.text.split(whereSeparator: { $0 == "+" || $0 == "," }).map(String.init)
            guard !items.isEmpty else { throw error(at: t, "expected \(what) after \(word.text)") }
            return items
        }

        mutating func primary() throws -> Selection {
            guard let t = take() else { throw error(at: nil, "expected a selection, found the end") }
            switch t.lower {
            case "(":
                let inner = try nested(at: t) { try $0.expression() }
                guard take()?.text == ")" else { throw error(at: previous, "expected ) to close the ( at \(t.position)") }
                return inner
            case "all", "*": return .all
            case "none": return .none
            case "polymer": return .polymer
            case "protein": return .protein
            case "nucleic": return .nucleic
            case "ligand", "ligands", "organic": return .ligand
            case "water", "waters", "solvent": return .water
            case "ion", "ions": return .ion
            case "hydrogen", "hydrogens", "h.": return .hydrogen
            case "hetatm", "hetero", "het": return .hetatm
            case "backbone", "bb.": return .backbone
            case "sidechain", "sc.": return .sidechain
            case "chain", "c.": return .chain(try list(after: t, "chain ids"))
            case "copy": return .copy(try ranges(after: t, "copy number"))
            case "operator", "oper": return .operatorName(try list(after: t, "operator names"))
            case "modres", "modified": return .modified
            case "coarse", "bead", "beads": return .coarse
            case "entity": return .entity(try list(after: t, "entity ids"))
            case "label_asym", "label_chain": return .labelAsym(try list(after: t, "label_asym_id values"))
            case "resn", "r.": return .residueName(try list(after: t, "residue names").map { $0.uppercased() })
            case "name", "n.": return .atomName(try list(after: t, "atom names").map { $0.uppercased() })
            case "elem", "e.", "element": return .element(try list(after: t, "element symbols").map { $0.uppercased() })
            case "resi", "i.": return .residueNumber(try ranges(after: t, "residue number"))
            case "within":
                guard let d = take(), let distance = Float(d.text), distance.isFinite, distance >= 0 else {
                    throw error(at: previous, "expected a distance in Å after within")
                }
                guard take()?.lower == "of" else { throw error(at: previous, "expected of after within \(d.text)") }
                return .within(distance, try nested(at: t) { try $0.negation() })
            case ")":
                throw error(at: t, "a ) with no ( before it")
            case "and", "or":
                throw error(at: t, "expected a selection before \(t.text)")
            default:
                throw error(at: t, "\(t.text) is not a selection word (chain, resi, resn, name, elem, polymer, ligand, water, hydrogen, within, byres, ...)"
                            + NearMiss.hint(for: t.text, among: Parser.words))
            }
        }

        /// Numbers and ranges after a word: `5`, `10-20`, joined by `+` or `,`.
        mutating func ranges(after word: Token, _ noun: String) throws -> [ClosedRange<Int>] {
            try list(after: word, "\(noun)s or ranges").map { item in
                guard let range = Parser.range(item) else { throw error(at: previous, "\(item) is not a \(noun) or range (like 10 or 10-20)") }
                return range
            }
        }

        static let words = ["all", "none", "polymer", "protein", "nucleic", "ligand", "water", "ion", "hydrogen", "hetatm", "backbone", "sidechain",
                            "modres", "coarse", "entity", "label_asym", "chain", "copy", "operator", "resn", "name", "elem", "resi", "within", "around", "byres", "interacting", "partners", "and", "or", "not"]

        /// `5`, `10-20`, `-3`, `-5--2`.
        static func range(_ item: String) -> ClosedRange<Int>? {
            if let n = Int(item) { return n...n }
            let chars = Array(item)
            for k in 1..<max(chars.count, 1) where chars[k] == "-" {
                if let a = Int(String(chars[..<k])), let b = Int(String(chars[(k + 1)...])), a <= b { return a...b }
            }
            return nil
        }
    }

    // MARK: Evaluation

    /// Which atoms of `model` are selected, one flag per atom.
    public func mask(in model: Model) -> [Bool] {
        switch self {
        case .all: return [Bool](repeating: true, count: model.atoms.count)
        case .none: return [Bool](repeating: false, count: model.atoms.count)
        case .and(let a, let b): return zip(a.mask(in: model), b.mask(in: model)).map { $0 && $1 }
        case .or(let a, let b): return zip(a.mask(in: model), b.mask(in: model)).map { $0 || $1 }
        case .not(let a): return a.mask(in: model).map { !$0 }
        case .around(let distance, let inner):
            // The inner selection once (evaluating it again inside `within` doubled the work at
            // every level of nesting).
            let core = inner.mask(in: model)
            return zip(Selection.near(core, distance: distance, in: model), core).map { $0 && !$1 }
        case .byResidue(let inner):
            let chosen = inner.mask(in: model)
            var residues = Set<Int32>()
            for (i, atom) in model.atoms.enumerated() where chosen[i] { residues.insert(atom.residue) }
            return model.atoms.map { residues.contains($0.residue) }
        case .within(let distance, let inner):
            return Selection.near(inner.mask(in: model), distance: distance, in: model)
        case .interacting(let inner, let partners, let residues):
            // Each level a search of its own (a nested `interacting` may ask for 16): past the
            // request's deadline none is begun; the step around it throws.
            if WorkDeadline.stopped { return [Bool](repeating: false, count: model.atoms.count) }
            let ends = InteractionPartners.atoms(of: inner, with: partners, in: model)
            guard residues else { return ends }
            var chosen = Set<Int32>()
            for (i, atom) in model.atoms.enumerated() where ends[i] { chosen.insert(atom.residue) }
            return model.atoms.map { chosen.contains($0.residue) }
        default:
            return model.atoms.map { atom in
                let residue = model.residues[Int(atom.residue)]
                return test(atom, residue, model.chains[Int(residue.chain)])
            }
        }
    }

    /// `seeds` and every atom within `distance` of one: each atom asks a grid of the seeds alone
    /// and stops at the first near enough, so the work stays linear in the atoms whatever the
    /// distance (each seed marking its neighbours was quadratic at `within 1000 of all`).
    static func near(_ seeds: [Bool], distance: Float, in model: Model) -> [Bool] {
        let positions = model.atoms.map(\.position)
        let seedPositions = positions.indices.filter { seeds[$0] }.map { positions[$0] }
        guard !seedPositions.isEmpty else { return seeds }
        let grid = CellGrid(positions: seedPositions, cellSize: max(distance, 0.5))
        let limit = distance * distance
        var out = seeds
        for i in positions.indices where !seeds[i] {
            // Past the request's deadline the rest is left out; the step around it throws.
            if i & 4095 == 0 && WorkDeadline.stopped { break }
            out[i] = grid.hasPoint(near: positions[i], seedPositions, within: limit)
        }
        return out
    }

    /// The indices of the atoms of `model` selected.
    public func atoms(in model: Model) -> [Int] {
        mask(in: model).enumerated().compactMap { $0.element ? $0.offset : nil }
    }

    private func test(_ atom: Atom, _ residue: Residue, _ chain: Chain) -> Bool {
        // A modified residue is its parent for what kind of residue it is. Names compare as
        // integers (`ShortName`), made upper case on the integer: no string an atom.
        switch self {
        case .modified: return residue.isModified
        case .coarse: return residue.kind == .coarse
        case .entity(let ids): return ids.contains(chain.entity)
        case .labelAsym(let ids): return ids.contains(chain.labelID)
        case .protein: return residue.inPolymer && Selection.aminoAcidNames.contains(residue.standardName.uppercased)
        case .nucleic: return residue.inPolymer && Selection.nucleotideNames.contains(residue.standardName.uppercased)
        case .polymer: return residue.inPolymer
        case .water: return residue.isWater
        case .ligand: return residue.isLigand
        case .ion: return residue.kind == .ion
        case .hydrogen: return atom.element.isHydrogen
        case .hetatm: return residue.isHetero
        case .backbone:
            // Of polymer residues only: a water's O is not backbone.
            let resn = residue.standardName.uppercased
            return (Selection.aminoAcidNames.contains(resn) || Selection.nucleotideNames.contains(resn))
                && Selection.backboneAtomNames.contains(atom.name.uppercased)
        case .sidechain:
            return Selection.aminoAcidNames.contains(residue.standardName.uppercased) && !Selection.proteinBackboneNames.contains(atom.name.uppercased)
        case .chain(let ids):
            // Chain ids are matched as written (case counts), `*` ending a prefix; a copy answers to its deposited id too.
            return ids.contains { p in
                p.hasSuffix("*") ? chain.id.hasPrefix(p.dropLast()) || chain.deposited.hasPrefix(p.dropLast()) : chain.id == p || chain.deposited == p
            }
        case .copy(let ranges): return ranges.contains { $0.contains(Int(chain.copy)) }
        case .operatorName(let names): return names.contains(chain.operatorName)
        case .residueName(let names): return Selection.matches(residue.name.uppercased, names)
        case .atomName(let names): return Selection.matches(atom.name.uppercased, names)
        case .element(let symbols): return symbols.contains(atom.element.symbol.uppercased())
        case .residueNumber(let ranges): return ranges.contains { $0.contains(Int(residue.number)) }
        default: return false
        }
    }

    static let aminoAcidNames = Set(aminoAcids.map { ShortName($0) })
    static let nucleotideNames = Set(nucleotides.map { ShortName($0) })
    static let backboneAtomNames = Set(backboneNames.map { ShortName($0) })
    static let proteinBackboneNames = Set(proteinBackbone.map { ShortName($0) })

    /// A name against a list whose items may end in `*` (a prefix); items are upper case.
    private static func matches(_ name: ShortName, _ patterns: [String]) -> Bool {
        patterns.contains { p in p.hasSuffix("*") ? name.hasPrefix(ShortName(p.dropLast())) : name == ShortName(p) }
    }
}

/// A selection expression that cannot be read: where, and what was expected.
public struct SelectionError: Fault, Sendable, Equatable {
    public var kind: FaultKind { .request }
    public var expression: String
    /// 1-based character position.
    public var position: Int
    public var message: String
    /// The expression is quoted around the place only (`Excerpt`): an error is short whatever was sent.
    public var description: String {
        let (window, at) = Excerpt.around(expression, position: position)
        return "selection \"\(Excerpt.of(expression))\", at character \(position): \(message)\n    \(window)\n    \(String(repeating: " ", count: max(0, at - 1)))^"
    }
}

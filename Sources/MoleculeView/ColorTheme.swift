import Structure
import Core

/// How atoms are colored: a pure function from an atom of a model to an sRGB color (0xRRGGBB).
public enum ColorTheme: String, Sendable, CaseIterable {
    /// What a PyMOL or Mol* user expects unasked: elements for small molecules; for polymers,
    /// elements with carbons in their chain's color (ligands by element), cartoons in chain colors;
    /// for assemblies (`Representations.spacefillResidues` polymer residues and more), every
    /// polymer atom in a pale color of its chain, which the illustrated look's outlines and
    /// occlusion keep readable.
    case auto
    case element
    /// One colour per chain as deposited: in an assembly every copy of chain A alike (the A/B/C
    /// of a T=3 capsid), as Mol*'s chain-id theme colours them.
    case chain
    /// One colour per chain of each copy an assembly's operators made (A, A-2, A-3 apart; Mol*'s
    /// chain-instance colouring); a deposited model, as `chain`.
    case copy
    /// One color per entity: chains with the same sequence of polymer residues share it.
    case entity
    /// Blue at each chain's first polymer residue through green to red at its last (PyMOL's
    /// `spectrum`, ChimeraX's `rainbow`).
    case rainbow
    /// Helices red, strands yellow, the rest green (PyMOL's `util.cbss`): the file's ranges, else DSSP's.
    case secondaryStructure = "secondary-structure"
    /// Kyte-Doolittle: dark cyan (hydrophilic, -4.5) through white (0) to goldenrod (hydrophobic,
    /// 4.5), as ChimeraX colors it; residues off the scale white.
    case hydrophobicity
    case residue, bfactor
    /// AlphaFold's confidence colours by the B-factor column read as pLDDT: very high (> 90)
    /// #0053D6, confident (70-90) #65CBF3, low (50-70) #FFDB13, very low (< 50) #FF7D45.
    case plddt
    /// A binding site's protein: element colours with carbons, and cartoons, in a muted (pale,
    /// greyed) colour of their chain, so that the ligand and the interactions carry the colour.
    case muted
    /// Element colours with carbons in one colour of their own (`ligandCarbon`), far in hue from
    /// the model's chain colours: a ligand that stands out over its protein (PyMOL's `util.cbam`,
    /// Mol*'s ligand carbons).
    case ligand

    /// Other names PyMOL, ChimeraX and Mol* users type for the same themes.
    static let aliases: [String: ColorTheme] = [
        "spectrum": .rainbow, "ss": .secondaryStructure, "secondary": .secondaryStructure, "sstruct": .secondaryStructure,
        "cpk": .element, "atom": .element, "elem": .element, "chains": .chain, "chain-id": .chain, "entities": .entity,
        "entity-id": .entity, "operator": .copy, "operator-name": .copy, "copies": .copy, "hydrophobic": .hydrophobicity, "kyte-doolittle": .hydrophobicity, "b": .bfactor,
        "b-factor": .bfactor, "residues": .residue, "resn": .residue, "confidence": .plddt, "alphafold": .plddt,
        "pale": .muted, "ligand-carbons": .ligand,
    ]

    /// The theme a name means, in any case and by its aliases; nil for none.
    public static func named(_ text: String) -> ColorTheme? {
        let lower = text.lowercased()
        return ColorTheme(rawValue: lower) ?? aliases[lower]
    }

    /// Every name a theme answers to, for did-you-mean hints.
    static var allNames: [String] { allCases.map(\.rawValue) + aliases.keys.sorted() }

    /// A color per atom of `model`. `secondaryStructure`: the file's helices and strands (by
    /// `secondary-structure`; without them, DSSP's assignment).
    /// `traced`: the picture draws the polymer as its trace (putty, cartoon), so a scale over values
    /// (B-factors) spans the traced atoms' values, as PyMOL's spectrum over CA does.
    public func colors(for model: Model, elements: ElementTable, secondaryStructure: [SecondaryStructureRange] = [], traced: Bool = false) -> [UInt32] {
        switch self {
        case .auto:
            let polymer = ColorTheme.polymerResidues(model)
            let count = polymer.reduce(0) { $0 + ($1 ? 1 : 0) }
            guard count >= 3 else { return ColorTheme.element.colors(for: model, elements: elements) }
            let assembly = count > Representations.spacefillResidues
            let chainColor = ColorTheme.polymerChainColors(model, polymer: polymer, pale: assembly)
            return model.atoms.map { atom in
                let r = Int(atom.residue)
                guard polymer[r] else { return ColorTheme.elementColor(atom.element, elements) }
                let c = chainColor[Int(model.residues[r].chain)]
                return assembly || atom.element.atomicNumber == 6 || model.residues[r].kind == .coarse ? c : ColorTheme.elementColor(atom.element, elements)
            }
        case .element:
            return model.atoms.map { ColorTheme.elementColor($0.element, elements) }
        case .chain:
            // One color per deposited chain id, in order of first appearance.
            return ColorTheme.paletteByChain(model, \.deposited)
        case .copy:
            // One color per chain as built, in order of first appearance: A, B, A-2, B-2 apart.
            return ColorTheme.paletteByChain(model, \.id)
        case .entity:
            let polymer = ColorTheme.polymerResidues(model)
            // Chains of one entity alike: the entity the file names (mmCIF label_entity_id, PDB
            // COMPND), else the same observed sequence. Chains of one entity may have different
            // residues observed (1f2n's three capsid chains: 265, 249 and 278 residues).
            var entities: [String: Int] = [:]
            let chainColor: [UInt32?] = model.chains.map { chain in
                let sequence = chain.residues.filter { polymer[Int($0)] }.map { model.residues[Int($0)].name.description }
                guard !sequence.isEmpty else { return nil }
                let key = chain.entity.isEmpty ? "sequence " + sequence.joined(separator: " ") : "entity " + chain.entity
                let k = entities[key] ?? entities.count
                entities[key] = k
                return ColorTheme.chainPalette[k % ColorTheme.chainPalette.count]
            }
            return model.atoms.map { atom in
                chainColor[Int(model.residues[Int(atom.residue)].chain)] ?? ColorTheme.elementColor(atom.element, elements)
            }
        case .rainbow:
            let polymer = ColorTheme.polymerResidues(model)
            var residueColor = [UInt32?](repeating: nil, count: model.residues.count)
            for chain in model.chains {
                let shown = chain.residues.filter { polymer[Int($0)] }
                for (k, r) in shown.enumerated() {
                    residueColor[Int(r)] = ColorTheme.rainbow(shown.count > 1 ? Float(k) / Float(shown.count - 1) : 0)
                }
            }
            return model.atoms.map { residueColor[Int($0.residue)] ?? ColorTheme.elementColor($0.element, elements) }
        case .secondaryStructure:
            let polymer = ColorTheme.polymerResidues(model)
            let states = model.secondaryStructure(stated: secondaryStructure)
            return model.atoms.map { atom in
                let r = Int(atom.residue)
                guard polymer[r] else { return ColorTheme.elementColor(atom.element, elements) }
                switch states[r] {
                case .helix: return 0xFF3333
                case .strand: return 0xFFD91A
                case .coil: return 0x33CC33
                }
            }
        case .hydrophobicity:
            return model.atoms.map { atom in
                let residue = model.residues[Int(atom.residue)]
                if let h = ColorTheme.kyteDoolittle[residue.name] { return ColorTheme.hydrophobicityColor(h) }
                return residue.isLigand ? ColorTheme.elementColor(atom.element, elements) : 0xFFFFFF
            }
        case .residue:
            return model.atoms.map { atom in
                ColorTheme.residueColors[model.residues[Int(atom.residue)].name] ?? ColorTheme.otherResidue
            }
        case .bfactor:
            let (lo, hi) = ColorTheme.bfactorRange(of: model, traced: traced)
            // All alike (or none): the middle of the scale, not its coldest end.
            guard hi > lo else { return model.atoms.map { _ in ColorTheme.blueWhiteRed(0.5) } }
            return model.atoms.map { ColorTheme.blueWhiteRed(min(1, max(0, ($0.bFactor - lo) / (hi - lo)))) }
        case .plddt:
            return model.atoms.map { ColorTheme.plddtColor($0.bFactor) }
        case .muted:
            let chainColor = ColorTheme.mutedChainColors(model)
            return model.atoms.map { atom in
                atom.element.atomicNumber == 6 ? chainColor[Int(model.residues[Int(atom.residue)].chain)] : ColorTheme.elementColor(atom.element, elements)
            }
        case .ligand:
            let carbon = ColorTheme.ligandCarbon(model, elements: elements)
            return model.atoms.map { $0.element.atomicNumber == 6 ? carbon : ColorTheme.elementColor($0.element, elements) }
        }
    }

    /// Each chain's colour muted: its chain colour three tenths, a light grey the rest.
    static func mutedChainColors(_ model: Model) -> [UInt32] {
        polymerChainColors(model, polymer: polymerResidues(model), pale: false).map { mix($0, 0xD4D4D4, 0.7) }
    }

    /// `a` moved `t` of the way to `b`.
    static func mix(_ a: UInt32, _ b: UInt32, _ t: Float) -> UInt32 {
        var out: UInt32 = 0
        for shift in [16, 8, 0] as [UInt32] {
            let x = Float(a >> shift & 0xFF), y = Float(b >> shift & 0xFF)
            out |= UInt32((x + (y - x) * t).rounded()) << shift
        }
        return out
    }

    /// Colours a ligand's carbons may take: magenta, cyan, gold (none an element's colour in
    /// Jmol's table but iodine's violet, cobalt's pink and sulfur's yellow at a distance).
    static let ligandCarbons: [UInt32] = [0xE040C0, 0x00B8C8, 0xF0A800]

    /// The ligand carbon colour farthest in hue from the chain colours of `model`'s polymer chains
    /// and from the colours of its ligands' other elements but H, N and O (4AGL's iodines' violet).
    public static func ligandCarbon(_ model: Model, elements: ElementTable) -> UInt32 {
        let polymer = polymerResidues(model)
        var used = Set<UInt32>()
        let colors = polymerChainColors(model, polymer: polymer, pale: false)
        for (k, chain) in model.chains.enumerated() where chain.residues.contains(where: { polymer[Int($0)] }) { used.insert(colors[k]) }
        for atom in model.atoms where ![1, 6, 7, 8].contains(atom.element.atomicNumber) && model.residues[Int(atom.residue)].isLigand {
            used.insert(elementColor(atom.element, elements))
        }
        guard !used.isEmpty else { return ligandCarbons[0] }
        return ligandCarbons.max { a, b in
            used.map { hueDistance($0, a) }.min()! < used.map { hueDistance($0, b) }.min()!
        }!
    }

    /// Degrees between two colours' hues (0 to 180).
    public static func hueDistance(_ a: UInt32, _ b: UInt32) -> Float {
        let d = abs(hue(a) - hue(b)).truncatingRemainder(dividingBy: 360)
        return min(d, 360 - d)
    }

    /// A colour's hue in degrees (0 red, 120 green, 240 blue); 0 for greys.
    public static func hue(_ c: UInt32) -> Float {
        let r = Float(c >> 16 & 0xFF) / 255, g = Float(c >> 8 & 0xFF) / 255, b = Float(c & 0xFF) / 255
        let hi = max(r, g, b), lo = min(r, g, b), d = hi - lo
        guard d > 1e-6 else { return 0 }
        var h: Float
        if hi == r { h = ((g - b) / d).truncatingRemainder(dividingBy: 6) } else if hi == g { h = (b - r) / d + 2 } else { h = (r - g) / d + 4 }
        h *= 60
        return h < 0 ? h + 360 : h
    }

    /// The B-factors the `bfactor` scale spans, blue to red: those of every atom but waters
    /// (a crystal's waters reach far higher B-factors than the molecule and would leave it all blue),
    /// of every atom where there are only waters. (0, 0) for no atoms. `traced`: those of the
    /// polymer's trace atoms (CA, P) where it has them (1hpv: 9-72 Å², where one side-chain atom
    /// reaching 128 would leave a putty tube all blue); atoms past the range take its end colour.
    public static func bfactorRange(of model: Model, traced: Bool = false) -> (lo: Float, hi: Float) {
        var lo = Float.greatestFiniteMagnitude, hi = -Float.greatestFiniteMagnitude
        if traced {
            let ca = ShortName("CA"), p = ShortName("P")
            for a in model.atoms where (a.name == ca && a.element.atomicNumber == 6) || a.name == p {
                let r = model.residues[Int(a.residue)]
                guard !r.isWater, !r.isLigand else { continue }
                lo = min(lo, a.bFactor)
                hi = max(hi, a.bFactor)
            }
            if lo <= hi { return (lo, hi) }
        }
        for a in model.atoms where !model.residues[Int(a.residue)].isWater { lo = min(lo, a.bFactor); hi = max(hi, a.bFactor) }
        if lo > hi { for a in model.atoms { lo = min(lo, a.bFactor); hi = max(hi, a.bFactor) } }
        return lo > hi ? (0, 0) : (lo, hi)
    }

    /// The colors a cartoon's ribbons take under this theme, per atom: element colors would make
    /// them all carbon gray (and `auto`'s the phosphorus orange), so those two give chain colors,
    /// as in PyMOL and Mol*; other themes color ribbons as they color atoms.
    func meshColors(for model: Model, atomColors: [UInt32], elements: ElementTable) -> [UInt32] {
        switch self {
        case .element: return ColorTheme.chain.colors(for: model, elements: elements)
        case .muted:
            let chainColor = ColorTheme.mutedChainColors(model)
            return model.atoms.map { chainColor[Int(model.residues[Int($0.residue)].chain)] }
        case .auto:
            let polymer = ColorTheme.polymerResidues(model)
            let assembly = polymer.reduce(0) { $0 + ($1 ? 1 : 0) } > Representations.spacefillResidues
            let chainColor = ColorTheme.polymerChainColors(model, polymer: polymer, pale: assembly)
            return model.atoms.map { chainColor[Int(model.residues[Int($0.residue)].chain)] }
        default: return atomColors
        }
    }

    /// `auto`'s colours for a surface: each polymer chain's colour (its entity's where the model
    /// is an assembly, `Representations.spacefillResidues` polymer residues and more), ligands and
    /// the rest as `atomColors` gives them.
    static func surfaceColors(for model: Model, atomColors: [UInt32], elements: ElementTable) -> [UInt32] {
        let polymer = polymerResidues(model)
        let count = polymer.reduce(0) { $0 + ($1 ? 1 : 0) }
        guard count >= 3 else { return atomColors }
        let byChain: [UInt32]
        if count > Representations.spacefillResidues {
            // Entity colours per atom; polymers only are read from them.
            byChain = ColorTheme.entity.colors(for: model, elements: elements)
            return model.atoms.indices.map { polymer[Int(model.atoms[$0].residue)] ? byChain[$0] : atomColors[$0] }
        }
        let chainColor = polymerChainColors(model, polymer: polymer, pale: false)
        return model.atoms.indices.map { i in
            let r = Int(model.atoms[i].residue)
            return polymer[r] ? chainColor[Int(model.residues[r].chain)] : atomColors[i]
        }
    }

    /// Whether each residue is an amino acid or nucleotide (of a polymer, not a lone ligand).
    /// AlphaFold's four confidence bands (its database's and its pages' colours), upper bounds exclusive.
    public static let plddtBands: [(lowest: Float, color: UInt32, label: String)] = [
        (90, 0x0053D6, "Very high (pLDDT > 90)"), (70, 0x65CBF3, "Confident (90 > pLDDT > 70)"),
        (50, 0xFFDB13, "Low (70 > pLDDT > 50)"), (-Float.infinity, 0xFF7D45, "Very low (pLDDT < 50)"),
    ]

    static func plddtColor(_ value: Float) -> UInt32 {
        plddtBands.first { value > $0.lowest }?.color ?? 0xFF7D45
    }

    static func polymerResidues(_ model: Model) -> [Bool] {
        // The classification's polymer residues (modified ones too: a selenomethionine takes its
        // chain's colour); an integrative model's beads are their chain's, as Mol* colours them.
        model.residues.map { $0.inPolymer || $0.kind == .coarse }
    }

    /// A color per chain, counting only chains with polymer residues, so a water or ligand chain
    /// does not take a color; pale for assemblies.
    static func polymerChainColors(_ model: Model, polymer: [Bool], pale: Bool) -> [UInt32] {
        var next = 0
        var byID: [String: UInt32] = [:]
        let palette = pale ? paleChainPalette : chainPalette
        return model.chains.map { chain in
            // Copies of one deposited chain alike, as Mol* colours an assembly.
            if let c = byID[chain.deposited] { return c }
            guard chain.residues.contains(where: { polymer[Int($0)] }) else { return palette[0] }
            let c = palette[next % palette.count]
            next += 1
            byID[chain.deposited] = c
            return c
        }
    }

    /// A palette colour per atom by its chain's `key`, the keys numbered in order of first appearance.
    static func paletteByChain(_ model: Model, _ key: KeyPath<Chain, String>) -> [UInt32] {
        var index: [String: Int] = [:]
        let chainColor = model.chains.map { chain -> UInt32 in
            let k = index[chain[keyPath: key]] ?? index.count
            index[chain[keyPath: key]] = k
            return chainPalette[k % chainPalette.count]
        }
        return model.atoms.map { chainColor[Int(model.residues[Int($0.residue)].chain)] }
    }

    /// Jmol's CPK colors, from the element table in Assets.
    static func elementColor(_ e: Element, _ table: ElementTable) -> UInt32 {
        table.color[Int(e.atomicNumber)]
    }

    /// Twelve well-separated hues (the first are PyMOL-like greens, cyans, magentas, yellows).
    static let chainPalette: [UInt32] = [
        0x33FF33, 0x33CCFF, 0xFF66CC, 0xFFCC33, 0xB380FF, 0xFF7F50, 0x66CDAA, 0xE6E600,
        0x9999FF, 0xFF9999, 0x4DB34D, 0xD9A066,
    ]

    /// Jmol's "amino" residue colors for amino acids and its nucleotide colors (jmol.sourceforge.net/jscolors).
    static let residueColors: [ShortName: UInt32] = {
        let table: [(String, UInt32)] = [
            ("ALA", 0xC8C8C8), ("ARG", 0x145AFF), ("ASN", 0x00DCDC), ("ASP", 0xE60A0A), ("CYS", 0xE6E600),
            ("GLN", 0x00DCDC), ("GLU", 0xE60A0A), ("GLY", 0xEBEBEB), ("HIS", 0x8282D2), ("ILE", 0x0F820F),
            ("LEU", 0x0F820F), ("LYS", 0x145AFF), ("MET", 0xE6E600), ("PHE", 0x3232AA), ("PRO", 0xDC9682),
            ("SER", 0xFA9600), ("THR", 0xFA9600), ("TRP", 0xB45AB4), ("TYR", 0x3232AA), ("VAL", 0x0F820F),
            ("A", 0xA0A0FF), ("DA", 0xA0A0FF), ("C", 0xFF8C4B), ("DC", 0xFF8C4B), ("G", 0xFF7070), ("DG", 0xFF7070),
            ("T", 0xA0FFA0), ("DT", 0xA0FFA0), ("U", 0xFF8080), ("DU", 0xFF8080),
        ]
        var map: [ShortName: UInt32] = [:]
        for (name, color) in table { map[ShortName(name)] = color }
        return map
    }()

    static let otherResidue: UInt32 = 0xBEA06E

    /// Pastel chain colors, as Mol*'s and the RCSB's illustrations of large complexes use: light
    /// enough that outlines and occlusion darken them without turning them to mud, apart enough
    /// that neighbouring chains read as different.
    static let paleChainPalette: [UInt32] = [
        0x8CCFE6, 0xF2B38C, 0xA6DBA0, 0xE6A6C7, 0xC2B3E6, 0xF2DC8C, 0x8CD9C7, 0xE6998C,
        0xB3C7F2, 0xD9E68C, 0xD9B399, 0x99C2D9,
    ]

    /// Kyte and Doolittle's hydropathy index (J. Mol. Biol. 157, 105, 1982).
    static let kyteDoolittle: [ShortName: Float] = {
        let table: [(String, Float)] = [
            ("ILE", 4.5), ("VAL", 4.2), ("LEU", 3.8), ("PHE", 2.8), ("CYS", 2.5), ("MET", 1.9), ("ALA", 1.8), ("GLY", -0.4),
            ("THR", -0.7), ("SER", -0.8), ("TRP", -0.9), ("TYR", -1.3), ("PRO", -1.6), ("HIS", -3.2), ("GLU", -3.5),
            ("GLN", -3.5), ("ASP", -3.5), ("ASN", -3.5), ("LYS", -3.9), ("ARG", -4.5),
        ]
        var map: [ShortName: Float] = [:]
        for (name, h) in table { map[ShortName(name)] = h }
        return map
    }()

    /// -4.5 dark cyan (0x008B8B), 0 white, 4.5 goldenrod (0xDAA520).
    static func hydrophobicityColor(_ h: Float) -> UInt32 {
        let t = max(-1, min(1, h / 4.5))
        let end: SIMD3<Float> = t < 0 ? SIMD3(0x00, 0x8B, 0x8B) : SIMD3(0xDA, 0xA5, 0x20)
        let c = SIMD3<Float>(repeating: 255) + (end - SIMD3(repeating: 255)) * abs(t)
        return UInt32(c.x.rounded()) << 16 | UInt32(c.y.rounded()) << 8 | UInt32(c.z.rounded())
    }

    /// 0 blue, 0.25 cyan, 0.5 green, 0.75 yellow, 1 red (hue 240 to 0 degrees, full saturation).
    static func rainbow(_ t: Float) -> UInt32 {
        let h = (1 - max(0, min(1, t))) * 4  // 4 blue ... 0 red, in sixths of the hue circle
        let x = 1 - abs(h.truncatingRemainder(dividingBy: 2) - 1)
        let (r, g, b): (Float, Float, Float)
        switch h {
        case ..<1: (r, g, b) = (1, x, 0)
        case ..<2: (r, g, b) = (x, 1, 0)
        case ..<3: (r, g, b) = (0, 1, x)
        default: (r, g, b) = (0, x, 1)
        }
        return UInt32(r * 255 + 0.5) << 16 | UInt32(g * 255 + 0.5) << 8 | UInt32(b * 255 + 0.5)
    }

    /// 0 blue, 0.5 white, 1 red.
    static func blueWhiteRed(_ t: Float) -> UInt32 {
        let t = max(0, min(1, t))
        let r: Float, g: Float, b: Float
        if t < 0.5 {
            let s = t * 2
            (r, g, b) = (s, s, 1)
        } else {
            let s = (1 - t) * 2
            (r, g, b) = (1, s, s)
        }
        return UInt32(r * 255 + 0.5) << 16 | UInt32(g * 255 + 0.5) << 8 | UInt32(b * 255 + 0.5)
    }
}

/// A request's colors: a theme, or one color for every atom (`--color red`, `--color #FF8000`).
public enum AtomColoring: Sendable, Equatable {
    case theme(ColorTheme)
    case fixed(UInt32)

    /// A theme's name or alias, a color name or #RRGGBB, in any case; nil for none of those.
    public init?(parsing text: String) {
        if let theme = ColorTheme.named(text) {
            self = .theme(theme)
        } else if let named = Color.names[text.lowercased()] {
            self = .fixed(named)
        } else if text.hasPrefix("#"), let color = Color(parsing: text), color.isOpaque {
            self = .fixed(color.rgb)
        } else {
            return nil
        }
    }

    /// " (did you mean X?)" for a near miss: a theme first (`chian` is as near `cyan`), else a color name.
    static func hint(for text: String) -> String {
        let theme = NearMiss.hint(for: text, among: ColorTheme.allNames)
        return theme.isEmpty ? NearMiss.hint(for: text, among: Array(Color.names.keys)) : theme
    }

    /// As `parsing` reads it back: the theme's name, or #RRGGBB.
    public var text: String {
        switch self {
        case .theme(let t): return t.rawValue
        case .fixed(let c): return "#" + String(c, radix: 16, uppercase: true).leftPadded(to: 6)
        }
    }

    /// The theme, nil for one color.
    public var theme: ColorTheme? {
        if case .theme(let t) = self { return t }
        return nil
    }

    public func colors(for model: Model, elements: ElementTable, secondaryStructure: [SecondaryStructureRange] = [], traced: Bool = false) -> [UInt32] {
        switch self {
        case .theme(let t): return t.colors(for: model, elements: elements, secondaryStructure: secondaryStructure, traced: traced)
        case .fixed(let c): return [UInt32](repeating: c, count: model.atoms.count)
        }
    }
}

private extension String {
    func leftPadded(to n: Int) -> String { count >= n ? self : String(repeating: "0", count: n - count) + self }
}

import Structure

/// How atoms are colored: a pure function from an atom of a model to an sRGB color (0xRRGGBB).
public enum ColorTheme: String, Sendable, CaseIterable {
    case element, chain, residue, bfactor

    /// A color per atom of `model`.
    public func colors(for model: Model, elements: ElementTable) -> [UInt32] {
        switch self {
        case .element:
            return model.atoms.map { ColorTheme.elementColor($0.element, elements) }
        case .chain:
            // One color per chain id, in order of first appearance.
            let index = Dictionary(uniqueKeysWithValues: model.chainIDs.enumerated().map { ($1, $0) })
            let chainColor = model.chains.map { ColorTheme.chainPalette[index[$0.id]! % ColorTheme.chainPalette.count] }
            return model.atoms.map { chainColor[Int(model.residues[Int($0.residue)].chain)] }
        case .residue:
            return model.atoms.map { atom in
                ColorTheme.residueColors[model.residues[Int(atom.residue)].name] ?? ColorTheme.otherResidue
            }
        case .bfactor:
            var lo = Float.greatestFiniteMagnitude, hi = -Float.greatestFiniteMagnitude
            for a in model.atoms { lo = min(lo, a.bFactor); hi = max(hi, a.bFactor) }
            // All alike (or none): the middle of the scale, not its coldest end.
            guard hi > lo else { return model.atoms.map { _ in ColorTheme.blueWhiteRed(0.5) } }
            return model.atoms.map { ColorTheme.blueWhiteRed(($0.bFactor - lo) / (hi - lo)) }
        }
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

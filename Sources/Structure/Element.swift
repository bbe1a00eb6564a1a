/// A chemical element by atomic number; 0 is unknown ("X").
/// The symbols are the periodic table itself and live here; radii and colors are data
/// in `Assets/elements.tsv` (see `ElementTable`), checked against these symbols on load.
public struct Element: Hashable, Sendable, CustomStringConvertible {
    public let atomicNumber: UInt8

    public init(atomicNumber: UInt8) {
        self.atomicNumber = atomicNumber < UInt8(Element.symbols.count) ? atomicNumber : 0
    }

    public static let unknown = Element(atomicNumber: 0)
    public static let hydrogen = Element(atomicNumber: 1)
    public static let carbon = Element(atomicNumber: 6)
    public static let nitrogen = Element(atomicNumber: 7)
    public static let oxygen = Element(atomicNumber: 8)
    public static let phosphorus = Element(atomicNumber: 15)
    public static let sulfur = Element(atomicNumber: 16)

    public static let count = 119

    public static let symbols: [String] = [
        "X", "H", "He", "Li", "Be", "B", "C", "N", "O", "F", "Ne", "Na", "Mg", "Al", "Si", "P", "S", "Cl", "Ar",
        "K", "Ca", "Sc", "Ti", "V", "Cr", "Mn", "Fe", "Co", "Ni", "Cu", "Zn", "Ga", "Ge", "As", "Se", "Br", "Kr",
        "Rb", "Sr", "Y", "Zr", "Nb", "Mo", "Tc", "Ru", "Rh", "Pd", "Ag", "Cd", "In", "Sn", "Sb", "Te", "I", "Xe",
        "Cs", "Ba", "La", "Ce", "Pr", "Nd", "Pm", "Sm", "Eu", "Gd", "Tb", "Dy", "Ho", "Er", "Tm", "Yb", "Lu",
        "Hf", "Ta", "W", "Re", "Os", "Ir", "Pt", "Au", "Hg", "Tl", "Pb", "Bi", "Po", "At", "Rn",
        "Fr", "Ra", "Ac", "Th", "Pa", "U", "Np", "Pu", "Am", "Cm", "Bk", "Cf", "Es", "Fm", "Md", "No", "Lr",
        "Rf", "Db", "Sg", "Bh", "Hs", "Mt", "Ds", "Rg", "Cn", "Nh", "Fl", "Mc", "Lv", "Ts", "Og",
    ]

    /// Atomic numbers indexed by `(first & 31) * 32 + (second & 31)`: the low five bits of an
    /// ASCII letter are its place in the alphabet in either case, and a blank or none is 0.
    private static let bySymbolIndex: [UInt8] = {
        var table = [UInt8](repeating: 0, count: 32 * 32)
        for (z, symbol) in symbols.enumerated() where z > 0 {
            let u = Array(symbol.utf8)
            table[Int(u[0] & 31) * 32 + (u.count > 1 ? Int(u[1] & 31) : 0)] = UInt8(z)
        }
        table[Int(UInt8(ascii: "D") & 31) * 32] = 1  // deuterium
        table[Int(UInt8(ascii: "T") & 31) * 32] = 1  // tritium
        return table
    }()

    @inline(__always)
    static func upper(_ c: UInt8) -> UInt8 { (c >= 0x61 && c <= 0x7A) ? c - 0x20 : c }

    @inline(__always)
    static func isLetter(_ c: UInt8) -> Bool { (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A }

    /// The element whose symbol is `first` (and `second`, if not 0 or blank), in any case; nil if none.
    @inline(__always)
    public static func symbol(_ first: UInt8, _ second: UInt8 = 0) -> Element? {
        guard isLetter(first) else { return nil }
        let secondIndex: Int
        if second == 0 || second == 0x20 { secondIndex = 0 } else if isLetter(second) { secondIndex = Int(second & 31) } else { return nil }
        let z = bySymbolIndex[Int(first & 31) * 32 + secondIndex]
        return z == 0 ? nil : Element(atomicNumber: z)
    }

    /// The element named by bytes `start..<end`, blanks ignored; nil if they name none.
    @inline(__always)
    public static func symbol(in bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Element? {
        var s = start, e = min(end, bytes.count)
        while s < e && bytes[s] == 0x20 { s += 1 }
        while e > s && bytes[e - 1] == 0x20 { e -= 1 }
        switch e - s {
        case 1: return symbol(bytes[s])
        case 2: return symbol(bytes[s], bytes[s + 1])
        default: return nil
        }
    }

    public static func symbol(_ text: String) -> Element? {
        let name = ShortName(text)
        switch name.length {
        case 1: return symbol(name.byte(0))
        case 2: return symbol(name.byte(0), name.byte(1))
        default: return nil
        }
    }

    public var symbol: String { Element.symbols[Int(atomicNumber)] }
    public var description: String { symbol }

    public var isHydrogen: Bool { atomicNumber == 1 }

    /// Metals and metalloid ions that appear as single-atom residues (Zn, Fe, Na, ...).
    public var isMetal: Bool {
        switch atomicNumber {
        case 3, 4, 11, 12, 13, 19...32, 37...51, 55...84, 87...118: return true
        default: return false
        }
    }
}

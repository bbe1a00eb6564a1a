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

    /// Upper-cased one- or two-letter symbol packed as `first | second << 8` -> atomic number.
    private static let bySymbolKey: [UInt16: UInt8] = {
        var map: [UInt16: UInt8] = [:]
        for (z, symbol) in symbols.enumerated() where z > 0 {
            let u = Array(symbol.uppercased().utf8)
            map[UInt16(u[0]) | (u.count > 1 ? UInt16(u[1]) << 8 : 0)] = UInt8(z)
        }
        map[UInt16(UInt8(ascii: "D"))] = 1  // deuterium
        map[UInt16(UInt8(ascii: "T"))] = 1  // tritium
        return map
    }()

    @inline(__always)
    static func upper(_ c: UInt8) -> UInt8 { (c >= 0x61 && c <= 0x7A) ? c - 0x20 : c }

    @inline(__always)
    static func isLetter(_ c: UInt8) -> Bool { (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A }

    /// The element whose symbol is `first` (and `second`, if not 0), in any case; nil if none.
    @inline(__always)
    public static func symbol(_ first: UInt8, _ second: UInt8 = 0) -> Element? {
        guard isLetter(first), second == 0 || isLetter(second) else { return nil }
        let key = UInt16(upper(first)) | (second == 0 ? 0 : UInt16(upper(second)) << 8)
        return bySymbolKey[key].map { Element(atomicNumber: $0) }
    }

    /// The element named by bytes `start..<end`, blanks ignored; nil if they name none.
    public static func symbol(in bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Element? {
        let name = ShortName(bytes, start, end)
        switch name.length {
        case 1: return symbol(name.byte(0))
        case 2: return symbol(name.byte(0), name.byte(1))
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

import Core
import Foundation

/// One-letter codes of polymer residues and the parents of modified ones: the standard table,
/// and `Assets/ccd-parents.tsv` (the Chemical Component Dictionary's 2,044 components with a
/// `mon_nstd_parent_comp_id`, MSE is MET, PSU is U, and its D-amino acids, DPR is PRO).
public enum ResidueLetters {
    static let standard: [ShortName: Character] = {
        let pairs: [(String, Character)] = [
            ("ALA", "A"), ("ARG", "R"), ("ASN", "N"), ("ASP", "D"), ("CYS", "C"), ("GLN", "Q"), ("GLU", "E"), ("GLY", "G"), ("HIS", "H"),
            ("ILE", "I"), ("LEU", "L"), ("LYS", "K"), ("MET", "M"), ("PHE", "F"), ("PRO", "P"), ("SER", "S"), ("THR", "T"), ("TRP", "W"),
            ("TYR", "Y"), ("VAL", "V"), ("SEC", "U"), ("PYL", "O"), ("UNK", "X"), ("HID", "H"), ("HIE", "H"), ("HIP", "H"), ("CYX", "C"),
            ("ASX", "B"), ("GLX", "Z"),
            ("DA", "A"), ("DC", "C"), ("DG", "G"), ("DT", "T"), ("DU", "U"), ("DI", "I"), ("A", "A"), ("C", "C"), ("G", "G"), ("U", "U"),
            ("T", "T"), ("I", "I"), ("N", "N"), ("DN", "N"),
        ]
        return Dictionary(uniqueKeysWithValues: pairs.map { (ShortName($0.0), $0.1) })
    }()

    static let aminoAcids: Set<ShortName> = Set(Selection.aminoAcids.map { ShortName($0) })

    /// The twenty amino acids' (and SEC's, PYL's) names by their one-letter code.
    static let aminoAcidNames: [Character: ShortName] = {
        var out: [Character: ShortName] = [:]
        for name in ["ALA", "ARG", "ASN", "ASP", "CYS", "GLN", "GLU", "GLY", "HIS", "ILE", "LEU", "LYS", "MET", "PHE", "PRO", "SER", "THR",
                     "TRP", "TYR", "VAL", "SEC", "PYL"] {
            if let letter = standard[ShortName(name)] { out[letter] = ShortName(name) }
        }
        return out
    }()

    /// Component to (parent, one-letter code); empty where the asset cannot be read (no parent known).
    static let parents: [ShortName: (parent: ShortName, letter: Character?)] = {
        guard let url = try? Resources.asset("ccd-parents.tsv"), let bytes = try? FileInput.readAll(path: url.path) else { return [:] }
        // Read as bytes: split as Strings, the table had been a millisecond or more of every process that met a polymer.
        var out: [ShortName: (ShortName, Character?)] = [:]
        out.reserveCapacity(2048)
        bytes.withUnsafeBufferPointer { b in
            var lines = LineCursor(b, separator: 0x0A)
            while let line = lines.next() {
                guard !line.isEmpty, b[line.lowerBound] != UInt8(ascii: "#") else { continue }
                // The first three tab-separated fields (empty ones kept).
                var fields: [Range<Int>] = []
                var fieldStart = line.lowerBound
                for i in line.lowerBound...line.upperBound where i == line.upperBound || b[i] == 0x09 {
                    fields.append(fieldStart..<i)
                    fieldStart = i + 1
                    if fields.count == 3 { break }
                }
                guard fields.count >= 3 else { continue }
                // Several parents (a dinucleotide component): the first that is not empty.
                var parent = fields[1].lowerBound..<fields[1].lowerBound
                var k = fields[1].lowerBound
                while k < fields[1].upperBound {
                    var e = k
                    while e < fields[1].upperBound && b[e] != UInt8(ascii: ",") { e += 1 }
                    if e > k { parent = k..<e; break }
                    k = e + 1
                }
                let code = fields[2]
                let letter: Character? = code.isEmpty ? nil
                    : b[code.lowerBound] < 0x80 ? Character(Unicode.Scalar(b[code.lowerBound]))
                    : String(decoding: UnsafeBufferPointer(rebasing: b[code]), as: UTF8.self).first
                out[ShortName(b, fields[0].lowerBound, fields[0].upperBound)] = (ShortName(b, parent.lowerBound, parent.upperBound), letter)
            }
        }
        return out
    }()

    /// The dictionary's parent of a modified residue, if it has one.
    public static func parent(of name: ShortName) -> ShortName? { parents[name]?.parent }

    /// The one-letter code: a standard residue's, else a modified residue's parent's.
    public static func letter(_ name: ShortName) -> Character? {
        if let c = standard[name] { return c }
        if let p = parents[name] { return p.letter ?? standard[p.parent] }
        return nil
    }

    public static func aminoAcid(_ name: ShortName) -> Bool { aminoAcids.contains(name) }

    /// Whether `name` is a standard polymer residue.
    public static func isStandard(_ name: ShortName) -> Bool { standard[name] != nil }
}

extension Structure {
    /// Modified residues of the first model by name: parent and copies (a cap is its own parent).
    public var modifiedResidues: [(name: String, parent: String, count: Int)] {
        guard let model = models.first else { return [] }
        var order: [ShortName] = []
        var counts: [ShortName: (ShortName, Int)] = [:]
        for r in model.residues where r.isModified {
            if counts[r.name] == nil { order.append(r.name) }
            counts[r.name, default: (r.parent, 0)].1 += 1
        }
        return order.map { (name: $0.description, parent: counts[$0]!.0.description, count: counts[$0]!.1) }
    }
}

extension Model {
    /// Whether residue `r` of `chain` is bonded to the standard residue beside it as a polymer
    /// continues: one of its atoms within 1.75 Å of the previous residue's C (a C-terminal cap,
    /// NH2) or of the next residue's N (an N-terminal cap, ACE), the residues numbered one apart.
    func linksNeighbour(_ r: Int, in chain: Chain) -> Bool {
        let residue = residues[r]
        func atom(_ name: ShortName, of k: Int) -> SIMD3<Float>? {
            residues[k].atoms.first { atoms[Int($0)].name == name }.map { atoms[Int($0)].position }
        }
        func near(_ p: SIMD3<Float>) -> Bool {
            residue.atoms.contains { i in let d = atoms[Int(i)].position - p; return (d * d).sum() <= 1.75 * 1.75 }
        }
        // Numbers as the file states them, compared without arithmetic that could trap (Int32.max + 1).
        func apart(_ k: Int) -> Bool { (0...1).contains(abs(Int(residues[k].number) - Int(residue.number))) }
        if r > Int(chain.residues.lowerBound), ResidueLetters.aminoAcid(residues[r - 1].standardName), apart(r - 1),
           let c = atom(ShortName("C"), of: r - 1), near(c) { return true }
        if r + 1 < Int(chain.residues.upperBound), ResidueLetters.aminoAcid(residues[r + 1].standardName), apart(r + 1),
           let n = atom(ShortName("N"), of: r + 1), near(n) { return true }
        return false
    }
}

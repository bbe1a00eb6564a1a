import Structure

/// A polymer chain's sequence as the viewer shows it: one letter a residue (`X` for one with no
/// letter), each with its secondary structure (`H` helix, `E` strand, `-` coil), from the
/// file's helices and sheets or else assigned from the backbone, as cartoons draw them.
public struct ChainSequence: Codable, Sendable, Equatable {
    public var chain: String
    /// The author number of the first residue.
    public var first: Int
    public var letters: String
    public var structure: String
    /// Each letter's author residue number (numbering has gaps and insertions; `first + i` is not it).
    public var numbers: [Int]

    /// The chains of `structure`'s first model with two or more standard residues.
    public static func of(_ structure: Structure) -> [ChainSequence] {
        guard let model = structure.models.first else { return [] }
        let states = model.secondaryStructure(stated: structure.secondaryStructure)
        var out: [ChainSequence] = []
        for chain in model.chains {
            var letters = "", marks = "", known = 0
            var numbers: [Int] = []
            for r in chain.residues {
                let residue = model.residues[Int(r)]
                let letter = ResidueLetters.letter(residue.name)
                // Ligands and waters are not part of the sequence; modified residues are, as their parent.
                if !residue.inPolymer { continue }
                if letter != nil { known += 1 }
                letters.append(letter ?? "X")
                numbers.append(Int(residue.number))
                switch Int(r) < states.count ? states[Int(r)] : .coil {
                case .helix: marks.append("H")
                case .strand: marks.append("E")
                case .coil: marks.append("-")
                }
            }
            guard known >= 2, !out.contains(where: { $0.chain == chain.id }) else { continue }
            out.append(ChainSequence(chain: chain.id, first: Int(model.residues[Int(chain.residues.lowerBound)].number), letters: letters,
                                     structure: marks, numbers: numbers))
        }
        return out
    }
}

import Structure

/// Which atoms are drawn.
public struct AtomFilter: Sendable, Equatable {
    public var hydrogens = false
    public var waters = false
    public init(hydrogens: Bool = false, waters: Bool = false) {
        self.hydrogens = hydrogens
        self.waters = waters
    }

    /// Molecules with at most this many heavy atoms show their hydrogens anyway (as Jmol does):
    /// water or methane without them is hardly a molecule.
    public static let fewHeavyAtoms = 4

    /// Visible atoms of `model`: the default conformer, less hydrogens and waters unless asked
    /// for; hydrogens stay where only a few heavy atoms are shown. Dummy markers (OPM's DUM
    /// membrane planes) are never atoms to draw, as OPM's own viewer leaves them out.
    public func visible(_ model: Model) -> [Bool] {
        let conformer = model.defaultConformerMask()
        var mask = conformer
        var heavy = 0
        // Once a residue, not once an atom.
        let hidden = model.residues.map { $0.kind == .dummy || (!waters && $0.isWater) }
        for (i, atom) in model.atoms.enumerated() where mask[i] {
            if hidden[Int(atom.residue)] { mask[i] = false }
            if atom.element.isHydrogen {
                if !hydrogens { mask[i] = false }
            } else if mask[i] {
                heavy += 1
            }
        }
        if !hydrogens && heavy <= AtomFilter.fewHeavyAtoms {
            for (i, atom) in model.atoms.enumerated() where conformer[i] && atom.element.isHydrogen {
                mask[i] = waters || !model.residues[Int(atom.residue)].isWater || heavy == 0
            }
        }
        return mask
    }
}

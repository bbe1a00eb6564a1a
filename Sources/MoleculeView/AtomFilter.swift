import Structure

/// Which atoms are drawn.
public struct AtomFilter: Sendable, Equatable {
    public var hydrogens = false
    public var waters = false
    public init(hydrogens: Bool = false, waters: Bool = false) {
        self.hydrogens = hydrogens
        self.waters = waters
    }

    /// Visible atoms of `model`: the default conformer, less hydrogens and waters unless asked for.
    public func visible(_ model: Model) -> [Bool] {
        var mask = model.defaultConformerMask()
        for (i, atom) in model.atoms.enumerated() where mask[i] {
            if !hydrogens && atom.element.isHydrogen { mask[i] = false }
            if !waters && model.residues[Int(atom.residue)].isWater { mask[i] = false }
        }
        return mask
    }
}

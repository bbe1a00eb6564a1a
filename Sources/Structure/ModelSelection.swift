extension Model {
    /// A chain id as messages and listings show it: the blank id as `(blank)`.
    public static func shown(chain id: String) -> String { id.isEmpty ? "(blank)" : id }

    /// The chain ids of this model, in order of first appearance.
    public var chainIDs: [String] {
        var seen = Set<String>()
        return chains.compactMap { seen.insert($0.id).inserted ? $0.id : nil }
    }

    /// The chain ids as deposited (an assembly's copies of chain A answer A), in order of first appearance.
    public var depositedChainIDs: [String] {
        var seen = Set<String>()
        return chains.compactMap { seen.insert($0.deposited).inserted ? $0.deposited : nil }
    }

    /// Chains and residues as the RCSB counts an entry: polymer chains and their residues (modified
    /// ones included), waters, ions and other ligands left out.
    public var countedChainsAndResidues: (chains: Int, residues: Int) {
        var ids = Set<String>()
        var residueCount = 0
        for chain in chains {
            for r in chain.residues {
                let residue = residues[Int(r)]
                guard !residue.isWater, !residue.isLigand, residue.isModified || ResidueLetters.isStandard(residue.name) else { continue }
                residueCount += 1
                ids.insert(chain.id)
            }
        }
        return (ids.count, residueCount)
    }

    /// A model of only the residues of the chains whose ids are in `ids`, with atoms, residues,
    /// chains and stated bonds renumbered.
    public func selecting(chains ids: Set<String>) -> Model {
        keeping(atoms: atoms.map { ids.contains(chains[Int(residues[Int($0.residue)].chain)].id) })
    }

    /// A model of only the atoms `mask` keeps (residues and chains left empty dropped), stated bonds renumbered.
    public func keeping(atoms mask: [Bool]) -> Model {
        var out = Model(number: number)
        out.bondsAreComplete = bondsAreComplete
        out.symmetryAxes = symmetryAxes
        var newIndex = [Int32](repeating: -1, count: atoms.count)
        for chain in chains {
            let firstResidue = Int32(out.residues.count)
            for r in chain.residues {
                var residue = residues[Int(r)]
                let firstAtom = Int32(out.atoms.count)
                for a in residue.atoms where mask[Int(a)] {
                    var atom = atoms[Int(a)]
                    atom.residue = Int32(out.residues.count)
                    newIndex[Int(a)] = Int32(out.atoms.count)
                    out.atoms.append(atom)
                }
                guard Int32(out.atoms.count) > firstAtom else { continue }
                residue.atoms = firstAtom..<Int32(out.atoms.count)
                residue.chain = Int32(out.chains.count)
                out.residues.append(residue)
            }
            guard Int32(out.residues.count) > firstResidue else { continue }
            var kept = chain
            kept.residues = firstResidue..<Int32(out.residues.count)
            out.chains.append(kept)
        }
        if let radii { out.radii = radii.indices.filter { mask[$0] }.map { radii[$0] } }
        for bond in explicitBonds where newIndex[Int(bond.a)] >= 0 && newIndex[Int(bond.b)] >= 0 {
            var b = bond
            b.a = min(newIndex[Int(bond.a)], newIndex[Int(bond.b)])
            b.b = max(newIndex[Int(bond.a)], newIndex[Int(bond.b)])
            out.explicitBonds.append(b)
        }
        return out
    }
}

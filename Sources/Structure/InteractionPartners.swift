import Core

/// The non-covalent interactions of a selection in a model, found once and kept for the next ask:
/// a binding-site figure asks for them in its shows (`interacting S`, `partners S`), its lines,
/// its labels and its caption, and a view's frames ask again. Keyed by the model's contents (its
/// atoms' positions and residues, hashed), so two models never share an answer.
public enum InteractionPartners {
    /// The interactions of `selection` with `partners` (every other atom where nil) in `model`;
    /// `InteractionFinder.TooManyAtoms` where the selection is past its limit.
    public static func interactions(of selection: Selection, with partners: Selection? = nil, in model: Model) throws -> [Interaction] {
        let key = Key(model: fingerprint(model), atoms: model.atoms.count, selection: selection, partners: partners)
        if let found = cache.withLock({ $0[key] }) { return found }
        let perception = try BondPerception.standard()
        let found = try InteractionFinder().find(in: model, bonds: perception.bonds(of: model), selected: selection.mask(in: model),
                                                 partners: partners?.mask(in: model), dictionary: perception.dictionary)
        cache.withLock { cache in
            if cache.count >= 32 { cache.removeAll() }
            cache[key] = found
        }
        return found
    }

    /// One flag an atom of `model`: the atoms the interactions of `selection` end on (a group's or
    /// a ring's atoms, a bridge's water). None where the selection is too large to search (the
    /// `interactions` field says so by name).
    static func atoms(of selection: Selection, with partners: Selection? = nil, in model: Model) -> [Bool] {
        var out = [Bool](repeating: false, count: model.atoms.count)
        guard let found = try? interactions(of: selection, with: partners, in: model) else { return out }
        for i in found {
            for a in i.partnerAtoms where a < out.count { out[a] = true }
            if let w = i.water, w < out.count { out[w] = true }
        }
        return out
    }

    private struct Key: Hashable {
        var model: UInt64
        var atoms: Int
        var selection: String
        var partners: String

        init(model: UInt64, atoms: Int, selection: Selection, partners: Selection?) {
            self.model = model
            self.atoms = atoms
            self.selection = String(reflecting: selection)
            self.partners = partners.map { String(reflecting: $0) } ?? ""
        }
    }

    private static let cache = Locked<[Key: [Interaction]]>([:])

    /// A hash of every atom's position and residue: what the interactions depend on.
    static func fingerprint(_ model: Model) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        @inline(__always) func mix(_ v: UInt32) {
            h ^= UInt64(v)
            h = h &* 0x0000_0100_0000_01B3
        }
        for atom in model.atoms {
            mix(atom.position.x.bitPattern)
            mix(atom.position.y.bitPattern)
            mix(atom.position.z.bitPattern)
            mix(UInt32(bitPattern: atom.residue))
            mix(UInt32(atom.element.atomicNumber))
        }
        return h
    }
}

/// Assembles a model from atom records in file order: a new chain run when the chain id
/// changes, a new residue when the residue number, insertion code or name changes.
struct ModelBuilder {
    private(set) var model: Model
    /// The chain id of the current run; nil before the first atom and after TER (any id, even one
    /// of eight 0xFF bytes, starts a new run then).
    private var chainID: ShortName?
    /// The label (mmCIF `label_asym_id`) of the current run: a new label starts a new run too.
    private var labelID = ShortName.empty
    private var residueKey = (number: Int32.min, insertion: UInt8(0), name: ShortName.empty, hetero: false)

    init(number: Int, reserve: Int = 0) {
        model = Model(number: number)
        model.atoms.reserveCapacity(reserve)
    }

    var atomCount: Int { model.atoms.count }

    /// Ends the current chain run, so that the next atom starts a new one even with the same id (PDB TER).
    mutating func terminateChain() {
        chainID = nil
    }

    @inline(__always)
    mutating func add(_ atom: Atom, chain: ShortName, residueName: ShortName, residueNumber: Int32,
                      insertionCode: UInt8, hetero: Bool, label: Label = Label()) {
        var atom = atom
        let atomIndex = Int32(model.atoms.count)
        if chain != chainID || label.asym != labelID {
            closeResidue()
            chainID = chain
            labelID = label.asym
            let r = Int32(model.residues.count)
            model.chains.append(Chain(id: chain.description, residues: r..<r, labelID: label.asym.description,
                                      entity: label.entity.description))
            residueKey.number = Int32.min
        }
        if residueNumber != residueKey.number || insertionCode != residueKey.insertion || residueName != residueKey.name {
            closeResidue()
            residueKey = (residueNumber, insertionCode, residueName, hetero)
            var residue = Residue(name: residueName, number: residueNumber, insertionCode: insertionCode,
                                  isHetero: hetero, chain: Int32(model.chains.count - 1), atoms: atomIndex..<atomIndex)
            residue.labelSeq = label.seq
            model.residues.append(residue)
            model.chains[model.chains.count - 1].residues = model.chains[model.chains.count - 1].residues.lowerBound..<Int32(model.residues.count)
        }
        atom.residue = Int32(model.residues.count - 1)
        model.atoms.append(atom)
    }

    private mutating func closeResidue() {
        guard !model.residues.isEmpty else { return }
        let last = model.residues.count - 1
        model.residues[last].atoms = model.residues[last].atoms.lowerBound..<Int32(model.atoms.count)
    }

    mutating func finish() -> Model {
        closeResidue()
        return model
    }

    /// mmCIF's label ids of an atom record (empty in other formats).
    struct Label {
        var asym = ShortName.empty
        var entity = ShortName.empty
        var seq: Int32 = 0
    }

    mutating func addExplicitBond(_ bond: Bond) { model.explicitBonds.append(bond) }
}

import Core
import Foundation

/// What a residue is, decided once for every reader's structure (`Structure.classifyResidues`)
/// from what the molecule is, never from how the file was written (ATOM or HETATM, a
/// `label_seq_id`): the file's entity tables first, then the Chemical Component Dictionary's
/// `_chem_comp.type` for the name, then the residue's bonds to its neighbours in the
/// coordinates. Counts, selection words, the default picture, cartoons, exports and library
/// imports all read this one classification (Mol*'s `mol-model/structure/model/types`).
public enum ResidueKind: UInt8, Sendable, CaseIterable {
    /// A standard residue of a protein or nucleic acid chain (and the names MD engines give them).
    case polymer
    /// A residue of a polymer chain that is not standard: a modification (MSE of MET) or a cap
    /// (ACE, NH2, NME), with its `parent`.
    case modified
    /// A carbohydrate of a branched entity (a glycan: NAG, MAN, BMA).
    case branched
    /// A small molecule that is not part of a polymer.
    case ligand
    /// A single atom of a metal or a halogen (ZN, NA, CL; CHARMM's SOD, CLA).
    case ion
    case water
    /// A marker with no chemistry: OPM's DUM membrane planes. Not drawn.
    case dummy
    /// A bead of an integrative model (IHM's `_ihm_sphere_obj_site`): a sphere of its stated
    /// radius (`Model.radii`) standing for a run of residues, drawn at that radius in its chain's
    /// colour, as Mol* and ChimeraX draw coarse models.
    case coarse

    /// Part of a polymer chain (its cartoon, its sequence).
    public var inPolymer: Bool { self == .polymer || self == .modified }
    /// What `ligand` selects (PyMOL's organic and inorganic, Mol*'s ligands and carbohydrates).
    public var isLigand: Bool { self == .ligand || self == .ion || self == .branched }
}

/// The classes of the Chemical Component Dictionary's types that matter for a residue's place:
/// `Assets/ccd-types.tsv` (peptide linking, DNA or RNA linking, saccharide; any other is a
/// non-polymer), written by `bench/tools/mktypes.py`.
public enum ComponentType: UInt8, Sendable {
    case nonPolymer, peptide, nucleotide, saccharide

    static let table: [ShortName: ComponentType] = {
        guard let url = try? Resources.asset("ccd-types.tsv"), let bytes = try? FileInput.readAll(path: url.path) else { return [:] }
        var out: [ShortName: ComponentType] = [:]
        out.reserveCapacity(4500)
        bytes.withUnsafeBufferPointer { b in
            var lines = LineCursor(b, separator: 0x0A)
            while let line = lines.next() {
                guard line.count >= 3, b[line.lowerBound] != UInt8(ascii: "#"), b[line.upperBound - 2] == 0x09 else { continue }
                let kind: ComponentType
                switch b[line.upperBound - 1] {
                case UInt8(ascii: "p"): kind = .peptide
                case UInt8(ascii: "n"): kind = .nucleotide
                case UInt8(ascii: "s"): kind = .saccharide
                default: continue
                }
                out[ShortName(b, line.lowerBound, line.upperBound - 2)] = kind
            }
        }
        return out
    }()

    /// The dictionary's type for a component name; a non-polymer where it does not list it.
    public static func of(_ name: ShortName) -> ComponentType { table[name] ?? .nonPolymer }
}

extension Residue {
    /// Names molecular dynamics engines and force fields give standard residues (CHARMM, AMBER,
    /// GROMACS): protonation states and disulfide forms of the standard amino acids.
    static let simulationNames: [ShortName: ShortName] = {
        let pairs = [("HSD", "HIS"), ("HSE", "HIS"), ("HSP", "HIS"), ("HID", "HIS"), ("HIE", "HIS"), ("HIP", "HIS"), ("HISD", "HIS"),
                     ("HISE", "HIS"), ("HISH", "HIS"), ("CYX", "CYS"), ("CYM", "CYS"), ("ASH", "ASP"), ("GLH", "GLU"), ("LYN", "LYS"),
                     ("ARN", "ARG"), ("TYM", "TYR"), ("ASPP", "ASP"), ("GLUP", "GLU"), ("LSN", "LYS"), ("CYN", "CYS")]
        var out = Dictionary(uniqueKeysWithValues: pairs.map { (ShortName($0.0), ShortName($0.1)) })
        // AMBER's terminal residues (tleap, CHARMM-GUI's AMBER force fields): NGLU, CPRO, NHIE.
        let amino = ["ALA", "ARG", "ASN", "ASP", "CYS", "GLN", "GLU", "GLY", "HIS", "ILE", "LEU", "LYS", "MET", "PHE", "PRO", "SER",
                     "THR", "TRP", "TYR", "VAL", "HID", "HIE", "HIP", "CYX", "ASH", "GLH", "LYN"]
        for name in amino {
            let parent = out[ShortName(name)] ?? ShortName(name)
            for end in ["N", "C"] { out[ShortName(end + name)] = parent }
        }
        return out
    }()

    /// Markers that are no molecule: OPM's membrane planes.
    static let dummyNames: Set<ShortName> = [ShortName("DUM")]
}

extension Structure {
    /// Decides every residue's `kind` (and a modified residue's `parent`) in every model:
    /// - water by name (with the names MD engines use), OPM's DUM as a dummy;
    /// - where the file's entity tables say what the residue's chain is (`_entity.type`, PDB
    ///   COMPND): a polymer's residues are standard or modified (the parent from MODRES or
    ///   `_pdbx_struct_mod_residue`, else the dictionary's, else a cap of its own), a branched
    ///   entity's carbohydrates are branched, a non-polymer is an ion (one metal or halogen atom)
    ///   or a ligand, water is water;
    /// - where they do not: a standard name is a polymer residue (a lone HETATM one, bonded to no
    ///   neighbour, is a free amino acid: a ligand); a component the dictionary types as peptide
    ///   or nucleotide linking, or the file states as modified, is a modified residue where it
    ///   sits in a chain with standard residues; any other residue bonded to a standard neighbour
    ///   as a chain continues (a peptide bond) is a cap; the rest are ions or ligands.
    /// The record type and `label_seq_id` decide nothing: PyMOL writes the author number into
    /// `label_seq_id` for every residue, MD tools write ions as ATOM, Mol* may leave out
    /// `group_PDB`.
    public mutating func classifyResidues() {
        guard !format.isSmallMolecule else {
            for m in models.indices { for r in models[m].residues.indices { models[m].residues[r].kind = .ligand } }
            return
        }
        var entityType: [String: EntityClass] = [:]
        for e in entities { entityType[e.id] = EntityClass(e.type) }
        var names = ResidueNameFacts(stated: statedModifications)
        for m in models.indices { models[m].classifyChains(entities: entityType, names: &names) }
    }
}

extension Model {
    /// Classifies the residues `unknown` marks (a model stored before residues had kinds) as a
    /// file with no entity tables would be; the others keep theirs, and every residue its
    /// stored parent.
    public mutating func classifyResidues(where unknown: [Bool]) {
        guard unknown.contains(true) else { return }
        var names = ResidueNameFacts(stated: [:])
        classifyChains(entities: [:], names: &names, only: unknown, settingParents: false)
    }

    /// Each residue's kind (and, with `settingParents`, its parent), chain by chain: the pass
    /// both classifications make. `only`: the residues to classify, where not all.
    mutating func classifyChains(entities: [String: EntityClass], names: inout ResidueNameFacts, only: [Bool]? = nil,
                                 settingParents: Bool = true) {
        var lastEntity: (id: String, type: EntityClass?)?
        for chain in chains {
            // Consecutive chains often share an entity (waters, copies of a ligand).
            let stated: EntityClass?
            if let lastEntity, lastEntity.id == chain.entity { stated = lastEntity.type } else {
                stated = chain.entity.isEmpty ? nil : entities[chain.entity]
                lastEntity = (chain.entity, stated)
            }
            let hasStandard = chain.residues.contains { names[residues[Int($0)].name].standardLike }
            for r in chain.residues where only.map({ Int(r) < $0.count && $0[Int(r)] }) ?? true {
                // A bead is what its reader made it (its name is a residue's of the run it stands for).
                if residues[Int(r)].kind == .coarse { continue }
                let (kind, parent) = classify(Int(r), in: chain, entity: stated, chainHasStandard: hasStandard, names: &names)
                residues[Int(r)].kind = kind
                if settingParents { residues[Int(r)].parent = parent }
            }
        }
    }
}

/// An entity's `_entity.type` (PDB COMPND's are polymers), as classification reads it.
enum EntityClass {
    case polymer, branched, nonPolymer, water, other

    init(_ type: String) {
        switch type.lowercased() {
        case "polymer": self = .polymer
        case "branched": self = .branched
        case "non-polymer": self = .nonPolymer
        case "water": self = .water
        default: self = .other
        }
    }
}

/// What a residue name says, looked up once a name in a classification pass (the tables are
/// hashed; a file has a few dozen names and thousands of residues).
struct ResidueNameFacts {
    struct Facts {
        var water = false, dummy = false, standard = false, stated = false
        /// A water model's name that is also a ligand's (TP3): a water where the residue is one.
        var modelWater = false
        var simulated: ShortName?
        var modification: ShortName?
        var type = ComponentType.nonPolymer
        /// A standard residue's name, or one an MD engine gives a standard residue.
        var standardLike: Bool { standard || simulated != nil }
    }

    let stated: [ShortName: ShortName]
    private var known: [ShortName: Facts] = [:]
    /// The last name asked for: consecutive residues often share theirs.
    private var last: (ShortName, Facts)?

    init(stated: [ShortName: ShortName]) { self.stated = stated }

    subscript(name: ShortName) -> Facts {
        mutating get {
            if let last, last.0 == name { return last.1 }
            let facts = known[name] ?? {
                var f = Facts()
                f.water = Residue.waterNames.contains(name)
                f.modelWater = Residue.modelWaterNames.contains(name)
                f.dummy = Residue.dummyNames.contains(name)
                f.standard = ResidueLetters.isStandard(name)
                if !f.standard {
                    f.simulated = Residue.simulationNames[name]
                    f.stated = stated[name] != nil
                    f.modification = stated[name] ?? ResidueLetters.parent(of: name)
                    f.type = ComponentType.of(name)
                }
                known[name] = f
                return f
            }()
            last = (name, facts)
            return facts
        }
    }
}

extension Model {
    /// Residue `r`'s kind and parent (see `Structure.classifyResidues`).
    func classify(_ r: Int, in chain: Chain, entity: EntityClass?, chainHasStandard: Bool,
                  names: inout ResidueNameFacts) -> (ResidueKind, ShortName) {
        let residue = residues[r]
        let name = residue.name
        let facts = names[name]
        if facts.water || entity == .water { return (.water, .empty) }
        if facts.modelWater && isWaterMolecule(r) { return (.water, .empty) }
        if facts.dummy { return (.dummy, .empty) }
        func smallMolecule() -> (ResidueKind, ShortName) { (isIon(r) ? .ion : .ligand, .empty) }
        switch entity {
        case .polymer?:
            if facts.standard {
                // A PDB file's COMPND polymer chain holds its free amino acids too (3EMS's four
                // arginines in HETATM records, bonded to nothing): ligands, as with no entity.
                if residue.isHetero && residue.labelSeq == 0 && !linksNeighbour(r, in: chain) { return smallMolecule() }
                return (.polymer, .empty)
            }
            if let simulated = facts.simulated { return (.polymer, simulated) }
            // Entries remediated before 2020 typed oligosaccharides as polymers (3PQR's
            // 'SUGAR (4-MER)'), their sugars outside any sequence: carbohydrates, as branched.
            if facts.type == .saccharide && residue.labelSeq == 0 { return (.branched, .empty) }
            // A PDB file's COMPND names the author chain polymer, ligands and all: a component
            // the dictionary calls no polymer's, in HETATM records, named by no MODRES and joined
            // to neither neighbour by a peptide bond, is a ligand of that chain (1VSN's NFT,
            // bonded to Cys25's SG only: a covalent inhibitor, not a residue of the chain).
            if facts.type == .nonPolymer && residue.isHetero && !facts.stated && !linksNeighbour(r, in: chain) { return smallMolecule() }
            return (.modified, facts.modification ?? name)
        case .branched?:
            return (.branched, .empty)
        case .nonPolymer?:
            return smallMolecule()
        default:
            break
        }
        if facts.standard {
            // A free amino acid or nucleotide (a ligand in HETATM records, bonded to no neighbour).
            if residue.isHetero && !linksNeighbour(r, in: chain) { return smallMolecule() }
            return (.polymer, .empty)
        }
        if let simulated = facts.simulated { return (.polymer, simulated) }
        if chainHasStandard {
            if let modification = facts.modification, facts.type == .peptide || facts.type == .nucleotide || facts.stated {
                return (.modified, modification)
            }
            // A cap (ACE, NH2, NME) or another group of the chain with no parent: its own parent,
            // so it stays with the chain and is no ligand.
            if facts.type != .saccharide && linksNeighbour(r, in: chain) { return (.modified, name) }
        }
        return smallMolecule()
    }

    /// A residue whose one heavy atom is an oxygen (the rest hydrogens or a water model's
    /// massless sites, element unknown): a water whatever its name.
    func isWaterMolecule(_ r: Int) -> Bool {
        var oxygens = 0
        for i in residues[r].atoms {
            let e = atoms[Int(i)].element
            if e.atomicNumber == 8 { oxygens += 1 } else if !e.isHydrogen && e != .unknown { return false }
        }
        return oxygens == 1
    }

    /// A residue of one atom of a metal or a halogen.
    func isIon(_ r: Int) -> Bool {
        let range = residues[r].atoms
        var heavy: Element?
        for i in range where !atoms[Int(i)].element.isHydrogen {
            if heavy != nil { return false }
            heavy = atoms[Int(i)].element
        }
        guard let heavy else { return false }
        return heavy.isMetal || [9, 17, 35, 53].contains(heavy.atomicNumber)
    }
}

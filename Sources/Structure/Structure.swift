/// A structure as read from one file: metadata and one or more models.
/// The hierarchy is gemmi's (Structure > Model > Chain > Residue > Atom), but each level is a
/// contiguous array of plain values and a parent holds index ranges into the next.
public struct Structure: Sendable {
    public enum Format: String, Sendable, CaseIterable {
        case pdb, mmcif, sdf, mol2, xyz, pqr
        /// Small-molecule formats have no chains or residues of their own.
        public var isSmallMolecule: Bool { self == .sdf || self == .mol2 || self == .xyz }
    }

    public var format: Format
    public var metadata = Metadata()
    public var models: [Model] = []
    /// Bond templates the file carries itself (mmCIF `_chem_comp_bond`); they win over the dictionary's.
    public var embeddedTemplates: [ShortName: ComponentTemplate] = [:]
    /// Helices and strands the file states (PDB HELIX and SHEET, mmCIF `_struct_conf` and
    /// `_struct_sheet_range`), for every model.
    public var secondaryStructure: [SecondaryStructureRange] = []
    /// The molecules the entry is made of (mmCIF `_entity`, PDB COMPND MOL_ID), in the file's order.
    public var entities: [Entity] = []
    /// The biological assemblies the file declares (mmCIF `_pdbx_struct_assembly`, PDB REMARK 350).
    public var assemblies: [Assembly] = []
    /// Chemical names of components by residue name (mmCIF `_chem_comp.name`, PDB HETNAM).
    public var componentNames: [String: String] = [:]
    /// Residue names the file says are modified polymer residues, with their parents (MODRES,
    /// `_pdbx_struct_mod_residue`).
    public var statedModifications: [ShortName: ShortName] = [:]
    /// Atom records of alternate locations the reading rule left out (`AltLocChoice`), over every model.
    public var alternatesLeftAside = 0

    public init(format: Format) { self.format = format }
}

/// One molecule of an entry: a polymer (its chains share one sequence), a ligand, water.
public struct Entity: Sendable, Equatable, Codable {
    public var id: String
    /// `polymer`, `non-polymer`, `branched`, `water` (mmCIF `_entity.type`).
    public var type: String
    public var description: String
    /// `polypeptide(L)`, `polyribonucleotide`, ... for polymers (`_entity_poly.type`).
    public var polymerType: String?
    /// One-letter sequence including residues not observed (`_entity_poly.pdbx_seq_one_letter_code_can`, SEQRES).
    public var sequence: String?
    /// The chains of the entity by label id (mmCIF `label_asym_id`; PDB files: the author id).
    public var chains: [String]

    public init(id: String, type: String, description: String, polymerType: String? = nil, sequence: String? = nil, chains: [String] = []) {
        self.id = id
        self.type = type
        self.description = description
        self.polymerType = polymerType
        self.sequence = sequence
        self.chains = chains
    }
}

/// A biological assembly: which chains, moved by which operators.
public struct Assembly: Sendable, Equatable {
    public struct Generator: Sendable, Equatable {
        /// Each element one copy: the operators applied right to left (`(1-60)(61-88)` gives
        /// every pair, the second applied first, as mmCIF defines a product).
        public var operators: [[String]]
        /// Chains by label id (mmCIF `asym_id_list`) or, for PDB REMARK 350, author id.
        public var chains: [String]
        public init(operators: [[String]], chains: [String]) {
            self.operators = operators
            self.chains = chains
        }
    }

    public var id: String
    public var details: String
    public var generators: [Generator]
    /// Operators by name: a 3x4 matrix, row-major (rotation then translation column).
    public var operators: [String: Operator]
    /// True when the generators name chains by author id (PDB REMARK 350).
    public var byAuthorChain: Bool
    /// Why it cannot be built (an operator expression or operator the file gets wrong); nil when it can.
    public var problem: String?

    public init(id: String, details: String, generators: [Generator], operators: [String: Operator], byAuthorChain: Bool = false) {
        self.id = id
        self.details = details
        self.generators = generators
        self.operators = operators
        self.byAuthorChain = byAuthorChain
    }

    /// A rigid motion: `rotation * p + translation` (doubles, as the files state them).
    public struct Operator: Sendable, Equatable {
        public var rotation: [Double]  // 9, row-major
        public var translation: [Double]  // 3
        public init(rotation: [Double], translation: [Double]) {
            self.rotation = rotation
            self.translation = translation
        }
        public static let identity = Operator(rotation: [1, 0, 0, 0, 1, 0, 0, 0, 1], translation: [0, 0, 0])
        public var isIdentity: Bool {
            zip(rotation, Operator.identity.rotation).allSatisfy { abs($0 - $1) < 1e-6 } && translation.allSatisfy { abs($0) < 1e-6 }
        }
        /// `self` after `other`: p -> self(other(p)).
        public func after(_ other: Operator) -> Operator {
            var r = [Double](repeating: 0, count: 9), t = [Double](repeating: 0, count: 3)
            for i in 0..<3 {
                for j in 0..<3 { r[i * 3 + j] = (0..<3).reduce(0) { $0 + rotation[i * 3 + $1] * other.rotation[$1 * 3 + j] } }
                t[i] = (0..<3).reduce(translation[i]) { $0 + rotation[i * 3 + $1] * other.translation[$1] }
            }
            return Operator(rotation: r, translation: t)
        }
        public func apply(_ p: SIMD3<Float>) -> SIMD3<Float> {
            let x = Double(p.x), y = Double(p.y), z = Double(p.z)
            return SIMD3(Float(rotation[0] * x + rotation[1] * y + rotation[2] * z + translation[0]),
                         Float(rotation[3] * x + rotation[4] * y + rotation[5] * z + translation[1]),
                         Float(rotation[6] * x + rotation[7] * y + rotation[8] * z + translation[2]))
        }
    }
}

public struct Metadata: Sendable, Equatable {
    public var id = ""
    public var title = ""
    public var classification = ""
    public var method = ""
    /// Resolution in angstroms, where the file states one.
    public var resolution: Float?
    public var compound = ""
    public var source = ""
    /// As the file lists them (PDB `AUTHOR`, mmCIF `_audit_author.name`), joined with ", ".
    public var authors = ""
    /// PDB `KEYWDS`, mmCIF `_struct_keywords.text`.
    public var keywords = ""
    /// A predicted model whose B-factor column holds per-residue confidence, pLDDT (ModelCIF's
    /// `_ma_qa_metric` names a local pLDDT metric, as AlphaFold DB's files do).
    public var predicted = false
    /// EMDB entries (EMD-NNNN) of the maps the model relates to, the one it was fitted to first
    /// (mmCIF `_pdbx_database_related` with `db_name` EMDB, its "associated EM volume" first;
    /// PDB `REMARK 900 RELATED ID: EMD-NNNN RELATED DB: EMDB`).
    public var relatedMaps: [String] = []
    public init() {}
}

public struct Atom: Sendable, Equatable {
    public var position: SIMD3<Float>
    public var occupancy: Float
    public var bFactor: Float
    public var serial: Int32
    public var residue: Int32
    public var name: ShortName
    public var element: Element
    /// Alternate location id, 0 when the atom has none.
    public var altLoc: UInt8
    public var charge: Int8

    public init(position: SIMD3<Float>, occupancy: Float = 1, bFactor: Float = 0, serial: Int32 = 0, residue: Int32 = 0,
                name: ShortName, element: Element, altLoc: UInt8 = 0, charge: Int8 = 0) {
        self.position = position
        self.occupancy = occupancy
        self.bFactor = bFactor
        self.serial = serial
        self.residue = residue
        self.name = name
        self.element = element
        self.altLoc = altLoc
        self.charge = charge
    }
}

public struct Residue: Sendable, Equatable {
    public var name: ShortName
    public var number: Int32
    public var insertionCode: UInt8
    public var isHetero: Bool
    /// What the residue is (`Structure.classifyResidues`, run by every reader). Declared here, in
    /// the padding before `chain`, so a residue stays 40 bytes.
    public var kind: ResidueKind = .polymer
    public var chain: Int32
    public var atoms: Range<Int32>
    /// mmCIF `label_seq_id`, the position in the entity's sequence; 0 for none (ligands, water, PDB files).
    public var labelSeq: Int32 = 0
    /// For a modified polymer residue, the standard residue it derives from (MSE: MET, PSU: U);
    /// empty for standard residues and ligands.
    public var parent: ShortName = .empty

    public init(name: ShortName, number: Int32, insertionCode: UInt8, isHetero: Bool, chain: Int32, atoms: Range<Int32>) {
        self.name = name
        self.number = number
        self.insertionCode = insertionCode
        self.isHetero = isHetero
        self.chain = chain
        self.atoms = atoms
    }

    public var isWater: Bool { kind == .water }
    /// A modified residue of a polymer chain (it stays in the chain's cartoon and sequence).
    public var isModified: Bool { kind == .modified }
    /// A small molecule, an ion or a carbohydrate: not water and not part of a polymer.
    public var isLigand: Bool { kind.isLigand }
    /// A residue of a polymer chain, standard or modified.
    public var inPolymer: Bool { kind.inPolymer }
    /// The standard residue name this one reads as: its parent for a modified residue.
    public var standardName: ShortName { parent.isEmpty ? name : parent }

    /// Water models' names that are also the Chemical Component Dictionary's for other molecules
    /// (TP3, TP4, TP5, OPC are ligands of PDB entries): a water only where the residue is one
    /// (`ResidueKind`: one oxygen and hydrogens or virtual sites), as CHARMM-GUI's AMBER systems write TIP3P.
    static let modelWaterNames: Set<ShortName> = Set(["TP3", "TP4", "TP5", "OPC", "OPC3"].map { ShortName($0) })
    static let waterNames: Set<ShortName> = Set(["HOH", "WAT", "H2O", "DOD", "D2O", "SOL", "TIP", "TIP3", "TIP4", "TIP5", "T3P", "T4P", "SPC", "SPCE"].map { ShortName($0) })
}

/// A run of consecutive residues with one chain id. As in PDB files, one id may appear in
/// several runs (a protein chain, then its ligands, then its waters).
public struct Chain: Sendable, Equatable {
    public var id: String
    public var residues: Range<Int32>
    /// mmCIF `label_asym_id` (empty in PDB files): one per polymer, ligand or water group.
    public var labelID: String = ""
    /// mmCIF `label_entity_id` or PDB MOL_ID; empty when the file does not say.
    public var entity: String = ""
    /// In a built assembly, the copy this chain belongs to (1 for the first operator of the
    /// first gen row, counting on over rows) and the chain id as deposited; 0 and empty in a
    /// deposited model. Mol* and ChimeraX select and colour symmetry copies by these.
    public var copy: Int32 = 0
    public var depositedID: String = ""
    /// The operators that made the copy (`5`, `1x61`), empty in a deposited model.
    public var operatorName: String = ""

    public init(id: String, residues: Range<Int32>, labelID: String = "", entity: String = "") {
        self.id = id
        self.residues = residues
        self.labelID = labelID
        self.entity = entity
    }

    /// The chain id as deposited: `A` for A and for its copies A-2, A-5x61.
    public var deposited: String { depositedID.isEmpty ? id : depositedID }
}

public struct Bond: Sendable, Hashable {
    public enum Source: String, Sendable, CaseIterable {
        /// Stated by the file: CONECT, `_struct_conn`, an SDF or MOL2 bond block.
        case explicit
        /// From a Chemical Component Dictionary (or the file's own `_chem_comp_bond`) template.
        case template
        /// Peptide or phosphodiester link between consecutive residues.
        case polymer
        /// Covalent-radius distance rule.
        case distance
    }

    public var a: Int32
    public var b: Int32
    /// 1, 2 or 3; 0 when unknown.
    public var order: UInt8
    public var aromatic: Bool
    public var source: Source

    public init(_ a: Int32, _ b: Int32, order: UInt8 = 1, aromatic: Bool = false, source: Source) {
        self.a = min(a, b)
        self.b = max(a, b)
        self.order = order
        self.aromatic = aromatic
        self.source = source
    }
}

public struct Model: Sendable {
    public var number: Int
    public var atoms: [Atom] = []
    public var residues: [Residue] = []
    public var chains: [Chain] = []
    /// Bonds the file states (CONECT, `_struct_conn`, bond blocks).
    public var explicitBonds: [Bond] = []
    /// True when the explicit bonds are the whole bond graph (SDF, MOL2), so nothing is perceived.
    public var bondsAreComplete = false
    /// True when the explicit bonds name each pair of atoms once, as perception left them (a
    /// model the library stored): with `bondsAreComplete`, they are the bonds as they are.
    public var bondsAreDistinct = false
    /// Radii per atom in angstroms where the file states them (PQR); spacefill draws them.
    public var radii: [Float]?
    /// In a built assembly with point symmetry, an axis for each fold (2, 3, 5) its operators
    /// turn about (`SymmetryAxes`): the views `--view 5fold` and the like look down them.
    public var symmetryAxes: [Int: SIMD3<Float>] = [:]

    public init(number: Int) { self.number = number }
}

extension Model {
    /// What is wrong with the model's cross-references, nil where they hold: each atom's residue
    /// is one of its residues (where it has any), each residue's atoms and each chain's residues
    /// lie within theirs, each residue's chain is one of its chains (where it has any), each
    /// bond joins two of its atoms, and radii, where given, are one an atom.
    public var referenceProblem: String? {
        let atomCount = atoms.count, residueCount = residues.count, chainCount = chains.count
        if residueCount > 0 {
            for (i, atom) in atoms.enumerated() where atom.residue < 0 || Int(atom.residue) >= residueCount {
                return "atom \(i) names residue \(atom.residue) of \(residueCount)"
            }
        }
        for (i, residue) in residues.enumerated() {
            if residue.atoms.lowerBound < 0 || Int(residue.atoms.upperBound) > atomCount {
                return "residue \(i) holds atoms \(residue.atoms) of \(atomCount)"
            }
            if chainCount > 0 && (residue.chain < 0 || Int(residue.chain) >= chainCount) {
                return "residue \(i) names chain \(residue.chain) of \(chainCount)"
            }
        }
        for (i, chain) in chains.enumerated() where chain.residues.lowerBound < 0 || Int(chain.residues.upperBound) > residueCount {
            return "chain \(i) holds residues \(chain.residues) of \(residueCount)"
        }
        for (i, bond) in explicitBonds.enumerated() where bond.a < 0 || bond.b < 0 || Int(bond.a) >= atomCount || Int(bond.b) >= atomCount {
            return "bond \(i) joins atoms \(bond.a) and \(bond.b) of \(atomCount)"
        }
        if let radii, radii.count != atomCount { return "\(radii.count) radii for \(atomCount) atoms" }
        return nil
    }

    /// For each atom, whether it belongs to the default conformer: no alternate location, or
    /// the first one its residue lists (ties broken by order, as PyMOL and gemmi do).
    /// Consecutive residues with one chain, number and insertion code (microheterogeneity: two
    /// residue names at one position, each an alternate location) are one residue here, as in
    /// gemmi and biotite.
    public func defaultConformerMask() -> [Bool] { conformerMask(.first) }
}

extension Metadata {
    /// An EMDB accession as EMDB writes it (EMD-8249), from "EMD-8249", "emd_8249" or "8249"; nil
    /// where it is not one (4 to 8 digits).
    public static func emdbID(_ text: String) -> String? {
        var t = Substring(text.trimmingCharacters(in: .whitespaces).uppercased())
        if t.hasPrefix("EMD-") || t.hasPrefix("EMD_") { t = t.dropFirst(4) }
        guard (4...8).contains(t.count), t.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return "EMD-" + t
    }
}

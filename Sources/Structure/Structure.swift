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

    public init(format: Format) { self.format = format }
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
    public var chain: Int32
    public var atoms: Range<Int32>

    public init(name: ShortName, number: Int32, insertionCode: UInt8, isHetero: Bool, chain: Int32, atoms: Range<Int32>) {
        self.name = name
        self.number = number
        self.insertionCode = insertionCode
        self.isHetero = isHetero
        self.chain = chain
        self.atoms = atoms
    }

    public var isWater: Bool { Residue.waterNames.contains(name) }

    static let waterNames: Set<ShortName> = Set(["HOH", "WAT", "H2O", "DOD", "D2O", "SOL", "TIP", "TIP3", "TIP4", "SPC"].map { ShortName($0) })
}

/// A run of consecutive residues with one chain id. As in PDB files, one id may appear in
/// several runs (a protein chain, then its ligands, then its waters).
public struct Chain: Sendable, Equatable {
    public var id: String
    public var residues: Range<Int32>

    public init(id: String, residues: Range<Int32>) {
        self.id = id
        self.residues = residues
    }
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
    /// Radii per atom in angstroms where the file states them (PQR); spacefill draws them.
    public var radii: [Float]?

    public init(number: Int) { self.number = number }
}

extension Model {
    /// For each atom, whether it belongs to the default conformer: no alternate location, or
    /// the first one its residue lists (ties broken by order, as PyMOL and gemmi do).
    public func defaultConformerMask() -> [Bool] {
        var mask = [Bool](repeating: true, count: atoms.count)
        for residue in residues {
            var first: UInt8 = 0
            for i in Int(residue.atoms.lowerBound)..<Int(residue.atoms.upperBound) {
                let alt = atoms[i].altLoc
                if alt == 0 { continue }
                if first == 0 { first = alt }
                mask[i] = alt == first
            }
        }
        return mask
    }
}

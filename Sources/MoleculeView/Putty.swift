import Structure

/// PyMOL's `cartoon putty`, pdb-images' B-factor view: the cartoon's backbone curve as one tube
/// whose radius follows each residue's B-factor (thick where the structure is uncertain), helices
/// and strands drawn as tube too, no bases. Residues a cartoon cannot show are ball-and-stick, as
/// in `Cartoon`.
public struct Putty: Representation {
    public static let name = "putty"
    public static let usesBonds = true
    let cartoon: Cartoon

    public init() { cartoon = Cartoon(Cartoon(), putty: true) }

    public static func bondedAtoms(_ model: Model, visible: [Bool]) -> [Bool]? { Cartoon.bondedAtoms(model, visible: visible) }

    public init(pixelsPerÅngström scale: Float) {
        cartoon = Cartoon(Cartoon(pixelsPerÅngström: scale), putty: true)
    }

    public static func make(pixelsPerÅngström: Float?) -> Putty {
        pixelsPerÅngström.map { Putty(pixelsPerÅngström: $0) } ?? Putty()
    }

    public func geometry(of model: Model, bonds: [Bond], visible: [Bool], elements: ElementTable) -> MoleculeGeometry {
        cartoon.geometry(of: model, bonds: bonds, visible: visible, elements: elements, secondaryStructure: [])
    }

    public func geometry(of model: Model, bonds: [Bond], visible: [Bool], elements: ElementTable,
                         secondaryStructure ranges: [SecondaryStructureRange]) -> MoleculeGeometry {
        cartoon.geometry(of: model, bonds: bonds, visible: visible, elements: elements, secondaryStructure: ranges)
    }
}

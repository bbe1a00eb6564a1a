import Structure

/// Atoms as van der Waals spheres.
public struct Spacefill: Representation {
    public static let name = "spacefill"
    public static let usesBonds = false

    public init() {}

    public func geometry(of model: Model, bonds: [Bond], visible: [Bool], elements: ElementTable) -> MoleculeGeometry {
        MoleculeGeometry(atomsOf: model, visible: visible) { elements.vanDerWaalsRadius($0) }
    }
}

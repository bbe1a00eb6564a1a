import Structure

/// Bonds as cylinders of one radius with a sphere of the same radius at every atom, so that they
/// join smoothly (PyMOL's sticks, Jmol's licorice); `Lines` is the thin kind. Atoms without bonds
/// (ions, waters) stay visible as small spheres.
public protocol StickRepresentation: Representation {
    static var radius: Float { get }
}

extension StickRepresentation {
    public static var usesBonds: Bool { true }

    public func geometry(of model: Model, bonds: [Bond], visible: [Bool], elements: ElementTable) -> MoleculeGeometry {
        let r = Self.radius
        var g = MoleculeGeometry(atomsOf: model, visible: visible) { _ in r }
        g.cylinders.reserveCapacity(bonds.count * 8)
        g.cylinderRadii.reserveCapacity(bonds.count)
        // A cylinder's end lies inside its atom's sphere, of the same radius or more: nothing hidden to trim.
        BondOrders.addBonds(&g, model: model, bonds: bonds, visible: visible, radius: r) { _, _, _ in 0 }
        return g
    }
}

/// Sticks of 0.25 Å, as PyMOL draws them.
public struct Sticks: StickRepresentation {
    public static let name = "sticks"
    public static let radius: Float = 0.25
    public init() {}
}

/// Thin lines of 0.08 Å, the wireframe of PyMOL's and Jmol's defaults, shaded as tubes.
public struct Lines: StickRepresentation {
    public static let name = "lines"
    public static let radius: Float = 0.08
    public init() {}
}

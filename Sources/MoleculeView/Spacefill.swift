import Structure

/// Atoms as van der Waals spheres (of the radii the file states, where it states them).
public struct Spacefill: Representation {
    public static let name = "spacefill"
    public static let usesBonds = false

    public init() {}

    public func geometry(of model: Model, bonds: [Bond], visible: [Bool], elements: ElementTable) -> MoleculeGeometry {
        var g = MoleculeGeometry(atomsOf: model, visible: visible) { elements.vanDerWaalsRadius($0) }
        if let radii = model.radii, radii.count == model.atoms.count {
            // Radii the file states (PQR), where they are sensible; hydrogens at 0 keep the element's.
            for (k, atom) in g.sphereAtoms.enumerated() where radii[Int(atom)] > 0.1 && radii[Int(atom)] < 10 {
                g.spheres[k * 4 + 3] = radii[Int(atom)]
            }
        }
        return g
    }
}

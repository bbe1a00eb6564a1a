import Structure

/// Atoms as spheres at a quarter of their van der Waals radius, bonds as cylinders split at the
/// midpoint, each half in its atom's color.
public struct BallAndStick: Representation {
    public static let name = "ball-and-stick"
    public static let usesBonds = true
    public static let sphereScale: Float = 0.25
    public static let bondRadius: Float = 0.15

    public init() {}

    public func geometry(of model: Model, bonds: [Bond], visible: [Bool], elements: ElementTable) -> MoleculeGeometry {
        var g = MoleculeGeometry(atomsOf: model, visible: visible) { elements.vanDerWaalsRadius($0) * BallAndStick.sphereScale }
        g.cylinders.reserveCapacity(bonds.count * 8)
        g.cylinderRadii.reserveCapacity(bonds.count)
        let r = BallAndStick.bondRadius
        func hidden(_ atom: Int32) -> Float {
            // Where the bond's surface leaves the sphere, less a little so no seam can open.
            let s = elements.vanDerWaalsRadius(model.atoms[Int(atom)].element) * BallAndStick.sphereScale
            return max(0, (max(s * s - r * r, 0)).squareRoot() - 0.02)
        }
        for bond in bonds where visible[Int(bond.a)] && visible[Int(bond.b)] {
            g.addCylinder(bond.a, model.atoms[Int(bond.a)].position, hidden: hidden(bond.a),
                          bond.b, model.atoms[Int(bond.b)].position, hidden: hidden(bond.b), radius: r)
        }
        return g
    }
}

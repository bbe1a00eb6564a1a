import Structure

/// Atoms as spheres at a quarter of their van der Waals radius, bonds as cylinders split at the
/// midpoint, each half in its atom's color; double, triple and aromatic bonds as `BondOrders` draws them.
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
        // Where a cylinder's surface (`offset` off the bond's axis, of `radius`) leaves the
        // sphere, less a little so no seam can open.
        BondOrders.addBonds(&g, model: model, bonds: bonds, visible: visible, radius: r) { atom, offset, radius in
            let s = elements.vanDerWaalsRadius(model.atoms[Int(atom)].element) * BallAndStick.sphereScale
            let edge = offset + radius
            return max(0, (max(s * s - edge * edge, 0)).squareRoot() - 0.02)
        }
        return g
    }
}

import Structure

/// What a representation draws, ready for the GPU: spheres and cylinders with their colors.
/// Built once per structure, mode and visibility; colors are a separate array so that a new
/// color theme only replaces them, and a new camera changes nothing here.
public struct MoleculeGeometry: Sendable {
    /// x, y, z, radius per sphere.
    public var spheres: [Float] = []
    /// The atom each sphere stands for.
    public var sphereAtoms: [Int32] = []
    /// ax, ay, az, hidden length at a, bx, by, bz, hidden length at b, per cylinder (a bond): the
    /// hidden lengths are how far the bond runs inside each atom's sphere.
    public var cylinders: [Float] = []
    /// One radius for all cylinders.
    public var cylinderRadius: Float = 0
    /// The two atoms of each cylinder; each half takes its atom's color.
    public var cylinderAtoms: [Int32] = []

    public init() {}

    /// A sphere for each visible atom, of the radius its element is given.
    public init(atomsOf model: Model, visible: [Bool], radius: (Element) -> Float) {
        spheres.reserveCapacity(model.atoms.count * 4)
        for (i, atom) in model.atoms.enumerated() where visible[i] {
            let p = atom.position
            spheres += [p.x, p.y, p.z, radius(atom.element)]
            sphereAtoms.append(Int32(i))
        }
    }

    public var sphereCount: Int { sphereAtoms.count }

    /// The median radius of `spheres` (x, y, z, r each), 0 for none: the size drawing and culling
    /// are tuned to.
    static func medianRadius(_ spheres: [Float]) -> Float {
        var radii = stride(from: 3, to: spheres.count, by: 4).map { spheres[$0] }
        radii.sort()
        return radii.isEmpty ? 0 : radii[radii.count / 2]
    }
    public var cylinderCount: Int { cylinderAtoms.count / 2 }

    /// The smallest sphere about the bounding box's center that holds every sphere whole.
    public func boundingSphere() -> (center: SIMD3<Float>, radius: Float) {
        guard !sphereAtoms.isEmpty else { return (.zero, 1) }
        var lo = SIMD3<Float>(repeating: .greatestFiniteMagnitude), hi = -lo
        for i in 0..<sphereCount {
            let p = SIMD3(spheres[i * 4], spheres[i * 4 + 1], spheres[i * 4 + 2])
            lo = pointwiseMin(lo, p)
            hi = pointwiseMax(hi, p)
        }
        let center = (lo + hi) / 2
        var radius: Float = 0
        for i in 0..<sphereCount {
            let d = SIMD3(spheres[i * 4], spheres[i * 4 + 1], spheres[i * 4 + 2]) - center
            radius = max(radius, (d * d).sum().squareRoot() + spheres[i * 4 + 3])
        }
        return (center, radius)
    }
}

/// Which atoms are drawn.
public struct AtomFilter: Sendable, Equatable {
    public var hydrogens = false
    public var waters = false
    public init(hydrogens: Bool = false, waters: Bool = false) {
        self.hydrogens = hydrogens
        self.waters = waters
    }

    /// Visible atoms of `model`: the default conformer, less hydrogens and waters unless asked for.
    public func visible(_ model: Model) -> [Bool] {
        var mask = model.defaultConformerMask()
        for (i, atom) in model.atoms.enumerated() where mask[i] {
            if !hydrogens && atom.element.isHydrogen { mask[i] = false }
            if !waters && model.residues[Int(atom.residue)].isWater { mask[i] = false }
        }
        return mask
    }
}

/// A way of drawing a molecule. A new one is one type and one line in `Representations.all`.
public protocol Representation: Sendable {
    static var name: String { get }
    /// Whether its geometry draws bonds (so they must be perceived first).
    static var usesBonds: Bool { get }
    init()
    func geometry(of model: Model, bonds: [Bond], visible: [Bool], elements: ElementTable) -> MoleculeGeometry
}

public enum Representations {
    public static let all: [any Representation.Type] = [BallAndStick.self, Spacefill.self]

    public static func named(_ name: String) -> (any Representation.Type)? {
        all.first { $0.name == name }
    }

    public static var names: [String] { all.map { $0.name } }
}

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
        g.cylinderRadius = BallAndStick.bondRadius
        let r = BallAndStick.bondRadius
        func hidden(_ atom: Int32) -> Float {
            // Where the bond's surface leaves the sphere, less a little so no seam can open.
            let s = elements.vanDerWaalsRadius(model.atoms[Int(atom)].element) * BallAndStick.sphereScale
            return max(0, (max(s * s - r * r, 0)).squareRoot() - 0.02)
        }
        for bond in bonds where visible[Int(bond.a)] && visible[Int(bond.b)] {
            let a = model.atoms[Int(bond.a)].position, b = model.atoms[Int(bond.b)].position
            g.cylinders += [a.x, a.y, a.z, hidden(bond.a), b.x, b.y, b.z, hidden(bond.b)]
            g.cylinderAtoms += [bond.a, bond.b]
        }
        return g
    }
}

/// Atoms as van der Waals spheres.
public struct Spacefill: Representation {
    public static let name = "spacefill"
    public static let usesBonds = false

    public init() {}

    public func geometry(of model: Model, bonds: [Bond], visible: [Bool], elements: ElementTable) -> MoleculeGeometry {
        MoleculeGeometry(atomsOf: model, visible: visible) { elements.vanDerWaalsRadius($0) }
    }
}

import Core
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
    /// The radius of each cylinder (a picture of several representations has several).
    public var cylinderRadii: [Float] = []
    /// The two atoms of each cylinder; each half takes its atom's color.
    public var cylinderAtoms: [Int32] = []
    /// Colors (0xRRGGBB) of each sphere and of each cylinder's two halves where the geometry
    /// carries its own (`hasOwnColors`: a picture of several representations, each in its own
    /// colors, its meshes colored already); otherwise they come from the atoms' colors.
    public var sphereColors: [UInt32] = []
    public var cylinderColors: [UInt32] = []
    public var hasOwnColors = false
    /// Triangle meshes (cartoons), colored per vertex by `Mesh.atoms`.
    public var meshes: [Mesh] = []

    /// What the picture's extent is fitted to: the spheres, and each mesh vertex as a point.
    public var extentSpheres: [Float] {
        guard !meshes.isEmpty else { return spheres }
        var out = spheres
        for m in meshes { for p in m.positions { out += [p.x, p.y, p.z, 0] } }
        return out
    }

    public init() {}

    /// A sphere for each visible atom, of the radius its element is given.
    public init(atomsOf model: Model, visible: [Bool], radius: (Element) -> Float) {
        spheres.reserveCapacity(model.atoms.count * 4)
        // An integrative model's beads are their stated radius in every representation.
        let beads = model.radii.flatMap { $0.count == model.atoms.count ? $0 : nil }
        for (i, atom) in model.atoms.enumerated() where visible[i] {
            let p = atom.position
            var r = radius(atom.element)
            if let beads, beads[i] > 0, model.residues[Int(atom.residue)].kind == .coarse { r = beads[i] }
            // One element at a time: an array literal here would be allocated for every atom.
            spheres.append(p.x); spheres.append(p.y); spheres.append(p.z); spheres.append(r)
            sphereAtoms.append(Int32(i))
        }
    }

    public var sphereCount: Int { sphereAtoms.count }

    /// The median radius of `spheres` (x, y, z, r each), 0 for none: the size drawing and culling
    /// are tuned to.
    public static func medianRadius(_ spheres: [Float]) -> Float {
        var radii = stride(from: 3, to: spheres.count, by: 4).map { spheres[$0] }
        guard !radii.isEmpty else { return 0 }
        // The element a sort would put in the middle, found without sorting (quickselect).
        let k = radii.count / 2
        var lo = 0, hi = radii.count - 1
        while lo < hi {
            let pivot = radii[(lo + hi) / 2]
            var i = lo, j = hi
            while i <= j {
                while radii[i] < pivot { i += 1 }
                while radii[j] > pivot { j -= 1 }
                if i <= j { radii.swapAt(i, j); i += 1; j -= 1 }
            }
            if k <= j { hi = j } else if k >= i { lo = i } else { break }
        }
        return radii[k]
    }
    public var cylinderCount: Int { cylinderAtoms.count / 2 }

    /// The thickest cylinder's radius, 0 for none.
    public var cylinderRadius: Float { cylinderRadii.max() ?? 0 }

    /// A cylinder from atom `a` to atom `b` (`hiddenA`, `hiddenB`: how far it runs inside each one's sphere).
    public mutating func addCylinder(_ a: Int32, _ pa: SIMD3<Float>, hidden hiddenA: Float, _ b: Int32, _ pb: SIMD3<Float>,
                                     hidden hiddenB: Float, radius: Float) {
        // One element at a time: array literals here would be allocated for every bond.
        cylinders.append(pa.x); cylinders.append(pa.y); cylinders.append(pa.z); cylinders.append(hiddenA)
        cylinders.append(pb.x); cylinders.append(pb.y); cylinders.append(pb.z); cylinders.append(hiddenB)
        cylinderAtoms.append(a); cylinderAtoms.append(b)
        cylinderRadii.append(radius)
    }

    /// The color of each sphere: its own, or its atom's from `atomColors`.
    public func colorsOfSpheres(_ atomColors: [UInt32]) -> [UInt32] {
        hasOwnColors ? sphereColors : sphereAtoms.map { atomColors[Int($0)] }
    }

    /// The colors of each cylinder's halves (two each): their own, or their atoms' from `atomColors`.
    public func colorsOfCylinders(_ atomColors: [UInt32]) -> [UInt32] {
        hasOwnColors ? cylinderColors : cylinderAtoms.map { atomColors[Int($0)] }
    }

    /// `other` drawn with this, each in its own colors: `atomColors` colors this one's spheres and
    /// cylinders where they have none of their own, `otherColors` the other's.
    public mutating func merge(_ other: MoleculeGeometry, atomColors: [UInt32], otherColors: [UInt32]) {
        sphereColors = colorsOfSpheres(atomColors) + other.colorsOfSpheres(otherColors)
        cylinderColors = colorsOfCylinders(atomColors) + other.colorsOfCylinders(otherColors)
        hasOwnColors = true
        spheres += other.spheres
        sphereAtoms += other.sphereAtoms
        cylinders += other.cylinders
        cylinderAtoms += other.cylinderAtoms
        cylinderRadii += other.cylinderRadii
        meshes += other.meshes
    }

    /// The smallest sphere about the bounding box's center that holds every sphere whole.
    public func boundingSphere() -> (center: SIMD3<Float>, radius: Float) {
        if !meshes.isEmpty {
            var all = MoleculeGeometry()
            all.spheres = extentSpheres
            all.sphereAtoms = [Int32](repeating: 0, count: all.spheres.count / 4)
            return all.boundingSphere()
        }
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
            radius = max(radius, d.length + spheres[i * 4 + 3])
        }
        return (center, radius)
    }
}

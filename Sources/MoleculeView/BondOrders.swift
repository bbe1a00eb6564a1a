import Core
import Scene
import Structure

/// Bonds drawn with their order, as Mol* and PyMOL's `valence` draw them: a double bond as two
/// thinner parallel cylinders and a triple as three, in the plane of the atoms' other bonds; an
/// aromatic bond as its full cylinder with a thin solid one inside the ring (the ring's inner
/// outline, the chemist's circle: dashes there read as interaction lines). Orders come from
/// the file (SDF, MOL2) or the Chemical Component Dictionary; bonds of unknown order (0, found by
/// distance) and single bonds are one cylinder.
enum BondOrders {
    /// Adds a cylinder (or several) for each visible bond of `bonds` to `g`, of `radius` for one
    /// cylinder; `hidden(atom, offset, radius)`: how far a cylinder `offset` off the bond's axis,
    /// of `radius`, runs inside `atom`'s sphere.
    static func addBonds(_ g: inout MoleculeGeometry, model: Model, bonds: [Bond], visible: [Bool], radius r: Float,
                         hidden: (Int32, Float, Float) -> Float) {
        let shown = bonds.filter { visible[Int($0.a)] && visible[Int($0.b)] }
        // Neighbours, only of the atoms of bonds with an order to draw (most of a protein's bonds
        // have none), as lists in one array in the bonds' order: the same sums, in the same order,
        // as a dictionary of arrays, without an array for every atom.
        let atomCount = model.atoms.count
        var needed = [Bool](repeating: false, count: atomCount)
        for b in shown where b.aromatic || b.order >= 2 {
            needed[Int(b.a)] = true
            needed[Int(b.b)] = true
        }
        let ordered = needed.contains(true)
        func adjacency(_ include: (Bond) -> Bool) -> (starts: [Int], atoms: [Int32]) {
            guard ordered else { return ([], []) }
            var starts = [Int](repeating: 0, count: atomCount + 1)
            for b in shown where include(b) {
                if needed[Int(b.a)] { starts[Int(b.a) + 1] += 1 }
                if needed[Int(b.b)] { starts[Int(b.b) + 1] += 1 }
            }
            for i in 0..<atomCount { starts[i + 1] += starts[i] }
            var next = starts, atoms = [Int32](repeating: 0, count: starts[atomCount])
            for b in shown where include(b) {
                if needed[Int(b.a)] { atoms[next[Int(b.a)]] = b.b; next[Int(b.a)] += 1 }
                if needed[Int(b.b)] { atoms[next[Int(b.b)]] = b.a; next[Int(b.b)] += 1 }
            }
            return (starts, atoms)
        }
        let all = adjacency { _ in true }, aromatic = adjacency { $0.aromatic }
        func around(_ list: (starts: [Int], atoms: [Int32]), _ a: Int32, _ b: Int32) -> [SIMD3<Float>] {
            var points: [SIMD3<Float>] = []
            for atom in [a, b] {
                for k in list.starts[Int(atom)]..<list.starts[Int(atom) + 1] where list.atoms[k] != a && list.atoms[k] != b {
                    points.append(model.atoms[Int(list.atoms[k])].position)
                }
            }
            return points
        }
        for bond in shown {
            let pa = model.atoms[Int(bond.a)].position, pb = model.atoms[Int(bond.b)].position
            guard ordered, bond.aromatic || bond.order >= 2 else {
                g.addCylinder(bond.a, pa, hidden: hidden(bond.a, 0, r), bond.b, pb, hidden: hidden(bond.b, 0, r), radius: r)
                continue
            }
            if bond.aromatic {
                g.addCylinder(bond.a, pa, hidden: hidden(bond.a, 0, r), bond.b, pb, hidden: hidden(bond.b, 0, r), radius: r)
                // The ring's inside: toward the other ring atoms next to this bond.
                let side = perpendicular(pa, pb, toward: around(aromatic, bond.a, bond.b))
                let dash = r * 0.4, offset = r + dash + max(0.05, r * 0.6)
                let axis = pb - pa
                // One line over the middle 70% of the bond, each half in the colour of its atom.
                g.addCylinder(bond.a, pa + axis * 0.15 + side * offset, hidden: 0, bond.b, pa + axis * 0.85 + side * offset, hidden: 0, radius: dash)
                continue
            }
            let side = perpendicular(pa, pb, toward: around(all, bond.a, bond.b))
            let thin = bond.order == 2 ? r * 0.55 : r * 0.45
            let spacing = thin * (bond.order == 2 ? 3 : 2.6)
            let offsets: [Float] = bond.order == 2 ? [-spacing / 2, spacing / 2] : [-spacing, 0, spacing]
            for o in offsets {
                let d = side * o
                g.addCylinder(bond.a, pa + d, hidden: hidden(bond.a, abs(o), thin), bond.b, pb + d, hidden: hidden(bond.b, abs(o), thin),
                              radius: thin)
            }
        }
    }

    /// A unit vector across the bond from `a` to `b`, in the plane of `points` (its neighbours)
    /// and toward their side; where they balance out, in the plane of the first that is off the
    /// bond's line; any perpendicular where none is.
    static func perpendicular(_ a: SIMD3<Float>, _ b: SIMD3<Float>, toward points: [SIMD3<Float>]) -> SIMD3<Float> {
        let axis = normalize(b - a)
        let middle = (a + b) / 2
        let across = points.map { p -> SIMD3<Float> in let d = p - middle; return d - axis * dot(d, axis) }
        let sum = across.reduce(SIMD3<Float>(repeating: 0), +)
        if length(sum) > 1e-3 { return normalize(sum) }
        if let off = across.first(where: { length($0) > 1e-3 }) { return normalize(off) }
        return Scene.perpendicular(axis)
    }
}

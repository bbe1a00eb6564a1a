import Core
import Scene
import Structure

/// A selection's interactions as geometry in the scene, as Mol* draws them: each a dashed tube in
/// its kind's colour (`Annotations.color`) between its two ends, so that a cartoon, a surface or an
/// atom in front hides it as it hides any atom, and the slab cuts it. A ring's end is its centre,
/// marked with a dot (pi-stacking centre to centre, cation-pi centre to the cation: one line, not a
/// fan to the ring's atoms); a water bridge runs through its water, marked with a ball in the
/// bridges' colour, as PLIP's PyMOL sessions mark it.
enum InteractionLines {
    /// The mesh's name.
    static let name = "interactions"
    /// Tube radius, dash and gap along it, Å.
    static let radius: Float = 0.09
    static let dash: Float = 0.3, gap: Float = 0.2
    /// The dot at a ring's centre and the ball on a bridge's water, Å (over its oxygen's ball-and-stick ball, 0.38 Å).
    static let ringDot: Float = 0.2, waterBall: Float = 0.42
    static let sides = 8

    static func mesh(_ found: [Interaction], model: Model) -> Mesh {
        var mesh = Mesh(name: name)
        let sphere = MoleculeMesh.icosphere(1)
        var dotted = Set<SIMD3<Float>>()
        func dot(_ p: SIMD3<Float>, radius r: Float, color: UInt32) {
            guard dotted.insert(p).inserted else { return }
            let base = UInt32(mesh.positions.count)
            for v in sphere.vertices {
                mesh.positions.append(p + v * r)
                mesh.normals.append(v)
                mesh.colors.append(color)
            }
            mesh.indices += sphere.indices.map { $0 + base }
        }
        func dashes(_ a: SIMD3<Float>, _ b: SIMD3<Float>, color: UInt32) {
            let d = b - a, length = d.length
            guard length > 1e-3 else { return }
            // Whole dashes from end to end, the gaps stretched to fit (a dash at each end).
            let count = max(1, Int(((length + gap) / (dash + gap)).rounded(.down)))
            let step = count > 1 ? (length - dash) / Float(count - 1) : 0
            let u = d / length
            let first = count > 1 ? Float(0) : (length - dash) / 2
            for k in 0..<count {
                let s = first + Float(k) * step
                MoleculeMesh.cylinder(&mesh, from: a + u * s, to: a + u * min(length, s + dash), radius: radius, sides: sides, color: color)
            }
        }
        for i in found {
            let c = Annotations.color(i.kind)
            if let w = i.water {
                let o = model.atoms[w].position
                dashes(i.point, o, color: c)
                dashes(o, i.partnerPoint, color: c)
                dot(o, radius: waterBall, color: c)
            } else {
                dashes(i.point, i.partnerPoint, color: c)
            }
            // A ring's end at its centre, marked.
            if i.atoms.count >= 5 && (i.kind == .pistacking || i.kind == .pication) { dot(i.point, radius: ringDot, color: c) }
            if i.partnerAtoms.count >= 5 && (i.kind == .pistacking || i.kind == .pication) { dot(i.partnerPoint, radius: ringDot, color: c) }
        }
        return mesh
    }
}

import Core
import Scene
import Structure

/// A triangle mesh with a normal and a color per vertex, in Ångström.
public struct Mesh: Sendable {
    public var name: String
    public var positions: [SIMD3<Float>] = []
    public var normals: [SIMD3<Float>] = []
    /// 0xRRGGBB per vertex.
    public var colors: [UInt32] = []
    /// Three a triangle, counterclockwise seen from outside.
    public var indices: [UInt32] = []
    /// The atom each vertex takes its color from, where a representation builds the mesh before
    /// colors are chosen (cartoons).
    public var atoms: [Int32] = []
    /// 1 opaque; less (a surface with `transparency`) is drawn blended over the opaque geometry.
    public var opacity: Float = 1
    /// Where given (two indices a line), the mesh is drawn as these lines, not as its triangles:
    /// a density map drawn as a mesh (its contours on the grid's planes).
    public var lines: [UInt32] = []
    /// Where colours are blended across atoms (surfaces): `Mesh.blendCount` atoms a vertex and
    /// their weights (summing to 1); empty where each vertex takes its one atom's colour.
    public var blendAtoms: [Int32] = []
    public var blendWeights: [Float] = []
    public static let blendCount = 3

    /// The colours the vertices are drawn in, packed as GL takes them and `SphereCaster` casts them
    /// (`MoleculeScene.packedColors`, the mesh's opacity in the alpha byte): each vertex's own where
    /// the mesh has one for every vertex, else its atom's from `atomColors`.
    public func packedDrawnColors(_ atomColors: [UInt32]) -> [UInt32] {
        MoleculeScene.packedColors(colors.count == positions.count ? colors : atoms.map { atomColors[Int($0)] }, opacity: opacity)
    }

    /// A colour a vertex from per-atom `atomColors`: blended where the mesh has weights, else its atom's.
    public func vertexColors(_ atomColors: [UInt32]) -> [UInt32] {
        let k = Mesh.blendCount
        guard blendAtoms.count == positions.count * k, blendWeights.count == blendAtoms.count else {
            return atoms.map { atomColors[Int($0)] }
        }
        var out = [UInt32](repeating: 0, count: positions.count)
        for v in 0..<positions.count {
            var r: Float = 0, g: Float = 0, b: Float = 0
            for j in 0..<k {
                let w = blendWeights[v * k + j]
                guard w > 0 else { continue }
                let c = atomColors[Int(blendAtoms[v * k + j])]
                r += w * Float(c >> 16 & 0xFF); g += w * Float(c >> 8 & 0xFF); b += w * Float(c & 0xFF)
            }
            out[v] = UInt32(min(255, r.rounded())) << 16 | UInt32(min(255, g.rounded())) << 8 | UInt32(min(255, b.rounded()))
        }
        return out
    }

    public init(name: String) { self.name = name }

    public var triangleCount: Int { indices.count / 3 }

    public var bounds: (min: SIMD3<Float>, max: SIMD3<Float>) {
        var lo = SIMD3<Float>(repeating: .greatestFiniteMagnitude), hi = -lo
        for p in positions {
            lo = pointwiseMin(lo, p)
            hi = pointwiseMax(hi, p)
        }
        return positions.isEmpty ? (.zero, .zero) : (lo, hi)
    }
}

/// What a molecule's picture draws as triangle meshes, for export: spheres as subdivided
/// icosahedra, bonds as cylinders split at their middle in the two atoms' colors (each trimmed
/// where it runs inside its atoms), one mesh per chain.
public enum MoleculeMesh {
    /// How finely spheres and cylinders are cut.
    public enum Detail: String, Sendable, CaseIterable {
        case auto, low, medium, high

        /// `auto`: medium up to 10,000 spheres and bonds, low past it (1ffk in ball-and-stick:
        /// 2.4 million vertices, not 5.4).
        func resolved(_ geometry: MoleculeGeometry) -> Detail {
            self != .auto ? self : geometry.sphereCount + geometry.cylinderCount <= 10_000 ? .medium : .low
        }

        /// Subdivisions of the icosahedron (12, 42, 162 vertices a sphere).
        var subdivisions: Int { self == .low ? 0 : self == .medium ? 1 : 2 }
        /// Sides of a cylinder.
        var sides: Int { self == .low ? 6 : self == .medium ? 10 : 16 }
    }

    /// One mesh per chain (in the model's order; "molecule" where the file has no chains).
    public static func meshes(_ prepared: PreparedMolecule, detail: Detail = .auto) -> [Mesh] {
        let model = prepared.model, g = prepared.geometry
        let detail = detail.resolved(g)
        // Each chain's mesh (chains of one id share it), found once a chain rather than once an atom.
        var names: [String] = []
        var index: [String: Int] = [:]
        let meshOfChain = model.residues.isEmpty ? [] : model.chains.map { chain -> Int in
            let name = chain.id.isEmpty ? "molecule" : "chain_\(chain.id)"
            if let k = index[name] { return k }
            index[name] = names.count
            names.append(name)
            return names.count - 1
        }
        if names.isEmpty { names = ["molecule"] }
        var chainOf = [Int](repeating: 0, count: model.atoms.count)
        if !model.residues.isEmpty {
            for (i, atom) in model.atoms.enumerated() { chainOf[i] = meshOfChain[Int(model.residues[Int(atom.residue)].chain)] }
        }
        var meshes = names.map { Mesh(name: $0) }
        let unit = icosphere(detail.subdivisions)
        // Room for each mesh's spheres at once, not grown (and copied) as they come.
        var spheresOf = [Int](repeating: 0, count: meshes.count)
        for s in 0..<g.sphereCount { spheresOf[chainOf[Int(g.sphereAtoms[s])]] += 1 }
        for k in meshes.indices where spheresOf[k] > 0 {
            meshes[k].positions.reserveCapacity(spheresOf[k] * unit.vertices.count)
            meshes[k].normals.reserveCapacity(spheresOf[k] * unit.vertices.count)
            meshes[k].colors.reserveCapacity(spheresOf[k] * unit.vertices.count)
            meshes[k].indices.reserveCapacity(spheresOf[k] * unit.indices.count)
        }
        let sphereColors = g.colorsOfSpheres(prepared.atomColors), cylinderColors = g.colorsOfCylinders(prepared.atomColors)
        for s in 0..<g.sphereCount {
            let atom = Int(g.sphereAtoms[s])
            let center = SIMD3(g.spheres[4 * s], g.spheres[4 * s + 1], g.spheres[4 * s + 2]), r = g.spheres[4 * s + 3]
            let color = sphereColors[s]
            let k = chainOf[atom]
            let base = UInt32(meshes[k].positions.count)
            for v in unit.vertices {
                meshes[k].positions.append(center + v * r)
                meshes[k].normals.append(v)
                meshes[k].colors.append(color)
            }
            for i in unit.indices { meshes[k].indices.append(i + base) }
        }
        for c in 0..<g.cylinderCount {
            let a = Int(g.cylinderAtoms[2 * c])
            let f = g.cylinders[(8 * c)..<(8 * c + 8)].map { $0 }
            let pa = SIMD3(f[0], f[1], f[2]), pb = SIMD3(f[4], f[5], f[6])
            let length = ((pb - pa) * (pb - pa)).sum().squareRoot()
            guard length > 1e-4 else { continue }
            let axis = (pb - pa) / length
            let start = pa + axis * min(f[3], length / 2), end = pb - axis * min(f[7], length / 2), middle = (pa + pb) / 2
            let k = chainOf[a]
            cylinder(&meshes[k], from: start, to: middle, radius: g.cylinderRadii[c], sides: detail.sides, color: cylinderColors[2 * c])
            cylinder(&meshes[k], from: middle, to: end, radius: g.cylinderRadii[c], sides: detail.sides, color: cylinderColors[2 * c + 1])
        }
        // Meshes the representation made itself (cartoons), colored as drawn.
        for var m in g.meshes where !m.indices.isEmpty {
            if m.colors.count != m.positions.count { m.colors = m.atoms.map { prepared.atomColors[Int($0)] } }
            meshes.append(m)
        }
        return meshes.filter { !$0.indices.isEmpty }
    }

    /// An open tube (its ends lie inside the atoms) from `a` to `b`.
    static func cylinder(_ mesh: inout Mesh, from a: SIMD3<Float>, to b: SIMD3<Float>, radius: Float, sides: Int, color: UInt32) {
        let d = b - a
        let length = d.length
        guard length > 1e-5 else { return }
        let axis = d / length
        let helper: SIMD3<Float> = abs(axis.x) < 0.9 ? SIMD3(1, 0, 0) : SIMD3(0, 1, 0)
        var u = cross(axis, helper)
        u /= u.length
        let v = cross(axis, u)
        let base = UInt32(mesh.positions.count)
        for k in 0..<sides {
            let angle = Float(k) * 2 * .pi / Float(sides)
            let n = u * cosine(angle) + v * sine(angle)
            for end in [a, b] {
                mesh.positions.append(end + n * radius)
                mesh.normals.append(n)
                mesh.colors.append(color)
            }
        }
        for k in 0..<sides {
            let i0 = base + UInt32(2 * k), i1 = base + UInt32(2 * ((k + 1) % sides))
            // (a_k, b_k) and (a_k+1, b_k+1): outward, counterclockwise.
            mesh.indices += [i0, i1, i0 + 1, i1, i1 + 1, i0 + 1]
        }
    }

    /// A unit sphere: the icosahedron, each triangle cut in four `subdivisions` times.
    static func icosphere(_ subdivisions: Int) -> (vertices: [SIMD3<Float>], indices: [UInt32]) {
        let t: Float = (1 + Float(5).squareRoot()) / 2
        var vertices: [SIMD3<Float>] = [
            SIMD3(-1, t, 0), SIMD3(1, t, 0), SIMD3(-1, -t, 0), SIMD3(1, -t, 0), SIMD3(0, -1, t), SIMD3(0, 1, t),
            SIMD3(0, -1, -t), SIMD3(0, 1, -t), SIMD3(t, 0, -1), SIMD3(t, 0, 1), SIMD3(-t, 0, -1), SIMD3(-t, 0, 1),
        ].map { $0 / ($0 * $0).sum().squareRoot() }
        var faces: [UInt32] = [0, 11, 5, 0, 5, 1, 0, 1, 7, 0, 7, 10, 0, 10, 11, 1, 5, 9, 5, 11, 4, 11, 10, 2, 10, 7, 6, 7, 1, 8,
                               3, 9, 4, 3, 4, 2, 3, 2, 6, 3, 6, 8, 3, 8, 9, 4, 9, 5, 2, 4, 11, 6, 2, 10, 8, 6, 7, 9, 8, 1]
        for _ in 0..<subdivisions {
            var middles: [UInt64: UInt32] = [:]
            func middle(_ a: UInt32, _ b: UInt32) -> UInt32 {
                let key = UInt64(min(a, b)) << 32 | UInt64(max(a, b))
                if let m = middles[key] { return m }
                var p = vertices[Int(a)] + vertices[Int(b)]
                p /= p.length
                vertices.append(p)
                middles[key] = UInt32(vertices.count - 1)
                return UInt32(vertices.count - 1)
            }
            var next: [UInt32] = []
            for f in stride(from: 0, to: faces.count, by: 3) {
                let a = faces[f], b = faces[f + 1], c = faces[f + 2]
                let ab = middle(a, b), bc = middle(b, c), ca = middle(c, a)
                next += [a, ab, ca, b, bc, ab, c, ca, bc, ab, bc, ca]
            }
            faces = next
        }
        return (vertices, faces)
    }
}

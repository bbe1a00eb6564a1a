import Core
import Density
import Foundation
import Scene
import Structure

/// The solvent-excluded (Connolly) surface of the shown atoms: where a probe sphere of 1.4 Å
/// rolling over their van der Waals spheres can touch, the surface PyMOL's `show surface` and
/// ChimeraX's `surface` draw. Solvent-excluded rather than Gaussian because it is the one with a
/// definition (its area can be checked against an independent value) and the one those tools
/// and printed models use. Built on a grid (EDTSurf's way):
///
/// 1. voxels inside the solvent-accessible surface (within radius + probe of an atom) are marked,
///    each with the atom it lies deepest inside (the atom beneath, for its color);
/// 2. a Euclidean distance transform gives every voxel its distance to the nearest voxel outside;
/// 3. the surface is where that distance equals the probe radius, cut out by marching tetrahedra
///    (six to a cube, all cubes split alike), which makes a closed mesh: every edge is shared by
///    exactly two triangles, so exports print.
///
/// Vertices take the color of the atom beneath; normals are the area-weighted mean of the faces'.
public struct Surface: Representation {
    public static let name = "surface"
    public static let usesBonds = false
    public static let probe: Float = 1.4
    /// Grid spacing where the picture's scale asks for nothing coarser, Å.
    public static let finestSpacing: Float = 0.35
    /// The most voxels one surface may take (about 0.5 GB of field, owner and distance arrays).
    public static let maximumVoxels = 40_000_000
    /// The share of a voxel distances to the outside come out long by (see `mesh`).
    static let voxelBias: Float = 0.25

    /// The grid spacing, Å.
    public var spacing: Float
    public var probe: Float
    /// For a picture (not an export): vertices within two voxels merged (`clustered`), a quarter
    /// of the triangles for the rasterizer to set up, the mesh no longer closed.
    public var forPicture = false

    public init() { self.init(spacing: 0.5) }

    public init(spacing: Float, probe: Float = Surface.probe) {
        self.spacing = spacing
        self.probe = probe
    }

    /// About one voxel every 3 pixels: finer shows nothing more at that size (looked at side by
    /// side with 2 pixels for 1tii and 1hpv at 256 px), and a thumbnail takes half the time.
    public static func make(pixelsPerÅngström: Float?) -> Surface {
        guard let p = pixelsPerÅngström else { return Surface(spacing: finestSpacing) }
        var surface = Surface(spacing: min(1.5, max(finestSpacing, 3 / p)))
        surface.forPicture = true
        return surface
    }

    public func geometry(of model: Model, bonds: [Bond], visible: [Bool], elements: ElementTable) -> MoleculeGeometry {
        var g = MoleculeGeometry()
        var centers: [SIMD3<Float>] = [], radii: [Float] = [], atoms: [Int32] = []
        for (i, atom) in model.atoms.enumerated() where visible[i] {
            centers.append(atom.position)
            radii.append(elements.vanDerWaalsRadius(atom.element))
            atoms.append(Int32(i))
        }
        trace("surface: \(centers.count) atoms")
        // A picture's mesh is merged first (`clustered`), which works out the merged mesh's normals.
        var mesh = Surface.mesh(centers: centers, radii: radii, probe: probe, spacing: spacing, normals: !forPicture)
        if forPicture {
            mesh = Surface.clustered(mesh, cell: spacing)
            trace("surface: \(mesh.triangleCount) triangles after merging")
        }
        Surface.blend(&mesh, centers: centers, radii: radii)
        mesh.atoms = mesh.atoms.map { atoms[Int($0)] }
        mesh.blendAtoms = mesh.blendAtoms.map { atoms[Int($0)] }
        if !mesh.indices.isEmpty { g.meshes.append(mesh) }
        return g
    }

    /// How far past the nearest atom's sphere another atom still colours a vertex, Å: colours
    /// change over about this much of the surface instead of at a hard edge between atoms.
    static let blendReach: Float = 1.2

    /// Gives each vertex up to `Mesh.blendCount` atoms (indices into `centers`) and weights: the
    /// atoms whose van der Waals spheres come within `blendReach` of the nearest one's, weighted
    /// linearly by how much nearer, so that colours fade into each other across atom boundaries
    /// (as PyMOL's surfaces and Mol*'s do) rather than meeting at the owning atom's edge.
    static func blend(_ mesh: inout Mesh, centers: [SIMD3<Float>], radii: [Float]) {
        let k = Mesh.blendCount, n = mesh.positions.count
        guard n > 0, !centers.isEmpty else { return }
        let largest = radii.max() ?? 2
        let reach = largest + Surface.probe + blendReach
        let grid = CellGrid(positions: centers, cellSize: reach)
        var atomsOut = [Int32](repeating: 0, count: n * k), weightsOut = [Float](repeating: 0, count: n * k)
        let chunks = max(1, min(64, n / 4096))
        let positions = mesh.positions, owners = mesh.atoms
        atomsOut.withUnsafeMutableBufferPointer { atomsBuffer in
            weightsOut.withUnsafeMutableBufferPointer { weightsBuffer in
                nonisolated(unsafe) let atomsOut = atomsBuffer, weightsOut = weightsBuffer
                DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
                    // Reused for every vertex of the chunk: no arrays made a vertex.
                    var found: [(atom: Int32, depth: Float)] = []
                    var top = [(atom: Int32, weight: Float)](repeating: (0, 0), count: k)
                    for v in (n * chunk / chunks)..<(n * (chunk + 1) / chunks) {
                        let p = positions[v]
                        found.removeAll(keepingCapacity: true)
                        // Only atoms whose depth is within `blendReach` of the nearest one's weigh
                        // anything, and the nearest is no deeper than the vertex's own atom: those
                        // lie within the own atom's depth, the reach and the largest radius (and a
                        // hundredth of an Ångström for rounding).
                        let own = Int(owners[v])
                        let ownDepth = own < centers.count ? length(p - centers[own]) - radii[own] : reach
                        let near = min(reach, max(0, ownDepth + blendReach + largest + 0.01))
                        grid.forEachPoint(near: p, centers, within: near * near) { j, d2 in
                            found.append((Int32(j), d2.squareRoot() - radii[j]))
                        }
                        var nearest = Float.greatestFiniteMagnitude
                        for e in found { nearest = min(nearest, e.depth) }
                        // The k heaviest, heaviest first (the first found of equal weights first).
                        var kept = 0
                        for e in found {
                            let w = 1 - (e.depth - nearest) / blendReach
                            guard w > 0, kept < k || w > top[k - 1].weight else { continue }
                            var slot = min(kept, k - 1)
                            while slot > 0 && top[slot - 1].weight < w {
                                top[slot] = top[slot - 1]
                                slot -= 1
                            }
                            top[slot] = (e.atom, w)
                            kept = min(kept + 1, k)
                        }
                        // No atom within reach: the owning atom alone.
                        if kept == 0 { top[0] = (owners[v], 1); kept = 1 }
                        var total: Float = 0
                        for j in 0..<kept { total += top[j].weight }
                        for j in 0..<kept {
                            atomsOut[v * k + j] = top[j].atom
                            weightsOut[v * k + j] = top[j].weight / total
                        }
                    }
                }
            }
        }
        mesh.blendAtoms = atomsOut
        mesh.blendWeights = weightsOut
        trace("surface: colours blended")
    }

    /// The spacing of the grid over a box of `extent`: `requested` (at least 0.05 Å), or coarser
    /// where the grid would pass `maximumVoxels`: the spacing whose cube is the volume a voxel may
    /// have (a cube root; the eighth root taken before this left a box of 3,000 Å a side at 58
    /// times the cap).
    public static func gridSpacing(extent: SIMD3<Float>, requested: Float) -> Float {
        let volume = Double(extent.x) * Double(extent.y) * Double(extent.z)
        var h = requested
        if volume / Double(h * h * h) > Double(maximumVoxels) { h = Float(cbrt(volume / Double(maximumVoxels)) * 1.0001) }
        return max(h, 0.05)
    }

    /// The solvent-excluded surface of spheres `centers`, `radii` for a probe of `probe` (0: the
    /// union of the spheres), on a grid of `spacing` (coarser where that would pass
    /// `maximumVoxels`). `atoms` of the mesh index `centers`; no `normals` where the caller works them out itself.
    public static func mesh(centers: [SIMD3<Float>], radii: [Float], probe: Float, spacing requested: Float, normals: Bool = true) -> Mesh {
        var mesh = Mesh(name: "surface")
        guard !centers.isEmpty else { return mesh }
        let reach = (radii.max() ?? 0) + probe
        var lo = SIMD3<Float>(repeating: .greatestFiniteMagnitude), hi = -lo
        for c in centers { lo = pointwiseMin(lo, c); hi = pointwiseMax(hi, c) }
        let extent = hi - lo + SIMD3(repeating: 2 * reach)
        // Coordinates so far apart that their span is past a float's range: no grid can hold them.
        guard extent.x.isFinite && extent.y.isFinite && extent.z.isFinite else { return mesh }
        let h = gridSpacing(extent: extent, requested: requested)
        // Two voxels of margin beyond the farthest reach, so the outermost layer is outside.
        let origin = lo - SIMD3(repeating: reach + 2 * h)
        let nx = Int(((hi.x - lo.x + 2 * reach) / h).rounded(.up)) + 5
        let ny = Int(((hi.y - lo.y + 2 * reach) / h).rounded(.up)) + 5
        let nz = Int(((hi.z - lo.z + 2 * reach) / h).rounded(.up)) + 5
        let count = nx * ny * nz
        // 1. Inside the solvent-accessible surface: the atom each voxel lies deepest in.
        // A depth below any atom's (which is at least zero, give or take a rounding) where none.
        var owner = [Int32](repeating: -1, count: count)
        var depth = [Float](repeating: -1, count: count)
        owner.withUnsafeMutableBufferPointer { owner in
            depth.withUnsafeMutableBufferPointer { depth in
                let owners = UnsafeMutableRawPointer(owner.baseAddress!), depths = UnsafeMutableRawPointer(depth.baseAddress!)
                let lanes = SIMD4<Float>(0, 1, 2, 3)
                for (a, c) in centers.enumerated() {
                    // Past the request's deadline the surface is left unfinished; the step around it throws.
                    if a & 1023 == 0 && WorkDeadline.stopped { break }
                    let r = radii[a] + probe, r2 = r * r
                    let g = (c - origin) / h
                    let x0 = max(0, Int((g.x - r / h).rounded(.down))), x1 = min(nx - 1, Int((g.x + r / h).rounded(.up)))
                    let y0 = max(0, Int((g.y - r / h).rounded(.down))), y1 = min(ny - 1, Int((g.y + r / h).rounded(.up)))
                    let z0 = max(0, Int((g.z - r / h).rounded(.down))), z1 = min(nz - 1, Int((g.z + r / h).rounded(.up)))
                    let atom = Int32(a)
                    for z in z0...z1 {
                        let dz = (Float(z) - g.z) * h
                        for y in y0...y1 {
                            let dy = (Float(y) - g.y) * h
                            let dyz = dy * dy + dz * dz
                            guard dyz <= r2 else { continue }
                            let row = (z * ny + y) * nx
                            // Four voxels at a time, each lane worked out as the one at a time below.
                            var x = x0
                            while x + 3 <= x1 {
                                let dx = (SIMD4<Float>(repeating: Float(x)) + lanes - g.x) * h
                                let d2 = dx * dx + dyz
                                let inside = r - d2.squareRoot()
                                let at = (row + x) * 4
                                let deepest = depths.loadUnaligned(fromByteOffset: at, as: SIMD4<Float>.self)
                                let take = (d2 .<= r2) .& (inside .> deepest)
                                if any(take) {
                                    depths.storeBytes(of: deepest.replacing(with: inside, where: take), toByteOffset: at, as: SIMD4<Float>.self)
                                    let owned = owners.loadUnaligned(fromByteOffset: at, as: SIMD4<Int32>.self)
                                    owners.storeBytes(of: owned.replacing(with: atom, where: take), toByteOffset: at, as: SIMD4<Int32>.self)
                                }
                                x += 4
                            }
                            while x <= x1 {
                                let dx = (Float(x) - g.x) * h
                                let d2 = dx * dx + dyz
                                if d2 <= r2 {
                                    let inside = r - d2.squareRoot()
                                    if inside > depth[row + x] {
                                        owner[row + x] = atom
                                        depth[row + x] = inside
                                    }
                                }
                                x += 1
                            }
                        }
                    }
                }
            }
        }
        trace("surface: \(count) voxels of \(h) Å marked")
        // 2. The field: positive inside the surface, zero on it.
        // Made in the depths' place (they are not read after).
        var field = depth
        depth = []
        if probe <= 0 {
            // The union of the spheres: how deep inside the deepest sphere, exactly.
            for i in 0..<count where owner[i] < 0 { field[i] = -h }
        } else {
            // Squared distance (in voxels) to the nearest voxel outside the accessible surface.
            field.withUnsafeMutableBufferPointer { field in
                owner.withUnsafeBufferPointer { owner in
                    for i in 0..<count { field[i] = owner[i] < 0 ? 0 : .greatestFiniteMagnitude }
                }
            }
            // Probe centres can only stand on voxel centres outside, which lie a little beyond the
            // accessible surface itself, so the distances come out long by a share of a voxel: a
            // quarter is taken off. Measured against exact areas (one atom; two atoms 3 Å apart)
            // at spacings of 0.25, 0.5 and 0.8 Å: within 4% with it, 5-26% too large without.
            let bias = h * Surface.voxelBias
            // Distances matter only near the surface: where a voxel is outside it (within probe +
            // bias of a site) and at the inside end of an edge the surface crosses, which lies
            // within a cube's diagonal (under two voxels) of such a voxel. Past that only the
            // sign counts, and the limit keeps it.
            // (Held to 4,096 voxels, far past any probe on a grid the cap allows.)
            let near = (probe + bias) / h + 2
            let limit = near.isFinite && near < 4096 ? Int((near * near).rounded(.up)) : 4096 * 4096
            DistanceTransform.squared(&field, nx, ny, nz, limit: limit)
            field.withUnsafeMutableBufferPointer { field in
                owner.withUnsafeBufferPointer { owner in
                    for i in 0..<count { field[i] = owner[i] < 0 ? -probe : field[i].squareRoot() * h - bias - probe }
                }
            }
        }
        trace("surface: distances")
        // 3. Marching tetrahedra.
        march(&mesh, field: field, owner: owner, nx: nx, ny: ny, nz: nz, origin: origin, h: h)
        trace("surface: \(mesh.indices.count / 3) triangles")
        if normals { computeNormals(&mesh) }
        return mesh
    }

    /// Marching tetrahedra over the field (inside where >= 0): each cube's triangles from
    /// `CubeCuts`, in the order of its tetrahedra; a vertex on each edge the surface crosses, made
    /// when a triangle first asks for it and shared after. The edges a cube of layer z touches
    /// start in layer z or z + 1, so two layers of edge slots hold every vertex still wanted.
    static func march(_ mesh: inout Mesh, field: [Float], owner: [Int32], nx: Int, ny: Int, nz: Int, origin: SIMD3<Float>, h: Float) {
        let plane = nx * ny
        let cuts = CubeCuts.shared
        let corner = Surface.cubeCorners.map { Int($0.x) + Int($0.y) * nx + Int($0.z) * plane }
        // Per edge code (inside corner * 8 + outside corner): the two corners' offsets from the
        // cube's low corner, the vertex's slot from the cube's slot, and whether its layer is z + 1.
        var edgeInside = [Int](repeating: 0, count: 64), edgeOutside = [Int](repeating: 0, count: 64)
        var edgeSlot = [Int](repeating: 0, count: 64), edgeHigh = [Bool](repeating: false, count: 64)
        for (code, e) in cuts.edges.enumerated() {
            edgeInside[code] = corner[code >> 3]
            edgeOutside[code] = corner[code & 7]
            edgeSlot[code] = (Int(e.lowX) + Int(e.lowY) * nx) * 7 + Int(e.direction)
            edgeHigh[code] = e.lowZ != 0
        }
        let unset = UInt32.max
        var slots = [UInt32](repeating: unset, count: 2 * plane * 7)
        var positions: [SIMD3<Float>] = [], atoms: [Int32] = [], indices: [UInt32] = []
        field.withUnsafeBufferPointer { field in
            owner.withUnsafeBufferPointer { owner in
                slots.withUnsafeMutableBufferPointer { slots in
                    // Each row of voxels along x: 0 all outside, 2 all inside, 1 both.
                    var rowState = [UInt8](repeating: 0, count: ny * nz)
                    for row in 0..<(ny * nz) {
                        var inside = 0
                        for i in (row * nx)..<(row * nx + nx) where field[i] >= 0 { inside += 1 }
                        rowState[row] = inside == 0 ? 0 : inside == nx ? 2 : 1
                    }
                    // The four voxels at one x of a row of cubes, as bits (the rows at y and z, y + 1,
                    // z + 1, both), and the cube's mask from the bits at x and x + 1.
                    var column = [UInt8](repeating: 0, count: nx)
                    // Per layer of slots, the rows of it that may hold a vertex.
                    var used = [Bool](repeating: false, count: 2 * ny)
                    for z in 0..<(nz - 1) {
                        if WorkDeadline.stopped { break }
                        // Layer z + 1's slots take the place of layer z - 1's: the rows of it used
                        // are emptied.
                        let low = (z & 1) * plane * 7, high = ((z + 1) & 1) * plane * 7
                        let usedHigh = ((z + 1) & 1) * ny
                        for r in 0..<ny where used[usedHigh + r] {
                            for i in (high + r * nx * 7)..<(high + (r + 1) * nx * 7) { slots[i] = unset }
                            used[usedHigh + r] = false
                        }
                        for y in 0..<(ny - 1) {
                            let row = (z * ny + y) * nx
                            let states = (rowState[z * ny + y], rowState[z * ny + y + 1], rowState[(z + 1) * ny + y], rowState[(z + 1) * ny + y + 1])
                            // Four rows all outside or all inside: no cube between them is cut.
                            if states.0 == states.1 && states.1 == states.2 && states.2 == states.3 && states.0 != 1 { continue }
                            // The cubes of this row keep vertices in rows y and y + 1 of both layers.
                            used[y] = true
                            used[y + 1] = true
                            used[ny + y] = true
                            used[ny + y + 1] = true
                            for x in 0..<nx {
                                let at = row + x
                                var bits: UInt8 = field[at] >= 0 ? 1 : 0
                                if field[at + nx] >= 0 { bits |= 2 }
                                if field[at + plane] >= 0 { bits |= 4 }
                                if field[at + plane + nx] >= 0 { bits |= 8 }
                                column[x] = bits
                            }
                            for x in 0..<(nx - 1) {
                                let cubeMask = Int(cuts.cubeMask[Int(column[x]) | Int(column[x + 1]) << 4])
                                guard cubeMask != 0 && cubeMask != 255 else { continue }
                                let base = row + x, inPlane = (y * nx + x) * 7
                                let cube = SIMD3<Float>(Float(x), Float(y), Float(z))
                                for tri in cuts.start[cubeMask]..<cuts.start[cubeMask + 1] {
                                    let cut = cuts.triangles[tri]
                                    var ids: (UInt32, UInt32, UInt32) = (0, 0, 0)
                                    for j in 0..<3 {
                                        // The vertex on edge `code` of this cube, made when first asked for.
                                        let code = Int(j == 0 ? cut.0 : j == 1 ? cut.1 : cut.2)
                                        let slot = (edgeHigh[code] ? high : low) + inPlane + edgeSlot[code]
                                        var id = slots[slot]
                                        if id == unset {
                                            let a = base + edgeInside[code], b = base + edgeOutside[code]
                                            let fa = field[a], fb = field[b]
                                            let t = fa / (fa - fb)
                                            let pa = cube + Surface.cubeCorners[code >> 3], pb = cube + Surface.cubeCorners[code & 7]
                                            id = UInt32(positions.count)
                                            positions.append(origin + (pa + (pb - pa) * t) * h)
                                            atoms.append(owner[a] >= 0 ? owner[a] : owner[b] >= 0 ? owner[b] : 0)
                                            slots[slot] = id
                                        }
                                        if j == 0 { ids.0 = id } else if j == 1 { ids.1 = id } else { ids.2 = id }
                                    }
                                    let (i0, i1, i2) = ids
                                    let p = positions[Int(i0)], q = positions[Int(i1)], r = positions[Int(i2)]
                                    let n = cross(q - p, r - p)
                                    indices.append(i0)
                                    if dot(n, Surface.outward[Int(cut.outward)]) >= 0 {
                                        indices.append(i1); indices.append(i2)
                                    } else {
                                        indices.append(i2); indices.append(i1)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        mesh.positions += positions
        mesh.atoms += atoms
        mesh.indices += indices
    }

    /// The mesh with the vertices in each cube of side `cell` merged into one at their mean
    /// (taking the first one's atom), and the triangles that collapse left out: vertex clustering,
    /// the simplest decimation, which keeps the shape to within a cell.
    static func clustered(_ mesh: Mesh, cell: Float) -> Mesh {
        var out = Mesh(name: mesh.name)
        let count = mesh.positions.count
        // Open addressing over the cells' keys, a power of two at least twice the vertices, each
        // cell's first slot its place in the box of cells taken modulo the table: the cells of the
        // surface near each other in memory as the marching made them near each other in space.
        var capacity = 16
        while capacity < 2 * count { capacity <<= 1 }
        let mask = capacity - 1
        var keys = [SIMD3<Int32>](repeating: .zero, count: capacity)
        var clusters = [UInt32](repeating: .max, count: capacity)
        var sums: [SIMD3<Float>] = [], counts: [Float] = []
        sums.reserveCapacity(count / 3)
        counts.reserveCapacity(count / 3)
        out.atoms.reserveCapacity(count / 3)
        var map = [UInt32](repeating: 0, count: count)
        var cellOf = [SIMD3<Int32>](repeating: .zero, count: count)
        var low = SIMD3<Int32>(repeating: .max), high = SIMD3<Int32>(repeating: .min)
        for (i, p) in mesh.positions.enumerated() {
            // Rounded down as `rounded(.down)` does (a call to floorf on this target): truncated,
            // then one less where that went up.
            let scaled = p / cell
            let truncated = SIMD3<Int32>(Int32(scaled.x), Int32(scaled.y), Int32(scaled.z))
            let key = truncated &- SIMD3<Int32>(repeating: 1).replacing(with: 0, where: .!(scaled .< SIMD3<Float>(truncated)))
            cellOf[i] = key
            low = pointwiseMin(low, key)
            high = pointwiseMax(high, key)
        }
        let across = Int(high.x) &- Int(low.x) &+ 1, plane = across &* (Int(high.y) &- Int(low.y) &+ 1)
        mesh.positions.withUnsafeBufferPointer { positions in
            keys.withUnsafeMutableBufferPointer { keys in
                clusters.withUnsafeMutableBufferPointer { clusters in
                    for i in 0..<count {
                        let p = positions[i], key = cellOf[i]
                        let place = (Int(key.x) &- Int(low.x)) &+ (Int(key.y) &- Int(low.y)) &* across &+ (Int(key.z) &- Int(low.z)) &* plane
                        var slot = place & mask
                        while clusters[slot] != .max && keys[slot] != key { slot = (slot + 1) & mask }
                        if clusters[slot] != .max {
                            let c = clusters[slot]
                            map[i] = c
                            sums[Int(c)] += p
                            counts[Int(c)] += 1
                        } else {
                            let c = UInt32(sums.count)
                            keys[slot] = key
                            clusters[slot] = c
                            map[i] = c
                            sums.append(p)
                            counts.append(1)
                            out.atoms.append(mesh.atoms[i])
                        }
                    }
                }
            }
        }
        out.positions = zip(sums, counts).map { $0 / $1 }
        out.indices.reserveCapacity(mesh.indices.count / 3)
        let p = mesh.positions, q = out.positions
        for t in stride(from: 0, to: mesh.indices.count, by: 3) {
            let a = map[Int(mesh.indices[t])], b = map[Int(mesh.indices[t + 1])], c = map[Int(mesh.indices[t + 2])]
            guard a != b && b != c && a != c else { continue }
            // A triangle the merge turned over would darken its corners' normals: turned back.
            let before = cross(p[Int(mesh.indices[t + 1])] - p[Int(mesh.indices[t])], p[Int(mesh.indices[t + 2])] - p[Int(mesh.indices[t])])
            let after = cross(q[Int(b)] - q[Int(a)], q[Int(c)] - q[Int(a)])
            out.indices.append(a)
            if dot(before, after) >= 0 { out.indices.append(b); out.indices.append(c) } else { out.indices.append(c); out.indices.append(b) }
        }
        computeNormals(&out)
        return out
    }

    /// Normals: the faces' around each vertex, weighted by their area.
    static func computeNormals(_ mesh: inout Mesh) {
        mesh.normals = Isosurface.areaWeightedNormals(mesh.positions, mesh.indices)
    }
}

extension Surface {
    /// Six tetrahedra to a cube, around its diagonal from corner 0 to corner 6: every cube split
    /// alike, so neighbouring cubes cut their shared faces along the same diagonal.
    static let tetrahedra: [[Int]] = [[0, 6, 1, 2], [0, 6, 2, 3], [0, 6, 3, 7], [0, 6, 7, 4], [0, 6, 4, 5], [0, 6, 5, 1]]
    static let cubeCorners: [SIMD3<Float>] = [SIMD3(0, 0, 0), SIMD3(1, 0, 0), SIMD3(1, 1, 0), SIMD3(0, 1, 0),
                                              SIMD3(0, 0, 1), SIMD3(1, 0, 1), SIMD3(1, 1, 1), SIMD3(0, 1, 1)]

    /// For each mask of a tetrahedron's corners inside (bit k: corner k), its triangles as
    /// (inside corner, outside corner) edge pairs, three a triangle: one triangle where one corner
    /// or three are inside, two (a quad) where two are.
    static let tetrahedronCuts: [[(Int, Int)]] = (0..<16).map { mask in
        let inner = (0..<4).filter { mask & (1 << $0) != 0 }, outer = (0..<4).filter { mask & (1 << $0) == 0 }
        switch inner.count {
        case 1: return [(inner[0], outer[0]), (inner[0], outer[1]), (inner[0], outer[2])]
        case 3: return [(inner[0], outer[0]), (inner[1], outer[0]), (inner[2], outer[0])]
        case 2:
            let a = (inner[0], outer[0]), b = (inner[0], outer[1]), c = (inner[1], outer[1]), d = (inner[1], outer[0])
            return [a, b, c, a, c, d]
        default: return []
        }
    }

    /// Per tetrahedron and mask, the direction out of the surface: from the inside corners'
    /// middle toward the outside ones'.
    static let outward: [SIMD3<Float>] = tetrahedra.flatMap { tet in
        (0..<16).map { mask -> SIMD3<Float> in
            let inner = (0..<4).filter { mask & (1 << $0) != 0 }, outer = (0..<4).filter { mask & (1 << $0) == 0 }
            guard !inner.isEmpty && !outer.isEmpty else { return .zero }
            let mid = { (cs: [Int]) in cs.reduce(SIMD3<Float>(repeating: 0)) { $0 + cubeCorners[tet[$1]] } / Float(cs.count) }
            return mid(outer) - mid(inner)
        }
    }
}

/// Every cube's triangles by its mask of corners inside (bit c: `Surface.cubeCorners[c]`), its
/// six tetrahedra's cuts in order, for `Surface.march`. An edge is coded as its inside corner * 8
/// + its outside corner; its vertex is kept by the edge's lower corner (every edge of these
/// tetrahedra runs up along the axes it moves on) and its direction, one of seven.
struct CubeCuts: Sendable {
    /// Where an edge's vertex is kept: its lower corner and its direction.
    struct Edge: Sendable {
        var lowX: UInt8, lowY: UInt8, lowZ: UInt8
        var direction: UInt8
    }
    /// Three edges, each as its inside corner * 8 + its outside corner, and the index of the
    /// direction out of the surface (`Surface.outward`).
    var triangles: [(UInt8, UInt8, UInt8, outward: UInt16)] = []
    var start: [Int] = [0]
    /// Every edge by its code (codes of no edge of the tetrahedra: a corner to itself, and pairs no
    /// tetrahedron has, are left as zeros and never asked for).
    var edges = [Edge](repeating: Edge(lowX: 0, lowY: 0, lowZ: 0, direction: 0), count: 64)
    /// A cube's mask from the bits of the four voxels at its low x (bit 0 the voxel at y and z,
    /// 1 at y + 1, 2 at z + 1, 3 at both) and, shifted by four, those at its high x.
    var cubeMask: [UInt8] = []

    static let shared = CubeCuts()

    init() {
        func edge(_ a: Int, _ b: Int) -> Edge {
            let pa = Surface.cubeCorners[a], pb = Surface.cubeCorners[b]
            let low = pointwiseMin(pa, pb), d = pb - pa
            precondition(low == pa || low == pb, "an edge that is not monotone")
            let sx = d.x == 0 ? 0 : 1, sy = d.y == 0 ? 0 : 2, sz = d.z == 0 ? 0 : 4
            let direction = sx + sy + sz - 1
            return Edge(lowX: UInt8(low.x), lowY: UInt8(low.y), lowZ: UInt8(low.z), direction: UInt8(direction))
        }
        for cubeMask in 0..<256 {
            for (t, tet) in Surface.tetrahedra.enumerated() {
                var mask = 0
                for k in 0..<4 where cubeMask & (1 << tet[k]) != 0 { mask |= 1 << k }
                let cut = Surface.tetrahedronCuts[mask]
                for k in stride(from: 0, to: cut.count, by: 3) {
                    let codes = (0..<3).map { j -> UInt8 in
                        let (a, b) = (tet[cut[k + j].0], tet[cut[k + j].1])
                        edges[a * 8 + b] = edge(a, b)
                        return UInt8(a * 8 + b)
                    }
                    triangles.append((codes[0], codes[1], codes[2], outward: UInt16(t * 16 + mask)))
                }
            }
            start.append(triangles.count)
        }
        cubeMask = (0..<256).map { bits in
            var mask = 0
            for (c, corner) in Surface.cubeCorners.enumerated() {
                let bit = (corner.y == 0 ? 0 : 1) + (corner.z == 0 ? 0 : 2) + (corner.x == 0 ? 0 : 4)
                if bits & (1 << bit) != 0 { mask |= 1 << c }
            }
            return UInt8(mask)
        }
    }
}

/// The squared Euclidean distance transform up to a limit: a value of 0 is a site, any other
/// none; afterwards each value is the squared distance, in voxels, to the nearest site where that
/// is below `limit`, and `limit` where it is not. One pass along each axis: along x the distance to
/// the nearest site of the row; along y and z each value the least of its neighbours' within the
/// limit plus their squared offset, over up to 256 neighbouring lines at a time, copied out row by
/// row (contiguous reads, even along z) and worked on four lines to a vector. Exact below the
/// limit: a nearest site at or past it adds at least the limit, and a value the limit stood in
/// for was at least as large.
enum DistanceTransform {
    /// Lines worked on together in the y and z passes.
    static let block = 256

    /// Four neighbouring lines' values at byte `at` of `values`, each the least of its own and its
    /// neighbours' `reach` places either way along its line (`apart` bytes a place) plus their
    /// squared offset, and at most `limits`. The lesser of two lanes through `replacing`, without
    /// the branch a lane that `pointwiseMin` takes.
    @inline(__always)
    static func leastOfNeighbours(_ values: UnsafeMutableRawPointer, at: Int, apart: Int, reach: Int, limits: SIMD4<Float>) -> SIMD4<Float> {
        @inline(__always) func lesser(_ a: SIMD4<Float>, _ b: SIMD4<Float>) -> SIMD4<Float> { a.replacing(with: b, where: b .< a) }
        var least = values.loadUnaligned(fromByteOffset: at, as: SIMD4<Float>.self)
        var k = 1
        while k <= reach {
            let before = values.loadUnaligned(fromByteOffset: at - k * apart, as: SIMD4<Float>.self)
            let after = values.loadUnaligned(fromByteOffset: at + k * apart, as: SIMD4<Float>.self)
            least = lesser(least, lesser(before, after) + SIMD4(repeating: Float(k * k)))
            k += 1
        }
        return lesser(least, limits)
    }

    static func squared(_ f: inout [Float], _ nx: Int, _ ny: Int, _ nz: Int, limit: Int) {
        guard nx > 0, ny > 0, nz > 0, limit > 0 else { return }
        let cap = Float(limit), plane = nx * ny, limits = SIMD4<Float>(repeating: cap)
        // Offsets whose square is below the limit.
        var reach = 0
        while (reach + 1) * (reach + 1) < limit { reach += 1 }
        let longest = max(ny, nz)
        var lines = [Float](repeating: cap, count: (longest + 2 * reach) * block)
        f.withUnsafeMutableBufferPointer { f in
            // Along x: each row copied out with sites as 0 and the rest as the limit (and the limit
            // beyond its ends), then each value the least of its neighbours' plus their squared
            // offset, four along the row to a vector.
            var padded = [Float](repeating: cap, count: nx + 2 * reach + 4)
            padded.withUnsafeMutableBufferPointer { padded in
                let row = UnsafeMutableRawPointer(padded.baseAddress!)
                for r in 0..<(ny * nz) {
                    let base = r * nx
                    for i in 0..<nx { padded[reach + i] = f[base + i] == 0 ? 0 : cap }
                    var i = 0
                    while i < nx {
                        let least = leastOfNeighbours(row, at: (reach + i) * 4, apart: 4, reach: reach, limits: limits)
                        for b in 0..<min(4, nx - i) { f[base + i + b] = least[b] }
                        i += 4
                    }
                }
            }
            let values = UnsafeMutableRawPointer(f.baseAddress!)
            lines.withUnsafeMutableBufferPointer { lines in
                let copied = UnsafeMutableRawPointer(lines.baseAddress!)
                // `n` values along each line, `step` apart; `width` lines side by side from `start`.
                func pass(n: Int, step: Int, start: Int, width: Int) {
                    for i in 0..<n {
                        (copied + (i + reach) * block * 4).copyMemory(from: values + (start + i * step) * 4, byteCount: width * 4)
                    }
                    // Beyond the line's end, no site (a longer line of an earlier pass left its values there).
                    for i in (n + reach)..<(n + 2 * reach) {
                        for b in 0..<block { lines[i * block + b] = cap }
                    }
                    let whole = width & ~3
                    for i in 0..<n {
                        let at = (i + reach) * block * 4, to = (start + i * step) * 4
                        var lane = 0
                        while lane < width {
                            // The last few lines of a width not a multiple of four: lanes past it are
                            // computed from whatever the buffer holds and not written.
                            let least = leastOfNeighbours(copied, at: at + lane * 4, apart: block * 4, reach: reach, limits: limits)
                            if lane < whole {
                                values.storeBytes(of: least, toByteOffset: to + lane * 4, as: SIMD4<Float>.self)
                            } else {
                                for b in 0..<(width - lane) { f[start + i * step + lane + b] = least[b] }
                            }
                            lane += 4
                        }
                    }
                }
                // Along y, then z.
                for zi in 0..<nz {
                    for x in stride(from: 0, to: nx, by: block) { pass(n: ny, step: nx, start: zi * plane + x, width: min(block, nx - x)) }
                }
                for p in stride(from: 0, to: plane, by: block) { pass(n: nz, step: plane, start: p, width: min(block, plane - p)) }
            }
        }
    }
}

import Core
import Dispatch
import Foundation
import Synchronization

/// The surface where a map's values equal a level, by marching cubes: each cube of eight grid
/// points whose corners lie on both sides of the level is cut by a polygon through the points
/// where its edges cross it, fanned into triangles. The table of cuts is built here from one rule
/// (below), not copied: on a face whose diagonal corners are alike (the ambiguous case) the
/// corners above the level are kept apart, the same rule for both cubes that share the face, so
/// the surface has no cracks: every edge of it is shared by two triangles except at the block's
/// boundary. Triangles wind counterclockwise seen from below the level (outside the density).
///
/// Built in slabs of sections at once, one per core, the slabs' shared vertices joined after.
public struct Isosurface: Sendable {
    /// Positions in Å.
    public var positions: [SIMD3<Float>] = []
    /// Unit normals, pointing down the values (out of the density).
    public var normals: [SIMD3<Float>] = []
    /// Three a triangle.
    public var indices: [UInt32] = []
    /// With `lines`: the triangles' edges that lie in a face of the grid's cubes, two indices a
    /// line: the contour lines on the grid's planes, the mesh PyMOL's `isomesh` and Coot draw
    /// (the fans' diagonals across a cube left out).
    public var lines: [UInt32] = []

    public init() {}

    public var triangleCount: Int { indices.count / 3 }

    /// The surface of `map` at `level`, in Å.
    /// Triangles one surface may have (about 400 MB with its vertices): a noisy map contoured at
    /// its mean has about one a voxel, and a hostile one should not take the memory.
    public static let maxTriangles = 16_000_000

    /// Bytes one triangle takes from its building to its drawing (positions, normals, indices,
    /// the slabs' copies, the mesh's colours, the caster's): measured with `/usr/bin/time` on
    /// `molshot render` of checkerboard maps, 821,000 triangles 242 MB resident and 3.9 million
    /// 744 MB, about 170 bytes a triangle over the process's 100 MB; taken as 200.
    public static let bytesPerTriangle = 200

    /// The memory a surface may take here: half the address space this process is allowed
    /// (`RLIMIT_AS`, as a render process or `prlimit` sets it), else half the machine's memory.
    public static var memoryBudget: (bytes: Int, of: String) {
        var limit = rlimit()
        if getrlimit(Int32(RLIMIT_AS.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max {
            let bytes = Int(clamping: limit.rlim_cur)
            return (bytes / 2, "half this process's address space of \(bytes >> 20) MiB")
        }
        let physical = Int(clamping: ProcessInfo.processInfo.physicalMemory)
        return (physical / 2, "half this machine's \(physical >> 20) MiB of memory")
    }

    /// The triangles a surface may have here: `maxTriangles`, or fewer where the memory budget
    /// holds fewer. Its surface stops being built as soon as it passes them, so a hostile map
    /// (a 4 KB gzip checkerboard of 15.8 million triangles) is refused before it takes the memory,
    /// not after its process ran out.
    public static var affordableTriangles: (count: Int, why: String) {
        let budget = memoryBudget
        let count = budget.bytes / bytesPerTriangle
        guard count < maxTriangles else { return (maxTriangles, "") }
        return (count, ", about \((count * bytesPerTriangle) >> 20) MiB to build and draw, \(budget.of)")
    }

    /// The surface of `map` at `level`, in Å; refused (naming `file`) past `maxTriangles`, or past
    /// the triangles this process's memory holds (`affordableTriangles`).
    public static func make(_ map: DensityMap, level: Float, lines: Bool = false, file: String = "the map",
                            maxTriangles given: Int? = nil) throws -> Isosurface {
        let (maxTriangles, why) = given.map { ($0, "") } ?? Isosurface.affordableTriangles
        let (nx, ny, nz) = (map.size.x, map.size.y, map.size.z)
        guard nx >= 2 && ny >= 2 && nz >= 2 else { return Isosurface() }
        let cores = Cores.active
        // Slabs of at most 16 sections: the edge tables of a slab cost 12 bytes a grid point.
        let slabs = max(1, min(nz - 1, max(cores * 2, (nz - 1 + 15) / 16)))
        let per = (nz - 1 + slabs - 1) / slabs
        var pieces = [Piece?](repeating: nil, count: slabs)
        let made = Atomic<Int>(0)
        pieces.withUnsafeMutableBufferPointer { buffer in
            map.values.withUnsafeBufferPointer { values in
                // Each slab writes its own element of `out` and only reads `field`.
                nonisolated(unsafe) let out = buffer, field = values.baseAddress!
                DispatchQueue.concurrentPerform(iterations: slabs) { s in
                    let z0 = s * per, z1 = min(nz - 1, z0 + per)
                    guard z0 < z1 else { return }
                    out[s] = slab(field, nx: nx, ny: ny, z0: z0, z1: z1, level: level, made: made, most: maxTriangles)
                }
            }
        }
        guard made.load(ordering: .relaxed) <= maxTriangles else {
            throw InputFileError(file: file, message: "the surface at level \(level) has more than \(maxTriangles) triangles\(why): give a higher level")
        }
        // Join the slabs: a slab's bottom plane is the one before's top plane.
        var surface = Isosurface()
        var previousTop: (x: [Int32], y: [Int32])? = nil
        var previousOffset: [Int32] = []
        for case let piece? in pieces {
            var global = [Int32](repeating: -1, count: piece.positions.count)
            if let top = previousTop {
                for p in 0..<(nx * ny) {
                    if piece.bottomX[p] >= 0 && top.x[p] >= 0 { global[Int(piece.bottomX[p])] = previousOffset[Int(top.x[p])] }
                    if piece.bottomY[p] >= 0 && top.y[p] >= 0 { global[Int(piece.bottomY[p])] = previousOffset[Int(top.y[p])] }
                }
            }
            for v in piece.positions.indices where global[v] < 0 {
                global[v] = Int32(surface.positions.count)
                surface.positions.append(piece.positions[v])
            }
            surface.indices.reserveCapacity(surface.indices.count + piece.indices.count)
            for i in piece.indices { surface.indices.append(UInt32(global[Int(i)])) }
            previousTop = (piece.topX, piece.topY)
            previousOffset = global
        }
        if lines {
            // Two points on a cube's edges lie in one face of it when they share a grid plane:
            // an axis along which both are on the same whole grid coordinate.
            func onPlane(_ a: SIMD3<Float>, _ b: SIMD3<Float>) -> Bool {
                for k in 0..<3 where a[k] == b[k] && a[k] == a[k].rounded() { return true }
                return false
            }
            var seen = Set<UInt64>()
            for t in stride(from: 0, to: surface.indices.count - 2, by: 3) {
                for k in 0..<3 {
                    let a = surface.indices[t + k], b = surface.indices[t + (k + 1) % 3]
                    guard onPlane(surface.positions[Int(a)], surface.positions[Int(b)]),
                          seen.insert(UInt64(min(a, b)) << 32 | UInt64(max(a, b))).inserted else { continue }
                    surface.lines.append(a)
                    surface.lines.append(b)
                }
            }
        }
        // Grid coordinates to space; normals from the faces, area-weighted.
        let o = SIMD3<Float>(map.origin), sx = SIMD3<Float>(map.steps.x), sy = SIMD3<Float>(map.steps.y), sz = SIMD3<Float>(map.steps.z)
        for k in surface.positions.indices {
            let g = surface.positions[k]
            surface.positions[k] = o + sx * g.x + sy * g.y + sz * g.z
        }
        // A skewed cell can turn the grid's handedness over (never for a real cell's axes; kept safe).
        if dot(cross(sx, sy), sz) < 0 {
            for t in stride(from: 0, to: surface.indices.count, by: 3) { surface.indices.swapAt(t + 1, t + 2) }
        }
        surface.normals = Isosurface.areaWeightedNormals(surface.positions, surface.indices)
        return surface
    }

    /// Each vertex's normal: the faces' around it, weighted by their area (a vertex in no face: +z).
    public static func areaWeightedNormals(_ positions: [SIMD3<Float>], _ indices: [UInt32]) -> [SIMD3<Float>] {
        var normals = [SIMD3<Float>](repeating: .zero, count: positions.count)
        for t in stride(from: 0, to: indices.count - 2, by: 3) {
            let i = Int(indices[t]), j = Int(indices[t + 1]), k = Int(indices[t + 2])
            let n = cross(positions[j] - positions[i], positions[k] - positions[i])
            normals[i] += n
            normals[j] += n
            normals[k] += n
        }
        return normals.map { n in
            let l = (n * n).sum().squareRoot()
            return l > 0 ? n / l : SIMD3(0, 0, 1)
        }
    }

    /// Area (Å²) of the triangles.
    public var area: Double {
        var sum = 0.0
        for t in stride(from: 0, to: indices.count, by: 3) {
            let a = SIMD3<Double>(positions[Int(indices[t])]), b = SIMD3<Double>(positions[Int(indices[t + 1])]), c = SIMD3<Double>(positions[Int(indices[t + 2])])
            let n = cross(b - a, c - a)
            sum += (n * n).sum().squareRoot() / 2
        }
        return sum
    }

    /// Volume (Å³) the triangles enclose, by the divergence theorem: exact where the surface is
    /// closed (it does not meet the block's boundary).
    public var enclosedVolume: Double {
        var sum = 0.0
        for t in stride(from: 0, to: indices.count, by: 3) {
            let a = SIMD3<Double>(positions[Int(indices[t])]), b = SIMD3<Double>(positions[Int(indices[t + 1])]), c = SIMD3<Double>(positions[Int(indices[t + 2])])
            sum += dot(a, cross(b, c))
        }
        return sum / 6
    }

    // MARK: One slab

    struct Piece {
        var positions: [SIMD3<Float>] = []  // grid coordinates
        var indices: [UInt32] = []
        var bottomX: [Int32], bottomY: [Int32], topX: [Int32], topY: [Int32]
    }

    /// Cubes with their lower corner in sections z0..<z1.
    /// Stops (its piece unfinished) once `made`, the triangles of every slab so far, passes `most`.
    static func slab(_ f: UnsafePointer<Float>, nx: Int, ny: Int, z0: Int, z1: Int, level: Float, made: borrowing Atomic<Int>, most: Int) -> Piece {
        let plane = nx * ny
        let planes = z1 - z0 + 1
        // Vertex of each crossed grid edge: along x, y (per plane) and z (between planes).
        var xEdge = [Int32](repeating: -1, count: plane * planes)
        var yEdge = [Int32](repeating: -1, count: plane * planes)
        var zEdge = [Int32](repeating: -1, count: plane * (planes - 1))
        var piece = Piece(bottomX: [], bottomY: [], topX: [], topY: [])
        func vertex(_ x: Int, _ y: Int, _ z: Int, axis: Int) -> UInt32 {
            let local = (z - z0) * plane + y * nx + x
            let existing = axis == 0 ? xEdge[local] : axis == 1 ? yEdge[local] : zEdge[local]
            if existing >= 0 { return UInt32(existing) }
            let a = z * plane + y * nx + x
            let b = a + (axis == 0 ? 1 : axis == 1 ? nx : plane)
            let fa = f[a], fb = f[b]
            let t = fa == fb ? 0.5 : (level - fa) / (fb - fa)
            var p = SIMD3<Float>(Float(x), Float(y), Float(z))
            p[axis] += min(max(t, 0), 1)
            let id = Int32(piece.positions.count)
            piece.positions.append(p)
            switch axis {
            case 0: xEdge[local] = id
            case 1: yEdge[local] = id
            default: zEdge[local] = id
            }
            return UInt32(id)
        }
        let cases = MarchingCubesTable.shared
        let cornerOffset = (0..<8).map { c in (c & 1) + (c >> 1 & 1) * nx + (c >> 2 & 1) * plane }
        var counted = 0
        for z in z0..<z1 {
            for y in 0..<(ny - 1) {
                let added = piece.indices.count / 3 - counted
                counted += added
                guard made.add(added, ordering: .relaxed).newValue <= most else { return piece }
                var a = z * plane + y * nx
                for x in 0..<(nx - 1) {
                    defer { a += 1 }
                    var mask = 0
                    for c in 0..<8 where f[a + cornerOffset[c]] >= level { mask |= 1 << c }
                    guard mask != 0 && mask != 255 else { continue }
                    for e in cases.triangles[mask] {
                        let (c, axis) = MarchingCubesTable.edges[Int(e)]
                        piece.indices.append(vertex(x + (c & 1), y + (c >> 1 & 1), z + (c >> 2 & 1), axis: axis))
                    }
                }
            }
        }
        made.add(piece.indices.count / 3 - counted, ordering: .relaxed)
        piece.bottomX = Array(xEdge[0..<plane])
        piece.bottomY = Array(yEdge[0..<plane])
        piece.topX = Array(xEdge[((planes - 1) * plane)...])
        piece.topY = Array(yEdge[((planes - 1) * plane)...])
        return piece
    }
}

/// The triangles of each of the 256 cases (bit c set: corner c at or above the level; corner c
/// at x = c & 1, y = c >> 1 & 1, z = c >> 2 & 1), as edge numbers, three a triangle.
struct MarchingCubesTable: Sendable {
    /// Each edge as its lower corner and the axis it runs along.
    static let edges: [(corner: Int, axis: Int)] = {
        var out: [(Int, Int)] = []
        for axis in 0..<3 {
            for c in 0..<8 where c & (1 << axis) == 0 { out.append((c, axis)) }
        }
        return out
    }()

    static func edge(_ a: Int, _ b: Int) -> Int {
        let low = min(a, b), axis = (a ^ b).trailingZeroBitCount
        return edges.firstIndex { $0.corner == low && $0.axis == axis }!
    }

    let triangles: [[UInt8]]

    static let shared = MarchingCubesTable()

    init() {
        // The six faces, each as its four corners going round it.
        var faces: [[Int]] = []
        for axis in 0..<3 {
            let u = 1 << ((axis + 1) % 3), w = 1 << ((axis + 2) % 3)
            for side in 0..<2 {
                let base = side << axis
                faces.append([base, base | u, base | u | w, base | w])
            }
        }
        func corner(_ c: Int) -> SIMD3<Float> { SIMD3(Float(c & 1), Float(c >> 1 & 1), Float(c >> 2 & 1)) }
        var table: [[UInt8]] = []
        for mask in 0..<256 {
            let inside = { (c: Int) in mask & (1 << c) != 0 }
            // Segments on each face between the crossed edges.
            var segments: [(Int, Int)] = []
            for q in faces {
                let crossed = (0..<4).filter { inside(q[$0]) != inside(q[($0 + 1) % 4]) }
                if crossed.count == 2 {
                    segments.append((MarchingCubesTable.edge(q[crossed[0]], q[(crossed[0] + 1) % 4]),
                                     MarchingCubesTable.edge(q[crossed[1]], q[(crossed[1] + 1) % 4])))
                } else if crossed.count == 4 {
                    // Diagonal corners alike: each corner above the level cut off on its own.
                    for k in 0..<4 where inside(q[k]) {
                        segments.append((MarchingCubesTable.edge(q[(k + 3) % 4], q[k]), MarchingCubesTable.edge(q[k], q[(k + 1) % 4])))
                    }
                }
            }
            // Chain the segments into loops (each crossed edge ends exactly two segments).
            var loops: [[Int]] = []
            var unused = segments
            while let first = unused.popLast() {
                var loop = [first.0, first.1]
                while loop.last != loop.first {
                    guard let k = unused.firstIndex(where: { $0.0 == loop.last! || $0.1 == loop.last! }) else { break }
                    let s = unused.remove(at: k)
                    loop.append(s.0 == loop.last! ? s.1 : s.0)
                }
                loop.removeLast()
                loops.append(loop)
            }
            var triangles: [UInt8] = []
            for var loop in loops where loop.count >= 3 {
                // Wound so that the normal points from the corners above the level to those below.
                let mid = loop.map { e -> SIMD3<Float> in
                    let (c, axis) = MarchingCubesTable.edges[e]
                    return corner(c) + corner(1 << axis) * 0.5
                }
                var normal = SIMD3<Float>(repeating: 0), outward = SIMD3<Float>(repeating: 0)
                for k in mid.indices { normal += cross(mid[k], mid[(k + 1) % mid.count]) }
                for e in loop {
                    let (c, axis) = MarchingCubesTable.edges[e]
                    let d = corner(1 << axis)
                    outward += inside(c) ? d : -d
                }
                if dot(normal, outward) < 0 { loop.reverse() }
                for k in 1..<(loop.count - 1) { triangles += [UInt8(loop[0]), UInt8(loop[k]), UInt8(loop[k + 1])] }
            }
            table.append(triangles)
        }
        triangles = table
    }
}

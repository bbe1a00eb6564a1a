import Dispatch
import Scene

/// Opaque triangle meshes (cartoons, opaque surfaces) as `SphereCaster` draws them beside its
/// spheres and bonds: each sample's nearest triangle found first, then only that one lit, as
/// `mesh.vert` and `mesh.frag` light it. llvmpipe shades every fragment a triangle covers and
/// spends most of a thumbnail's draw on setting up, binning and handing tiles over; a cartoon's
/// few thousand triangles at 512 x 512 samples are cheaper found here, on the thread that read
/// the file.
///
/// Coverage is tested at sample centers with corners snapped to 1/256 of a sample (as llvmpipe
/// snaps them) and edge functions exact in 64-bit integers: a sample on an edge two triangles
/// share goes to the one for which it is a left or top edge, so there are no pinholes and no
/// sample is claimed twice (`Screen`, `cast`); corners too far out for integers are tested in
/// doubles, edges included. An orthographic view interpolates linearly on the screen, so depths,
/// normals and colors are the barycentric mixes GL makes (`Plane`).
struct CastTriangles {
    /// View-space positions (x, y in view units, z nearer is larger) of every mesh's vertices.
    var positions: [SIMD3<Float>] = []
    /// View-space normals, as `mat3(view) * normal`: not normalized (the shader normalizes the mix).
    var normals: [SIMD3<Float>] = []
    /// Vertex colors, 0...1, as GL reads normalized bytes.
    var colors: [SIMD3<Float>] = []
    /// The three vertices of each triangle, in drawing order.
    var corners: [SIMD3<Int32>] = []

    var count: Int { corners.count }

    /// No triangles.
    init() {}

    /// Whether `SphereCaster` can draw `meshes`: triangles only (no lines), opaque, a normal a
    /// vertex, and ids that fit beside `others` spheres and bonds.
    static func castable(_ meshes: [Mesh], others: Int) -> Bool {
        var triangles = 0, vertices = 0
        for m in meshes {
            guard m.lines.isEmpty, m.opacity >= 1, m.normals.count == m.positions.count else { return false }
            triangles += m.indices.count / 3
            vertices += m.positions.count
        }
        return triangles < Int(Int32.max) - others && vertices < Int(Int32.max)
    }

    /// `meshes` in view space; `colors`: per mesh, its vertices' colors packed as uploaded (red in
    /// the low byte). Triangles naming a vertex the mesh lacks are left out.
    init(_ meshes: [Mesh], colors: [[UInt32]], view: Matrix4) {
        let total = meshes.reduce(0) { $0 + $1.positions.count }
        positions.reserveCapacity(total)
        normals.reserveCapacity(total)
        self.colors.reserveCapacity(total)
        corners.reserveCapacity(meshes.reduce(0) { $0 + $1.indices.count / 3 })
        for (k, m) in meshes.enumerated() where !m.indices.isEmpty {
            let base = Int32(positions.count)
            let packed = k < colors.count ? colors[k] : []
            for v in 0..<m.positions.count {
                let p = m.positions[v], n = m.normals[v]
                let q = view * SIMD4(p.x, p.y, p.z, 1), r = view * SIMD4(n.x, n.y, n.z, 0)
                positions.append(SIMD3(q.x, q.y, q.z))
                normals.append(SIMD3(r.x, r.y, r.z))
                let c = v < packed.count ? packed[v] : 0xFFFF_FFFF
                self.colors.append(SIMD3(Float(c & 0xFF), Float(c >> 8 & 0xFF), Float(c >> 16 & 0xFF)) / 255)
            }
            let n = UInt32(m.positions.count)
            var t = 0
            while t + 3 <= m.indices.count {
                let a = m.indices[t], b = m.indices[t + 1], c = m.indices[t + 2]
                t += 3
                guard a < n, b < n, c < n else { continue }
                corners.append(SIMD3(base + Int32(a), base + Int32(b), base + Int32(c)))
            }
        }
    }

    /// A triangle's corners in sample units (sample (i, j)'s center at (i, j)), snapped to 1/256
    /// of a sample as GL's rasterizers snap them wherever that fits in `Int64` arithmetic.
    struct Screen {
        var a: SIMD2<Double>, b: SIMD2<Double>, c: SIMD2<Double>
        /// Twice the signed area: positive counterclockwise in window coordinates (a front face).
        var area: Double
        /// Snapped: coverage is decided exactly in integers (`cast`).
        var snapped: Bool

        /// Edge functions at (x, y), each positive inside on a front face; they sum to `area`.
        @inline(__always) func weights(_ x: Double, _ y: Double) -> SIMD3<Double> {
            let e0 = c - b, e1 = a - c, e2 = b - a
            return SIMD3(e0.x * (y - b.y) - e0.y * (x - b.x), e1.x * (y - c.y) - e1.y * (x - c.x), e2.x * (y - a.y) - e2.y * (x - a.x))
        }

        /// How each edge function changes one sample along a row (`i`) and one row up (`j`).
        var edgeSteps: (i: SIMD3<Double>, j: SIMD3<Double>) {
            let e0 = c - b, e1 = a - c, e2 = b - a
            return (SIMD3(-e0.y, -e1.y, -e2.y), SIMD3(e0.x, e1.x, e2.x))
        }
    }

    /// Sub-sample steps a vertex is snapped to, and the largest coordinate (in samples) snapped:
    /// products of differences stay below 2^63.
    static let subsamples: Double = 256
    static let snappedReach: Double = 4_194_304

    /// Every triangle on the screen of a picture whose sample (i, j) is centered at view
    /// (x0 + i du, y0 + j dv).
    func screens(x0: Float, y0: Float, du: Float, dv: Float) -> [Screen] {
        let x0 = Double(x0), y0 = Double(y0), du = Double(du), dv = Double(dv)
        let reach = CastTriangles.snappedReach, steps = CastTriangles.subsamples
        // Each vertex on the screen once, snapped where it is within reach.
        var snappedVertex = [Bool](repeating: false, count: positions.count)
        let onScreen = positions.indices.map { v in
            let p = positions[v]
            let q = SIMD2((Double(p.x) - x0) / du, (Double(p.y) - y0) / dv)
            guard abs(q.x) < reach && abs(q.y) < reach else { return q }
            snappedVertex[v] = true
            return (q * steps).rounded(.toNearestOrEven) / steps
        }
        return corners.map { k in
            let a = onScreen[Int(k.x)], b = onScreen[Int(k.y)], c = onScreen[Int(k.z)]
            let e = b - a, f = c - a
            return Screen(a: a, b: b, c: c, area: e.x * f.y - e.y * f.x,
                          snapped: snappedVertex[Int(k.x)] && snappedVertex[Int(k.y)] && snappedVertex[Int(k.z)])
        }
    }

    /// Every triangle into the depth and id buffers (ids from `first` in drawing order), rows
    /// `firstRow...lastRow` only: the nearest surface wins, the one drawn first on a tie (GL_LESS).
    func cast(_ screens: [Screen], first: Int32, depth z: UnsafeMutablePointer<Float>, ids id: UnsafeMutablePointer<Int32>,
              width fw: Int, firstRow: Int, lastRow: Int) {
        for t in 0..<corners.count {
            let s = screens[t]
            // Degenerate, or a coordinate past any number: GL draws nothing.
            guard s.area != 0, s.area.isFinite else { continue }
            let lo = pointwiseMin(pointwiseMin(s.a, s.b), s.c), hi = pointwiseMax(pointwiseMax(s.a, s.b), s.c)
            let i0 = max(SphereCaster.firstIndex(atOrAbove: Float(lo.x)), 0), i1 = min(SphereCaster.lastIndex(atOrBelow: Float(hi.x)), fw - 1)
            let j0 = max(SphereCaster.firstIndex(atOrAbove: Float(lo.y)), firstRow)
            let j1 = min(SphereCaster.lastIndex(atOrBelow: Float(hi.y)), lastRow)
            guard i0 <= i1, j0 <= j1 else { continue }
            let k = corners[t]
            let za = positions[Int(k.x)].z, zb = positions[Int(k.y)].z, zc = positions[Int(k.z)].z
            let front = max(za, max(zb, zc))
            let index = first + Int32(t)
            // Depth as a plane over the samples: z(i, j) = z00 + zi i + zj j.
            let inverse = 1 / s.area, edge = s.edgeSteps
            let dzdi = (edge.i.x * Double(za) + edge.i.y * Double(zb) + edge.i.z * Double(zc)) * inverse
            let dzdj = (edge.j.x * Double(za) + edge.j.y * Double(zb) + edge.j.z * Double(zc)) * inverse
            let w00 = s.weights(Double(i0), Double(j0))
            let z00 = (w00.x * Double(za) + w00.y * Double(zb) + w00.z * Double(zc)) * inverse
            @inline(__always) func write(_ i: Int, _ j: Int) {
                let at = j * fw + i
                let old = z[at]
                if old > front { return }
                let q = Float(z00 + dzdi * Double(i - i0) + dzdj * Double(j - j0))
                if q > old || (q == old && index < id[at]) {
                    z[at] = q
                    id[at] = index
                }
            }
            if s.snapped {
                // Exact coverage: the edge functions in 1/256 samples, as integers; a sample on an
                // edge belongs to the triangle whose edge is a left or top one, never to both.
                let steps = CastTriangles.subsamples
                var a = SIMD2<Int64>(Int64(s.a.x * steps), Int64(s.a.y * steps))
                var b = SIMD2<Int64>(Int64(s.b.x * steps), Int64(s.b.y * steps))
                let c = SIMD2<Int64>(Int64(s.c.x * steps), Int64(s.c.y * steps))
                if s.area < 0 { swap(&a, &b) }
                let e = (b &- a, c &- b, a &- c)   // each edge's direction, counterclockwise now
                // An edge function's least value inside: 0 on a left or top edge, else 1.
                @inline(__always) func bias(_ d: SIMD2<Int64>) -> Int64 { d.y < 0 || (d.y == 0 && d.x < 0) ? 0 : 1 }
                let bias = (bias(e.0), bias(e.1), bias(e.2))
                let unit = Int64(steps)
                // One sample along a row changes an edge's function by -dy per 1/256 sample.
                let step = (-e.0.y &* unit, -e.1.y &* unit, -e.2.y &* unit)
                for j in j0...j1 {
                    let y = Int64(j) &* unit, x = Int64(i0) &* unit
                    // Each edge's function less its least value inside: a sample is covered where
                    // none is negative.
                    var w0 = e.0.x &* (y &- a.y) &- e.0.y &* (x &- a.x) &- bias.0
                    var w1 = e.1.x &* (y &- b.y) &- e.1.y &* (x &- b.x) &- bias.1
                    var w2 = e.2.x &* (y &- c.y) &- e.2.y &* (x &- c.x) &- bias.2
                    var entered = false
                    for i in i0...i1 {
                        if w0 | w1 | w2 >= 0 {
                            entered = true
                            write(i, j)
                        } else if entered {
                            break  // past the far edge: a triangle's row is one run
                        }
                        w0 &+= step.0
                        w1 &+= step.1
                        w2 &+= step.2
                    }
                }
            } else {
                // Far outside the picture: edges included, in doubles.
                let sign: Double = s.area > 0 ? 1 : -1
                for j in j0...j1 {
                    for i in i0...i1 {
                        let w = s.weights(Double(i), Double(j)) * sign
                        if w.x < 0 || w.y < 0 || w.z < 0 { continue }
                        write(i, j)
                    }
                }
            }
        }
    }

    /// What `mesh.frag` receives across one triangle, as planes over the samples: at sample (i, j)
    /// an attribute is `value + di (i - anchor.x) + dj (j - anchor.y)`, the mix of its corners'
    /// values GL interpolates (linear on the screen in an orthographic view). The normal is turned
    /// toward the viewer's side on a back face (both faces are lit).
    struct Plane {
        var anchor: SIMD2<Float>
        var normal: SIMD3<Float>, normalDI: SIMD3<Float>, normalDJ: SIMD3<Float>
        var color: SIMD3<Float>, colorDI: SIMD3<Float>, colorDJ: SIMD3<Float>
        var z: Float, zDI: Float, zDJ: Float

        /// The unit normal, color and view z at sample (i, j).
        @inline(__always) func at(_ i: Int, _ j: Int) -> (normal: SIMD3<Float>, color: SIMD3<Float>, z: Float) {
            let x = Float(i) - anchor.x, y = Float(j) - anchor.y
            let n = normal + normalDI * x + normalDJ * y
            return (n / n.length, color + colorDI * x + colorDJ * y, z + zDI * x + zDJ * y)
        }
    }

    /// Triangle `t`'s plane, on `s`, its screen.
    func plane(_ t: Int, _ s: Screen) -> Plane {
        let k = corners[t]
        let ka = Int(k.x), kb = Int(k.y), kc = Int(k.z)
        let inverse = 1 / s.area, edge = s.edgeSteps
        // The gradient of a barycentric mix of (va, vb, vc) across samples, then the plane.
        let gi = SIMD3<Float>(edge.i * inverse), gj = SIMD3<Float>(edge.j * inverse)
        func gradient(_ a: SIMD3<Float>, _ b: SIMD3<Float>, _ c: SIMD3<Float>) -> (SIMD3<Float>, SIMD3<Float>) {
            (a * gi.x + b * gi.y + c * gi.z, a * gj.x + b * gj.y + c * gj.z)
        }
        let side: Float = s.area < 0 ? -1 : 1
        let na = normals[ka] * side, nb = normals[kb] * side, nc = normals[kc] * side
        let (ni, nj) = gradient(na, nb, nc)
        let (ci, cj) = gradient(colors[ka], colors[kb], colors[kc])
        let za = positions[ka].z, zb = positions[kb].z, zc = positions[kc].z
        return Plane(anchor: SIMD2(Float(s.a.x), Float(s.a.y)), normal: na, normalDI: ni, normalDJ: nj,
                     color: colors[ka], colorDI: ci, colorDJ: cj,
                     z: za, zDI: za * gi.x + zb * gi.y + zc * gi.z, zDJ: za * gj.x + zb * gj.y + zc * gj.z)
    }
}

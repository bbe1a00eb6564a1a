import Core
import Foundation
import Graphics
import Imaging
import Scene

/// Small orthographic pictures of spheres and bonds ray-cast on the CPU, without OpenGL: the same
/// surfaces, depths and light as the impostor shaders (`sphere.frag`, `cylinder.frag`,
/// `lighting.glsl`), to within float rounding (a sphere's surface is solved from the sample's
/// offset and the radius, where the shader takes a difference of two large squares: less rounding
/// at the rims, so a rim sample's shade may differ). At thumbnail sizes llvmpipe spends
/// most of a picture on what is not shading (binning, threads handing tiles over, per-draw
/// setup) and shades every fragment a sphere covers; here each pixel's nearest surface is found
/// first (spheres front to back, a pixel's depth tested before its surface is solved) and only
/// that one is lit. Above `maximumSamples` llvmpipe's two threads are faster and draw instead.
public enum SphereCaster {
    /// Largest picture (samples drawn, supersampling included) cast here: above it llvmpipe's
    /// two threads draw faster. Measured on four proteins in spacefill and ball-and-stick
    /// (`measure-render`, draw stage, `MOLSHOT_CAST=0` against the default): 256 px 13 against 34 ms,
    /// 512 px 29 against 47, 1024 px 96 against 102, 2048 px 377 against 274.
    public static let maximumSamples = 1024 * 1024

    /// Pictures cast here cull hidden spheres (`SphereOcclusion`) from this many spheres or balls
    /// up, not from `MoleculeRenderer.spheresToCull`: below it the caster's own tiles
    /// (`tiledMinimum`) pass hidden spheres over for less. Culling a sphere costs about what
    /// casting it hidden does (both read some twenty cells or samples), and only culling whole
    /// runs of spheres at once, in scenes far larger than a picture, saves more than it costs.
    /// Measured on the corpus's thumbnails (`measure-render`, under callgrind: instructions of the
    /// whole run, 2026-12-02): culled from 20,000 spheres 6.83 G, from 200,000 (none culled) 6.69 G
    /// (6.88 G before the tiles).
    public static let spheresToCull = 200_000

    /// False where `MOLSHOT_CAST` is off (`0`): every picture is drawn with GL (to compare the GL
    /// backends, or to measure llvmpipe).
    public static let enabled = EnvironmentVariable.cast.isOn(default: true)

    /// Whether a picture of `geometry` through `camera` at `samples` x `samples` a pixel is cast
    /// here: orthographic, small enough, within the sizes `OffscreenPass` accepts, and its meshes
    /// (if any) opaque triangles (`CastTriangles.castable`).
    public static func casts(_ geometry: MoleculeGeometry, camera: Camera, width: Int, height: Int, samples: Int) -> Bool {
        // Sizes outside the pass's limits go to it, which refuses them.
        enabled && camera.isOrthographic && camera.clip == nil && width > 0 && height > 0
            && width <= OffscreenPass.maximumSide && height <= OffscreenPass.maximumSide
            && width * height * samples * samples <= maximumSamples
            && (geometry.meshes.isEmpty || CastTriangles.castable(geometry.meshes, others: geometry.sphereCount + geometry.cylinderCount))
    }

    /// What one picture draws, in view space: spheres (x, y, z, drawn radius) with their colors,
    /// cylinders with theirs.
    struct Primitives {
        var spheres: [SIMD4<Float>] = []
        var sphereColors: [SIMD3<Float>] = []
        var cylinders: [Cylinder] = []
        /// Every bond covered by one triangle rather than a quad.
        var thinBonds = false
        var triangles = CastTriangles()
    }

    /// A bond as the cylinder shader sees it: its whole axis from a to b, its radius, the colors of
    /// its halves (packed as uploaded, `unpacked` when lit: 80 bytes a bond, where three floats
    /// each had made 128, and a large picture's bonds are megabytes taken afresh) and the
    /// rectangle (or triangle, `Primitives.thinBonds`) on the screen that the vertex shader covers.
    struct Cylinder {
        var a: SIMD3<Float>
        var u: SIMD3<Float>
        var length: Float
        var radius: Float
        var colorA: UInt32
        var colorB: UInt32
        var middle: SIMD2<Float>
        var across: SIMD2<Float>
        var along: SIMD2<Float>
        var halfLength: Float
        /// The nearest view z any of it reaches.
        var front: Float
    }

    /// A color packed as uploaded (red in the low byte) as the shaders read it.
    @inline(__always)
    static func unpacked(_ c: UInt32) -> SIMD3<Float> {
        SIMD3(Float(c & 0xFF), Float(c >> 8 & 0xFF), Float(c >> 16 & 0xFF)) / 255
    }

    /// The picture of `geometry` (colors: one per sphere and two per cylinder, and per mesh one a
    /// vertex, packed as `MoleculeScene` uploads them; `visible`: the spheres culling keeps, nil
    /// for all) as the impostor and mesh shaders draw it.
    public static func draw(_ geometry: MoleculeGeometry, sphereColors: [UInt32], cylinderColors: [UInt32], meshColors: [[UInt32]] = [],
                            visible: [Int32]?, camera: Camera, width: Int, height: Int, samples factor: Int,
                            style: RenderStyle) -> DrawnPicture {
        draw(geometry, sphereColors: sphereColors, cylinderColors: cylinderColors, meshColors: meshColors, visible: visible,
             camera: camera, width: width, height: height, samples: factor, style: style, fourAtOnce: true)
    }

    /// `fourAtOnce` false: every pixel lit on its own, as before `SphereShading` (for tests that compare the two);
    /// `tiles`: whether hidden spheres and bonds are passed over by their tiles, nil by `tiledMinimum`.
    static func draw(_ geometry: MoleculeGeometry, sphereColors: [UInt32], cylinderColors: [UInt32], meshColors: [[UInt32]] = [],
                     visible: [Int32]?, camera: Camera, width: Int, height: Int, samples factor: Int, style: RenderStyle,
                     fourAtOnce: Bool, tiles: Bool? = nil) -> DrawnPicture {
        let fw = width * factor, fh = height * factor
        let pixelsPerUnit = 1 / camera.worldUnitsPerPixel(width: width, height: height)
        let view = camera.viewMatrix(width: width, height: height)
        let projection = camera.projectionMatrix(width: width, height: height)
        var primitives = primitivesInView(geometry, sphereColors: sphereColors, cylinderColors: cylinderColors, visible: visible,
                                          view: view, minimumRadius: style.minimumAtomPixels / pixelsPerUnit,
                                          thinBonds: geometry.cylinderRadius * Float(factor) * pixelsPerUnit
                                              < MoleculeRenderer.triangleImpostorPixels / 2)
        if !geometry.meshes.isEmpty { primitives.triangles = CastTriangles(geometry.meshes, colors: meshColors, view: view) }
        // Orthographic: x_ndc = p00 x + p30, so a sample's center lies at x = (ndc - p30) / p00.
        let p = projection.columns
        let du = 2 / (Float(fw) * p.0.x), dv = 2 / (Float(fh) * p.1.y)
        let x0 = (-1 + 0.5 * 2 / Float(fw) - p.3.x) / p.0.x, y0 = (-1 + 0.5 * 2 / Float(fh) - p.3.y) / p.1.y
        let triangleScreens = primitives.triangles.screens(x0: x0, y0: y0, du: du, dv: dv)
        // Depth kept as view z (nearer is larger); window depths, linear in it, only for depth cues.
        let count = fw * fh
        var depth = [Float](repeating: -.infinity, count: count)
        var ids = [Int32](repeating: -1, count: count)
        let spheres = primitives.spheres, cylinders = primitives.cylinders, thinBonds = primitives.thinBonds
        let nSpheres = spheres.count
        // Front to back, so that most hidden samples fail their depth test
        // before any root is taken. The order decides nothing else: ties go to the lower index
        // whatever the order, as the first drawn wins with GL_LESS.
        trace("cast: \(nSpheres) spheres, \(cylinders.count) bonds, \(primitives.triangles.count) triangles, \(fw) x \(fh) samples")
        let order = SphereOcclusion.frontToBack(spheres.map { $0.z + $0.w })
        // The spheres gathered into that order first (loads that do not wait on one another), so
        // that the loop below reads them one after another: in the order's random jumps through
        // millions of spheres each read had been a cache miss, a quarter of a large picture's cast.
        let ordered = order.map { spheres[Int($0)] }
        // Many spheres: two bands of rows, each cast on its own core (a sample's outcome does not
        // depend on the order spheres reach it, so the bands are the picture one pass makes). A
        // band starts on a tile's first row, so that no tile is shared by two.
        let bands = fh >= 64 ? SphereOcclusion.bands(nSpheres) : 1
        // Many spheres: those the samples' tiles show hidden are passed over whole (`SampleTiles`).
        // Shared by the bands, which touch only their own rows' tiles (a band starts on a tile's first row).
        nonisolated(unsafe) let sampleTiles = (tiles ?? (nSpheres >= tiledMinimum)) ? SampleTiles(width: fw, height: fh) : nil
        defer { sampleTiles?.deallocate() }
        depth.withUnsafeMutableBufferPointer { zb in
            ids.withUnsafeMutableBufferPointer { idb in
                nonisolated(unsafe) let z = zb.baseAddress!, id = idb.baseAddress!
                ordered.withUnsafeBufferPointer { orderedBuffer in
                    order.withUnsafeBufferPointer { orderBuffer in
                        nonisolated(unsafe) let ordered = orderedBuffer, order = orderBuffer
                        DispatchQueue.concurrentPerform(iterations: bands) { band in
                            let side = SampleTiles.side
                            let firstRow = band == 0 ? 0 : fh * band / bands / side * side
                            let lastRow = band == bands - 1 ? fh - 1 : fh * (band + 1) / bands / side * side - 1
                            // Two calls, so that the loop without tiles is compiled without them.
                            if let sampleTiles {
                                castSpheres(ordered, order: order, z: z, id: id, tiles: sampleTiles, firstRow: firstRow, lastRow: lastRow,
                                            fw: fw, x0: x0, y0: y0, du: du, dv: dv)
                            } else {
                                castSpheres(ordered, order: order, z: z, id: id, tiles: nil, firstRow: firstRow, lastRow: lastRow,
                                            fw: fw, x0: x0, y0: y0, du: du, dv: dv)
                            }
                        }
                    }
                }
                // Bonds after the spheres, passed over where the spheres' tiles hide them.
                for (c, cyl) in cylinders.enumerated() {
                    castCylinder(cyl, index: Int32(nSpheres + c), thin: thinBonds, depth: z, ids: id, width: fw, height: fh,
                                 x0: x0, y0: y0, du: du, dv: dv, tiles: sampleTiles)
                }
                // Meshes last, as GL draws them; many triangles in two bands of rows.
                let triangles = primitives.triangles
                if triangles.count > 0 {
                    let bands = fh >= 64 ? SphereOcclusion.bands(triangles.count) : 1
                    let screens = triangleScreens
                    DispatchQueue.concurrentPerform(iterations: bands) { band in
                        triangles.cast(screens, first: Int32(nSpheres + cylinders.count), depth: z, ids: id, width: fw,
                                       firstRow: fh * band / bands, lastRow: fh * (band + 1) / bands - 1)
                    }
                }
            }
        }
        trace("cast: depths done")
        // One sample a pixel and no depth cues: the rows written top row first, the picture as it is
        // kept, with no copy turning it over.
        let topDown = factor == 1 && style.effects.isEmpty
        let pixels = shade(primitives, screens: triangleScreens, ids: ids, width: fw, height: fh, x0: x0, y0: y0, du: du, dv: dv, camera: camera, style: style,
                           topDown: topDown, fourAtOnce: fourAtOnce)
        trace("cast: shaded")
        let smooth = style.antialias == 1 && factor == 1
        let (near, far) = camera.depthRange
        if !style.effects.isEmpty {
            // As the shaders' windowDepth (orthographic); the background at the far plane, 1.
            let a = p.2.z * 0.5, b = p.3.z * 0.5 + 0.5
            let windowDepths = depth.map { $0 == -.infinity ? 1 : min(max(a * $0 + b, 0), 1) }
            return DrawnPicture(samples: pixels, depth: windowDepths, width: fw, height: fh, factor: factor, effects: style.effects,
                                projection: .init(near: near, far: far, orthographic: true, unitsPerPixel: 1 / pixelsPerUnit),
                                smoothEdges: smooth)
        }
        if topDown { return DrawnPicture(image: RGBAImage(width: fw, height: fh, pixels: pixels), smoothEdges: smooth) }
        return pixels.withUnsafeBufferPointer {
            DrawnPicture(image: RGBAImage.fromBottomUp($0, width: fw, height: fh, factor: factor), smoothEdges: smooth)
        }
    }

    /// The picture's samples in tiles `side` a side, each counting its samples that nothing has
    /// reached yet (`open`) and keeping the least depth written in them (`far`): where every tile
    /// a sphere or bond reaches is closed and lies nearer than its front, `old > front` holds in
    /// each of its samples, and it is passed over whole (the picture is the same).
    struct SampleTiles {
        static let side = 8
        static let shift = side.trailingZeroBitCount
        let open: UnsafeMutablePointer<Int32>
        let far: UnsafeMutablePointer<Float>
        /// Tiles a row.
        let across: Int

        init(width: Int, height: Int) {
            let side = SampleTiles.side
            across = (width + side - 1) / side
            let down = (height + side - 1) / side
            open = .allocate(capacity: across * down)
            far = .allocate(capacity: across * down)
            far.initialize(repeating: .infinity, count: across * down)
            for tj in 0..<down {
                let rows = min(side, height - tj * side)
                for ti in 0..<across { (open + tj * across + ti).initialize(to: Int32(rows * min(side, width - ti * side))) }
            }
        }

        func deallocate() {
            open.deallocate()
            far.deallocate()
        }

        /// Whether what is written already hides everything behind `front` in samples `rows` x `columns`.
        @inline(__always)
        func hide(rows: ClosedRange<Int>, columns: ClosedRange<Int>, behind front: Float) -> Bool {
            for tj in (rows.lowerBound >> Self.shift)...(rows.upperBound >> Self.shift) {
                let first = tj * across + (columns.lowerBound >> Self.shift), last = tj * across + (columns.upperBound >> Self.shift)
                for t in first...last where open[t] != 0 || !(far[t] > front) { return false }
            }
            return true
        }

        /// Depth `q` written over `old` in sample (`column`, `row`).
        @inline(__always)
        func write(_ q: Float, over old: Float, row: Int, column: Int) {
            let t = (row >> Self.shift) * across + (column >> Self.shift)
            if old == -.infinity { open[t] -= 1 }
            if q < far[t] { far[t] = q }
        }
    }

    /// Pictures of this many spheres or more pass hidden ones over by their tiles: below it
    /// keeping the tiles costs more than it saves (the corpus's thumbnails under callgrind, with
    /// tiles from 0, 1,000 and 5,000 spheres: 6.703, 6.689 and 6.706 G instructions; none 6.784 G).
    static let tiledMinimum = 1000

    /// Casts `ordered` (the spheres front to back, `order` their indices) into rows
    /// `firstRow...lastRow` of depths `z` and ids `id`, keeping `tiles` (where given) as samples
    /// are written and passing over the spheres they hide.
    @inline(__always)
    private static func castSpheres(_ ordered: UnsafeBufferPointer<SIMD4<Float>>, order: UnsafeBufferPointer<Int32>,
                                    z: UnsafeMutablePointer<Float>, id: UnsafeMutablePointer<Int32>, tiles: SampleTiles?,
                                    firstRow: Int, lastRow: Int, fw: Int, x0: Float, y0: Float, du: Float, dv: Float) {
        for n in 0..<ordered.count {
            let k = Int(order[n])
            let s = ordered[n]
            let r2 = s.w * s.w
            let front = s.z + s.w
            let j0 = max(firstIndex(atOrAbove: (s.y - s.w - y0) / dv), firstRow)
            let j1 = min(lastIndex(atOrBelow: (s.y + s.w - y0) / dv), lastRow)
            guard j0 <= j1 else { continue }
            if let tiles {
                // The sphere's square: its rows here, its columns one sample wider each way, as the rows below reach.
                let c0 = max(firstIndex(atOrAbove: (s.x - s.w - x0) / du) - 1, 0)
                let c1 = min(lastIndex(atOrBelow: (s.x + s.w - x0) / du) + 1, fw - 1)
                guard c0 <= c1 else { continue }
                if tiles.hide(rows: j0...j1, columns: c0...c1, behind: front) { continue }
            }
            for j in j0...j1 {
                let dy = y0 + Float(j) * dv - s.y
                let w2 = r2 - dy * dy
                guard w2 >= 0 else { continue }
                let w = w2.squareRoot()
                let i0 = max(firstIndex(atOrAbove: (s.x - w - x0) / du) - 1, 0)
                let i1 = min(lastIndex(atOrBelow: (s.x + w - x0) / du) + 1, fw - 1)
                guard i0 <= i1 else { continue }
                let row = j * fw
                var dx = x0 + Float(i0) * du - s.x
                for i in i0...i1 {
                    defer { dx += du }
                    let at = row + i
                    let old = z[at]
                    if old > front { continue }
                    let h = w2 - dx * dx
                    if h < 0 { continue }
                    let q = s.z + h.squareRoot()
                    if q > old || (q == old && Int32(k) < id[at]) {
                        tiles?.write(q, over: old, row: j, column: i)
                        z[at] = q
                        id[at] = Int32(k)
                    }
                }
            }
        }
    }

    /// One bond into the depth and id buffers, as `cylinder.frag` solves it for each sample its
    /// vertex shader's cover reaches.
    private static func castCylinder(_ c: Cylinder, index: Int32, thin: Bool, depth z: UnsafeMutablePointer<Float>, ids id: UnsafeMutablePointer<Int32>,
                                     width fw: Int, height fh: Int, x0: Float, y0: Float, du: Float, dv: Float,
                                     tiles: SampleTiles?) {
        // The cover's corners on the screen (a rectangle, or one triangle for thin bonds), kept in
        // a fixed tuple: no allocation a bond.
        let across = c.across * c.radius, along = c.along * c.halfLength
        let m = c.middle
        let corners: (SIMD2<Float>, SIMD2<Float>, SIMD2<Float>, SIMD2<Float>)
        if thin {
            let top: SIMD2<Float> = m + 3 * along
            corners = (m - 2 * across - along, m + 2 * across - along, top, top)
        } else {
            let back: SIMD2<Float> = m - along, ahead: SIMD2<Float> = m + along
            corners = (back - across, back + across, ahead + across, ahead - across)
        }
        let lo = pointwiseMin(pointwiseMin(corners.0, corners.1), pointwiseMin(corners.2, corners.3))
        let hi = pointwiseMax(pointwiseMax(corners.0, corners.1), pointwiseMax(corners.2, corners.3))
        let j0 = max(firstIndex(atOrAbove: (lo.y - y0) / dv), 0), j1 = min(lastIndex(atOrBelow: (hi.y - y0) / dv), fh - 1)
        guard j0 <= j1 else { return }
        let i0 = max(firstIndex(atOrAbove: (lo.x - x0) / du), 0), i1 = min(lastIndex(atOrBelow: (hi.x - x0) / du), fw - 1)
        guard i0 <= i1 else { return }
        // The spheres' tiles are not kept by the bonds' samples: what they hold stays true, if not all that could be.
        if let tiles, tiles.hide(rows: j0...j1, columns: i0...i1, behind: c.front) { return }
        let front = c.front
        // The ray is (x, y, 0) + t (0, 0, -1); its part across the axis is the same for every sample.
        let u = c.u
        let dp = SIMD3<Float>(0, 0, -1) + u.z * u
        let A = (dp * dp).sum()
        guard A >= 1e-8 else { return }
        let r2 = c.radius * c.radius
        for j in j0...j1 {
            let y = y0 + Float(j) * dv
            let row = j * fw
            var x = x0 + Float(i0) * du
            for i in i0...i1 {
                defer { x += du }
                let at = row + i
                let old = z[at]
                if old > front { continue }
                guard c.covers(SIMD2(x, y), thin: thin) else { continue }
                let w = SIMD3(x, y, 0) - c.a
                let wp = w - (w * u).sum() * u
                let B = (wp * dp).sum(), C = (wp * wp).sum() - r2
                let h = B * B - A * C
                if h < 0 { continue }
                let t = (-B - h.squareRoot()) / A
                let s = ((SIMD3(x, y, -t) - c.a) * u).sum()
                if s < 0 || s > c.length { continue }
                let q = -t
                if q > old || (q == old && index < id[at]) {
                    z[at] = q
                    id[at] = index
                }
            }
        }
    }

    /// The first sample index at or after position `p` (in samples from the first center), and
    /// the last at or before it; clamped far outside any picture, never trapping on a huge value.
    /// Not a number (a sphere at infinity less another): past every picture, so nothing is drawn.
    @inline(__always) static func firstIndex(atOrAbove p: Float) -> Int {
        guard !p.isNaN else { return Int.max }
        let v = min(max(p, -1e9), 1e9)
        let t = Int(v)
        return Float(t) < v ? t + 1 : t
    }

    @inline(__always) static func lastIndex(atOrBelow p: Float) -> Int {
        guard !p.isNaN else { return Int.min }
        let v = min(max(p, -1e9), 1e9)
        let t = Int(v)
        return Float(t) > v ? t - 1 : t
    }

    /// The spheres and bonds as drawn, in view space: culling's subset and the bonds of its atoms
    /// (as `MoleculeRenderer` draws them), radii no smaller than `minimumRadius`.
    static func primitivesInView(_ g: MoleculeGeometry, sphereColors: [UInt32], cylinderColors: [UInt32], visible: [Int32]?,
                                 view: Matrix4, minimumRadius: Float, thinBonds: Bool) -> Primitives {
        func inView(_ xyz: [Float], _ k: Int) -> SIMD3<Float> {
            let v = view * SIMD4(xyz[k], xyz[k + 1], xyz[k + 2], 1)
            return SIMD3(v.x, v.y, v.z)
        }
        var out = Primitives()
        out.thinBonds = thinBonds
        var seen: [Bool]? = nil
        if let visible {
            out.spheres.reserveCapacity(visible.count)
            out.sphereColors.reserveCapacity(visible.count)
            for i in visible {
                let k = Int(i)
                out.spheres.append(SIMD4(inView(g.spheres, 4 * k), max(g.spheres[4 * k + 3], minimumRadius)))
                out.sphereColors.append(unpacked(sphereColors[k]))
            }
            // The atoms seen, for their bonds (none to find in spacefill).
            if g.cylinderCount > 0 {
                var marks = [Bool](repeating: false, count: (g.sphereAtoms.max().map(Int.init) ?? -1) + 1)
                for i in visible { marks[Int(g.sphereAtoms[Int(i)])] = true }
                seen = marks
            }
        } else {
            out.spheres.reserveCapacity(g.sphereCount)
            out.sphereColors.reserveCapacity(g.sphereCount)
            for k in 0..<g.sphereCount {
                out.spheres.append(SIMD4(inView(g.spheres, 4 * k), max(g.spheres[4 * k + 3], minimumRadius)))
                out.sphereColors.append(unpacked(sphereColors[k]))
            }
        }
        out.cylinders.reserveCapacity(g.cylinderCount)
        for c in 0..<g.cylinderCount {
            if let seen {
                let a = Int(g.cylinderAtoms[2 * c]), b = Int(g.cylinderAtoms[2 * c + 1])
                guard (a < seen.count && seen[a]) || (b < seen.count && seen[b]) else { continue }
            }
            let e = 8 * c
            let a = inView(g.cylinders, e), b = inView(g.cylinders, e + 4)
            let r = g.cylinderRadii[c]
            // As cylinder.vert: the part between the spheres, its middle, and the screen's
            // directions across and along the axis (toward the eye is +z in an orthographic view).
            let axis = b - a
            let len = axis.length
            let u = axis / max(len, 1e-6)
            let a2 = a + u * min(g.cylinders[e + 3], 0.5 * len), b2 = b - u * min(g.cylinders[e + 7], 0.5 * len)
            let middle = (a2 + b2) * 0.5
            var across = SIMD3(axis.y, -axis.x, 0)
            let acrossLength = across.length
            across = acrossLength > 1e-6 ? across / acrossLength : SIMD3(1, 0, 0)
            let along = SIMD3(-across.y, across.x, 0) / max(SIMD2(across.x, across.y).length, 1e-12)
            let halfLength = 0.5 * abs(((b2 - a2) * along).sum()) + r
            out.cylinders.append(Cylinder(a: a, u: axis / len, length: len, radius: r,
                                          colorA: cylinderColors[2 * c], colorB: cylinderColors[2 * c + 1],
                                          middle: SIMD2(middle.x, middle.y), across: SIMD2(across.x, across.y),
                                          along: SIMD2(along.x, along.y), halfLength: halfLength,
                                          front: max(a.z, b.z) + r))
        }
        return out
    }

    /// Lights each sample's nearest surface as `lighting.glsl` does; RGBA, bottom row first (as GL
    /// reads back), or top row first (`topDown`).
    private static func shade(_ primitives: Primitives, screens: [CastTriangles.Screen], ids: [Int32], width fw: Int, height fh: Int, x0: Float, y0: Float,
                              du: Float, dv: Float, camera: Camera, style: RenderStyle, topDown: Bool, fourAtOnce: Bool) -> [UInt8] {
        func unit(_ v: SIMD3<Float>) -> SIMD3<Float> { v / v.length }
        let light = unit(style.lightDirection)
        let halfway = unit(light + SIMD3<Float>(0, 0, 1))
        let bg = style.background
        // Nearest (ties to even), as llvmpipe converts, after the shader's clamp to 0...1: adding
        // 1.5 x 2^23 leaves the rounded integer in the low bits, without a checked conversion.
        @inline(__always) func byte(_ v: Float) -> UInt32 { (max(0, min(1, v)) * 255 + 12_582_912).bitPattern & 0xFF }
        let background: UInt32 = byte(bg.red) | byte(bg.green) << 8 | byte(bg.blue) << 16 | byte(bg.alpha) << 24
        let distance = camera.distance, r = camera.radius
        let fogStart = distance - r * 0.2, fogEnd = distance + r
        let fogStrength: Float = style.depthCue ? 0.75 : 0
        let fogColor = bg.alpha > 0 ? SIMD3(bg.red, bg.green, bg.blue) : SIMD3<Float>(1, 1, 1)
        let ambient = style.ambient, diffuse = style.diffuse, fill = style.fill, specular = style.specular
        let spheres = primitives.spheres, colors = primitives.sphereColors, cylinders = primitives.cylinders
        let nSpheres = spheres.count, firstTriangle = nSpheres + cylinders.count
        // The planes of the triangles some sample shows, each made once.
        var shownPlaneOf = [Int32](), shownPlanes = [CastTriangles.Plane]()
        if primitives.triangles.count > 0 {
            shownPlaneOf = [Int32](repeating: -1, count: primitives.triangles.count)
            for k in ids where Int(k) >= firstTriangle {
                let t = Int(k) - firstTriangle
                if shownPlaneOf[t] < 0 {
                    shownPlaneOf[t] = Int32(shownPlanes.count)
                    shownPlanes.append(primitives.triangles.plane(t, screens[t]))
                }
            }
        }
        let planeOf = shownPlaneOf, planes = shownPlanes
        trace("cast: \(planes.count) triangles shown")
        return [UInt8](unsafeUninitializedCapacity: fw * fh * 4) { buffer, initialized in
            buffer.withMemoryRebound(to: UInt32.self) { out in
                spheres.withUnsafeBufferPointer { spheres in
                    colors.withUnsafeBufferPointer { colors in
                        ids.withUnsafeBufferPointer { idb in
                            planes.withUnsafeBufferPointer { planeBuffer in
                                planeOf.withUnsafeBufferPointer { planeOfBuffer in
                                    // One pixel as the shaders light it.
                                    @inline(__always) func lit(_ k: Int, _ i: Int, _ j: Int) -> UInt32 {
                                        let x = x0 + Float(i) * du, y = y0 + Float(j) * dv
                                        let n: SIMD3<Float>, base: SIMD3<Float>, hitZ: Float
                                        if k < nSpheres {
                                            let s = spheres[k]
                                            let dx = x - s.x, dy = y - s.y
                                            let dz = max(s.w * s.w - dx * dx - dy * dy, 0).squareRoot()
                                            n = SIMD3(dx, dy, dz) / s.w
                                            base = colors[k]
                                            hitZ = s.z + dz
                                        } else if k >= firstTriangle {
                                            // As mesh.frag: the mixed normal, the side seen lit.
                                            (n, base, hitZ) = planes[Int(planeOf[k - firstTriangle])].at(i, j)
                                        } else {
                                            let c = cylinders[k - nSpheres]
                                            let u = c.u
                                            let dp = SIMD3<Float>(0, 0, -1) + u.z * u
                                            let A = (dp * dp).sum()
                                            let w = SIMD3(x, y, 0) - c.a
                                            let wp = w - (w * u).sum() * u
                                            let B = (wp * dp).sum(), C = (wp * wp).sum() - c.radius * c.radius
                                            let t = (-B - max(B * B - A * C, 0).squareRoot()) / A
                                            let hit = SIMD3(x, y, -t)
                                            let s = ((hit - c.a) * u).sum()
                                            n = (hit - c.a - s * u) / c.radius
                                            base = unpacked(s < 0.5 * c.length ? c.colorA : c.colorB)
                                            hitZ = -t
                                        }
                                        let lambert = max((n * light).sum(), 0)
                                        let hx = max((n * halfway).sum(), 0)
                                        let x2 = hx * hx, x4 = x2 * x2, x8 = x4 * x4, x16 = x8 * x8
                                        let highlight = lambert > 0 ? x16 * x16 * x16 : 0
                                        var color = base * (ambient + diffuse * lambert + fill * max(n.z, 0)) + SIMD3(repeating: specular * highlight)
                                        if fogStrength > 0 {
                                            let f = min(max((-hitZ - fogStart) / max(fogEnd - fogStart, 1e-4), 0), 1)
                                            color = color + (fogColor - color) * (f * fogStrength)
                                        }
                                        return byte(color.x) | byte(color.y) << 8 | byte(color.z) << 16 | 0xFF00_0000
                                    }
                                    // Four pixels of spheres, or of triangles, at once (`SphereShading`; eight spill out of SSE
                                    // registers); a group with a bond in it or of both kinds, and a row's last few pixels, one at a time.
                                    let four = SphereShading(light: light, halfway: halfway, ambient: ambient, diffuse: diffuse, fill: fill,
                                                              specular: specular, fogStart: fogStart, fogEnd: fogEnd, fogStrength: fogStrength,
                                                              fogColor: fogColor, background: background)
                                    for j in 0..<fh {
                                        let y = y0 + Float(j) * dv
                                        let row = (topDown ? fh - 1 - j : j) * fw
                                        var i = 0
                                        while fourAtOnce && i + 4 <= fw {
                                            let ks = UnsafeRawPointer(idb.baseAddress! + j * fw + i).loadUnaligned(as: SIMD4<Int32>.self)
                                            if all(ks .< 0) {
                                                for l in 0..<4 { out[row + i + l] = background }
                                            } else if all(ks .< Int32(truncatingIfNeeded: nSpheres)) {
                                                let xs = SIMD4<Float>(repeating: x0) + SIMD4<Float>(Float(i), Float(i + 1), Float(i + 2), Float(i + 3)) * du
                                                let pixels = four.lit(ks, x: xs, y: y, spheres: spheres.baseAddress!, colors: colors.baseAddress!)
                                                UnsafeMutableRawPointer(out.baseAddress! + row + i).storeBytes(of: pixels, as: SIMD4<UInt32>.self)
                                            } else if all(ks .>= Int32(truncatingIfNeeded: firstTriangle)) {
                                                let pixels = four.litTriangles(ks, i: i, j: j, first: firstTriangle, planes: planeBuffer.baseAddress!,
                                                                               planeOf: planeOfBuffer.baseAddress!)
                                                UnsafeMutableRawPointer(out.baseAddress! + row + i).storeBytes(of: pixels, as: SIMD4<UInt32>.self)
                                            } else {
                                                for l in 0..<4 {
                                                    let k = Int(ks[l])
                                                    out[row + i + l] = k < 0 ? background : lit(k, i + l, j)
                                                }
                                            }
                                            i += 4
                                        }
                                        while i < fw {
                                            let k = Int(idb[j * fw + i])
                                            out[row + i] = k < 0 ? background : lit(k, i, j)
                                            i += 1
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
            initialized = fw * fh * 4
        }
    }
}

extension SphereCaster.Cylinder {
    /// Whether the cover (a triangle where `thin`) reaches the view-space point `p` (x, y).
    @inline(__always) func covers(_ p: SIMD2<Float>, thin: Bool) -> Bool {
        let d = p - middle
        let x = (d * across).sum() / radius, y = (d * along).sum() / halfLength
        if thin { return y >= -1 && y <= 3 - 2 * abs(x) }
        return abs(x) <= 1 && abs(y) <= 1
    }
}

/// `SphereCaster`'s lighting of spheres and triangles for four pixels at once: lane for lane the arithmetic of
/// its one-pixel path in the same order, so the same bytes (`SphereCasterTests` compares them).
struct SphereShading {
    typealias F = SIMD4<Float>
    let light: SIMD3<Float>, halfway: SIMD3<Float>
    let ambient: Float, diffuse: Float, fill: Float, specular: Float
    let fogStart: Float, fogEnd: Float, fogStrength: Float, fogColor: SIMD3<Float>
    let background: UInt32

    /// Pixels at `x` (per lane) on the row at `y`, whose nearest surfaces are spheres `ks` (or
    /// none, -1: the background), as RGBA words.
    @inline(__always)
    func lit(_ ks: SIMD4<Int32>, x: F, y: Float, spheres: UnsafePointer<SIMD4<Float>>, colors: UnsafePointer<SIMD3<Float>>) -> SIMD4<UInt32> {
        var sx = F(), sy = F(), sz = F(), sw = F(), cr = F(), cg = F(), cb = F()
        for l in 0..<4 {
            let k = max(Int(ks[l]), 0)
            let sphere = spheres[k], color = colors[k]
            sx[l] = sphere.x; sy[l] = sphere.y; sz[l] = sphere.z; sw[l] = sphere.w
            cr[l] = color.x; cg[l] = color.y; cb[l] = color.z
        }
        let dx = x - sx, dy = F(repeating: y) - sy
        let dz = atLeastZero(sw * sw - dx * dx - dy * dy).squareRoot()
        return shaded(nx: dx / sw, ny: dy / sw, nz: dz / sw, r: cr, g: cg, b: cb, hitZ: sz + dz, ks: ks)
    }

    /// Pixels at samples (i..<i+4, j) whose nearest surfaces are triangles `ks` (from `first`
    /// on), each lit from its plane (`planes[planeOf[k - first]]`) as `CastTriangles.Plane.at`
    /// and the one-pixel path do it, lane for lane in the same order.
    @inline(__always)
    func litTriangles(_ ks: SIMD4<Int32>, i: Int, j: Int, first: Int, planes: UnsafePointer<CastTriangles.Plane>,
                      planeOf: UnsafePointer<Int32>) -> SIMD4<UInt32> {
        let p0 = planes[Int(planeOf[Int(ks[0]) - first])], p1 = planes[Int(planeOf[Int(ks[1]) - first])]
        let p2 = planes[Int(planeOf[Int(ks[2]) - first])], p3 = planes[Int(planeOf[Int(ks[3]) - first])]
        let x = F(Float(i), Float(i + 1), Float(i + 2), Float(i + 3)) - F(p0.anchor.x, p1.anchor.x, p2.anchor.x, p3.anchor.x)
        let y = F(repeating: Float(j)) - F(p0.anchor.y, p1.anchor.y, p2.anchor.y, p3.anchor.y)
        let n = Self.at(Self.lanes(p0.normal, p1.normal, p2.normal, p3.normal), Self.lanes(p0.normalDI, p1.normalDI, p2.normalDI, p3.normalDI),
                        Self.lanes(p0.normalDJ, p1.normalDJ, p2.normalDJ, p3.normalDJ), x: x, y: y)
        let c = Self.at(Self.lanes(p0.color, p1.color, p2.color, p3.color), Self.lanes(p0.colorDI, p1.colorDI, p2.colorDI, p3.colorDI),
                        Self.lanes(p0.colorDJ, p1.colorDJ, p2.colorDJ, p3.colorDJ), x: x, y: y)
        let z = F(p0.z, p1.z, p2.z, p3.z) + F(p0.zDI, p1.zDI, p2.zDI, p3.zDI) * x + F(p0.zDJ, p1.zDJ, p2.zDJ, p3.zDJ) * y
        let length = (n.x * n.x + n.y * n.y + n.z * n.z).squareRoot()
        return shaded(nx: n.x / length, ny: n.y / length, nz: n.z / length, r: c.x, g: c.y, b: c.z, hitZ: z, ks: ks)
    }

    /// A field of four planes as three vectors across them, built from values (not stored lane by lane).
    @inline(__always)
    private static func lanes(_ a: SIMD3<Float>, _ b: SIMD3<Float>, _ c: SIMD3<Float>, _ d: SIMD3<Float>) -> (x: F, y: F, z: F) {
        (F(a.x, b.x, c.x, d.x), F(a.y, b.y, c.y, d.y), F(a.z, b.z, c.z, d.z))
    }

    /// A field's value at samples `x`, `y` from its plane's anchor: its value there plus its steps
    /// across (`di`) and down (`dj`), in `Plane.at`'s order.
    @inline(__always)
    private static func at(_ v: (x: F, y: F, z: F), _ di: (x: F, y: F, z: F), _ dj: (x: F, y: F, z: F), x: F, y: F) -> (x: F, y: F, z: F) {
        (v.x + di.x * x + dj.x * y, v.y + di.y * x + dj.y * y, v.z + di.z * x + dj.z * y)
    }

    @inline(__always) private func atLeastZero(_ v: F) -> F { v.replacing(with: 0, where: 0 .>= v) }

    /// Surfaces of unit normal `n`, colour (r, g, b) and view z `hitZ` lit as `lighting.glsl`
    /// lights them; lanes of `ks` below 0 are the background.
    @inline(__always)
    private func shaded(nx: F, ny: F, nz: F, r cr: F, g cg: F, b cb: F, hitZ: F, ks: SIMD4<Int32>) -> SIMD4<UInt32> {
        let lambert = atLeastZero(nx * light.x + ny * light.y + nz * light.z)
        let hx = atLeastZero(nx * halfway.x + ny * halfway.y + nz * halfway.z)
        let x2 = hx * hx, x4 = x2 * x2, x8 = x4 * x4, x16 = x8 * x8
        let highlight = (x16 * x16 * x16).replacing(with: 0, where: .!(lambert .> 0))
        let intensity = F(repeating: ambient) + diffuse * lambert + fill * atLeastZero(nz)
        let shine = specular * highlight
        var r = cr * intensity + shine, g = cg * intensity + shine, b = cb * intensity + shine
        if fogStrength > 0 {
            let raw = (-hitZ - fogStart) / max(fogEnd - fogStart, 1e-4)
            let low = raw.replacing(with: 0, where: 0 .>= raw)
            let f = low.replacing(with: 1, where: 1 .< low) * fogStrength
            r = r + (fogColor.x - r) * f
            g = g + (fogColor.y - g) * f
            b = b + (fogColor.z - b) * f
        }
        @inline(__always) func byte(_ v: F) -> SIMD4<UInt32> {
            // max(0, min(1, v)) as the one-pixel path takes it (Swift's min and max, NaN included).
            let upper = v.replacing(with: 1, where: .!(v .< 1))
            let clamped = upper.replacing(with: 0, where: .!(upper .>= 0))
            return unsafeBitCast(clamped * 255 + 12_582_912, to: SIMD4<UInt32>.self) & 0xFF
        }
        let words = byte(r) | byte(g) &<< 8 | byte(b) &<< 16 | 0xFF00_0000
        return words.replacing(with: background, where: ks .< 0)
    }
}

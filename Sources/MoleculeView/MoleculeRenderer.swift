import Core
import Graphics
import Imaging
import Scene

/// Draws molecule scenes offscreen: spheres and bonds are both ray-cast impostors, one quad
/// each, so vertex work stays small (llvmpipe shades vertices on one thread) and the surfaces
/// are exact at any size. Create it once and render many images with it; it must be
/// used on the thread that created it (the GL context is current there).
public final class MoleculeRenderer {
    public let device: GraphicsDevice
    private let pass: OffscreenPass
    private let quad: GPUBuffer
    /// Seconds the last `render` spent drawing (until the GPU finished) and reading back.
    public var lastTimings: (draw: Double, readback: Double) { pass.lastTimings }
    /// Scenes of prepared molecules drawn with `draw(_:camera:width:height:style:)`, newest last:
    /// a session that changes only its camera draws without uploading again.
    private var cachedScenes: [(id: UInt64, scene: MoleculeScene)] = []
    /// How many prepared molecules keep their scenes on the GPU.
    public var cachedSceneLimit = 8
    /// Spheres drawn smaller than this radius in pixels, and bonds thinner than half of it, get one
    /// triangle each instead of a quad: fewer primitives to set up where setup costs more than
    /// the extra fragments. 0 always draws quads; the picture is the same either way.
    public var triangleImpostorPixels: Float = MoleculeRenderer.triangleImpostorPixels
    /// The default of `triangleImpostorPixels`.
    public static let triangleImpostorPixels: Float = 6
    /// Small orthographic pictures of spheres and bonds are ray-cast on the CPU (`SphereCaster`),
    /// the same picture to within float rounding and faster than llvmpipe; false draws every
    /// picture with GL (tests that compare the two).
    public var castsSmallPictures = true
    /// Largest output side `render` accepts.
    public static let maximumSide = OffscreenPass.maximumSide

    public init(device: GraphicsDevice? = nil) throws {
        let device = try device ?? GraphicsDevice()
        self.device = device
        pass = OffscreenPass(device: device)
        // A quad (strip of 4); after it, one triangle whose inscribed circle is the unit circle (small
        // spheres); after that, one triangle covering the square (-1,-1)..(1,1) (thin bonds). Half the
        // triangles to set up for impostors a few pixels wide, where setup costs more than fill.
        quad = GPUBuffer(device: device, [Float]([-1, -1, 1, -1, -1, 1, 1, 1, -1.7320508, -1, 1.7320508, -1, 0, 2,
                                                  -2, -1, 2, -1, 0, 3]))
        // Compile both programs now rather than at the first picture.
        _ = try device.program(vertex: "sphere.vert", fragment: "sphere.frag", defines: ["ORTHOGRAPHIC"])
        _ = try device.program(vertex: "cylinder.vert", fragment: "cylinder.frag", defines: ["ORTHOGRAPHIC"])
    }

    /// Draws a two-atom picture with quads and with triangles, orthographic: llvmpipe compiles
    /// shaders for real at their first draw (tens of milliseconds each), so a pipeline calls this
    /// while its first structures are still being read. `meshes`: a triangle too, for cartoons.
    public func warmUp(meshes: Bool = false) throws {
        var g = MoleculeGeometry()
        g.spheres = [-1, 0, 0, 0.4, 1, 0, 0, 0.4]
        g.sphereAtoms = [0, 1]
        g.cylinders = [-1, 0, 0, 0.3, 1, 0, 0, 0.3]
        g.cylinderRadii = [0.15]
        g.cylinderAtoms = [0, 1]
        if meshes {
            var m = Mesh(name: "warm-up")
            m.positions = [SIMD3(-1, -1, 0), SIMD3(1, -1, 0), SIMD3(0, 1, 0)]
            m.normals = [SIMD3<Float>](repeating: SIMD3(0, 0, 1), count: 3)
            m.atoms = [0, 0, 1]
            m.indices = [0, 1, 2]
            g.meshes = [m]
        }
        let scene = makeScene(g, atomColors: [0x909090, 0xFF0D0D])
        let camera = Camera(center: .zero, radius: 1.5)
        let saved = triangleImpostorPixels
        defer { triangleImpostorPixels = saved }
        for pixels: Float in [0, 1000] {
            triangleImpostorPixels = pixels
            _ = try draw(scene, camera: camera, width: 32, height: 32, style: RenderStyle())
        }
    }

    /// Whether hidden spheres are culled: orthographic views (parallel rays) of spacefill-like
    /// geometry with `minimum` spheres or more, and ball-and-stick with `ballsToCull` or more (small,
    /// sparse balls hide little until there are tens of thousands of them in a small picture).
    static func culls(_ geometry: MoleculeGeometry, _ camera: Camera, minimum: Int, balls: Int = ballsToCull) -> Bool {
        guard camera.isOrthographic, geometry.sphereCount >= minimum else { return false }
        return geometry.cylinderCount == 0 || geometry.sphereCount >= balls
    }

    /// Ball-and-stick scenes with at least this many balls are culled too; a bond is then drawn
    /// where one of its atoms is.
    public static let ballsToCull = 5000

    /// The spheres `draw` keeps for `camera` at `width` x `height` in `style` after culling those
    /// hidden behind others, or nil where it culls none (perspective, fewer than `minimum`
    /// spheres, ball-and-stick under `ballsToCull`). CPU work only: a pipeline does it on a reading
    /// thread and hands it to `makeScene`, off the drawing thread.
    public static func visibleSpheres(_ geometry: MoleculeGeometry, camera: Camera, width: Int, height: Int, style: RenderStyle,
                                      minimum: Int = spheresToCull, balls: Int = ballsToCull) -> SphereVisibility? {
        guard culls(geometry, camera, minimum: minimum, balls: balls) else { return nil }
        let key = cullingKey(geometry, camera: camera, width: width, height: height, style: style)
        return SphereVisibility(key: key, indices: SphereOcclusion.visible(geometry.spheres, rotation: camera.rotation,
                                                                           minimumRadius: key.minimumRadius))
    }

    /// What culling `geometry` for this view depends on, computed here only: culling done ahead
    /// (`visibleSpheres`) is used where its key equals the one `draw` computes, float for float.
    /// Balls are drawn at least `minimumAtomPixels` wide; spacefill radii never fall under it (0).
    public static func cullingKey(_ geometry: MoleculeGeometry, camera: Camera, width: Int, height: Int, style: RenderStyle) -> CullingKey {
        let unitsPerPixel = camera.worldUnitsPerPixel(width: width, height: height)
        return CullingKey(rotation: camera.rotation, minimumRadius: geometry.cylinderCount > 0 ? style.minimumAtomPixels * unitsPerPixel : 0)
    }

    /// Uploads `geometry` with one 0xRRGGBB color per atom of its model; `visibility`, when given,
    /// spares `draw` the culling for that view direction.
    public func makeScene(_ geometry: MoleculeGeometry, atomColors: [UInt32], visibility: SphereVisibility? = nil) -> MoleculeScene {
        var sphereVertices: VertexArray? = nil, cylinderVertices: VertexArray? = nil
        var sphereColors: GPUBuffer? = nil, cylinderColors: GPUBuffer? = nil
        let packedSphereColors = MoleculeScene.packedColors(geometry.colorsOfSpheres(atomColors))
        if geometry.sphereCount > 0 {
            let spheres = GPUBuffer(device: device, geometry.spheres)
            let colors = GPUBuffer(device: device, packedSphereColors)
            sphereVertices = sphereArray(spheres, colors)
            sphereColors = colors
        }
        let packedCylinderColors = MoleculeScene.packedColors(geometry.colorsOfCylinders(atomColors))
        if geometry.cylinderCount > 0 {
            let cylinders = GPUBuffer(device: device, geometry.cylinders)
            let colors = GPUBuffer(device: device, packedCylinderColors)
            cylinderVertices = cylinderArray(cylinders, GPUBuffer(device: device, geometry.cylinderRadii), colors)
            cylinderColors = colors
        }
        let scene = MoleculeScene(sphereVertices: sphereVertices, cylinderVertices: cylinderVertices, sphereColors: sphereColors,
                                  cylinderColors: cylinderColors, geometry: geometry, packedSphereColors: packedSphereColors,
                                  packedCylinderColors: packedCylinderColors)
        scene.packedMeshColors = geometry.meshes.map { $0.packedDrawnColors(atomColors) }
        for (k, mesh) in geometry.meshes.enumerated() where !mesh.indices.isEmpty || !mesh.lines.isEmpty {
            var interleaved = [Float]()
            interleaved.reserveCapacity(mesh.positions.count * 6)
            for (p, n) in zip(mesh.positions, mesh.normals) { interleaved += [p.x, p.y, p.z, n.x, n.y, n.z] }
            let vertices = GPUBuffer(device: device, interleaved)
            let colors = GPUBuffer(device: device, scene.packedMeshColors[k])
            let array = VertexArray(device: device, attributes: [
                .init(location: 0, buffer: vertices, components: 3, stride: 24, offset: 0, perInstance: false),
                .init(location: 1, buffer: vertices, components: 3, stride: 24, offset: 12, perInstance: false),
                .init(location: 2, buffer: colors, components: 4, kind: .normalizedUnsignedByte, stride: 4, offset: 0, perInstance: false),
            ])
            scene.meshes.append((array, colors, IndexBuffer(device: device, mesh.lines.isEmpty ? mesh.indices : mesh.lines)))
            scene.meshLines.append(!mesh.lines.isEmpty)
        }
        scene.visibility = visibility
        return scene
    }

    private func cylinderArray(_ cylinders: GPUBuffer, _ radii: GPUBuffer, _ colors: GPUBuffer) -> VertexArray {
        VertexArray(device: device, attributes: [
            .init(location: 0, buffer: quad, components: 2, stride: 8, offset: 0, perInstance: false),
            .init(location: 1, buffer: cylinders, components: 4, stride: 32, offset: 0, perInstance: true),
            .init(location: 2, buffer: cylinders, components: 4, stride: 32, offset: 16, perInstance: true),
            .init(location: 3, buffer: colors, components: 4, kind: .normalizedUnsignedByte, stride: 8, offset: 0, perInstance: true),
            .init(location: 4, buffer: colors, components: 4, kind: .normalizedUnsignedByte, stride: 8, offset: 4, perInstance: true),
            .init(location: 5, buffer: radii, components: 1, stride: 4, offset: 0, perInstance: true),
        ])
    }

    private func sphereArray(_ spheres: GPUBuffer, _ colors: GPUBuffer) -> VertexArray {
        VertexArray(device: device, attributes: [
            .init(location: 0, buffer: quad, components: 2, stride: 8, offset: 0, perInstance: false),
            .init(location: 1, buffer: spheres, components: 4, stride: 16, offset: 0, perInstance: true),
            .init(location: 2, buffer: colors, components: 4, kind: .normalizedUnsignedByte, stride: 4, offset: 0, perInstance: true),
        ])
    }

    /// Scenes with at least this many spheres are culled (`SphereOcclusion`) before drawing: below
    /// it, finding hidden spheres costs more than drawing them.
    public static let spheresToCull = 300
    /// This renderer's threshold, `spheresToCull` unless changed; `Int.max` turns culling off.
    public var occlusionCullingMinimum = MoleculeRenderer.spheresToCull
    /// This renderer's threshold for pictures `SphereCaster` casts (spheres or balls),
    /// `SphereCaster.spheresToCull` unless changed.
    public var castCullingMinimum = SphereCaster.spheresToCull
    /// This renderer's threshold for ball-and-stick, `ballsToCull` unless changed.
    public var ballCullingMinimum = MoleculeRenderer.ballsToCull

    /// The vertex arrays and counts to draw spheres and bonds with: all of them, or, in an
    /// orthographic view of a large scene, the spheres `SphereOcclusion` finds visible from this
    /// direction with their drawn radii (at least `minimumRadius`), and the bonds of their atoms.
    private func culledDraw(_ scene: MoleculeScene, _ camera: Camera, key: CullingKey)
        -> (spheres: (VertexArray?, Int), cylinders: (VertexArray?, Int)) {
        let all = ((scene.sphereVertices, scene.geometry.sphereCount), (scene.cylinderVertices, scene.geometry.cylinderCount))
        guard MoleculeRenderer.culls(scene.geometry, camera, minimum: occlusionCullingMinimum, balls: ballCullingMinimum) else { return all }
        let geometry = scene.geometry
        if scene.culledFor != key {
            let visible = MoleculeRenderer.visibleSpheres(scene, camera, key: key)
            var xyzr = [Float](), colors = [UInt32]()
            xyzr.reserveCapacity(visible.count * 4)
            colors.reserveCapacity(visible.count)
            for i in visible {
                let k = Int(i) * 4
                xyzr += geometry.spheres[k..<(k + 4)]
                colors.append(scene.packedSphereColors[Int(i)])
            }
            if let c = scene.culled {
                c.spheres.update(xyzr)
                c.colors.update(colors)
                scene.culled = (c.vertices, c.spheres, c.colors, visible.count)
            } else {
                let spheres = GPUBuffer(device: device, xyzr), colorBuffer = GPUBuffer(device: device, colors)
                scene.culled = (sphereArray(spheres, colorBuffer), spheres, colorBuffer, visible.count)
            }
            if geometry.cylinderCount > 0 {
                // The bonds of the atoms seen (a bond between two hidden atoms is hidden between them).
                var seen = [Bool](repeating: false, count: (geometry.sphereAtoms.max().map(Int.init) ?? -1) + 1)
                for i in visible { seen[Int(geometry.sphereAtoms[Int(i)])] = true }
                var ends = [Float](), radii = [Float](), endColors = [UInt32]()
                let packed = scene.packedCylinderColors
                for c in 0..<geometry.cylinderCount {
                    let a = Int(geometry.cylinderAtoms[2 * c]), b = Int(geometry.cylinderAtoms[2 * c + 1])
                    guard (a < seen.count && seen[a]) || (b < seen.count && seen[b]) else { continue }
                    ends += geometry.cylinders[(8 * c)..<(8 * c + 8)]
                    radii.append(geometry.cylinderRadii[c])
                    endColors.append(packed[2 * c]); endColors.append(packed[2 * c + 1])
                }
                let count = endColors.count / 2
                if let c = scene.culledCylinders {
                    c.cylinders.update(ends)
                    c.radii.update(radii)
                    c.colors.update(endColors)
                    scene.culledCylinders = (c.vertices, c.cylinders, c.radii, c.colors, count)
                } else {
                    let cylinders = GPUBuffer(device: device, ends), radiusBuffer = GPUBuffer(device: device, radii)
                    let colorBuffer = GPUBuffer(device: device, endColors)
                    scene.culledCylinders = (cylinderArray(cylinders, radiusBuffer, colorBuffer), cylinders, radiusBuffer, colorBuffer, count)
                }
            }
            scene.culledFor = key
        }
        let spheres = scene.culled.map { ($0.vertices, $0.count) } ?? all.0
        let cylinders = geometry.cylinderCount > 0 ? (scene.culledCylinders.map { ($0.vertices, $0.count) } ?? all.1) : all.1
        return (spheres, cylinders)
    }

    /// The spheres of `scene` seen through `camera`: culled ahead for this key, or culled now.
    private static func visibleSpheres(_ scene: MoleculeScene, _ camera: Camera, key: CullingKey) -> [Int32] {
        if let ahead = scene.visibility, ahead.key == key { return ahead.indices }
        let runs = scene.sphereRuns ?? SphereRuns(scene.geometry.spheres)
        scene.sphereRuns = runs
        trace("culling")
        let visible = SphereOcclusion.visible(scene.geometry.spheres, rotation: camera.rotation, minimumRadius: key.minimumRadius,
                                              medianRadius: scene.typicalSphereRadius, runs: runs)
        trace("culling done: \(visible.count) of \(scene.geometry.sphereCount) spheres kept")
        return visible
    }

    /// The supersampling factor actually used for an output of `width` x `height`.
    public func supersampling(_ requested: Int, width: Int, height: Int) -> Int {
        pass.samples(requested, width: width, height: height)
    }

    /// The picture of `scene`.
    public func render(_ scene: MoleculeScene, camera: Camera, width: Int, height: Int, style: RenderStyle) throws -> RGBAImage {
        try draw(scene, camera: camera, width: width, height: height, style: style).finished()
    }

    /// Drawn atoms smaller than this many pixels across make `antialias` 1 supersample.
    public static let subpixelAtomDiameter: Float = 2

    /// Samples a pixel per side that `style` asks for where the median sphere has `typicalRadius`:
    /// automatic antialiasing supersamples twice where atoms are drawn under `subpixelAtomDiameter`.
    static func requestedSamples(_ style: RenderStyle, typicalRadius: Float, pixelsPerUnit: Float) -> Int {
        let subpixelAtoms = 2 * typicalRadius * pixelsPerUnit < MoleculeRenderer.subpixelAtomDiameter
        return style.antialias == 1 ? (subpixelAtoms ? 2 : 1) : style.antialias
    }

    /// The picture of `prepared` as drawn and read back, its scene uploaded on the first call
    /// and kept for the next ones (up to `cachedSceneLimit` molecules).
    public func draw(_ prepared: PreparedMolecule, camera: Camera, width: Int, height: Int, style: RenderStyle) throws -> DrawnPicture {
        try draw(scene(for: prepared), camera: camera, width: width, height: height, style: style)
    }

    /// The scene of `prepared`, from the cache or uploaded now.
    public func scene(for prepared: PreparedMolecule) -> MoleculeScene {
        if let k = cachedScenes.firstIndex(where: { $0.id == prepared.id }) {
            let entry = cachedScenes.remove(at: k)
            cachedScenes.append(entry)
            return entry.scene
        }
        let scene = makeScene(prepared.geometry, atomColors: prepared.atomColors)
        cachedScenes.append((prepared.id, scene))
        if cachedScenes.count > max(cachedSceneLimit, 1) { cachedScenes.removeFirst() }
        return scene
    }

    /// Releases the scene kept for `prepared`, if any.
    public func forget(_ prepared: PreparedMolecule) {
        cachedScenes.removeAll { $0.id == prepared.id }
    }

    /// The picture of `prepared` drawn coarser (`CoarseSpheres`), as a live view draws it while it
    /// moves: its stand-in made at the first call and kept with its scene. Nil where the scene has
    /// no stand-in (bonds or meshes).
    public func drawCoarse(_ prepared: PreparedMolecule, camera: Camera, width: Int, height: Int, style: RenderStyle) throws -> DrawnPicture? {
        let scene = scene(for: prepared)
        guard CoarseSpheres.applies(to: scene.geometry) else { return nil }
        let coarse: MoleculeScene
        if let made = scene.coarse {
            coarse = made
        } else {
            let stand = CoarseSpheres.make(scene.geometry, model: prepared.model,
                                           sphereColors: scene.geometry.colorsOfSpheres(prepared.atomColors))
            coarse = makeScene(stand.geometry, atomColors: stand.colors)
            scene.coarse = coarse
        }
        // Not culled: the stand-in's spheres are few, and the caster's depth test passes over hidden ones.
        return try draw(coarse, camera: camera, width: width, height: height, style: style, culls: false)
    }

    /// The picture of `scene` as drawn and read back; `finished()` completes it.
    public func draw(_ scene: MoleculeScene, camera: Camera, width: Int, height: Int, style: RenderStyle) throws -> DrawnPicture {
        try draw(scene, camera: camera, width: width, height: height, style: style, culls: true)
    }

    /// `culls`: hidden spheres culled where the scene is large enough (`spheresToCull`); false never.
    func draw(_ scene: MoleculeScene, camera: Camera, width: Int, height: Int, style: RenderStyle, culls culling: Bool) throws -> DrawnPicture {
        let unitsPerPixel = camera.worldUnitsPerPixel(width: width, height: height), pixelsPerUnit = 1 / unitsPerPixel
        let cullingKey = MoleculeRenderer.cullingKey(scene.geometry, camera: camera, width: width, height: height, style: style)
        let requested = MoleculeRenderer.requestedSamples(style, typicalRadius: scene.typicalSphereRadius, pixelsPerUnit: pixelsPerUnit)
        let samples = pass.samples(requested, width: width, height: height)
        if castsSmallPictures, SphereCaster.casts(scene.geometry, camera: camera, width: width, height: height, samples: samples) {
            let culls = culling && MoleculeRenderer.culls(scene.geometry, camera, minimum: castCullingMinimum, balls: castCullingMinimum)
            let visible = culls ? MoleculeRenderer.visibleSpheres(scene, camera, key: cullingKey) : nil
            return SphereCaster.draw(scene.geometry, sphereColors: scene.packedSphereColors, cylinderColors: scene.packedCylinderColors,
                                     meshColors: scene.packedMeshColors, visible: visible, camera: camera, width: width, height: height, samples: samples, style: style)
        }
        // Smoothing wherever automatic antialiasing draws one sample (also where a picture too
        // large to supersample leaves it no other way).
        let (near, far) = camera.depthRange
        let projection = DepthEffects.Projection(near: near, far: far, orthographic: camera.isOrthographic, unitsPerPixel: 1 / pixelsPerUnit)
        return try pass.run(width: width, height: height, samples: requested, background: style.background,
                            finishing: style.antialias == 1 ? .smoothEdges : .none, effects: style.effects, projection: projection) { target in
            try drawMolecule(scene, camera: camera, into: target, pixelsPerUnit: pixelsPerUnit, cullingKey: culling ? cullingKey : nil, style: style)
        }
    }

    private func drawMolecule(_ scene: MoleculeScene, camera: Camera, into target: OffscreenPass.Target, pixelsPerUnit: Float,
                              cullingKey: CullingKey?, style: RenderStyle) throws {
        let width = target.width, height = target.height
        device.setEnabled(.depthTest, true)
        device.setEnabled(.blend, false)

        // The camera is computed for the output size: pixels of pan are output pixels.
        let view = camera.viewMatrix(width: width, height: height).values
        let projection = camera.projectionMatrix(width: width, height: height).values
        let distance = camera.distance
        let r = camera.radius
        let drawnPixelsPerUnit = Float(target.samples) * pixelsPerUnit
        let smallSpheres = scene.typicalSphereRadius * drawnPixelsPerUnit < triangleImpostorPixels
        let thinBonds = scene.largestCylinderRadius * drawnPixelsPerUnit < triangleImpostorPixels / 2
        let ((sphereVertices, sphereCount), (cylinderVertices, cylinderCount)) = cullingKey.map { culledDraw(scene, camera, key: $0) }
            ?? ((scene.sphereVertices, scene.geometry.sphereCount), (scene.cylinderVertices, scene.geometry.cylinderCount))
        func unit(_ v: SIMD3<Float>) -> SIMD3<Float> { v / v.length }
        let light = unit(style.lightDirection)
        // Orthographic views look along -z everywhere, so the halfway vector is one for the picture.
        let halfway = unit(light + SIMD3<Float>(0, 0, 1))
        let variant = camera.isOrthographic ? ["ORTHOGRAPHIC"] : []
        let bg = style.background
        // The camera, the light and the depth cue: the same for every program.
        func setView(_ program: ShaderProgram) {
            program.set("view", matrix: view)
            program.set("projection", matrix: projection)
            program.set("lightDirection", light)
            program.set("halfwayDirection", halfway)
            program.set("ambient", style.ambient)
            program.set("fill", style.fill)
            program.set("diffuse", style.diffuse)
            program.set("specular", style.specular)
            program.set("fogStart", distance - r * 0.2)
            program.set("fogEnd", distance + r)
            program.set("fogStrength", style.depthCue ? Float(0.75) : 0)
            program.set("fogColor", bg.alpha > 0 ? SIMD3(bg.red, bg.green, bg.blue) : SIMD3<Float>(1, 1, 1))
        }
        // `triangle`: where the one-triangle cover starts in the corner buffer, 0 for the quad.
        for (vertexArray, program, instances, triangle) in [
            (sphereVertices, try device.program(vertex: "sphere.vert", fragment: "sphere.frag", defines: variant), sphereCount,
             smallSpheres ? 4 : 0),
            (cylinderVertices, try device.program(vertex: "cylinder.vert", fragment: "cylinder.frag", defines: variant),
             cylinderCount, thinBonds ? 7 : 0),
        ] {
            guard let vertexArray else { continue }
            setView(program)
            program.set("minimumRadius", style.minimumAtomPixels / pixelsPerUnit)
            device.setEnabled(.cullFace, false)
            device.draw(program, vertexArray, into: target.framebuffer, primitive: triangle > 0 ? .triangles : .triangleStrip,
                        first: triangle, vertexCount: triangle > 0 ? 3 : 4, instances: instances)
        }
        if !scene.meshes.isEmpty {
            // Cartoons: lit triangles, both faces (ribbons are thin).
            let program = try device.program(vertex: "mesh.vert", fragment: "mesh.frag", defines: variant)
            setView(program)
            // Opaque meshes first; then the see-through ones (surfaces with `transparency`)
            // blended over them, testing depth without writing it, so that what lies inside
            // shows through and the depth effects outline it.
            let opaque = scene.geometry.meshes.map { $0.opacity >= 1 }
            for (k, mesh) in scene.meshes.enumerated() where k >= opaque.count || opaque[k] {
                let lines = k < scene.meshLines.count && scene.meshLines[k]
                device.drawIndexed(program, mesh.vertices, indices: mesh.indices, into: target.framebuffer, primitive: lines ? .lines : .triangles)
            }
            if opaque.contains(false) {
                device.setEnabled(.blend, true)
                device.setBlend(.alpha)
                device.setDepthWrite(false)
                // Front faces only (a surface is closed, wound counterclockwise seen from outside):
                // one layer of it over what is inside, not its far side as well.
                device.setEnabled(.cullFace, true)
                for (k, mesh) in scene.meshes.enumerated() where k < opaque.count && !opaque[k] {
                    device.drawIndexed(program, mesh.vertices, indices: mesh.indices, into: target.framebuffer, primitive: .triangles)
                }
                device.setEnabled(.cullFace, false)
                device.setDepthWrite(true)
                device.setEnabled(.blend, false)
            }
        }
    }
}

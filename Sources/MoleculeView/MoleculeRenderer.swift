import Dispatch
import Graphics
import Scene

/// Looks of a picture that change no geometry: background, antialiasing, lighting.
public struct RenderStyle: Sendable, Equatable {
    /// Straight RGBA in 0...1; alpha 0 gives a transparent PNG.
    public var background: SIMD4<Float> = SIMD4(1, 1, 1, 1)
    /// 0: off. 1 (automatic): edge smoothing after drawing (`EdgeSmoothing`), nearly as smooth
    /// as four samples a pixel at a fraction of the cost; where atoms are drawn smaller than a
    /// pixel, which no filter can mend and where drawing is bound by the number of atoms rather
    /// than by pixels, 2 x 2 supersampling instead. 2 to 4: supersampling, N x N samples a pixel.
    public var antialias = 1
    public var depthCue = false
    public var lightDirection = SIMD3<Float>(-0.35, 0.45, 0.82)
    public var ambient: Float = 0.32
    public var diffuse: Float = 0.72
    public var specular: Float = 0.35

    public init() {}
}

/// The spheres left after hidden-sphere culling for one view direction.
public struct SphereVisibility: Sendable {
    public let rotation: Quaternion
    public let indices: [Int32]
}

/// A picture as read back from the GPU, with what is left to do on the CPU.
public struct DrawnPicture: Sendable {
    public var image: RGBAImage
    /// Antialiasing by edge smoothing is still to come.
    public var smoothEdges: Bool

    public init(image: RGBAImage, smoothEdges: Bool) {
        self.image = image
        self.smoothEdges = smoothEdges
    }

    /// The finished picture. Separate from drawing so that a pipeline can do it on another thread.
    public func finished() -> RGBAImage { smoothEdges ? EdgeSmoothing.smoothed(image) : image }
}

/// A molecule's geometry on the GPU. Made once per structure, mode and visibility; a new
/// camera or style draws it again without touching these buffers, and a new color theme
/// replaces only the color buffers.
public final class MoleculeScene {
    let sphereVertices: VertexArray?
    let cylinderVertices: VertexArray?
    let sphereColors: GPUBuffer?
    let cylinderColors: GPUBuffer?
    public let geometry: MoleculeGeometry

    init(sphereVertices: VertexArray?, cylinderVertices: VertexArray?, sphereColors: GPUBuffer?, cylinderColors: GPUBuffer?,
         geometry: MoleculeGeometry, packedSphereColors: [UInt32]) {
        self.sphereVertices = sphereVertices
        self.cylinderVertices = cylinderVertices
        self.sphereColors = sphereColors
        self.cylinderColors = cylinderColors
        self.geometry = geometry
        self.packedSphereColors = packedSphereColors
        typicalSphereRadius = MoleculeGeometry.medianRadius(geometry.spheres)
    }

    /// The median sphere radius, to choose how impostors are drawn.
    let typicalSphereRadius: Float

    /// New colors, one 0xRRGGBB per atom of the model the geometry came from.
    public func recolor(_ atomColors: [UInt32]) {
        packedSphereColors = MoleculeScene.packed(geometry.sphereAtoms, atomColors)
        sphereColors?.update(packedSphereColors)
        cylinderColors?.update(MoleculeScene.packed(geometry.cylinderAtoms, atomColors))
        culledFor = nil
    }

    /// Sphere colors as uploaded, for drawing a subset.
    var packedSphereColors: [UInt32]
    /// The visible subset of the spheres for the last view direction, on the GPU.
    var culled: (vertices: VertexArray, spheres: GPUBuffer, colors: GPUBuffer, count: Int)?
    var culledFor: Quaternion?
    /// Culling done ahead, off the drawing thread, for one view direction.
    var visibility: SphereVisibility?

    /// 0xRRGGBB to the bytes R, G, B, 255 in memory order, per instance.
    static func packed(_ atoms: [Int32], _ colors: [UInt32]) -> [UInt32] {
        atoms.map { i in
            let c = colors[Int(i)]
            return (c >> 16 & 0xFF) | (c & 0xFF00) | (c & 0xFF) << 16 | 0xFF00_0000
        }
    }
}

/// Draws molecule scenes offscreen: spheres and bonds are both ray-cast impostors, one quad
/// each, so vertex work stays small (llvmpipe shades vertices on one thread) and the surfaces
/// are exact at any size. Create it once and render many images with it; it must be
/// used on the thread that created it (the GL context is current there).
public final class MoleculeRenderer {
    public let device: GraphicsDevice
    private let quad: GPUBuffer
    private var framebuffer: Framebuffer?
    /// Seconds the last `render` spent drawing (until the GPU finished) and reading back.
    public private(set) var lastTimings: (draw: Double, readback: Double) = (0, 0)
    /// Spheres drawn smaller than this radius in pixels, and bonds thinner than half of it, get one
    /// triangle each instead of a quad: fewer primitives to set up where setup costs more than
    /// the extra fragments. 0 always draws quads; the picture is the same either way.
    public var triangleImpostorPixels: Float = 6
    /// Largest output side `render` accepts.
    public static let maximumSide = 8192
    /// Most pixels drawn for one image, supersampling included; past it the factor is lowered.
    public static let maximumDrawnPixels = 64 << 20

    public init(device: GraphicsDevice? = nil) throws {
        let device = try device ?? GraphicsDevice()
        self.device = device
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
    /// while its first structures are still being read.
    public func warmUp() throws {
        var g = MoleculeGeometry()
        g.spheres = [-1, 0, 0, 0.4, 1, 0, 0, 0.4]
        g.sphereAtoms = [0, 1]
        g.cylinders = [-1, 0, 0, 0.3, 1, 0, 0, 0.3]
        g.cylinderRadius = 0.15
        g.cylinderAtoms = [0, 1]
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
    /// geometry with `minimum` spheres or more. Bonds mean small, sparse spheres (ball-and-stick):
    /// little is hidden, so culling does not pay.
    static func culls(_ geometry: MoleculeGeometry, _ camera: Camera, minimum: Int) -> Bool {
        camera.isOrthographic && geometry.cylinderCount == 0 && geometry.sphereCount >= minimum
    }

    /// The spheres `draw` keeps for `camera` after culling those hidden behind others, or nil
    /// where it culls none (perspective, bonds, fewer than `minimum` spheres). CPU work only: a
    /// pipeline does it on a reading thread and hands it to `makeScene`, off the drawing thread.
    public static func visibleSpheres(_ geometry: MoleculeGeometry, camera: Camera, minimum: Int = spheresToCull) -> SphereVisibility? {
        guard culls(geometry, camera, minimum: minimum) else { return nil }
        return SphereVisibility(rotation: camera.rotation, indices: SphereOcclusion.visible(geometry.spheres, rotation: camera.rotation))
    }

    /// Uploads `geometry` with one 0xRRGGBB color per atom of its model; `visibility`, when given,
    /// spares `draw` the culling for that view direction.
    public func makeScene(_ geometry: MoleculeGeometry, atomColors: [UInt32], visibility: SphereVisibility? = nil) -> MoleculeScene {
        var sphereVertices: VertexArray? = nil, cylinderVertices: VertexArray? = nil
        var sphereColors: GPUBuffer? = nil, cylinderColors: GPUBuffer? = nil
        let packedSphereColors = MoleculeScene.packed(geometry.sphereAtoms, atomColors)
        if geometry.sphereCount > 0 {
            let spheres = GPUBuffer(device: device, geometry.spheres)
            let colors = GPUBuffer(device: device, packedSphereColors)
            sphereVertices = sphereArray(spheres, colors)
            sphereColors = colors
        }
        if geometry.cylinderCount > 0 {
            let cylinders = GPUBuffer(device: device, geometry.cylinders)
            let colors = GPUBuffer(device: device, MoleculeScene.packed(geometry.cylinderAtoms, atomColors))
            cylinderVertices = VertexArray(device: device, attributes: [
                .init(location: 0, buffer: quad, components: 2, stride: 8, offset: 0, perInstance: false),
                .init(location: 1, buffer: cylinders, components: 4, stride: 32, offset: 0, perInstance: true),
                .init(location: 2, buffer: cylinders, components: 4, stride: 32, offset: 16, perInstance: true),
                .init(location: 3, buffer: colors, components: 4, kind: .normalizedUnsignedByte, stride: 8, offset: 0, perInstance: true),
                .init(location: 4, buffer: colors, components: 4, kind: .normalizedUnsignedByte, stride: 8, offset: 4, perInstance: true),
            ])
            cylinderColors = colors
        }
        let scene = MoleculeScene(sphereVertices: sphereVertices, cylinderVertices: cylinderVertices, sphereColors: sphereColors,
                                  cylinderColors: cylinderColors, geometry: geometry, packedSphereColors: packedSphereColors)
        scene.visibility = visibility
        return scene
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

    /// The vertex array and count to draw spheres with: all of them, or, in an orthographic view
    /// of a large scene of spheres alone, those `SphereOcclusion` finds visible from this direction.
    private func sphereDraw(_ scene: MoleculeScene, _ camera: Camera) -> (VertexArray?, Int) {
        let all = (scene.sphereVertices, scene.geometry.sphereCount)
        guard MoleculeRenderer.culls(scene.geometry, camera, minimum: occlusionCullingMinimum) else { return all }
        if scene.culledFor != camera.rotation {
            let ahead = scene.visibility.flatMap { $0.rotation == camera.rotation ? $0.indices : nil }
            let visible = ahead ?? SphereOcclusion.visible(scene.geometry.spheres, rotation: camera.rotation)
            var xyzr = [Float](), colors = [UInt32]()
            xyzr.reserveCapacity(visible.count * 4)
            colors.reserveCapacity(visible.count)
            for i in visible {
                let k = Int(i) * 4
                xyzr += scene.geometry.spheres[k..<(k + 4)]
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
            scene.culledFor = camera.rotation
        }
        return scene.culled.map { ($0.vertices, $0.count) } ?? all
    }

    /// The supersampling factor actually used for an output of `width` x `height`.
    public func supersampling(_ requested: Int, width: Int, height: Int) -> Int {
        var factor = max(1, min(requested, 4))
        let limit = device.maxRenderbufferSize
        while factor > 1 && (width * factor > limit || height * factor > limit
                             || width * height * factor * factor > MoleculeRenderer.maximumDrawnPixels) {
            factor -= 1
        }
        return factor
    }

    /// The picture of `scene`.
    public func render(_ scene: MoleculeScene, camera: Camera, width: Int, height: Int, style: RenderStyle) throws -> RGBAImage {
        try draw(scene, camera: camera, width: width, height: height, style: style).finished()
    }

    /// Drawn atoms smaller than this many pixels across make `antialias` 1 supersample.
    public static let subpixelAtomDiameter: Float = 2

    /// The picture of `scene` as drawn and read back; `finished()` completes it.
    public func draw(_ scene: MoleculeScene, camera: Camera, width: Int, height: Int, style: RenderStyle) throws -> DrawnPicture {
        guard width > 0, height > 0, width <= MoleculeRenderer.maximumSide, height <= MoleculeRenderer.maximumSide else {
            throw GraphicsError("image size \(width)x\(height) is outside 1...\(MoleculeRenderer.maximumSide) per side")
        }
        let started = DispatchTime.now().uptimeNanoseconds
        let pixelsPerUnit = 1 / camera.worldUnitsPerPixel(width: width, height: height)
        let subpixelAtoms = 2 * scene.typicalSphereRadius * pixelsPerUnit < MoleculeRenderer.subpixelAtomDiameter
        let factor = supersampling(style.antialias == 1 ? (subpixelAtoms ? 2 : 1) : style.antialias, width: width, height: height)
        // Smoothing wherever automatic antialiasing draws one sample (also where a picture too
        // large to supersample leaves it no other way).
        let smoothEdges = style.antialias == 1 && factor == 1
        let fw = width * factor, fh = height * factor
        if framebuffer?.width != fw || framebuffer?.height != fh {
            framebuffer = nil
            framebuffer = try Framebuffer(device: device, width: fw, height: fh)
        }
        let target = framebuffer!
        let bg = style.background
        device.clear(target, red: bg.x, green: bg.y, blue: bg.z, alpha: bg.w)
        device.setEnabled(.depthTest, true)
        device.setEnabled(.blend, false)

        // The camera is computed for the output size: pixels of pan are output pixels.
        let view = camera.viewMatrix(width: width, height: height).values
        let projection = camera.projectionMatrix(width: width, height: height).values
        let distance = camera.distance
        let r = camera.radius
        let drawnPixelsPerUnit = Float(factor) * pixelsPerUnit
        let smallSpheres = scene.typicalSphereRadius * drawnPixelsPerUnit < triangleImpostorPixels
        let thinBonds = scene.geometry.cylinderRadius * drawnPixelsPerUnit < triangleImpostorPixels / 2
        let (sphereVertices, sphereCount) = sphereDraw(scene, camera)
        func unit(_ v: SIMD3<Float>) -> SIMD3<Float> { v / (v * v).sum().squareRoot() }
        let light = unit(style.lightDirection)
        // Orthographic views look along -z everywhere, so the halfway vector is one for the picture.
        let halfway = unit(light + SIMD3<Float>(0, 0, 1))
        let variant = camera.isOrthographic ? ["ORTHOGRAPHIC"] : []
        // `triangle`: where the one-triangle cover starts in the corner buffer, 0 for the quad.
        for (vertexArray, program, instances, triangle) in [
            (sphereVertices, try device.program(vertex: "sphere.vert", fragment: "sphere.frag", defines: variant), sphereCount,
             smallSpheres ? 4 : 0),
            (scene.cylinderVertices, try device.program(vertex: "cylinder.vert", fragment: "cylinder.frag", defines: variant),
             scene.geometry.cylinderCount, thinBonds ? 7 : 0),
        ] {
            guard let vertexArray else { continue }
            program.set("view", matrix: view)
            program.set("projection", matrix: projection)
            program.set("lightDirection", light)
            program.set("halfwayDirection", halfway)
            program.set("bondRadius", scene.geometry.cylinderRadius)
            program.set("ambient", style.ambient)
            program.set("diffuse", style.diffuse)
            program.set("specular", style.specular)
            program.set("fogStart", distance - r * 0.2)
            program.set("fogEnd", distance + r)
            program.set("fogStrength", style.depthCue ? Float(0.75) : 0)
            program.set("fogColor", bg.w > 0 ? SIMD3(bg.x, bg.y, bg.z) : SIMD3<Float>(1, 1, 1))
            device.setEnabled(.cullFace, false)
            device.draw(program, vertexArray, into: target, primitive: triangle > 0 ? .triangles : .triangleStrip,
                        first: triangle, vertexCount: triangle > 0 ? 3 : 4, instances: instances)
        }
        try device.checkError("drawing")
        device.finish()
        let finished = DispatchTime.now().uptimeNanoseconds
        let image = device.read(target, downsample: factor)
        lastTimings = (Double(finished - started) / 1e9, Double(DispatchTime.now().uptimeNanoseconds - finished) / 1e9)
        return DrawnPicture(image: image, smoothEdges: smoothEdges)
    }
}


import Core
import Graphics

/// A map made ready to draw at one scale: its triangles on the GPU and its labels placed. Any
/// part of the map at that scale (a picture, a tile, a block of tiles) draws from it.
public final class PathwayScene {
    public let scale: Double
    let vertices: VertexArray
    let buffer: GPUBuffer
    let vertexCount: Int
    let labels: [PlacedLabel]

    init(device: GraphicsDevice, mesh: MapMesh, labels: [PlacedLabel]) {
        scale = mesh.scale
        buffer = GPUBuffer(device: device, mesh.floats)
        vertexCount = mesh.vertexCount
        vertices = VertexArray(device: device, attributes: [
            .init(location: 0, buffer: buffer, components: 2, stride: 32, offset: 0, perInstance: false),
            .init(location: 1, buffer: buffer, components: 4, stride: 32, offset: 8, perInstance: false),
            .init(location: 2, buffer: buffer, components: 2, stride: 32, offset: 24, perInstance: false),
        ])
        self.labels = labels
    }

    /// How many labels were placed (the rest were too small or had no room).
    public var labelCount: Int { labels.count }
}

/// Draws pathway maps offscreen: the second drawer over `OffscreenPass`, beside molecules. Shapes
/// and edges go through the GPU in one draw call, supersampled for smooth edges; labels are set
/// with FreeType into the picture read back, so they are as sharp as the font makes them.
public final class PathwayRenderer {
    public let device: GraphicsDevice
    private let pass: OffscreenPass
    private let program: ShaderProgram
    private let fonts = FontCache()
    /// Samples a pixel per side (2 to 4 smooths edges; 1 is fastest).
    public var samples = 3

    public init(device: GraphicsDevice? = nil) throws {
        let device = try device ?? GraphicsDevice()
        self.device = device
        pass = OffscreenPass(device: device)
        program = try device.program(vertex: "map2d.vert", fragment: "flat2d.frag")
    }

    /// Triangles and labels of `map` at `scale` pixels per unit, with the node `focus` (if any)
    /// highlighted with its edges and neighbours.
    public func scene(_ map: PathwayMap, scale: Double, theme: PathwayTheme, focus: String? = nil) throws -> PathwayScene {
        let mesh = MapGeometry(map: map, theme: theme, focus: focus).mesh(scale: scale)
        let labels = try MapLabels(theme: theme, fonts: fonts).place(map, scale: scale)
        return PathwayScene(device: device, mesh: mesh, labels: labels)
    }

    /// The part of the scene whose top left corner is whole-map pixel `corner`, `width` x `height` pixels.
    public func draw(_ scene: PathwayScene, corner: SIMD2<Double>, width: Int, height: Int, theme: PathwayTheme) throws -> RGBAImage {
        let picture = try pass.run(width: width, height: height, samples: samples, background: theme.background, finishing: .none) { target in
            device.setEnabled(.depthTest, false)
            device.setEnabled(.cullFace, false)
            device.setEnabled(.blend, true)
            device.setBlend(.alpha)
            program.set("viewport", SIMD2<Float>(Float(width), Float(height)))
            program.set("origin", SIMD2<Float>(Float(corner.x / scene.scale), Float(corner.y / scene.scale)))
            program.set("scale", Float(scene.scale))
            device.draw(program, scene.vertices, into: target.framebuffer, primitive: .triangles, vertexCount: scene.vertexCount)
            device.setEnabled(.blend, false)
        }
        var image = picture.image
        try MapLabels(theme: theme, fonts: fonts).draw(scene.labels, into: &image, corner: corner)
        return image
    }

    /// One picture of `map` as `view` shows it.
    public func render(_ map: PathwayMap, view: MapView, width: Int, height: Int, theme: PathwayTheme,
                       focus: String? = nil) throws -> RGBAImage {
        let scene = try scene(map, scale: view.scale, theme: theme, focus: focus)
        return try draw(scene, corner: view.origin * view.scale, width: width, height: height, theme: theme)
    }
}

import PathwayModel
import Foundation
import Core
import Graphics
import Imaging

/// A map made ready to draw at one scale: its triangles on the GPU and its labels placed. Any
/// part of the map at that scale (a picture, a tile, a block of tiles) draws from it.
/// A scene's triangles and labels before they go to the GPU.
public struct PathwaySceneParts: Sendable {
    let mesh: MapMesh
    let labels: [PlacedLabel]
}

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
/// and edges go through the GPU in one draw call, lines smoothed by their coverage; labels are set
/// with FreeType into the picture read back, so they are as sharp as the font makes them.
public final class PathwayRenderer {
    public let device: GraphicsDevice
    private let pass: OffscreenPass
    private let program: ShaderProgram
    private let fonts = FontCache()
    /// Samples a pixel per side. Lines are smoothed at 1 by their coverage (`map2d.frag`), which
    /// costs next to nothing; 2 to 4 also smooth the edges of filled shapes. Measured on llvmpipe
    /// for a 2000 px map: 1 takes 0.24 s, 2 0.33 s, 3 0.68 s, and 4x MSAA as much as 2.
    public var samples = 1

    public init(device: GraphicsDevice? = nil) throws {
        let device = try device ?? GraphicsDevice()
        self.device = device
        pass = OffscreenPass(device: device, depth: false)
        program = try device.program(vertex: "map2d.vert", fragment: "map2d.frag")
    }

    /// Triangles and labels of `map` at `scale` pixels per unit, with the node `focus` (if any)
    /// highlighted with its edges and neighbours.
    public func scene(_ map: PathwayMap, scale: Double, theme: PathwayTheme, focus: String? = nil) throws -> PathwayScene {
        scene(try PathwayRenderer.parts(map, scale: scale, theme: theme, focus: focus, fonts: fonts))
    }

    /// What `scene` is made of before any GL, on any thread: a front end builds it while the
    /// drawing thread starts (`warmUp`).
    public static func parts(_ map: PathwayMap, scale: Double, theme: PathwayTheme, focus: String? = nil) throws -> PathwaySceneParts {
        try parts(map, scale: scale, theme: theme, focus: focus, fonts: FontCache())
    }

    private static func parts(_ map: PathwayMap, scale: Double, theme: PathwayTheme, focus: String?, fonts: FontCache) throws -> PathwaySceneParts {
        PathwaySceneParts(mesh: MapGeometry(map: map, theme: theme, focus: focus).mesh(scale: scale),
                          labels: try MapLabels(theme: theme, fonts: fonts).place(map, scale: scale))
    }

    /// The parts on the GPU.
    public func scene(_ parts: PathwaySceneParts) -> PathwayScene {
        trace("pathway: \(parts.mesh.vertexCount) vertices, \(parts.labels.count) labels")
        return PathwayScene(device: device, mesh: parts.mesh, labels: parts.labels)
    }

    /// Draws one small triangle as maps are drawn: llvmpipe compiles the shaders for the state at
    /// the first draw (about 20 ms), which a front end does while its map is still being read.
    public func warmUp(theme: PathwayTheme) throws {
        var mesh = MapMesh(scale: 1)
        mesh.triangle(SIMD2(1, 1), SIMD2(7, 1), SIMD2(4, 7), .black)
        _ = try draw(PathwayScene(device: device, mesh: mesh, labels: []), corner: .zero, width: 8, height: 8, theme: theme)
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

extension PathwayRenderer {
    /// Draws a legend for each overlay into the bottom right corner of `image`: what it colors, the
    /// color scale, and the smallest and largest values.
    public func drawLegend(_ overlays: [DataOverlay], into image: inout RGBAImage, theme: PathwayTheme) throws {
        let font = try fonts.font(12)
        let barWidth = 150, barHeight = 10, pad = 8
        let panelWidth = barWidth + 2 * pad, panelHeight = font.ascent + font.descent + barHeight + font.ascent + font.descent + 2 * pad + 4
        let text = theme.text(.black).rgb, ground = theme.background.alpha > 0.5 ? theme.background : .white
        func number(_ v: Double) -> String {
            abs(v) >= 1000 || (abs(v) < 0.01 && v != 0) ? String(format: "%.2g", v) : String(format: "%.2f", v)
                .replacingOccurrences(of: #"\.?0+$"#, with: "", options: .regularExpression)
        }
        for (k, overlay) in overlays.enumerated() {
            let left = image.width - panelWidth - 10, top = image.height - (k + 1) * (panelHeight + 6) - 4
            guard left >= 0, top >= 0 else { continue }
            image.fill(x: left, y: top, width: panelWidth, height: panelHeight, ground, alpha: 0.85)
            var y = top + pad + font.ascent
            font.draw(overlay.target.rawValue, into: &image, x: left + pad, baseline: y, color: text)
            y += font.descent + 3
            for i in 0..<barWidth {
                image.fill(x: left + pad + i, y: y, width: 1, height: barHeight, DataOverlay.color(at: Double(i) / Double(barWidth - 1)), alpha: 1)
            }
            y += barHeight + 2 + font.ascent
            let r = overlay.range
            font.draw(number(r.lowerBound), into: &image, x: left + pad, baseline: y, color: text)
            let high = number(r.upperBound)
            font.draw(high, into: &image, x: left + pad + barWidth - font.width(of: high), baseline: y, color: text)
        }
    }
}

extension RGBAImage {
    /// Paints a rectangle over the image with `color` at `alpha`.
    mutating func fill(x: Int, y: Int, width: Int, height: Int, _ color: Color, alpha: Float) {
        let c = [color.red, color.green, color.blue].map { $0 * 255 }
        for row in max(0, y)..<min(self.height, y + height) {
            for col in max(0, x)..<min(self.width, x + width) {
                let i = (row * self.width + col) * 4
                for ch in 0..<3 { pixels[i + ch] = UInt8((c[ch] * alpha + Float(pixels[i + ch]) * (1 - alpha)).rounded()) }
                pixels[i + 3] = max(pixels[i + 3], UInt8(alpha * 255))
            }
        }
    }
}

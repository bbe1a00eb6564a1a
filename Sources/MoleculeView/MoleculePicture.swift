import Core
import Graphics
import Imaging
import Scene
import Structure

/// A picture of a molecule as a request asks for it, in the steps every front end (render,
/// thumbnails, the service, measure-render) runs where they suit it: `init` off the render thread
/// (geometry, camera, and the spheres the view hides culled ahead), `draw` on it, `png` anywhere.
public struct MoleculePicture: Sendable {
    public let prepared: PreparedMolecule
    public let request: RenderRequest
    public let camera: Camera
    public let style: RenderStyle
    let visibility: SphereVisibility?

    /// `structure` in `mode` (one of the request's), as `request` asks.
    public init(_ structure: Structure, mode: DrawMode, request: RenderRequest, perception: BondPerception) throws {
        self.init(try PreparedMolecule(structure, mode: mode, request: request, perception: perception), request: request)
        try checkCost(source: structure.metadata.id.isEmpty ? "the structure" : structure.metadata.id)
    }

    /// Refuses a picture whose spheres would cover it more than `maxOverdraw` times over; `draw`
    /// asks it too, for pictures made from a prepared molecule.
    public func checkCost(source: String = "the structure") throws(PictureCostError) {
        if overdraw > Self.maxOverdraw { throw PictureCostError(source: source, overdraw: overdraw) }
    }

    /// How many times over the spheres drawn cover the picture, estimated before anything is
    /// drawn, once with the camera (`sphereOverdraw(placed:)`).
    public let overdraw: Double

    /// How many times over the spheres drawn cover the picture at most: the corpus's molecules,
    /// assemblies built, whole or zoomed in 8 times, at most 38 (1ffk's ribosome zoomed in); a
    /// hostile file's 100,000 atoms at one point 100,000 times, each sphere filling the picture,
    /// which took 13.5 s to cast at 256 px.
    public static let maxOverdraw = 2000.0

    /// The spheres' discs over the picture's area: each disc at most the picture. Past
    /// `maxOverdraw` without looking where they fall (or whatever that first sum, with `placed`),
    /// the discs are placed and only what falls inside the picture is counted (a view zoomed into
    /// a large molecule leaves most of it outside).
    public func sphereOverdraw(placed: Bool) -> Double {
        Self.sphereOverdraw(prepared.geometry.spheres, visible: visibility?.indices, camera: camera, width: request.width, height: request.height,
                            placed: placed)
    }

    static func sphereOverdraw(_ s: [Float], visible indices: [Int32]?, camera: Camera, width: Int, height: Int, placed: Bool) -> Double {
        let area = Double(max(width, 1)) * Double(max(height, 1))
        let pixelsPerUnit = Double(1 / camera.worldUnitsPerPixel(width: width, height: height))
        let count = indices?.count ?? s.count / 4
        @inline(__always) func sphere(_ n: Int) -> Int { indices.map { Int($0[n]) } ?? n }
        var total = 0.0
        for n in 0..<count {
            let r = Double(s[4 * sphere(n) + 3]) * pixelsPerUnit
            total += min(Double.pi * r * r, area)
        }
        guard placed || total / area > Self.maxOverdraw else { return total / area }
        total = 0
        let project = camera.projector(width: width, height: height)
        for n in 0..<count {
            let k = 4 * sphere(n)
            let r = Double(s[k + 3]) * pixelsPerUnit
            let p = project(SIMD3(s[k], s[k + 1], s[k + 2]))
            // The disc's box against the picture's: the part inside, at most the disc.
            let w = max(0, min(Double(p.x) + r, Double(width)) - max(Double(p.x) - r, 0))
            let h = max(0, min(Double(p.y) + r, Double(height)) - max(Double(p.y) - r, 0))
            total += min(w * h, Double.pi * r * r)
        }
        return total / area
    }

    /// A view of a molecule prepared already (several views of one load); `camera` instead of the
    /// request's view (a movie's frames).
    public init(_ prepared: PreparedMolecule, request: RenderRequest, camera: Camera? = nil) {
        self.prepared = prepared
        self.request = request
        let camera = camera ?? request.camera(for: prepared)
        self.camera = camera
        style = request.style(for: prepared)
        let pixelsPerUnit = 1 / camera.worldUnitsPerPixel(width: request.width, height: request.height)
        let samples = max(1, min(MoleculeRenderer.requestedSamples(style, typicalRadius: MoleculeGeometry.medianRadius(prepared.geometry.spheres),
                                                                   pixelsPerUnit: pixelsPerUnit), 4))
        self.samples = samples
        // Culling ahead, at the threshold of the way it will be drawn.
        let casts = SphereCaster.casts(prepared.geometry, camera: camera, width: request.width, height: request.height, samples: samples)
        visibility = casts
            ? MoleculeRenderer.visibleSpheres(prepared.geometry, camera: camera, width: request.width, height: request.height, style: style,
                                              minimum: SphereCaster.spheresToCull, balls: SphereCaster.spheresToCull)
            : MoleculeRenderer.visibleSpheres(prepared.geometry, camera: camera, width: request.width, height: request.height, style: style)
        overdraw = Self.sphereOverdraw(prepared.geometry.spheres, visible: visibility?.indices, camera: camera,
                                       width: request.width, height: request.height, placed: false)
    }

    /// Uploads the scene and draws it; on the renderer's thread. `finished()` completes it.
    /// A picture `SphereCaster` draws is cast instead, uploading nothing (as the renderer would).
    /// `keepScene`: the scene stays in the renderer's cache for the next view of the same
    /// prepared molecule; otherwise it is freed once drawn.
    public func draw(_ renderer: MoleculeRenderer, keepScene: Bool = false) throws -> DrawnPicture {
        // A picture whose request is past its deadline is not drawn (it may have waited its turn).
        try WorkDeadline.check()
        try checkCost()
        if renderer.castsSmallPictures, let cast = cast() { return cast }
        let scene: MoleculeScene
        if keepScene {
            scene = renderer.scene(for: prepared)
            if visibility != nil { scene.visibility = visibility }
        } else {
            scene = renderer.makeScene(prepared.geometry, atomColors: prepared.atomColors, visibility: visibility)
        }
        return try renderer.draw(scene, camera: camera, width: request.width, height: request.height, style: style)
    }

    /// Samples a pixel per side this picture is drawn with, as the renderer would choose.
    let samples: Int

    /// Whether `draw` casts this picture on the CPU (`SphereCaster`) rather than drawing it with GL.
    public var casts: Bool {
        SphereCaster.casts(prepared.geometry, camera: camera, width: request.width, height: request.height, samples: samples)
    }

    /// The picture ray-cast on the CPU, on any thread, where `SphereCaster` draws it (small,
    /// orthographic, spheres, bonds and opaque meshes only); nil where GL must draw it.
    public func cast() -> DrawnPicture? {
        guard casts else { return nil }
        let g = prepared.geometry
        // Each mesh's vertex colors as `MoleculeRenderer.makeScene` uploads them.
        let meshColors = g.meshes.map { $0.packedDrawnColors(prepared.atomColors) }
        return SphereCaster.draw(g, sphereColors: MoleculeScene.packedColors(g.colorsOfSpheres(prepared.atomColors)),
                                 cylinderColors: MoleculeScene.packedColors(g.colorsOfCylinders(prepared.atomColors)),
                                 meshColors: meshColors, visible: visibility?.indices, camera: camera, width: request.width, height: request.height,
                                 samples: samples, style: style)
    }

    /// The picture finished: edges smoothed, then the request's labels, distances, key and scale bar laid over it.
    public func finish(_ drawn: DrawnPicture) throws -> RGBAImage { try finishLabelled(drawn).image }

    /// `finish`, with the labels it set (for a caption).
    public func finishLabelled(_ drawn: DrawnPicture) throws -> (image: RGBAImage, labels: [Annotations.PlacedLabel]) {
        var image = drawn.finished()
        var labels: [Annotations.PlacedLabel] = []
        if !request.annotations.isEmpty {
            try WorkDeadline.check()
            labels = try request.annotations.drawLabelled(into: &image, prepared: prepared, camera: camera, request: request).labels
        }
        return (image, labels)
    }

    /// The finished picture as the request's PNG.
    public func png(_ drawn: DrawnPicture) throws -> [UInt8] {
        try WorkDeadline.check()
        let finished = try finish(drawn)
        try WorkDeadline.check()
        return try request.pngEncoder.encode(finished)
    }
}

/// A picture whose spheres would cover it more times over than any molecule's do
/// (`MoleculePicture.maxOverdraw`): atoms piled on one another, refused before drawing.
public struct PictureCostError: Fault, Sendable {
    public var kind: FaultKind { .input }
    public var source: String
    public var overdraw: Double
    public var description: String {
        "\(source): its atoms lie on top of one another: their spheres would cover the picture \(Int(overdraw)) times over, "
            + "more than the \(Int(MoleculePicture.maxOverdraw)) a picture is drawn with (a molecule's, however large, cover it a few dozen times)"
    }
}

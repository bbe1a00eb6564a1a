import Foundation
import Graphics
import MoleculeView
import Scene
import Structure

/// The scene a gesture file drives: a structure, a mode, a camera, a caption and the parts of a
/// combination being built. It turns events into changes and draws frames. Geometry is rebuilt
/// only when the structure or the mode changes; gestures change only the camera. Use it on one
/// thread: it owns a renderer and so a GL context.
public final class ReplaySession {
    public struct Options: Sendable {
        public var width = 512
        public var height = 512
        public var mode = BallAndStick.name
        public var style = RenderStyle()
        public var color = ColorTheme.element
        /// When given, the combinations `combine` accepts.
        public var catalog: CombinationCatalog?
        public init() {}
    }

    /// Degrees the view turns per point a finger moves.
    public static let degreesPerPoint: Float = 0.5

    public let options: Options
    public let viewport: (width: Double, height: Double)
    private let renderer: MoleculeRenderer
    private let perception: BondPerception
    private let baseDirectory: URL
    private var recognizer = TouchRecognizer()
    private var structure: Structure?
    private var shown: Model?
    public private(set) var mode: String
    public private(set) var camera: Camera?
    public private(set) var caption: String?
    public private(set) var parts: [String] = []
    private var scene: MoleculeScene?
    private let captions: CaptionWriter

    /// `baseDirectory` resolves relative `load` sources.
    public init(viewport: (width: Double, height: Double), options: Options, structure: Structure?,
                baseDirectory: URL, renderer: MoleculeRenderer? = nil) throws {
        self.viewport = viewport
        self.options = options
        self.baseDirectory = baseDirectory
        mode = options.mode
        captions = CaptionWriter(background: options.style.background)
        self.renderer = try renderer ?? MoleculeRenderer()
        perception = try BondPerception.standard()
        if let structure { try show(structure, model: structure.models.first) }
    }

    private func show(_ structure: Structure?, model: Model?) throws {
        self.structure = structure
        shown = model
        scene = nil
        camera = try model.map { try fittedCamera($0) }
    }

    /// Fitted to the van der Waals spheres, so that switching modes keeps the scale.
    private func fittedCamera(_ model: Model) throws -> Camera {
        let visible = AtomFilter(hydrogens: false, waters: false).visible(model)
        var g = MoleculeGeometry(atomsOf: model, visible: visible.contains(true) ? visible : model.defaultConformerMask()) {
            perception.elements.vanDerWaalsRadius($0)
        }
        if g.sphereCount == 0 { g = MoleculeGeometry(atomsOf: model, visible: model.atoms.map { _ in true }) { _ in 1.5 } }
        let b = g.boundingSphere()
        return Camera(center: b.center, radius: b.radius)
    }

    /// Applies one event; returns true when it asks for a frame.
    public func apply(_ event: GestureEvent, source: String) throws -> Bool {
        if case .touch(let phase, let id, let x, let y, let taps) = event.kind {
            for c in recognizer.touch(phase, id: id, at: SIMD2(x, y), tapCount: taps, time: event.time) { apply(c) }
            return false
        }
        settle()
        switch event.kind {
        case .touch: break
        case .command(let c): apply(c)
        case .mode(let m):
            guard Representations.named(m) != nil else {
                throw GestureFileError(file: source, line: event.line,
                                       message: "unknown mode \(m); known: \(Representations.names.joined(separator: ", "))")
            }
            setMode(m)
        case .reset:
            if let shown { camera = try fittedCamera(shown) }
        case .load(let path):
            let url = path.hasPrefix("/") ? URL(fileURLWithPath: path) : baseDirectory.appendingPathComponent(path)
            do {
                let s = try StructureFile.load(path: url.path)
                try show(s, model: s.models.first)
            } catch let e as StructureError {
                throw GestureFileError(file: source, line: event.line, message: "load: \(e)")
            }
            parts = []
            caption = nil
        case .addPart(let part):
            parts.append(part)
        case .combine:
            if let catalog = options.catalog {
                if let entry = catalog.entry(for: parts) {
                    do {
                        let s = try StructureFile.load(path: catalog.structureURL(entry).path)
                        try show(s, model: s.models.first)
                    } catch let e as StructureError {
                        throw GestureFileError(file: source, line: event.line, message: "combination \(entry.name): \(e)")
                    }
                    caption = Combination.congratulations(parts)
                } else {
                    shown = nil
                    scene = nil
                    caption = Combination.sorry(parts)
                }
                parts = []
                break
            }
            guard let model = structure?.models.first else {
                caption = Combination.sorry(parts)
                try show(structure, model: nil)
                parts = []
                break
            }
            switch Combination.judge(parts, in: model) {
            case .valid(let text):
                try show(structure, model: model.selecting(chains: Set(parts)))
                caption = text
            case .invalid(let text):
                scene = nil
                shown = nil
                caption = text
            }
            parts = []
        case .clear:
            shown = nil
            scene = nil
            parts = []
            caption = nil
        case .frame:
            return true
        }
        return false
    }

    /// Applies touches still waiting for the other finger of the same instant.
    public func settle() {
        for c in recognizer.flush() { apply(c) }
    }

    func setMode(_ m: String) {
        if m != mode {
            mode = m
            scene = nil
        }
    }

    func apply(_ command: CameraCommand) {
        switch command {
        case .nextMode:
            let names = Representations.names
            setMode(names[((names.firstIndex(of: mode) ?? -1) + 1) % names.count])
            return
        default: break
        }
        guard var c = camera else { return }
        let k = ReplaySession.degreesPerPoint
        switch command {
        case .rotate(let dx, let dy):
            c.rotate(degreesX: Float(dy) * k, degreesY: Float(dx) * k, degreesZ: 0)
        case .twist(let radians):
            c.rotate(degreesX: 0, degreesY: 0, degreesZ: Float(radians * 180 / .pi))
        case .pinch(let scale):
            c.zoom = max(0.02, min(100, c.zoom * Float(scale)))
        case .pan(let dx, let dy):
            c.pan += SIMD2(Float(dx * Double(options.width) / viewport.width), Float(dy * Double(options.height) / viewport.height))
        case .nextMode:
            break
        }
        camera = c
    }

    /// The picture of the scene as it is now: drawn, with edge smoothing and the caption still
    /// to do in `ReplayFrame.finished()`, which another thread may call while the next frame draws.
    public func frame() throws -> ReplayFrame {
        let drawn: DrawnPicture
        if let shown, let camera {
            if scene == nil {
                let s = Structure(format: structure?.format ?? .pdb)
                var one = s
                one.models = [shown]
                one.embeddedTemplates = structure?.embeddedTemplates ?? [:]
                let prepared = try PreparedMolecule(one, mode: mode, color: options.color, perception: perception)
                scene = renderer.makeScene(prepared.geometry, atomColors: prepared.atomColors)
            }
            drawn = try renderer.draw(scene!, camera: camera, width: options.width, height: options.height, style: options.style)
        } else {
            let bg = options.style.background
            drawn = DrawnPicture(image: RGBAImage(width: options.width, height: options.height,
                                                  fill: (UInt8(bg.x * 255), UInt8(bg.y * 255), UInt8(bg.z * 255), UInt8(bg.w * 255))),
                                 smoothEdges: false)
        }
        return ReplayFrame(drawn: drawn, caption: caption, captions: captions)
    }
}

/// A frame of a replay as drawn; `finished()` smooths its edges and writes its caption.
public struct ReplayFrame: Sendable {
    let drawn: DrawnPicture
    let caption: String?
    let captions: CaptionWriter

    public func finished() throws -> RGBAImage {
        var image = drawn.finished()
        if let caption { try captions.draw(caption, on: &image) }
        return image
    }
}

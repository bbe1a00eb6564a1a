import Foundation
import Graphics
import Imaging
import MoleculeView
import Scene
import Structure

/// The molecule a gesture file drives: a structure, a mode, a camera, a caption and the parts of a
/// combination being built. It turns events into changes; its frames are drawn on a render worker,
/// which keeps the scene on the GPU: geometry is rebuilt only when the structure or the mode
/// changes; gestures change only the camera. Use it on one thread at a time.
public final class MoleculeDriver: ViewDriver {
    public struct Options: Sendable {
        /// Size, starting mode, look and starting view, as every front end asks for a picture.
        public var request = RenderRequest()
        /// When given, the combinations `combine` accepts.
        public var catalog: CombinationCatalog?
        /// Where `load` events read structures; without one, `load` is an error naming its line.
        public var loader: StructureLoader?
        /// The largest side (pixels) a `resize` may ask for; larger asks are scaled down to it.
        public var maxSide = 8192
        /// The most samples a frame may take (`RenderRequest.samples`: size, antialias and the
        /// full-picture effects); a `resize` past it is refused naming its line, before it is drawn.
        public var maxSamples = Int.max
        public init() {}
    }

    /// Degrees the view turns per point a finger moves.
    public static let degreesPerPoint: Float = 0.5

    public private(set) var options: Options
    public private(set) var viewport: (width: Double, height: Double)
    /// Points (Å) whose places the frames report (`marks` events).
    private var marks: [SIMD3<Float>] = []
    private let worker: RenderLane<MoleculeRenderer>
    private let perception: BondPerception
    private var recognizer = TouchRecognizer()
    /// Where each finger down was put down (viewport points), to tell a tap from a drag.
    private var touchStarts: [Int: SIMD2<Double>] = [:]
    /// Viewport points a finger may travel and still tap.
    static let tapSlop = 10.0

    /// The front-most shown atom within reach of viewport point `p` (a few pixels, or an atom's
    /// radius on screen where atoms are drawn larger); a tap with none under it picks nothing.
    private func pick(_ p: SIMD2<Double>, time: Double, line: Int) -> Tap? {
        guard let camera, let model = shown else { return nil }
        let w = options.request.width, h = options.request.height
        // Far outside the picture is as empty as its edge; clamped, the point stays finite in Float
        // (a hover at 1e300 points made an infinite point, which the JSON answer could not carry).
        let limit = 1e6
        let target = SIMD2<Float>(Float(max(-limit, min(limit, p.x * Double(w) / viewport.width))),
                                  Float(max(-limit, min(limit, p.y * Double(h) / viewport.height))))
        let visible = options.request.filter.visible(model)
        let view = camera.viewMatrix(width: w, height: h)
        // Pixels an angstrom spans at the center (orthographic: everywhere).
        let m = camera.rotation.matrix
        let right = SIMD3(m.0.x, m.1.x, m.2.x)
        let a = camera.project(camera.center, width: w, height: h), b = camera.project(camera.center + right, width: w, height: h)
        let perÅ = max(((b - a) * (b - a)).sum().squareRoot(), 0.01)
        let reach = max(6, 1.2 * perÅ)
        var best: (index: Int, depth: Float)?
        for (i, atom) in model.atoms.enumerated() where visible[i] {
            let s = camera.project(atom.position, width: w, height: h)
            let d = s - target
            guard (d * d).sum() <= reach * reach else { continue }
            let depth = (view * SIMD4(atom.position, 1)).z
            if best == nil || depth > best!.depth { best = (i, depth) }
        }
        guard let best else { return Tap(time: time, line: line, point: SIMD2(Double(target.x), Double(target.y))) }
        let atom = model.atoms[best.index], residue = model.residues[Int(atom.residue)], chain = model.chains[Int(residue.chain)]
        let picked = PickedAtom(chain: chain.id, entity: chain.entity, residueName: residue.name.description, residueNumber: Int(residue.number),
                                insertion: residue.insertionCode == 0 ? "" : String(UnicodeScalar(residue.insertionCode)),
                                atomName: atom.name.description, element: atom.element.symbol, serial: Int(atom.serial), position: atom.position)
        return Tap(time: time, line: line, point: SIMD2(Double(target.x), Double(target.y)), atom: picked)
    }
    private var structure: Structure?
    private var shown: Model? {
        didSet { automatic = nil }
    }
    public private(set) var drawMode: DrawMode
    public var mode: ViewMode { .molecule(drawMode) }

    /// What `auto` chose for the shown model (cartoon, spacefill, ball-and-stick): found once a
    /// model (every frame's message says it; finding it reads every atom).
    public var drawn: String? {
        guard drawMode == .auto, let shown else { return nil }
        if let automatic { return automatic }
        let found = Representations.automatic(for: shown).rawValue
        automatic = found
        return found
    }
    private var automatic: String?
    public private(set) var camera: Camera?
    public private(set) var caption: String?
    public private(set) var parts: [String] = []
    /// What is drawn for the shown model in the current mode, made when first needed.
    private var prepared: PreparedMolecule?
    /// The zoom `prepared` has the detail for (cartoons of large structures leave out what a
    /// picture cannot show): zoomed in past it, the geometry is built again, for twice the zoom.
    private var preparedZoom: Float = 1
    private let captions: CaptionWriter

    public init(viewport: (width: Double, height: Double), options: Options, structure: Structure?,
                worker: RenderLane<MoleculeRenderer>) throws {
        self.viewport = viewport
        self.options = options
        drawMode = options.request.mode
        captions = CaptionWriter(background: options.request.background)
        self.worker = worker
        perception = try BondPerception.standard()
        if let structure {
            let molecule = try built(structure)
            try show(molecule, model: molecule.models.first)
        }
    }

    /// The molecule the request asks for from a structure as read: the file's model or an assembly.
    private func built(_ structure: Structure) throws -> Structure {
        try options.request.molecule(structure, source: structure.metadata.id.isEmpty ? "the structure" : structure.metadata.id)
    }

    private func show(_ structure: Structure?, model: Model?) throws {
        self.structure = structure
        shown = model
        setPrepared(nil)
        preparedZoom = options.request.zoom
        camera = nil
        if model != nil { camera = options.request.camera(for: try prepare()!) }
    }

    /// The shown model prepared in the current mode; the view is fitted to it when it is shown
    /// (or reset) and kept when the mode changes, so switching modes keeps the scale.
    private func prepare() throws -> PreparedMolecule? {
        if let prepared { return prepared }
        guard let shown else { return nil }
        var one = Structure(format: structure?.format ?? .pdb)
        one.models = [shown]
        one.embeddedTemplates = structure?.embeddedTemplates ?? [:]
        one.metadata = structure?.metadata ?? Metadata()
        // The file's helices and strands (by chain and residue number: the same in every model), as cartoons draw them.
        one.secondaryStructure = structure?.secondaryStructure ?? []
        var request = options.request
        request.zoom = max(request.zoom, preparedZoom)
        prepared = try PreparedMolecule(one, mode: drawMode, request: request, perception: perception)
        return prepared
    }

    /// Replaces what is drawn, letting the renderer release the old scene.
    private func setPrepared(_ new: PreparedMolecule?) {
        if let old = prepared { worker.submit({ $0.forget(old) }, failed: { _ in }) }
        prepared = new
    }

    /// Applies one event: a touch changes the view when it moves the camera or the mode; any
    /// other event is taken to change it.
    public func apply(_ event: GestureEvent, source: String) throws -> EventEffect {
        if case .touch(let phase, let id, let x, let y, let taps) = event.kind {
            let before = (camera, mode)
            let at = SIMD2(x, y)
            // A single finger put down and lifted where it was, once: a pick, before the camera moves.
            var picked: [Tap] = []
            switch phase {
            case .began: touchStarts[id] = at
            case .ended, .cancelled:
                if phase == .ended, taps == 1, touchStarts.count == 1, let start = touchStarts[id],
                   ((at - start) * (at - start)).sum().squareRoot() < MoleculeDriver.tapSlop, let tap = pick(at, time: event.time, line: event.line) {
                    picked.append(tap)
                }
                touchStarts[id] = nil
            default: break
            }
            for c in recognizer.touch(phase, id: id, at: at, tapCount: taps, time: event.time) { apply(c) }
            return EventEffect(changed: before.0 != camera || before.1 != mode, taps: picked)
        }
        settle()
        switch event.kind {
        case .touch: break
        case .command(let c): apply(c)
        case .mode(let m):
            guard m.representation != nil || (m == .shows && !options.request.shows.isEmpty) else {
                throw GestureFileError(file: source, line: event.line,
                                       message: "unknown mode \(m); known: \(Representations.names.joined(separator: ", "))")
            }
            setMode(m)
        case .reset:
            if let p = try prepare() { camera = options.request.camera(for: p) }
        case .load(let path):
            guard let loader = options.loader else {
                throw GestureFileError(file: source, line: event.line, message: "load: this replay reads no files; it shows the molecule it was started with")
            }
            do {
                let s = try built(try loader.load(path))
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
                        let s = try built(try StructureFile.load(path: catalog.structureURL(entry).path))
                        try show(s, model: s.models.first)
                    } catch let e as StructureError {
                        throw GestureFileError(file: source, line: event.line, message: "combination \(entry.name): \(e)")
                    }
                    caption = Combination.congratulations(parts)
                } else {
                    shown = nil
                    setPrepared(nil)
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
                setPrepared(nil)
                shown = nil
                caption = text
            }
            parts = []
        case .clear:
            shown = nil
            setPrepared(nil)
            parts = []
            caption = nil
        case .frame:
            return EventEffect(changed: true, wantsFrame: true)
        case .resize(let width, let height, let scale):
            let size = ViewSize.pixels(width: width, height: height, scale: scale, maxSide: options.maxSide)
            var resized = options.request
            (resized.width, resized.height) = size
            guard resized.samples <= options.maxSamples else {
                throw PictureBudgetError(file: source, line: event.line,
                                         message: "resize to \(size.width)x\(size.height) asks for \(resized.samples) samples with this view's antialias, "
                                         + "occlusion and outline, more than the \(options.maxSamples) allowed (picture samples)")
            }
            if var c = camera, options.request.height > 0 {
                // The pan stays the same fraction of the picture.
                c.pan *= Float(size.height) / Float(options.request.height)
                camera = c
            }
            options.request.width = size.width
            options.request.height = size.height
            viewport = (width, height)
        case .view(let rotation, let zoom, let pan):
            guard var c = camera else { break }
            c.rotation = Quaternion(x: Float(rotation.x), y: Float(rotation.y), z: Float(rotation.z), w: Float(rotation.w)).normalized
            c.zoom = max(0.02, min(100, Float(zoom)))
            c.pan = SIMD2(Float(pan.x), Float(pan.y)) * Float(options.request.height)
            camera = c
        case .marks(let points):
            marks = points.map { SIMD3(Float($0.x), Float($0.y), Float($0.z)) }
        case .hover(let x, let y):
            guard var tap = pick(SIMD2(x, y), time: event.time, line: event.line) else { return EventEffect(changed: false) }
            tap.hover = true
            return EventEffect(changed: false, taps: [tap])
        }
        return EventEffect(changed: true)
    }

    /// The size, camera and marked points' places of a frame drawn now.
    public var facts: FrameFacts {
        let w = options.request.width, h = options.request.height
        guard let camera else { return FrameFacts(width: w, height: h) }
        let q = camera.rotation, perPoint = Double(w) / max(viewport.width, 1e-9)
        let view = [Double(q.x), Double(q.y), Double(q.z), Double(q.w), Double(camera.zoom),
                    Double(camera.pan.x) / Double(max(h, 1)), Double(camera.pan.y) / Double(max(h, 1))]
        let places = marks.map { p -> [Double] in
            let s = camera.project(p, width: w, height: h)
            return [Double(s.x) / perPoint, Double(s.y) / perPoint]
        }
        return FrameFacts(width: w, height: h, view: view, marks: places)
    }

    /// Applies touches still waiting for the other finger of the same instant.
    public func settle() {
        for c in recognizer.flush() { apply(c) }
    }

    func setMode(_ m: DrawMode) {
        if m != drawMode {
            drawMode = m
            setPrepared(nil)
        }
    }

    func apply(_ command: CameraCommand) {
        switch command {
        case .nextMode:
            // The picture the request's shows make comes first, then each representation.
            let modes = (options.request.shows.isEmpty ? [] : [DrawMode.shows]) + Representations.all.compactMap { DrawMode(rawValue: $0.name) }
            setMode(modes[((modes.firstIndex(of: drawMode) ?? -1) + 1) % modes.count])
            return
        default: break
        }
        guard var c = camera else { return }
        let k = MoleculeDriver.degreesPerPoint
        switch command {
        case .rotate(let dx, let dy):
            c.rotate(degreesX: Float(dy) * k, degreesY: Float(dx) * k, degreesZ: 0)
        case .twist(let radians):
            c.rotate(degreesX: 0, degreesY: 0, degreesZ: Float(radians * 180 / .pi))
        case .pinch(let scale):
            c.zoom = max(0.02, min(100, c.zoom * Float(scale)))
        case .pan(let dx, let dy):
            c.pan += SIMD2(Float(dx * Double(options.request.width) / viewport.width),
                           Float(dy * Double(options.request.height) / viewport.height))
        case .nextMode:
            break
        }
        camera = c
    }

    /// What drawing the scene as it is now takes, to be drawn later on the render thread, with
    /// edge smoothing and the caption still to do in `ReplayFrame.finished()`.
    public func frameJob(detail: FrameDetail) throws -> FrameJob<MoleculeRenderer> {
        if let camera, let p = prepared, p.detailScale != nil, camera.zoom > preparedZoom {
            preparedZoom = camera.zoom * 2
            setPrepared(nil)
        }
        let prepared = try prepare()
        let request = options.request
        let coarse = detail == .moving && (prepared?.model.atoms.count ?? 0) >= LevelOfDetail.minimumAtoms
            && min(request.width, request.height) >= LevelOfDetail.minimumSide
        let scene = FrameScene(request: request, camera: camera, prepared: prepared, caption: caption, captions: captions,
                               divisor: coarse ? LevelOfDetail.divisor : 1)
        return FrameJob { try scene.draw($0) }
    }

    /// The scene of one frame, fixed when the frame was asked for.
    struct FrameScene {
        let request: RenderRequest
        let camera: Camera?
        let prepared: PreparedMolecule?
        let caption: String?
        let captions: CaptionWriter
        /// Drawn at 1/divisor of the size and enlarged (`LevelOfDetail`); 1: in full.
        let divisor: Int

        /// Draws it; on the render thread.
        func draw(_ renderer: MoleculeRenderer) throws -> ReplayFrame {
            let drawn: DrawnPicture
            if let camera, let prepared, divisor > 1 {
                // The same view at a fraction of the pixels: the pan (in pixels) scaled with them.
                let width = (request.width + divisor - 1) / divisor, height = (request.height + divisor - 1) / divisor
                var small = camera
                small.pan *= Float(height) / Float(request.height)
                // Outlines as wide as in full: a fraction of a pixel of the small picture, drawn fainter.
                var style = request.style(for: prepared)
                style.effects.outline /= Float(divisor)
                // One sample a pixel and no edge smoothing: enlarging blends the edges. No screen-space
                // occlusion: at a fraction of the pixels its few-pixel reach shades the stand-in's
                // spheres, not the atoms' crevices, and it costs more than the drawing.
                style.antialias = 0
                style.effects.occlusion = 0
                drawn = try renderer.drawCoarse(prepared, camera: small, width: width, height: height, style: style)
                    ?? renderer.draw(prepared, camera: small, width: width, height: height, style: style)
                return ReplayFrame(drawn: drawn, caption: caption, captions: captions, enlargeTo: (request.width, request.height),
                                   annotate: annotate(prepared, camera))
            } else if let camera, let prepared {
                drawn = try renderer.draw(prepared, camera: camera, width: request.width, height: request.height, style: request.style(for: prepared))
            } else {
                drawn = DrawnPicture(image: RGBAImage(width: request.width, height: request.height, fill: request.background.bytes),
                                     smoothEdges: false)
            }
            return ReplayFrame(drawn: drawn, caption: caption, captions: captions, annotate: prepared.flatMap { p in camera.map { annotate(p, $0) } } ?? nil)
        }

        /// What a view draws over its frames: a ligand's interactions (found once a structure, `Annotations.interactions`).
        func annotate(_ prepared: PreparedMolecule, _ camera: Camera) -> (@Sendable (inout RGBAImage) throws -> Void)? {
            guard request.annotations.interactions != nil else { return nil }
            let request = request
            return { image in try request.annotations.draw(into: &image, prepared: prepared, camera: camera, request: request) }
        }
    }
}

extension Replay where Driver == MoleculeDriver {
    /// A molecule's replay: `molecule` shown from the start (or none, for files that load or
    /// combine one), drawn through `lane` or a worker of its own.
    public convenience init(source: String, options: MoleculeDriver.Options, molecule: Structure?, fps: Double?,
                            lane: RenderLane<MoleculeRenderer>? = nil) {
        let make: MakeDriver = { try MoleculeDriver(viewport: $0, options: options, structure: molecule, worker: $1) }
        if let lane {
            self.init(source: source, fps: fps, lane: lane, driver: make)
        } else {
            self.init(source: source, fps: fps, renderer: { try MoleculeRenderer() }, driver: make)
        }
    }
}

extension LiveSession where Driver == MoleculeDriver {
    /// A live view of `molecule`, frames encoded as `frames` says (nil: PNG as the request asks, `frameEncoder`).
    public convenience init(source: String = "session", options: MoleculeDriver.Options, molecule: Structure?,
                            lane: RenderLane<MoleculeRenderer>, record: Bool = false, frames: FrameEncoder? = nil,
                            taken: ((String) -> Void)? = nil, send: @escaping @Sendable (LiveOutput) -> Void) {
        let matte = options.request.background.alpha > 0 ? options.request.background : .white
        self.init(source: source, encoder: frames ?? .png(options.request.frameEncoder()), matte: matte, lane: lane, record: record,
                  taken: taken, send: send) {
            try MoleculeDriver(viewport: $0, options: options, structure: molecule, worker: $1)
        }
    }
}

/// A frame of a replay as drawn; `finished()` smooths its edges and writes its caption.
public struct ReplayFrame: Sendable {
    let drawn: DrawnPicture
    let caption: String?
    let captions: CaptionWriter?
    /// Drawn smaller while the view moves, to be enlarged to this size when finished.
    let enlargeTo: (width: Int, height: Int)?
    /// Drawn over the finished frame (interactions), at its full size.
    let annotate: (@Sendable (inout RGBAImage) throws -> Void)?

    /// Drawn at less than full detail (`LevelOfDetail`).
    public var isCoarse: Bool { enlargeTo != nil }

    init(drawn: DrawnPicture, caption: String?, captions: CaptionWriter, enlargeTo: (width: Int, height: Int)? = nil,
         annotate: (@Sendable (inout RGBAImage) throws -> Void)? = nil) {
        self.drawn = drawn
        self.caption = caption
        self.captions = captions
        self.enlargeTo = enlargeTo
        self.annotate = annotate
    }

    /// A frame drawn whole already (a pathway view).
    public init(image: RGBAImage) {
        drawn = DrawnPicture(image: image, smoothEdges: false)
        caption = nil
        captions = nil
        enlargeTo = nil
        annotate = nil
    }

    /// `bands`: edge smoothing in that many bands of rows at once.
    public func finished(bands: Int = 1) throws -> RGBAImage {
        var image = drawn.finished(bands: bands)
        if let enlargeTo { image = image.enlarged(width: enlargeTo.width, height: enlargeTo.height) }
        if let annotate { try annotate(&image) }
        if let caption, let captions { try captions.draw(caption, on: &image) }
        return image
    }
}

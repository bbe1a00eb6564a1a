import Core
import Foundation
import Imaging
import MoleculeView
import PathwayModel
import Pathways

/// A view that gesture events drive: a molecule (`MoleculeDriver`) or a pathway map
/// (`PathwayDriver`). It takes events on one thread at a time and hands out what drawing its
/// current state takes, to be drawn later on the render thread; `Replay` and `LiveSession` run
/// either kind alike.
public protocol ViewDriver: AnyObject, SendableMetatype {
    associatedtype Renderer
    /// Applies one event (touches through the driver's recognizer).
    func apply(_ event: GestureEvent, source: String) throws -> EventEffect
    /// Applies touches still waiting for the other finger of the same instant.
    func settle()
    /// What drawing the view as it is now takes, fixed now and drawn later; `.moving`: a frame of
    /// a live view in motion, which a large view may draw coarser (`LevelOfDetail`).
    func frameJob(detail: FrameDetail) throws -> FrameJob<Renderer>
    /// What the frames show now: the mode, and the caption when there is one.
    var mode: ViewMode { get }
    var caption: String? { get }
    /// What `auto` drew (`cartoon`), where the mode leaves it to the structure; nil otherwise.
    var drawn: String? { get }
    /// What a frame drawn now says besides its picture: its size, the camera, marked points.
    var facts: FrameFacts { get }
}

extension ViewDriver {
    public var drawn: String? { nil }
    /// A frame at full detail, as replays draw every frame.
    public func frameJob() throws -> FrameJob<Renderer> { try frameJob(detail: .full) }
}

/// How much detail a frame is drawn with: full, or coarser while a live view moves.
public enum FrameDetail: Sendable, Equatable {
    case full, moving
}

/// Level of detail for live views, as Mol* and other viewers do for large structures: while
/// events keep coming, a molecule of at least `minimumAtoms` atoms is drawn at 1/`divisor` of
/// the frame's width and height and enlarged (bilinear), a quarter of the pixels to draw, with
/// one sample a pixel, no screen-space occlusion and no edge smoothing; spheres alone
/// (spacefill) are drawn as their residue-level stand-in (`CoarseSpheres`), and the frame is
/// deflated by runs and rows (`FrameEncoder.forMovingFrames`). Once no event has changed the view
/// for `stillAfter` seconds the same view is drawn again at full detail, the picture a replay
/// draws. Smaller views, and frames under `minimumSide` pixels, are always drawn in full.
public enum LevelOfDetail {
    public static let minimumAtoms = 20_000
    public static let divisor = 2
    public static let minimumSide = 384
    public static let stillAfter = 0.2
}

/// What a live frame's message says besides the picture.
public struct FrameFacts: Sendable, Equatable, Codable {
    public var width: Int
    public var height: Int
    /// The camera: rotation quaternion x, y, z, w, zoom, pan x and y as fractions of the height
    /// (what a `view` event takes back).
    public var view: [Double]?
    /// Where each point of the last `marks` event is, in viewport points (x right, y down).
    public var marks: [[Double]]

    public init(width: Int, height: Int, view: [Double]? = nil, marks: [[Double]] = []) {
        self.width = width
        self.height = height
        self.view = view
        self.marks = marks
    }
}

/// The pixels of a viewport of `width` x `height` points at `scale` pixels a point, each side at
/// least 16 and at most `maxSide` (both shrunk alike, keeping the shape).
public enum ViewSize {
    public static func pixels(width: Double, height: Double, scale: Double, maxSide: Int) -> (width: Int, height: Int) {
        var w = width * scale, h = height * scale
        let largest = max(w, h)
        if largest > Double(maxSide) {
            w *= Double(maxSide) / largest
            h *= Double(maxSide) / largest
        }
        return (max(16, min(maxSide, Int(w.rounded()))), max(16, min(maxSide, Int(h.rounded()))))
    }
}

/// What one event did.
public struct EventEffect: Sendable {
    /// The view changed (a frame now would differ from the one before).
    public var changed: Bool
    /// The event asks for a frame (a `frame` event).
    public var wantsFrame: Bool
    /// Taps on a map, with what they hit.
    public var taps: [Tap]

    public init(changed: Bool, wantsFrame: Bool = false, taps: [Tap] = []) {
        self.changed = changed
        self.wantsFrame = wantsFrame
        self.taps = taps
    }
}

/// A view's state fixed when its frame was asked for, drawn on the render thread.
///
/// Sendable without the checker's proof: `make` captures a copy of the view's state (camera,
/// geometry made before it, which nothing changes afterwards) and is run once, on the render thread.
public struct FrameJob<Renderer>: @unchecked Sendable {
    let make: (Renderer) throws -> ReplayFrame

    public init(_ make: @escaping (Renderer) throws -> ReplayFrame) { self.make = make }

    public func draw(_ renderer: Renderer) throws -> ReplayFrame { try make(renderer) }
}

/// What a tap on a map found: a node, or nothing.
public struct Tap: Sendable, Equatable {
    public var time: Double
    public var line: Int
    /// In map units; for a molecule, in the picture's pixels.
    public var point: SIMD2<Double>
    public var node: PathwayMap.Node.Summary?
    /// For a molecule: the front-most shown atom under the tap, if any.
    public var atom: PickedAtom?
    /// Asked by a `hover` event (the pointer over the view), not a tap: nothing is selected.
    public var hover = false

    public init(time: Double, line: Int, point: SIMD2<Double>, node: PathwayMap.Node.Summary? = nil, atom: PickedAtom? = nil) {
        self.time = time
        self.line = line
        self.point = point
        self.node = node
        self.atom = atom
    }

}

/// As JSON: `t`, `line`, `x`, `y` and `node` (its id, name, kind and label, or null) for a map,
/// or `atom` for a molecule, as the tap log and the live session write it.
extension Tap: Encodable {
    private enum Keys: String, CodingKey { case t, line, x, y, hover, atom, node }

    /// A picked atom as the protocol names its fields.
    private struct Atom: Encodable {
        var chain, entity, residue: String
        var number: Int
        var insertion, name, element: String
        var serial: Int
        var position: [Double]
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(time, forKey: .t)
        try c.encode(line, forKey: .line)
        try c.encode(point.x, forKey: .x)
        try c.encode(point.y, forKey: .y)
        if hover { try c.encode(true, forKey: .hover) }
        if let atom {
            try c.encode(Atom(chain: atom.chain, entity: atom.entity, residue: atom.residueName, number: atom.residueNumber, insertion: atom.insertion,
                              name: atom.atomName, element: atom.element, serial: atom.serial,
                              position: [atom.position.x, atom.position.y, atom.position.z].map { Double($0) }), forKey: .atom)
        } else {
            // null, not absent: a tap on nothing says so.
            try c.encode(node, forKey: .node)
        }
    }
}

/// An atom a tap picked: who it is (chain, residue, name) and where (Å, as the file has it).
public struct PickedAtom: Sendable, Equatable, Codable {
    public var chain: String
    public var entity: String
    public var residueName: String
    public var residueNumber: Int
    public var insertion: String
    public var atomName: String
    public var element: String
    public var serial: Int
    public var position: SIMD3<Float>
}

/// A replay's frames as one animated PNG.
public enum ReplayAnimation {
    /// How long each frame shows: 1/fps, or until the next frame's event time (at least 20 ms;
    /// the last for a second).
    public static func delays(times: [Double], fps: Double?) -> [Double] {
        times.indices.map { i in fps.map { 1 / $0 } ?? (i + 1 < times.count ? max(times[i + 1] - times[i], 0.02) : 1) }
    }

    /// The animated PNG of `frames` (encoded alike: `RenderRequest.frameEncoder`) at `times`.
    public static func make(frames: [[UInt8]], times: [Double], fps: Double?) throws -> [UInt8] {
        try APNGWriter.make(frames: frames, delays: delays(times: times, fps: fps))
    }
}

extension RenderRequest {
    /// How the frames of a replay or a live view are encoded: every frame of an animation in one
    /// format, RGB over an opaque background, else RGBA; a map's with the filters that suit flat
    /// colour where the level asks for speed.
    public func frameEncoder(map: Bool = false) -> PNGEncoder {
        var encoder = pngEncoder
        encoder.dropsOpaqueAlpha = background.isOpaque
        if map && encoder.level <= 1 {
            encoder.filter = PNGEncoder.flat.filter
            encoder.deflate = PNGEncoder.flat.deflate
        }
        return encoder
    }
}

/// What a view shows: a molecule in one of its modes, or a pathway map.
public enum ViewMode: Sendable, Equatable {
    case molecule(DrawMode)
    case pathway

    /// As frames and the viewer name it ("cartoon", "pathway").
    public var name: String {
        switch self {
        case .molecule(let m): m.name
        case .pathway: "pathway"
        }
    }
}

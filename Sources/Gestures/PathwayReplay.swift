import Core
import Foundation
import Graphics
import Pathways

/// A gesture event file driving a 2D view of a pathway map, as the pathway browser was browsed
/// by touch: one or two fingers pan, a pinch zooms about the fingers' midpoint, a double tap zooms
/// in twice about the tap, and a tap on a node selects it (drawn highlighted with its edges and
/// neighbours) and is logged. `pan` and `pinch` events work as for molecules; `rotate` (a one-finger
/// drag recorded as such) pans; `reset` fits the whole map again. Frames come as for molecules.
public final class PathwayReplay {
    /// What a tap found: a node, or nothing.
    public struct Tap: Sendable, Equatable {
        public var time: Double
        public var line: Int
        public var point: SIMD2<Double>
        public var node: PathwayMap.Node.Summary?
    }

    public let map: PathwayMap
    public let width: Int
    public let height: Int
    public let theme: PathwayTheme
    public let fps: Double?
    public private(set) var view: MapView
    public private(set) var selected: String?
    public private(set) var taps: [Tap] = []
    private let renderer: PathwayRenderer
    private var reader: GestureEventReader
    private var recognizer = TouchRecognizer()
    private var touches: [Int: (start: SIMD2<Double>, now: SIMD2<Double>)] = [:]
    private var clock: FrameClock
    /// Output pixels per recorded point.
    private var pixelsPerPoint: Double { Double(width) / max(1, reader.viewport.width) }
    /// A touch that moves less than this many points is a tap.
    public static let tapSlop = 10.0

    public init(map: PathwayMap, source: String, width: Int, height: Int, theme: PathwayTheme, renderer: PathwayRenderer, fps: Double?) {
        self.map = map
        self.width = width
        self.height = height
        self.theme = theme
        self.renderer = renderer
        self.fps = fps
        clock = FrameClock(fps: fps)
        reader = GestureEventReader(source: source)
        view = MapView.fitting(map.bounds, width: width, height: height)
    }

    /// Reads one line of the event file, emitting any frames that are due.
    public func feed(_ line: String, emit: (ReplayFrame, Double) throws -> Void, tapped: (Tap) throws -> Void = { _ in }) throws {
        guard let event = try reader.read(line) else { return }
        for time in clock.due(before: event.time) { try emit(frame(), time) }
        switch event.kind {
        case .touch(let phase, let id, let x, let y, let tapCount):
            let p = SIMD2(x, y) * pixelsPerPoint
            // Moves of the time stamp before are applied first, with the fingers where they were then.
            for c in recognizer.touch(phase, id: id, at: SIMD2(x, y), tapCount: tapCount, time: event.time) where c != .nextMode { apply(c) }
            switch phase {
            case .began: touches[id] = (p, p)
            case .moved: touches[id]?.now = p
            case .ended, .cancelled:
                if phase == .ended, let t = touches[id], touches.count == 1, tapCount >= 1 {
                    let travel = ((p - t.start) * (p - t.start)).sum().squareRoot() / pixelsPerPoint
                    if travel < PathwayReplay.tapSlop && tapCount == 1 { try tapped(tap(at: p, time: event.time, line: event.line)) }
                    if travel < PathwayReplay.tapSlop && tapCount == 2 { view = view.zoomed(by: 2, about: p) }
                }
                touches[id] = nil
            }
        case .command(let c): apply(c)
        case .reset:
            view = MapView.fitting(map.bounds, width: width, height: height)
            selected = nil
        case .frame:
            if fps == nil { try emit(frame(), event.time) }
        case .mode, .load, .addPart, .combine, .clear:
            throw GestureFileError(file: reader.source, line: event.line, message: "this event is for molecules, not for a pathway replay")
        }
    }

    /// Applies what is still pending and emits the last frames.
    public func finish(emit: (ReplayFrame, Double) throws -> Void) throws {
        for c in recognizer.flush() { apply(c) }
        for time in clock.remaining() { try emit(frame(), time) }
        try emit(frame(), clock.last)
    }

    private func apply(_ c: CameraCommand) {
        switch c {
        case .rotate(let dx, let dy), .pan(let dx, let dy):
            view = view.panned(byPixels: SIMD2(dx, dy) * pixelsPerPoint)
        case .pinch(let scale):
            // About the fingers' midpoint when two are down, else the picture's center.
            let fingers = touches.values.map(\.now)
            let center = fingers.count >= 2 ? (fingers[0] + fingers[1]) / 2 : SIMD2(Double(width), Double(height)) / 2
            let factor = max(0.01, min(100, scale))
            let s = view.scale * factor
            guard s < 1e4, s > 1e-6 else { return }
            view = view.zoomed(by: factor, about: center)
        case .twist, .nextMode: break
        }
    }

    /// The node under pixel `p`, selected (or the selection cleared when there is none).
    private func tap(at p: SIMD2<Double>, time: Double, line: Int) -> Tap {
        let node = PathwayHit.node(at: view.point(atPixel: p), in: map, tolerance: 6 / view.scale)
        selected = node?.id
        return Tap(time: time, line: line, point: view.point(atPixel: p), node: node.map(\.summary))
    }

    /// The `t` of the latest event taken.
    public var time: Double { clock.last }

    /// The view as it is now, drawn (on the thread that owns the renderer).
    public func currentFrame() throws -> ReplayFrame { try frame() }

    private func frame() throws -> ReplayFrame {
        ReplayFrame(image: try renderer.render(map, view: view, width: width, height: height, theme: theme, focus: selected))
    }
}

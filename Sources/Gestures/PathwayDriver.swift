import Core
import Foundation
import Graphics
import Imaging
import MoleculeView
import PathwayModel
import Pathways

/// A 2D view of a pathway map driven by gestures, as the pathway browser was browsed by touch:
/// one or two fingers pan, a pinch zooms about the fingers' midpoint, a double tap zooms in twice
/// about the tap, and a tap on a node selects it (drawn highlighted with its edges and neighbours)
/// and is reported. `pan` and `pinch` events work as for molecules; `rotate` (a one-finger drag
/// recorded as such) pans; `reset` fits the whole map again.
public final class PathwayDriver: ViewDriver {
    public let map: PathwayMap
    public private(set) var width: Int
    public private(set) var height: Int
    /// The largest side (pixels) a `resize` may ask for.
    public var maxSide = 8192
    public let theme: PathwayTheme
    public private(set) var view: MapView
    public private(set) var selected: String?
    private var recognizer = TouchRecognizer()
    private var touches: [Int: (start: SIMD2<Double>, now: SIMD2<Double>)] = [:]
    /// Output pixels per recorded point.
    private var pixelsPerPoint: Double
    /// A touch that moves less than this many points is a tap.
    public static let tapSlop = 10.0

    public init(map: PathwayMap, viewport: (width: Double, height: Double), width: Int, height: Int, theme: PathwayTheme) {
        self.map = map
        self.width = width
        self.height = height
        self.theme = theme
        pixelsPerPoint = Double(width) / max(1, viewport.width)
        view = MapView.fitting(map.bounds, width: width, height: height)
    }

    public var mode: ViewMode { .pathway }
    public var caption: String? { nil }
    public var facts: FrameFacts { FrameFacts(width: width, height: height) }

    public func apply(_ event: GestureEvent, source: String) throws -> EventEffect {
        let before = (view, selected)
        var effect = EventEffect(changed: false)
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
                    if travel < Self.tapSlop && tapCount == 1 { effect.taps.append(tap(at: p, time: event.time, line: event.line)) }
                    if travel < Self.tapSlop && tapCount == 2 { view = view.zoomed(by: 2, about: p) }
                }
                touches[id] = nil
            }
        case .command(let c): apply(c)
        case .reset:
            view = MapView.fitting(map.bounds, width: width, height: height)
            selected = nil
        case .frame:
            effect.wantsFrame = true
        case .resize(let w, let h, let scale):
            let size = ViewSize.pixels(width: w, height: h, scale: scale, maxSide: maxSide)
            // The map point at the picture's center stays there.
            let center = view.point(atPixel: SIMD2(Double(width), Double(height)) / 2)
            let factor = Double(size.width) / Double(max(width, 1))
            width = size.width
            height = size.height
            pixelsPerPoint = Double(width) / w
            view = view.zoomed(by: factor, about: .zero)
            view = view.panned(byPixels: SIMD2(Double(width), Double(height)) / 2 - view.pixel(center))
        case .hover:
            break
        case .view, .marks:
            throw GestureFileError(file: source, line: event.line, message: "this event is for molecules, not for a pathway view")
        case .mode, .load, .addPart, .combine, .clear:
            throw GestureFileError(file: source, line: event.line, message: "this event is for molecules, not for a pathway view")
        }
        effect.changed = before.0 != view || before.1 != selected
        return effect
    }

    public func settle() {
        for c in recognizer.flush() { apply(c) }
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

    public func frameJob(detail: FrameDetail) throws -> FrameJob<PathwayRenderer> {
        let picture = try PathwayPicture(map, view: view, width: width, height: height, theme: theme, focus: selected)
        return FrameJob { renderer in ReplayFrame(image: try picture.draw(renderer)) }
    }
}

extension Replay where Driver == PathwayDriver {
    /// A map's replay at `width` x `height` pixels, drawn through `lane` or a worker of its own.
    public convenience init(map: PathwayMap, source: String, width: Int, height: Int, theme: PathwayTheme, fps: Double?,
                            lane: RenderLane<PathwayRenderer>? = nil) {
        let make: MakeDriver = { viewport, _ in PathwayDriver(map: map, viewport: viewport, width: width, height: height, theme: theme) }
        if let lane {
            self.init(source: source, fps: fps, lane: lane, driver: make)
        } else {
            self.init(source: source, fps: fps, renderer: { try PathwayRenderer() }, driver: make)
        }
    }
}

extension LiveSession where Driver == PathwayDriver {
    /// A live view of `map` at `width` x `height` pixels; taps come out as `.tapped`.
    public convenience init(source: String = "session", map: PathwayMap, width: Int, height: Int, theme: PathwayTheme,
                            lane: RenderLane<PathwayRenderer>, record: Bool = false, frames: FrameEncoder? = nil, maxSide: Int = 8192,
                            send: @escaping @Sendable (LiveOutput) -> Void) {
        self.init(source: source, encoder: frames ?? .png(.flat), lane: lane, record: record, send: send) { viewport, _ in
            let driver = PathwayDriver(map: map, viewport: viewport, width: width, height: height, theme: theme)
            driver.maxSide = maxSide
            return driver
        }
    }
}

import Core
import Foundation
import MoleculeView

/// One line of a gesture event file (JSON Lines, `t` in seconds, non-decreasing).
public struct GestureEvent: Sendable, Equatable {
    public enum Phase: String, Sendable { case began, moved, ended, cancelled }

    public enum Kind: Sendable, Equatable {
        /// A raw touch as the device reported it, in points of the recorded viewport, origin top left.
        case touch(phase: Phase, id: Int, x: Double, y: Double, tapCount: Int)
        case command(CameraCommand)
        case mode(DrawMode)
        case reset
        case load(String)
        case addPart(String)
        case combine
        case clear
        /// Capture an image now.
        case frame
        /// The viewport is now `width` x `height` points, drawn at `scale` pixels a point (a
        /// browser's devicePixelRatio): the live view follows its element.
        case resize(width: Double, height: Double, scale: Double)
        /// Puts the camera where a frame said it was (`view` in a frame message): rotation as a
        /// unit quaternion (x, y, z, w), zoom, and pan as fractions of the picture's height.
        case view(rotation: SIMD4<Double>, zoom: Double, pan: SIMD2<Double>)
        /// Points (Å, the structure's frame) whose places in the picture each frame reports, for
        /// a client drawing distances and angles over the view; nothing is drawn for them.
        case marks([SIMD3<Double>])
        /// What is under viewport point (x, y), without a tap: answered as a hover, the view unchanged.
        case hover(x: Double, y: Double)
    }

    /// The most points a `marks` event holds.
    public static let maxMarks = 16
    /// The largest viewport side (points) and scale a `resize` takes; the pixels are bounded again
    /// by the view's own largest side.
    public static let maxViewportPoints = 100_000.0
    public static let maxScale = 8.0

    public var time: Double
    public var kind: Kind
    /// 1-based line in the file.
    public var line: Int
}

/// What a gesture does to the view. Distances are in points of the recorded viewport.
public enum CameraCommand: Sendable, Equatable {
    /// x turns about the screen's vertical axis, y about its horizontal axis.
    case rotate(dx: Double, dy: Double)
    /// About the view axis, counterclockwise as seen, in radians.
    case twist(radians: Double)
    /// Multiplies the zoom.
    case pinch(scale: Double)
    /// Moves the picture, x right, y down.
    case pan(dx: Double, dy: Double)
    /// Double tap: the next visualization mode.
    case nextMode
}

public struct GestureFileError: Fault, Sendable, Equatable {
    public var kind: FaultKind { .input }
    public var file: String
    public var line: Int
    public var message: String
    public var description: String { "\(file):\(line): \(message)" }

    public init(file: String, line: Int, message: String) {
        self.file = file
        self.line = line
        self.message = message
    }
}

/// Reads a gesture event file line by line, checking each event as it comes: a header first, a
/// known type, the fields it needs, time that never goes back, touches that began before they
/// move or end. Works on a whole file or on a live stream.
public struct GestureEventReader: Sendable {
    public let source: String
    public private(set) var viewport: (width: Double, height: Double) = (0, 0)
    public private(set) var lineNumber = 0
    private var lastTime = -Double.infinity
    private var activeTouches = Set<Int>()
    private var sawHeader = false

    public init(source: String) { self.source = source }

    /// The event on the next line, or nil for the header and blank lines.
    public mutating func read(_ text: String) throws -> GestureEvent? {
        lineNumber += 1
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty { return nil }
        func fail(_ message: String) -> GestureFileError { GestureFileError(file: source, line: lineNumber, message: message) }
        guard let object = (try? JSONText.parse(Array(trimmed.utf8))) as? [String: Any] else {
            throw fail("not a JSON object")
        }
        guard let type = object["type"] as? String else { throw fail("missing field \"type\"") }
        // Errors quote the type's start only: a 1 MB type would make a 1 MB message.
        let shown = Excerpt.of(type, length: 40)
        func number(_ key: String, in dict: [String: Any]? = nil) throws -> Double {
            guard let v = JSONText.number((dict ?? object)[key]), v.isFinite else {
                throw fail("\(shown): missing or non-numeric field \"\(key)\"")
            }
            return v
        }
        func string(_ key: String) throws -> String {
            guard let v = object[key] as? String else { throw fail("\(shown): missing field \"\(key)\"") }
            return v
        }
        if !sawHeader {
            guard type == "header" else { throw fail("the first line must be the header, found \"\(shown)\"") }
            guard JSONText.number(object["version"]) == 1 else { throw fail("header: unsupported version (1 is known)") }
            guard let viewport = object["viewport"] as? [String: Any] else { throw fail("header: missing field \"viewport\"") }
            let w = try number("width", in: viewport), h = try number("height", in: viewport)
            guard w > 0, h > 0 else { throw fail("header: viewport width and height must be positive") }
            self.viewport = (w, h)
            sawHeader = true
            return nil
        }
        if type == "header" { throw fail("a second header") }
        let t = try number("t")
        guard t >= lastTime else { throw fail("time goes backwards (\(t) after \(lastTime))") }
        lastTime = t
        let kind: GestureEvent.Kind
        switch type {
        case "touch":
            guard let phaseName = object["phase"] as? String, let phase = GestureEvent.Phase(rawValue: phaseName) else {
                throw fail("touch: \"phase\" must be began, moved, ended or cancelled")
            }
            let idNumber = try number("id")
            guard let id = Int(exactly: idNumber), abs(id) < 1 << 31 else { throw fail("touch: \"id\" must be a whole number (got \(idNumber))") }
            let x = try number("x"), y = try number("y")
            let taps = JSONText.number(object["tapCount"]).flatMap { Int(exactly: $0.rounded(.towardZero)) }.map { max(0, min($0, 1000)) } ?? 0
            switch phase {
            case .began:
                guard activeTouches.insert(id).inserted else { throw fail("touch \(id) began twice") }
            case .moved:
                guard activeTouches.contains(id) else { throw fail("touch \(id) moved but never began") }
            case .ended, .cancelled:
                guard activeTouches.remove(id) != nil else { throw fail("touch \(id) \(phase.rawValue) but never began") }
            }
            kind = .touch(phase: phase, id: id, x: x, y: y, tapCount: taps)
        case "rotate": kind = .command(.rotate(dx: try number("dx"), dy: try number("dy")))
        case "twist": kind = .command(.twist(radians: try number("radians")))
        case "pinch":
            let scale = try number("scale")
            guard scale > 0 else { throw fail("pinch: scale must be positive") }
            kind = .command(.pinch(scale: scale))
        case "pan": kind = .command(.pan(dx: try number("dx"), dy: try number("dy")))
        case "mode":
            let text = try string("mode")
            guard let m = DrawMode(named: text) else {
                throw fail("unknown mode \(Excerpt.of(text)); known: \((Representations.names + [Show.mode.name]).joined(separator: ", "))")
            }
            kind = .mode(m)
        case "reset": kind = .reset
        case "load": kind = .load(try string("source"))
        case "addPart": kind = .addPart(try string("part"))
        case "combine": kind = .combine
        case "clear": kind = .clear
        case "frame": kind = .frame
        case "resize":
            let w = try number("width"), h = try number("height")
            let scale = object["scale"] == nil ? 1 : try number("scale")
            guard w > 0, h > 0, w <= GestureEvent.maxViewportPoints, h <= GestureEvent.maxViewportPoints else {
                throw fail("resize: width and height must be positive points, at most \(Int(GestureEvent.maxViewportPoints))")
            }
            guard scale > 0, scale <= GestureEvent.maxScale else { throw fail("resize: scale must be above 0 and at most \(Int(GestureEvent.maxScale))") }
            kind = .resize(width: w, height: h, scale: scale)
        case "view":
            guard let r = object["rotation"] as? [Any], r.count == 4, let q = Optional(r.compactMap { JSONText.number($0) }), q.count == 4,
                  q.allSatisfy(\.isFinite) else {
                throw fail("view: \"rotation\" must be four numbers (a quaternion x, y, z, w)")
            }
            let length = q.map { $0 * $0 }.reduce(0, +).squareRoot()
            guard length > 1e-6 else { throw fail("view: \"rotation\" must not be all zero") }
            let zoom = try number("zoom")
            guard zoom > 0 else { throw fail("view: zoom must be positive") }
            let panList = (object["pan"] as? [Any])?.compactMap { JSONText.number($0) } ?? [0, 0]
            guard panList.count == 2, panList.allSatisfy({ $0.isFinite && abs($0) <= 1000 }) else {
                throw fail("view: \"pan\" must be two numbers (fractions of the picture's height)")
            }
            kind = .view(rotation: SIMD4(q[0], q[1], q[2], q[3]) / length, zoom: zoom, pan: SIMD2(panList[0], panList[1]))
        case "hover": kind = .hover(x: try number("x"), y: try number("y"))
        case "marks":
            guard let list = object["points"] as? [Any], list.count <= GestureEvent.maxMarks else {
                throw fail("marks: \"points\" must be a list of at most \(GestureEvent.maxMarks) points")
            }
            var points: [SIMD3<Double>] = []
            for item in list {
                guard let p = item as? [Any], p.count == 3, let c = Optional(p.compactMap { JSONText.number($0) }), c.count == 3,
                      c.allSatisfy({ $0.isFinite && abs($0) < 1e7 }) else {
                    throw fail("marks: each point must be three numbers (x, y, z in Å)")
                }
                points.append(SIMD3(c[0], c[1], c[2]))
            }
            kind = .marks(points)
        default: throw fail("unknown event type \"\(shown)\"")
        }
        return GestureEvent(time: t, kind: kind, line: lineNumber)
    }

    /// Every event of a whole file's text.
    public static func readAll(_ text: String, source: String) throws -> (viewport: (width: Double, height: Double), events: [GestureEvent]) {
        var reader = GestureEventReader(source: source)
        var events: [GestureEvent] = []
        for line in TextLines(text) {
            if let e = try reader.read(String(line)) { events.append(e) }
        }
        guard reader.sawHeader else { throw GestureFileError(file: source, line: 1, message: "no header line") }
        return (reader.viewport, events)
    }
}

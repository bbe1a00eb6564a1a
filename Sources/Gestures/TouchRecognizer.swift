/// Turns raw touches into camera commands with the Molecules app's semantics: one finger
/// rotates; two fingers moving the same way pan by their average displacement, otherwise they
/// pinch (incrementally, by the ratio of finger distances) and twist about the view axis; once a
/// two-finger gesture is a pan it stays one, and a pinch a pinch, until a finger lifts; a double
/// tap asks for the next mode. Fingers land and lift at different times without the view
/// jumping. Time is passed in with each touch; nothing here reads a clock.
public struct TouchRecognizer: Sendable {
    /// Two-finger movement, in points, before the gesture is decided as pan or pinch: a finger's
    /// jitter of a point or two decides nothing.
    public static let decisionDistancePoints = 4.0
    /// Fingers whose moves point within this angle of each other move "in the same direction".
    public static let sameDirectionCosine = 0.5

    enum TwoFingerLock { case undecided, pan, pinch }

    private var touches: [Int: SIMD2<Double>] = [:]
    /// Touch order, so that "the two fingers" are the first two down.
    private var order: [Int] = []
    private var lock = TwoFingerLock.undecided
    private var decisionTravel = 0.0
    /// Moves at one time stamp, applied together: a device reports both fingers in one event.
    private var pending: [Int: SIMD2<Double>] = [:]
    private var pendingTime = -Double.infinity

    public init() {}

    public var activeTouchCount: Int { touches.count }

    /// Feeds one touch; returns the commands it completes.
    public mutating func touch(_ phase: GestureEvent.Phase, id: Int, at point: SIMD2<Double>, tapCount: Int = 0,
                               time: Double) -> [CameraCommand] {
        var commands: [CameraCommand] = []
        if phase != .moved || time != pendingTime { commands += flush() }
        switch phase {
        case .began:
            touches[id] = point
            order.append(id)
            // A finger that lands starts a fresh two-finger decision; nothing moves.
            lock = .undecided
            decisionTravel = 0
        case .moved:
            guard touches[id] != nil else { break }
            pending[id] = point
            pendingTime = time
        case .ended, .cancelled:
            guard touches.removeValue(forKey: id) != nil else { break }
            order.removeAll { $0 == id }
            // The remaining finger goes on from where it is: no jump.
            lock = .undecided
            decisionTravel = 0
            if phase == .ended && tapCount == 2 && touches.isEmpty { commands.append(.nextMode) }
        }
        return commands
    }

    /// Applies moves still waiting for more fingers of the same time stamp.
    public mutating func flush() -> [CameraCommand] {
        guard !pending.isEmpty else { return [] }
        defer { pending.removeAll() }
        let fingers = Array(order.prefix(2))
        if fingers.count < 2 {
            guard let id = fingers.first, let new = pending[id], let old = touches[id] else { return [] }
            touches[id] = new
            let d = new - old
            return d == .zero ? [] : [.rotate(dx: d.x, dy: d.y)]
        }
        let a = fingers[0], b = fingers[1]
        let oldA = touches[a]!, oldB = touches[b]!
        let newA = pending[a] ?? oldA, newB = pending[b] ?? oldB
        for (id, p) in pending { touches[id] = p }
        let da = newA - oldA, db = newB - oldB
        if lock == .undecided {
            let la = da.length, lb = db.length
            decisionTravel += la + lb
            guard decisionTravel >= TouchRecognizer.decisionDistancePoints else { return [] }
            let together = la > 0 && lb > 0 && (da * db).sum() / (la * lb) >= TouchRecognizer.sameDirectionCosine
            lock = together ? .pan : .pinch
        }
        switch lock {
        case .pan:
            let d = (da + db) / 2
            return d == .zero ? [] : [.pan(dx: d.x, dy: d.y)]
        case .pinch:
            let oldV = oldB - oldA, newV = newB - newA
            let oldLength = oldV.length, newLength = newV.length
            var out: [CameraCommand] = []
            if oldLength > 0 && newLength > 0 && newLength != oldLength { out.append(.pinch(scale: newLength / oldLength)) }
            // Screen y points down, so a turn that looks counterclockwise decreases the screen angle.
            let turn = -(atan2(newV.y, newV.x) - atan2(oldV.y, oldV.x))
            let wrapped = turn > .pi ? turn - 2 * .pi : turn < -.pi ? turn + 2 * .pi : turn
            if wrapped != 0 && oldLength > 0 && newLength > 0 { out.append(.twist(radians: wrapped)) }
            return out
        case .undecided:
            return []
        }
    }
}

#if canImport(Glibc)
import Core
import Glibc
#endif

import Core

/// When the frames of a replay fall due: with `fps`, one every 1/fps seconds of event time, from 0
/// to the last event; without, none here (the replay draws one at each `frame` event). Molecule and
/// pathway replays keep time alike.
struct FrameClock {
    let fps: Double?
    private var next = 0.0
    /// The time of the latest event.
    private(set) var last = 0.0

    init(fps: Double?) { self.fps = fps }

    /// The times of the frames due before an event at `time`, which becomes the latest; nil,
    /// and nothing taken, when they would be more than `limit` (counted before any is listed:
    /// an event at t = 1e300 would list more frame times than memory holds).
    mutating func due(before time: Double, limit: Int) -> [Double]? {
        guard count(upTo: time) <= Double(limit) else { return nil }
        defer { last = time }
        return take { $0 < time }
    }

    /// The times still due at the end, up to and with the latest event.
    mutating func remaining() -> [Double] {
        let end = last
        return take { $0 <= end }
    }

    /// About how many frames fall due from the next one up to `time` (one more at most than
    /// `take` lists, which adds 1/fps at a time).
    func count(upTo time: Double) -> Double {
        guard let fps, time >= next else { return 0 }
        return ((time - next) * fps).rounded(.down) + 1
    }

    private mutating func take(while due: (Double) -> Bool) -> [Double] {
        guard let fps else { return [] }
        var times: [Double] = []
        while due(next) {
            times.append(next)
            next += 1 / fps
        }
        return times
    }
}

/// When a replay's frames fall, one rule for every front end: at the `frame` events of the event
/// file, or with `fps` given, every 1/fps seconds of event time. A movie is the same frames as the
/// folder of PNGs the same replay writes: it takes the file's frame events too, and a clock of
/// `movieFPS` only where the file has none or cannot be looked at ahead (a live stream); it plays
/// at `fps`, else `movieFPS`.
public enum ReplayTiming {
    public static let movieFPS = 30.0

    /// The clock's rate (nil: the frame events) for a replay of `events` (nil: a stream).
    public static func clock(fps: Double?, movie: Bool, events: String?) -> Double? {
        if let fps { return fps }
        guard movie else { return nil }
        guard let events, hasFrameEvents(events) else { return movieFPS }
        return nil
    }

    /// Whether any line of an event file is a `frame` event.
    public static func hasFrameEvents(_ text: String) -> Bool {
        for line in TextLines(text) where line.contains("\"frame\"") {
            if let object = (try? JSONText.parse(Array(line.utf8))) as? [String: Any], object["type"] as? String == "frame" { return true }
        }
        return false
    }
}

/// When the frames of a replay fall due: with `fps`, one every 1/fps seconds of event time, from 0
/// to the last event; without, none here (the replay draws one at each `frame` event). Molecule and
/// pathway replays keep time alike.
struct FrameClock {
    let fps: Double?
    private var next = 0.0
    /// The time of the latest event.
    private(set) var last = 0.0

    init(fps: Double?) { self.fps = fps }

    /// The times of the frames due before an event at `time`, which becomes the latest.
    mutating func due(before time: Double) -> [Double] {
        defer { last = time }
        return take { $0 < time }
    }

    /// The times still due at the end, up to and with the latest event.
    mutating func remaining() -> [Double] {
        let end = last
        return take { $0 <= end }
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

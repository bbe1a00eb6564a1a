/// The lines a live session took, kept to be read back as an event file, up to a bound: past
/// `maxBytes` the recording stops (it is still a valid event file of the session's start), so a
/// client that floods a recorded session cannot grow the server without limit.
public struct EventRecording: Sendable {
    /// Bytes of lines one recording keeps.
    public static let maxBytes = 4 << 20

    private var lines: [String] = []
    private var bytes = 0
    public private(set) var isFull = false

    public init() {}

    /// Keeps `line` unless the recording is full.
    public mutating func append(_ line: String) {
        guard !isFull else { return }
        guard bytes + line.utf8.count + 1 <= Self.maxBytes else {
            isFull = true
            return
        }
        lines.append(line)
        bytes += line.utf8.count + 1
    }

    /// The recording as an event file.
    public var text: String { lines.joined(separator: "\n") + (lines.isEmpty ? "" : "\n") }
}

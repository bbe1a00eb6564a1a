import Foundation

/// The lines of a text one at a time, as `split(separator: "\n", omittingEmptySubsequences: false)`
/// gives them but without an array of them all first: an event file of 24 MiB of newlines was
/// 24 million substrings (a gigabyte) before its first line was read.
public struct TextLines: Sequence, IteratorProtocol {
    private let text: String
    private var position: String.Index
    private var done = false

    public init(_ text: String) {
        self.text = text
        position = text.startIndex
    }

    public mutating func next() -> Substring? {
        guard !done else { return nil }
        let utf8 = text.utf8
        if let end = utf8[position...].firstIndex(of: 0x0A) {
            defer { position = utf8.index(after: end) }
            return text[position..<end]
        }
        done = true
        return text[position...]
    }

    /// How many lines `bytes` holds (as this sequence counts them: one more than its newlines)
    /// and the longest one's bytes, counted without making any: what a limit is checked against
    /// before a line is read.
    public static func measure(_ bytes: UnsafeRawBufferPointer) -> (lines: Int, longest: Int) {
        guard let base = bytes.baseAddress else { return (1, 0) }
        var lines = 1, longest = 0, start = 0
        while start <= bytes.count {
            guard start < bytes.count, let hit = memchr(base + start, 0x0A, bytes.count - start) else {
                longest = Swift.max(longest, bytes.count - start)
                break
            }
            let end = base.distance(to: UnsafeRawPointer(hit))
            longest = Swift.max(longest, end - start)
            lines += 1
            start = end + 1
        }
        return (lines, longest)
    }
}

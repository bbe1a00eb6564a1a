import Foundation
import Gestures

/// The live protocol's text messages, as the server sends them: each a JSON object whose `type`
/// says which. Encoded, never built from dictionaries, so that a field cannot be misspelt and a
/// message cannot fail to serialize.
enum LiveMessage {
    /// The first message: the session's id and what it draws.
    struct Session: Encodable {
        var id: String
        var width: Int
        var height: Int
        var mode: String
        var record: Bool
        /// Where the recorded events will be, when recording.
        var events: String?
        private enum Keys: String, CodingKey { case type, id, width, height, mode, record, events }
        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode("session", forKey: .type)
            try c.encode(id, forKey: .id)
            try c.encode(width, forKey: .width)
            try c.encode(height, forKey: .height)
            try c.encode(mode, forKey: .mode)
            try c.encode(record, forKey: .record)
            try c.encode(events, forKey: .events)
        }
    }

    /// A frame's description; its picture follows as a binary message.
    struct Frame: Encodable {
        var frame: LiveFrame
        private enum Keys: String, CodingKey { case type, events, t, mode, drawn, caption, bytes, format, width, height, view, marks, moving }
        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode("frame", forKey: .type)
            try c.encode(frame.events, forKey: .events)
            try c.encode(frame.time, forKey: .t)
            try c.encode(frame.mode, forKey: .mode)
            // Absent values are null, as clients have always read them.
            try c.encode(frame.drawn, forKey: .drawn)
            try c.encode(frame.caption, forKey: .caption)
            try c.encode(frame.image.count, forKey: .bytes)
            try c.encode(frame.format, forKey: .format)
            try c.encode(frame.facts.width, forKey: .width)
            try c.encode(frame.facts.height, forKey: .height)
            try c.encode(frame.facts.view, forKey: .view)
            try c.encode(frame.facts.marks, forKey: .marks)
            try c.encode(frame.moving, forKey: .moving)
        }
    }

    /// A tap (or the pointer over the view, `hover`) and what it found.
    struct Tapped: Encodable {
        var tap: Tap
        private enum Keys: String, CodingKey { case type }
        func encode(to encoder: Encoder) throws {
            try tap.encode(to: encoder)
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(tap.hover ? "hover" : "tap", forKey: .type)
        }
    }

    /// A line that could not be taken, or a session that could not start (line 0).
    struct Problem: Encodable {
        var line: Int
        var message: String
        private enum Keys: String, CodingKey { case type, line, message }
        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode("error", forKey: .type)
            try c.encode(line, forKey: .line)
            try c.encode(message, forKey: .message)
        }
    }

    /// One message as a line of JSON (sorted keys, slashes as they are).
    static func line<T: Encodable>(_ message: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(message), as: UTF8.self)
    }
}

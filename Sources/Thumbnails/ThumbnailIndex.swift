import Foundation
import Graphics

/// `index.jsonl` in the output folder (`index-K-of-N.jsonl` for shard K of N, so that shards can
/// share a folder): one JSON object a line, one line per source file, sorted by source.
/// Rewritten whole (temporary file and rename) as the run goes and at its end.
public struct ThumbnailIndex: Sendable {
    public struct Entry: Codable, Sendable, Equatable {
        public var source: String
        /// FNV-1a 64 of the file's bytes, 16 hex digits.
        public var checksum: String
        /// The settings' key (in the file names) and their canonical text.
        public var settingsKey: String
        public var settings: String
        /// PNG file names in the output folder, one per mode.
        public var outputs: [String]
        public var atoms: Int
        /// Seconds spent on this source (reading, parsing, drawing, encoding).
        public var seconds: Double
        /// "ok" or "failed".
        public var status: String
        public var error: String?
    }

    public static func fileName(_ shard: Shard) -> String {
        shard.count == 1 ? "index.jsonl" : "index-\(shard.index)-of-\(shard.count).jsonl"
    }

    public private(set) var entries: [String: Entry] = [:]
    let path: String

    /// The index in `directory`, or an empty one; lines that do not parse are dropped.
    public init(directory: String, shard: Shard = .whole) {
        path = (directory as NSString).appendingPathComponent(ThumbnailIndex.fileName(shard))
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return }
        let decoder = JSONDecoder()
        for line in text.split(separator: "\n") {
            if let entry = try? decoder.decode(Entry.self, from: Data(line.utf8)) { entries[entry.source] = entry }
        }
    }

    public mutating func record(_ entry: Entry) { entries[entry.source] = entry }

    public func save() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var out: [UInt8] = []
        for source in entries.keys.sorted() {
            out += try encoder.encode(entries[source]!)
            out.append(0x0A)
        }
        try AtomicFile.write(out, to: path)
    }
}

import Core
import Foundation

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

    public static func fileName(_ shard: Shard, part: Shard = .whole) -> String {
        let base = shard.count == 1 ? "index" : "index-\(shard.index)-of-\(shard.count)"
        // A part process's part is merged into the run's index when the run ends.
        return part.count == 1 ? base + ".jsonl" : ".\(base).part-\(part.index)-of-\(part.count).jsonl"
    }

    public private(set) var entries: [String: Entry] = [:]
    let path: String

    /// The index in `directory`, or an empty one; lines that do not parse are dropped.
    public init(directory: String, shard: Shard = .whole, part: Shard = .whole) {
        path = (directory as NSString).appendingPathComponent(ThumbnailIndex.fileName(shard, part: part))
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return }
        let decoder = JSONDecoder()
        for line in text.split(separator: "\n") {
            if let entry = try? decoder.decode(Entry.self, from: Data(line.utf8)) { entries[entry.source] = entry }
        }
    }

    public mutating func record(_ entry: Entry) { entries[entry.source] = entry }

    /// Takes in the entries of the part indexes part processes left in `directory` (also those a
    /// killed run left) and deletes them.
    public mutating func absorbParts(in directory: String, shard: Shard) {
        let prefix = "." + String(ThumbnailIndex.fileName(shard).dropLast(6)) + ".part-"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for name in names.sorted() where name.hasPrefix(prefix) && name.hasSuffix(".jsonl") {
            let partPath = (directory as NSString).appendingPathComponent(name)
            if let text = try? String(contentsOfFile: partPath, encoding: .utf8) {
                for line in text.split(separator: "\n") {
                    if let entry = try? JSONDecoder().decode(Entry.self, from: Data(line.utf8)) { record(entry) }
                }
            }
            unlink(partPath)
        }
    }

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

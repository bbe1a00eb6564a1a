import Core
import Foundation
import Library
import Synchronization

/// Rendered images kept on disk, keyed by the structure's checksum and every render setting,
/// bounded in bytes: the oldest files go first. Several server instances may share the folder
/// (files are written whole and renamed; a file another instance removed is just a miss).
final class ImageCache: Sendable {
    let directory: String
    let maxBytes: Int
    private struct State {
        var files: [(name: String, bytes: Int, time: Date)] = []
        var total = 0
        var hits = 0
        var misses = 0
    }
    private let state: Mutex<State>
    var hits: Int { state.withLock { $0.hits } }
    var misses: Int { state.withLock { $0.misses } }

    init(directory: String, maxBytes: Int) throws {
        self.directory = directory
        self.maxBytes = maxBytes
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        AtomicFile.removeLeftovers(in: directory)
        var files: [(name: String, bytes: Int, time: Date)] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) where name.hasSuffix(".png") {
            let a = try? FileManager.default.attributesOfItem(atPath: (directory as NSString).appendingPathComponent(name))
            files.append((name, (a?[.size] as? NSNumber)?.intValue ?? 0, a?[.modificationDate] as? Date ?? .distantPast))
        }
        files.sort { $0.time < $1.time }
        state = Mutex(State(files: files, total: files.reduce(0) { $0 + $1.bytes }))
    }

    /// The file name of a picture of `content` drawn with `settings`: SHA-256, so no one can make
    /// two requests share a name (FNV-1a, fast as it is, is easy to collide on purpose).
    static func key(content: String, settings: String) -> String {
        SHA256.hex(Array("\(drawing)|\(content)|\(settings)".utf8)) + ".png"
    }

    /// Bumped when the same file and settings draw another picture: 2, entries are drawn as their
    /// biological assembly by default (pictures cached before showed the deposited model); 3, map
    /// tiles raise labels too small to read.
    static let drawing = "drawing-3"

    /// What an upload draws: its bytes' SHA-256. Uploads and library molecules never share a key.
    static func content(upload bytes: [UInt8]) -> String { "upload/sha256-" + SHA256.hex(bytes) }

    /// What a library molecule draws: its id and its file's checksum (an id given again after a
    /// removal holds another file; only token holders import).
    static func content(library record: MoleculeRecord) -> String { "library/\(record.id)/\(record.checksum)" }

    func get(_ key: String) -> [UInt8]? {
        let data = FileManager.default.contents(atPath: (directory as NSString).appendingPathComponent(key))
        state.withLock { if data == nil { $0.misses += 1 } else { $0.hits += 1 } }
        return data.map { [UInt8]($0) }
    }

    func put(_ key: String, _ png: [UInt8]) {
        guard png.count <= maxBytes else { return }
        try? AtomicFile.write(png, to: (directory as NSString).appendingPathComponent(key))
        let maxBytes = maxBytes, directory = directory
        state.withLock { s in
            s.files.append((key, png.count, Date()))
            s.total += png.count
            while s.total > maxBytes, !s.files.isEmpty {
                let old = s.files.removeFirst()
                s.total -= old.bytes
                try? FileManager.default.removeItem(atPath: (directory as NSString).appendingPathComponent(old.name))
            }
        }
    }
}

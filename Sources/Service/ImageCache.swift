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

    /// A kept picture, read on the blocking pool.
    func get(_ key: String) async -> [UInt8]? {
        let path = (directory as NSString).appendingPathComponent(key)
        let bytes = try? await BlockingPool.shared.run { FileManager.default.contents(atPath: path).map { [UInt8]($0) } }
        state.withLock { if bytes == nil { $0.misses += 1 } else { $0.hits += 1 } }
        return bytes ?? nil
    }

    /// Keeps a picture: written (and the oldest removed past the limit) on the blocking pool; the
    /// lock only decides which files go.
    func put(_ key: String, _ png: [UInt8]) async {
        guard png.count <= maxBytes else { return }
        let directory = directory, maxBytes = maxBytes
        _ = try? await BlockingPool.shared.run { try AtomicFile.write(png, to: (directory as NSString).appendingPathComponent(key)) }
        let old = state.withLock { s -> [String] in
            s.files.append((key, png.count, Date()))
            s.total += png.count
            var old: [String] = []
            while s.total > maxBytes, !s.files.isEmpty {
                let first = s.files.removeFirst()
                s.total -= first.bytes
                old.append(first.name)
            }
            return old
        }
        guard !old.isEmpty else { return }
        _ = try? await BlockingPool.shared.run {
            for name in old { try? FileManager.default.removeItem(atPath: (directory as NSString).appendingPathComponent(name)) }
        }
    }
}

import Core
import Foundation
import Hummingbird
import NIOCore

/// A thumbnail as it is served: its bytes (the buffer a response sends, so that serving one
/// copies nothing), its ETag, and the headers every answer with it carries, made once (each
/// field's value is checked as it is set, on every answer otherwise).
struct KeptThumbnail: Sendable {
    let bytes: ByteBuffer
    let etag: String
    /// ETag, Cache-Control and Accept-Ranges.
    let headers: HTTPFields
    /// Those and the Content-Type of a whole file's answer.
    let whole: HTTPFields

    init(bytes: ByteBuffer, etag: String) {
        self.bytes = bytes
        self.etag = etag
        headers = [.eTag: etag, .cacheControl: "public, max-age=31536000, immutable", .acceptRanges: "bytes"]
        var whole = headers
        whole[.contentType] = "image/png"
        self.whole = whole
    }
}

/// The thumbnails `molshot thumbnails` made (`--thumbnails`): files by name kept in memory with
/// their ETags, bounded in bytes (the files never change: their names hold what is in them), and
/// which one the viewer shows for each structure. Disk work runs on the blocking pool, never
/// under a lock and never on the threads that answer requests.
final class ThumbnailStore: Sendable {
    let folder: String?
    /// The files in memory, each with when it was last read (a count of reads), and their bytes.
    private let files = Locked<(files: [String: (file: KeptThumbnail, read: UInt64)], reads: UInt64, total: Int)>(([:], 0, 0))
    /// The thumbnail shown for each checksum.
    private let index: FolderIndex<[String: String]>?
    /// Most bytes kept; past it the least recently read go first.
    let memory: Int

    init(folder: String?, memory: Int = ServiceLimits.keptThumbnailBytes.value) {
        self.folder = folder
        self.memory = memory
        index = folder.map { FolderIndex(folder: $0) { names, _ in ThumbnailStore.shown(among: names) } }
    }

    /// A thumbnail's bytes (as the buffer a response sends, so that serving one copies nothing)
    /// and its ETag; nil where there is no such file.
    func file(_ name: String) async throws -> KeptThumbnail? {
        guard let folder else { return nil }
        if let kept = kept(name) { return kept }
        let path = (folder as NSString).appendingPathComponent(name)
        guard let bytes = try await BlockingPool.shared.run({ try? FileInput.readAll(path: path) }) else { return nil }
        let file = KeptThumbnail(bytes: ByteBuffer(bytes: bytes), etag: "\"\(FNV1a.hex(FNV1a.hash(bytes), digits: 16))\"")
        let memory = memory
        files.withLock { kept in
            guard kept.files[name] == nil else { return }
            kept.reads += 1
            kept.files[name] = (file, kept.reads)
            kept.total += bytes.count
            // The least recently read out first (a search of all: it runs only after a file was read from disk).
            while kept.total > memory, let oldest = kept.files.min(by: { $0.value.read < $1.value.read })?.key {
                kept.total -= kept.files.removeValue(forKey: oldest)?.file.bytes.readableBytes ?? 0
            }
        }
        return file
    }

    /// A thumbnail's bytes and ETag if they are in memory (read by `file` before), without
    /// waiting; the read counts as its latest.
    func kept(_ name: String) -> KeptThumbnail? {
        files.withLock { kept in
            guard let i = kept.files.index(forKey: name) else { return nil }
            kept.reads += 1
            kept.files.values[i].read = kept.reads
            return kept.files.values[i].file
        }
    }

    /// The thumbnail the viewer shows for each file by checksum: its automatic picture, else
    /// cartoon, else ball-and-stick, else spacefill, else any (the folder is listed again when it changes).
    func shown() async -> [String: String] { await index?.value() ?? [:] }

    static func shown(among names: [String]) -> [String: String] {
        var best: [String: (rank: Int, name: String)] = [:]
        let preference = ["-auto.png", "-cartoon.png", "-ball-and-stick.png", "-spacefill.png"]
        for name in names where name.hasSuffix(".png") {
            guard let dash = name.firstIndex(of: "-") else { continue }
            let key = String(name[..<dash]), rank = preference.firstIndex { name.hasSuffix($0) } ?? preference.count
            if best[key].map({ (rank, name) < ($0.rank, $0.name) }) ?? true { best[key] = (rank, name) }
        }
        return best.mapValues(\.name)
    }

    /// Removes the thumbnails of the file with this checksum from the folder and from memory.
    func remove(checksum: String) async {
        guard let folder else { return }
        let prefix = checksum + "-"
        files.withLock { kept in
            for name in kept.files.keys where name.hasPrefix(prefix) {
                kept.total -= kept.files.removeValue(forKey: name)?.file.bytes.readableBytes ?? 0
            }
        }
        _ = try? await BlockingPool.shared.run {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where name.hasPrefix(prefix) {
                do { try FileManager.default.removeItem(atPath: (folder as NSString).appendingPathComponent(name)) } catch {
                    LogWriter.shared.write("error: cannot remove the thumbnail \(name) of a removed molecule: \(error)\n")
                }
            }
        }
    }
}

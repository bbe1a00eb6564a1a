import Core
import Foundation
import Hummingbird
import PathwayModel
import Pathways

/// The pathway maps `--pathways` serves: the folder's files by id with their titles (listed again
/// when the folder changes, each title read once), and the maps read so far (`MapCache`). Disk
/// work runs on the blocking pool.
final class MapStore: Sendable {
    let folder: String?
    let maps = MapCache()
    struct Listed: Sendable { var path: String; var title: String }
    /// The folder's maps by id.
    private let listing: FolderIndex<[String: Listed]>?

    init(folder: String?) {
        self.folder = folder
        listing = folder.map { folder in FolderIndex(folder: folder) { names, before in MapStore.listed(names, in: folder, before: before ?? [:]) } }
    }

    /// Every map by id, with its path and title (read from the file's first 64 KB, or the file's
    /// name where it names itself nothing better; gzip files by name).
    func listed() async -> [String: Listed] { await listing?.value() ?? [:] }

    /// The maps among `names`, each title read once: a file listed before keeps its title.
    static func listed(_ names: [String], in folder: String, before: [String: Listed]) -> [String: Listed] {
        var out: [String: Listed] = [:]
        for name in names where !name.hasPrefix(".") && !name.hasSuffix(".tsv") {
            let path = (folder as NSString).appendingPathComponent(name), id = PathwayTitle.stem(of: name)
            if let kept = before[id], kept.path == path { out[id] = kept; continue }
            var title = ""
            if !path.lowercased().hasSuffix(".gz"), let handle = FileHandle(forReadingAtPath: path) {
                defer { try? handle.close() }
                if let head = try? handle.read(upToCount: PathwayTitle.headBytes) { title = PathwayTitle.peek(Array(head)) ?? "" }
            }
            out[id] = Listed(path: path, title: PathwayTitle.shown(title, file: path))
        }
        return out
    }

    /// The map `id` names, read (once) and kept; 404 where the folder has none.
    func map(_ id: String) async throws -> (path: String, entry: MapCache.Entry) {
        guard let path = await listed()[id]?.path else { throw HTTPError(.notFound, message: "no pathway \(id)") }
        do { return (path, try await maps.entry(path)) } catch { throw HTTPAnswer.badRequest(error) }
    }
}

/// Pathway maps read once and kept, each with its tile pyramid (the map's bounds, worked out
/// once): at most `ServiceLimits.keptMaps`, the least recently asked for dropped first. A map is
/// read and laid out on the blocking pool, never inside the actor (whose callers would all wait
/// on one parse); callers asking for a map being read wait for that one reading.
actor MapCache {
    struct Entry: Sendable {
        var map: PathwayMap
        var pyramid: TilePyramid
        /// The map file's bytes as read (SHA-256, hex): what its pictures' ETags name.
        var checksum: String
    }

    let capacity: Int
    private var maps: [String: Entry] = [:]
    /// Paths by last use, oldest first.
    private var order: [String] = []
    private var reading: [String: Task<Entry, Error>] = [:]

    init(capacity: Int = ServiceLimits.keptMaps.value) { self.capacity = max(1, capacity) }

    var count: Int { maps.count }

    func entry(_ path: String) async throws -> Entry {
        if let e = maps[path] {
            order.removeAll { $0 == path }
            order.append(path)
            return e
        }
        if let task = reading[path] { return try await task.value }
        let task = Task {
            try await BlockingPool.shared.run {
                let m = try PathwayFile.load(path: path)
                let bytes = (try? FileInput.readAll(path: path, limit: FileInput.defaultLimit)) ?? []
                return Entry(map: m, pyramid: TilePyramid(map: m, tileSize: 256, levels: 13), checksum: SHA256.hex(bytes))
            }
        }
        reading[path] = task
        defer { reading[path] = nil }
        let e = try await task.value
        maps[path] = e
        order.append(path)
        while order.count > capacity { maps[order.removeFirst()] = nil }
        return e
    }
}

import Core
import Foundation

/// What a folder holds, worked out from its listing again only when the folder changes (its
/// modification time), on the blocking pool: the thumbnails shown for each structure, the
/// pathway maps and their titles. `make` hears the names and what it made last time.
final class FolderIndex<Value: Sendable>: Sendable {
    let folder: String
    private let kept = Locked<(modified: Date?, value: Value?)>((nil, nil))
    private let make: @Sendable (_ names: [String], _ before: Value?) -> Value

    init(folder: String, make: @escaping @Sendable (_ names: [String], _ before: Value?) -> Value) {
        self.folder = folder
        self.make = make
    }

    /// The index, made again where the folder changed since; nil where it cannot be read.
    func value() async -> Value? {
        let folder = folder, kept = kept, make = make
        return try? await BlockingPool.shared.run { () -> Value in
            let modified = (try? FileManager.default.attributesOfItem(atPath: folder)[.modificationDate] as? Date) ?? nil
            let (seen, before) = kept.withLock { ($0.modified, $0.value) }
            if let before, modified != nil, seen == modified { return before }
            let value = make((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [], before)
            kept.withLock { $0 = (modified, value) }
            return value
        }
    }
}

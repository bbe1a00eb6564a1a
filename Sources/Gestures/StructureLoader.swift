import Foundation
import Structure

/// Where a gesture file's `load` events read structures from. The CLI's replays read files beside
/// the event file; the service's replays and live sessions are given none, so there `load` is
/// refused before anything touches the disk.
public struct StructureLoader: Sendable {
    private let read: @Sendable (String) throws -> Structure

    public init(read: @escaping @Sendable (String) throws -> Structure) { self.read = read }

    /// Files named relative to `folder` (an absolute name as it is).
    public static func files(relativeTo folder: URL) -> StructureLoader {
        StructureLoader { name in
            let url = name.hasPrefix("/") ? URL(fileURLWithPath: name) : folder.appendingPathComponent(name)
            return try StructureFile.load(path: url.path)
        }
    }

    public func load(_ name: String) throws -> Structure { try read(name) }
}

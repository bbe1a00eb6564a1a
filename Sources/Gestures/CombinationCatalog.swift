import Foundation

/// Valid combinations listed explicitly, each mapped to the structure file that shows it:
/// `{"combinations": [{"name": "Hemoglobin", "parts": ["alpha", "beta"], "structure": "4hhb.pdb"}]}`.
/// With a catalog, `combine` accepts exactly the listed part sets (in any order) and shows the
/// listed structure; paths are relative to the catalog file.
public struct CombinationCatalog: Sendable, Equatable {
    public struct Entry: Sendable, Equatable, Codable {
        public var name: String
        public var parts: [String]
        public var structure: String

        public init(name: String, parts: [String], structure: String) {
            self.name = name
            self.parts = parts
            self.structure = structure
        }
    }

    public var entries: [Entry]
    public let directory: URL

    public init(entries: [Entry], directory: URL) {
        self.entries = entries
        self.directory = directory
    }

    public init(contentsOf url: URL) throws {
        struct File: Codable { var combinations: [Entry] }
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw GestureFileError(file: url.path, line: 1, message: "cannot read the catalog")
        }
        do {
            entries = try JSONDecoder().decode(File.self, from: data).combinations
        } catch {
            throw GestureFileError(file: url.path, line: 1, message: "not a combinations catalog: \(error)")
        }
        directory = url.deletingLastPathComponent()
    }

    /// The entry whose parts are exactly `parts`, in any order.
    public func entry(for parts: [String]) -> Entry? {
        entries.first { $0.parts.sorted() == parts.sorted() }
    }

    public func structureURL(_ entry: Entry) -> URL {
        entry.structure.hasPrefix("/") ? URL(fileURLWithPath: entry.structure) : directory.appendingPathComponent(entry.structure)
    }
}

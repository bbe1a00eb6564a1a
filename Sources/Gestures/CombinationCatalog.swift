import Core
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
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw InputFileError(file: url.path, message: FileManager.default.fileExists(atPath: url.path)
                                 ? "cannot read the catalog" : "no such catalog file")
        }
        try self.init(data: data, source: url)
    }

    /// A catalog from its JSON; `url` names it in errors and anchors its relative paths.
    public init(data: Data, source url: URL) throws {
        struct File: Codable { var combinations: [Entry] }
        do {
            entries = try JSONDecoder().decode(File.self, from: data).combinations
        } catch let error as DecodingError {
            throw InputFileError(file: url.path, message: "not a combinations catalog: \(CombinationCatalog.explain(error))")
        }
        directory = url.deletingLastPathComponent()
    }

    /// A decoding error in the catalog's own terms: where (`combinations[0].parts`) and what.
    static func explain(_ error: DecodingError) -> String {
        func path(_ keys: [CodingKey]) -> String {
            keys.reduce("") { text, key in
                if let i = key.intValue { return text + "[\(i)]" }
                return text.isEmpty ? key.stringValue : text + "." + key.stringValue
            }
        }
        func at(_ keys: [CodingKey]) -> String { keys.isEmpty ? "at the top" : "at \(path(keys))" }
        switch error {
        case .keyNotFound(let key, let context):
            return "missing \"\(key.stringValue)\" \(at(context.codingPath))"
        case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
            return "\(at(context.codingPath)): expected \(type == String.self ? "a string" : type == [String].self ? "a list of strings" : "\(type)")"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "not valid JSON" : "\(at(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }

    /// The entry whose parts are exactly `parts`, in any order.
    public func entry(for parts: [String]) -> Entry? {
        entries.first { $0.parts.sorted() == parts.sorted() }
    }

    public func structureURL(_ entry: Entry) -> URL {
        entry.structure.hasPrefix("/") ? URL(fileURLWithPath: entry.structure) : directory.appendingPathComponent(entry.structure)
    }
}

import Core
import Foundation
import Structure

/// The structure files a thumbnail run covers: files, folders (searched recursively for
/// structure files, gzip included) and list files (`@list.txt`, one path a line, `#` comments).
public enum ThumbnailInputs {
    public static func collect(_ arguments: [String]) throws -> [String] {
        var seen = Set<String>()
        var files: [String] = []
        func add(_ path: String) {
            if seen.insert(path).inserted { files.append(path) }
        }
        let fm = FileManager.default
        for argument in arguments {
            if argument.hasPrefix("@") {
                let list = String(argument.dropFirst())
                guard let text = try? String(contentsOfFile: list, encoding: .utf8) else {
                    throw InputFileError(file: list, message: "cannot read the list file")
                }
                let base = URL(fileURLWithPath: list).deletingLastPathComponent()
                for line in text.split(whereSeparator: \.isNewline) {
                    var path = line.trimmingCharacters(in: .whitespaces)
                    if path.isEmpty || path.hasPrefix("#") { continue }
                    // A comment after a path starts at a blank followed by #.
                    if let comment = path.range(of: #"\s+#"#, options: .regularExpression) {
                        path = path[..<comment.lowerBound].trimmingCharacters(in: .whitespaces)
                    }
                    add(path.hasPrefix("/") ? path : base.appendingPathComponent(path).path)
                }
                continue
            }
            var isDirectory: ObjCBool = false
            guard fm.fileExists(atPath: argument, isDirectory: &isDirectory) else {
                throw InputFileError(file: argument, message: "no such file or folder")
            }
            if !isDirectory.boolValue {
                add(argument)
                continue
            }
            guard let walker = fm.enumerator(atPath: argument) else { continue }
            var found: [String] = []
            while let relative = walker.nextObject() as? String {
                let name = (relative as NSString).lastPathComponent
                if name.hasPrefix(".") { continue }
                let path = (argument as NSString).appendingPathComponent(relative)
                var dir: ObjCBool = false
                if fm.fileExists(atPath: path, isDirectory: &dir), !dir.boolValue, StructureFile.formatFromName(name) != nil {
                    found.append(path)
                }
            }
            found.sort()
            found.forEach(add)
        }
        return files
    }
}

/// Part K of N of a collection, chosen by a hash of each input's path as given: N machines
/// (a Slurm array, a Kubernetes indexed Job) each take one part, with no coordination, and
/// together cover the collection exactly once.
public struct Shard: Sendable, Equatable {
    public let index: Int
    public let count: Int

    public static let whole = Shard(index: 1, count: 1)

    public init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    /// "K/N" with 1 <= K <= N.
    public init?(_ text: String) {
        let parts = text.split(separator: "/").map { Int($0) }
        guard parts.count == 2, let k = parts[0], let n = parts[1], n >= 1, k >= 1, k <= n else { return nil }
        self.init(index: k, count: n)
    }

    public func contains(_ path: String) -> Bool {
        count == 1 || Int(FNV1a.hash(path.utf8) % UInt64(count)) == index - 1
    }
}

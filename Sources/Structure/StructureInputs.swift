import Core
import Foundation

/// The structure files a command covers: files, folders (searched recursively for structure
/// files, gzip included), list files (`@list.txt`, one path a line, `#` comments), and library
/// or PDB entries (`lib:ID`, `pdb:1CRN`), passed on as they are.
public enum StructureInputs {
    public static func collect(_ arguments: [String]) throws -> [String] {
        var seen = Set<String>()
        var files: [String] = []
        func add(_ path: String) {
            if seen.insert(path).inserted { files.append(path) }
        }
        let fm = FileManager.default
        for argument in arguments {
            if argument.hasPrefix("lib:") || argument.hasPrefix("pdb:") {
                add(argument)
                continue
            }
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

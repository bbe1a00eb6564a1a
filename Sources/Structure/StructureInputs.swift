import Core
import Foundation

/// The structure files a command covers: files, folders (searched recursively for structure
/// files, gzip included), list files (`@list.txt`, one path a line, `#` comments), and library
/// or PDB entries (`lib:ID`, `pdb:1CRN`), passed on as they are. A bare PDB id that is not a
/// file here (`1crn`: four characters, a digit first) is taken as `pdb:1crn`, and said so on
/// stderr, where `pdbIDs` (commands that read through the library); elsewhere it is refused with
/// the hint.
public enum StructureInputs {
    /// `pdb:ID` for an argument that is a PDB id and not a file or folder here.
    public static func pdbEntry(_ argument: String) -> String? {
        let u = Array(argument.utf8)
        guard u.count == 4, (0x31...0x39).contains(u[0]),
              u.allSatisfy({ (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }),
              !FileManager.default.fileExists(atPath: argument) else { return nil }
        return "pdb:" + argument
    }

    /// Says on stderr that `argument` is read as `entry`.
    public static func notePDBEntry(_ argument: String, _ entry: String) {
        FileHandle.standardError.write(Data("molshot: \(argument) is not a file here: reading it as \(entry), the PDB entry (from the library, or fetched)\n".utf8))
    }

    public static func collect(_ arguments: [String], pdbIDs: Bool = true) throws -> [String] {
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
                if let entry = pdbEntry(argument) {
                    guard pdbIDs else {
                        throw InputFileError(file: argument, message: "no such file or folder (for the PDB entry, molshot fetch \(argument))")
                    }
                    notePDBEntry(argument, entry)
                    add(entry)
                    continue
                }
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

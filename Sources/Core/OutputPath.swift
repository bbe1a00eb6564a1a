import Foundation

/// Checks the output paths a user gives before any work is done, so that a wrong one is
/// refused naming the path and what is wrong with it, not with an errno text at the end.
public enum OutputPath {
    /// A file to write: not a folder, its folder there and writable, its extension one of `formats`.
    public static func checkFile(_ path: String, field: String = "output", formats: [String] = ["png"]) throws(RequestError) {
        guard !path.isEmpty else { throw RequestError(field: field, "is empty; give a file name such as picture.png") }
        var isFolder: ObjCBool = false
        if path.hasSuffix("/") || (FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && isFolder.boolValue) {
            throw RequestError(field: field, "\(path) is a folder; give a file name such as \((path as NSString).appendingPathComponent("picture.png"))")
        }
        let ext = (path as NSString).pathExtension.lowercased()
        guard formats.contains(ext) else {
            let known = formats.map { ".\($0)" }.joined(separator: ", ")
            throw RequestError(field: field, "\(path): Molshot writes \(known) files; the name ends in \(ext.isEmpty ? "no extension" : "." + ext)")
        }
        let parent = (path as NSString).deletingLastPathComponent
        try checkWritableFolder(parent.isEmpty ? "." : parent, for: path, field: field)
    }

    /// A folder to write into: created if missing (with its parents), so it must not be a file,
    /// and the nearest existing folder above it must be writable.
    public static func checkFolder(_ path: String, field: String = "output") throws(RequestError) {
        guard !path.isEmpty else { throw RequestError(field: field, "is empty; give a folder") }
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) {
            guard isFolder.boolValue else { throw RequestError(field: field, "\(path) is a file, not a folder") }
            guard access(path, W_OK) == 0 else { throw RequestError(field: field, "cannot write in the folder \(path): permission denied") }
            return
        }
        var above = (path as NSString).deletingLastPathComponent
        while !above.isEmpty && !FileManager.default.fileExists(atPath: above) { above = (above as NSString).deletingLastPathComponent }
        let existing = above.isEmpty ? "." : above
        guard FileManager.default.fileExists(atPath: existing, isDirectory: &isFolder), isFolder.boolValue else {
            throw RequestError(field: field, "\(path): \(existing) is a file, not a folder")
        }
        guard access(existing, W_OK) == 0 else {
            throw RequestError(field: field, "\(path) cannot be made: no permission to write in \(existing)")
        }
    }

    private static func checkWritableFolder(_ folder: String, for path: String, field: String) throws(RequestError) {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) else {
            throw RequestError(field: field, "\(path): the folder \(folder) does not exist")
        }
        guard isFolder.boolValue else { throw RequestError(field: field, "\(path): \(folder) is a file, not a folder") }
        guard access(folder, W_OK) == 0 else { throw RequestError(field: field, "\(path): cannot write in the folder \(folder): permission denied") }
    }
}

import Foundation

/// Writes a file whole or not at all: to a temporary name beside it, then a rename, so that a
/// reader (or a run killed halfway) never finds half a file under the final name.
public enum AtomicFile {
    /// Temporary files carry this marker; `removeLeftovers` clears those a killed run left.
    public static let marker = ".partial-"

    public static func write(_ bytes: [UInt8], to path: String) throws {
        let url = URL(fileURLWithPath: path)
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent("." + url.lastPathComponent + marker + String(getpid()) + "-" + UUID().uuidString.prefix(8))
        do {
            try Data(bytes).write(to: temporary)
        } catch {
            throw GraphicsError("cannot write \(path): \(error.localizedDescription)")
        }
        guard rename(temporary.path, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary.path)
            throw GraphicsError("cannot write \(path): \(reason)")
        }
    }

    /// Removes temporary files a killed writer left in `directory`.
    public static func removeLeftovers(in directory: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for name in names where name.hasPrefix(".") && name.contains(marker) {
            unlink((directory as NSString).appendingPathComponent(name))
        }
    }
}

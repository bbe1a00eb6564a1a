import Foundation

/// Finds the `Assets/` folder (element table, bond templates, fonts, samples).
/// Order: `$MOLSHOT_ASSETS`; an `Assets` folder beside the executable or in any folder above it
/// (a build in `.build/release` of a checkout finds the checkout's); `share/molshot/Assets`
/// beside an installed `bin/`; the checkout this file was compiled from.
public enum Assets {
    public static let directory: URL? = {
        let fm = FileManager.default
        func has(_ dir: URL) -> Bool { fm.fileExists(atPath: dir.appendingPathComponent("elements.tsv").path) }
        if let env = ProcessInfo.processInfo.environment["MOLSHOT_ASSETS"], !env.isEmpty {
            return URL(fileURLWithPath: env)
        }
        let exe = URL(fileURLWithPath: (try? fm.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
        var dir = exe.deletingLastPathComponent()
        for _ in 0..<8 {
            if has(dir.appendingPathComponent("Assets")) { return dir.appendingPathComponent("Assets") }
            let share = dir.appendingPathComponent("share/molshot/Assets")
            if has(share) { return share }
            dir = dir.deletingLastPathComponent()
        }
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        if has(source.appendingPathComponent("Assets")) { return source.appendingPathComponent("Assets") }
        return nil
    }()

    public static func url(_ name: String) throws -> URL {
        guard let dir = directory else {
            throw StructureError(file: name, line: nil, message: "Molshot's Assets folder was not found; set MOLSHOT_ASSETS to it")
        }
        return dir.appendingPathComponent(name)
    }
}

import Foundation

/// Finds Molshot's data folders (`Assets`, `Shaders`) at run time. Order: an environment
/// variable; a folder of that name beside the executable or in any folder above it (a build in
/// `.build/release` of a checkout finds the checkout's); `share/molshot/NAME` beside an installed
/// `bin/`; the checkout this file was compiled from.
public enum ResourceLocator {
    public static func find(_ folder: String, marker: String, environment: String) -> URL? {
        let fm = FileManager.default
        func has(_ dir: URL) -> Bool { fm.fileExists(atPath: dir.appendingPathComponent(marker).path) }
        if let env = ProcessInfo.processInfo.environment[environment], !env.isEmpty {
            return URL(fileURLWithPath: env)
        }
        let exe = URL(fileURLWithPath: (try? fm.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
        var dir = exe.deletingLastPathComponent()
        for _ in 0..<8 {
            let beside = dir.appendingPathComponent(folder)
            if has(beside) { return beside }
            let share = dir.appendingPathComponent("share/molshot").appendingPathComponent(folder)
            if has(share) { return share }
            dir = dir.deletingLastPathComponent()
        }
        let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let source = checkout.appendingPathComponent(folder)
        return has(source) ? source : nil
    }
}

import Foundation

/// Finds Molshot's data folders (`Assets`, `Shaders`) at run time. Order: an environment
/// variable; a folder of that name beside the executable or in any folder above it (a build in
/// `.build/release` of a checkout finds the checkout's); `share/molshot/NAME` beside an installed
/// `bin/`; the checkout this file was compiled from.
public enum ResourceLocator {
    /// This process's executable (`/proc/self/exe`, else argv[0]): where data folders are looked
    /// for, and what helper processes (thumbnail parts, image parts, render processes) run.
    public static var executable: URL {
        URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
    }

    public static func find(_ folder: String, marker: String, environment: EnvironmentVariable) -> URL? {
        let fm = FileManager.default
        func has(_ dir: URL) -> Bool { fm.fileExists(atPath: dir.appendingPathComponent(marker).path) }
        if let env = environment.text() {
            return URL(fileURLWithPath: env)
        }
        var dir = executable.deletingLastPathComponent()
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

/// The one place that says where Molshot's data folders are: `Assets/` (element table, bond
/// templates, fonts, samples; `$MOLSHOT_ASSETS` overrides) and `Shaders/` (`$MOLSHOT_SHADERS`).
public enum Resources {
    public static let assets: URL? = ResourceLocator.find("Assets", marker: "elements.tsv", environment: .assets)
    public static let shaders: URL? = ResourceLocator.find("Shaders", marker: "sphere.vert", environment: .shaders)

    /// A file in `Assets/`, like "fonts/DejaVuSans.ttf".
    public static func asset(_ name: String) throws(MachineError) -> URL {
        guard let assets else { throw MachineError("Molshot's Assets folder was not found; set MOLSHOT_ASSETS to it") }
        return assets.appendingPathComponent(name)
    }

    public static func shaderDirectory() throws(MachineError) -> URL {
        guard let shaders else { throw MachineError("Molshot's Shaders folder was not found; set MOLSHOT_SHADERS to it") }
        return shaders
    }
}

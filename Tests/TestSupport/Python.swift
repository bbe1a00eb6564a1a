import Foundation

/// Runs a Python script with `python3` from PATH, as tests that ask another tool (gemmi, zlib) do.
public enum Python {
    /// The script's exit status and standard output (standard error is left to the test's log).
    public static func run(_ script: String, _ arguments: [String] = []) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }

    /// Whether `python3` can import `module`.
    public static func has(_ module: String) -> Bool {
        (try? run("import \(module)").status) == 0
    }
}

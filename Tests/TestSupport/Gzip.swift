import Foundation

/// Compresses with Debian's gzip (another tool's answer: the files tests inflate are as gzip writes them).
public enum Gzip {
    /// `bytes` as `gzip -c -n` writes them: one member, no name or time in its header.
    public static func compress(_ bytes: [UInt8]) throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/gzip")
        process.arguments = ["-c", "-n"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        // Written on a thread of its own: a pipe holds 64 KiB, and gzip writes while it reads.
        let writer = Thread { input.fileHandleForWriting.write(Data(bytes)); try? input.fileHandleForWriting.close() }
        writer.start()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return [UInt8](data)
    }
}

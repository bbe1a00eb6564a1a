import Foundation
import Thumbnails

/// A process doing one part of a thumbnail run (`--part K/N`); its progress is read as it comes.
final class ThumbnailPartProcess: @unchecked Sendable {
    private let process = Process()
    private let lock = NSLock()
    private var done = 0, total = 0, failed = 0
    private var summary: ThumbnailSummary?
    private var reader: Thread?

    init(executable: URL, arguments: [String]) throws {
        process.executableURL = executable
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.standardError
        let handle = pipe.fileHandleForReading
        let thread = Thread { [self] in
            var buffer = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                buffer.append(chunk)
                while let newline = buffer.firstIndex(of: 0x0A) {
                    let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                    buffer.removeSubrange(buffer.startIndex...newline)
                    self.take(line)
                }
            }
        }
        reader = thread
        try process.run()
        thread.start()
    }

    private func take(_ line: String) {
        lock.lock()
        defer { lock.unlock() }
        if line.hasPrefix("progress ") {
            let v = line.split(separator: " ").dropFirst().compactMap { Int($0) }
            if v.count == 3 { (done, total, failed) = (v[0], v[1], v[2]) }
        } else if line.hasPrefix("summary ") {
            summary = try? JSONDecoder().decode(ThumbnailSummary.self, from: Data(line.dropFirst(8).utf8))
        }
    }

    var counts: (Int, Int, Int) {
        lock.lock()
        defer { lock.unlock() }
        return (done, total, failed)
    }

    /// Waits for the helper; its summary, or an error if it died without one.
    func wait() throws -> ThumbnailSummary {
        process.waitUntilExit()
        while reader?.isFinished == false { Thread.sleep(forTimeInterval: 0.005) }
        lock.lock()
        defer { lock.unlock() }
        guard let summary else {
            throw CLIError("a helper process (\(process.arguments?.suffix(3).joined(separator: " ") ?? "")) ended without finishing its part, status \(process.terminationStatus)")
        }
        return summary
    }
}

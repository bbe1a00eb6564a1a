import Core
import Foundation

/// A thumbnail run over several processes: this one does part 1 of N, and N-1 copies of the same
/// command, each given `--part K/N --report`, do the others (one rasterizer per process: GL
/// contexts in one process do not draw in parallel). A part process says how it goes on standard
/// output, a line at a time: `progress DONE TOTAL FAILED`, and at its end `summary JSON`.
/// `progress` may be read from any thread (the run and the parts count under their locks).
public final class ThumbnailProcesses: Sendable {
    private let run: ThumbnailRun
    private let parts: [ThumbnailPartProcess]

    /// Starts the N-1 part processes: `executable` with `arguments` and the part's options. `job`
    /// is the whole run's; this process takes part 1.
    public init(job: ThumbnailJob, processes: Int, executable: URL, arguments: [String]) throws {
        var job = job
        if processes > 1 { job.part = Shard(index: 1, count: processes) }
        run = ThumbnailRun(job)
        parts = processes > 1
            ? try (2...processes).map { k in try ThumbnailPartProcess(executable: executable, arguments: arguments + ["--part", "\(k)/\(processes)", "--report"]) }
            : []
    }

    /// The counts of every part together.
    public var progress: (done: Int, total: Int, rendered: Int, failed: Int, elapsed: Double) {
        var p = run.progress
        for part in parts {
            let (done, total, failed) = part.counts
            p.done += done
            p.total += total
            p.failed += failed
        }
        return p
    }

    /// Does this process's part, waits for the others, and merges their indexes and counts.
    public func finish() throws -> ThumbnailSummary {
        let own = try run.run()
        return parts.isEmpty ? own : try run.finish(adding: try parts.map { try $0.wait() })
    }

    /// The environment of a helper process this process starts: its own, and its pid as the parent.
    public static var helperEnvironment: [String: String] {
        var e = ProcessInfo.processInfo.environment
        e[EnvironmentVariable.parentPID.rawValue] = String(getpid())
        return e
    }

    /// A helper process (a thumbnail or image part) ends when the process that started it is gone:
    /// a killed run leaves no workers behind.
    /// The parent is the one `helperEnvironment` names: a helper whose parent died before it got
    /// this far was already handed to another and would otherwise wait for it forever.
    public static func exitWithParent() {
        let parent = EnvironmentVariable.parentPID.text().flatMap { pid_t($0) } ?? getppid()
        BlockingPool.dedicated(name: "molshot-parent") {
            while getppid() == parent { Thread.sleep(forTimeInterval: 0.1) }
            _exit(2)
        }
    }

    /// The part side: runs `job` (a part; `isPartProcess`), writing its progress and summary lines to
    /// standard output, and exits when the process that started it is gone (a killed run must not
    /// leave workers behind).
    public static func runPart(_ job: ThumbnailJob) throws {
        exitWithParent()
        let run = ThumbnailRun(job)
        BlockingPool.dedicated(name: "molshot-progress") {
            while true {
                let p = run.progress
                FileHandle.standardOutput.write(Data("progress \(p.done) \(p.total) \(p.failed)\n".utf8))
                Thread.sleep(forTimeInterval: 0.2)
            }
        }
        let summary = try run.run()
        FileHandle.standardOutput.write(Data(("summary " + String(decoding: try JSONEncoder().encode(summary), as: UTF8.self) + "\n").utf8))
    }
}

/// A part process of a run, its progress read as it comes.
final class ThumbnailPartProcess: Sendable {
    private let process = Process()
    /// Its last progress line and its summary line, as read.
    private let heard = Locked<(done: Int, total: Int, failed: Int, summary: ThumbnailSummary?)>((0, 0, 0, nil))
    /// Signalled when the reader has read the pipe to its end.
    private let readerDone = DispatchSemaphore(value: 0)

    init(executable: URL, arguments: [String]) throws {
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ThumbnailProcesses.helperEnvironment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.standardError
        let handle = pipe.fileHandleForReading
        let readLines: @Sendable () -> Void = { [self] in
            defer { readerDone.signal() }
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
        try process.run()
        BlockingPool.dedicated(name: "molshot-part-read", readLines)
    }

    private func take(_ line: String) {
        if line.hasPrefix("progress ") {
            let v = line.split(separator: " ").dropFirst().compactMap { Int($0) }
            if v.count == 3 { heard.withLock { ($0.done, $0.total, $0.failed) = (v[0], v[1], v[2]) } }
        } else if line.hasPrefix("summary ") {
            let summary = try? JSONDecoder().decode(ThumbnailSummary.self, from: Data(line.dropFirst(8).utf8))
            heard.withLock { $0.summary = summary }
        }
    }

    var counts: (Int, Int, Int) {
        heard.withLock { ($0.done, $0.total, $0.failed) }
    }

    /// Waits for the process; its summary, or an error if it died without one.
    func wait() throws -> ThumbnailSummary {
        process.waitUntilExit()
        readerDone.wait()
        readerDone.signal()
        guard let summary = heard.withLock({ $0.summary }) else {
            throw ThumbnailPartError(message: "a part process (\(process.arguments?.suffix(3).joined(separator: " ") ?? "")) ended without finishing its part, status \(process.terminationStatus)")
        }
        return summary
    }
}

/// A part process that ended without its summary.
public struct ThumbnailPartError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}

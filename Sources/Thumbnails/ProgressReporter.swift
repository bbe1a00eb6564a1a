import Core
import Foundation

/// Shows how a run goes: on a terminal a bar redrawn in place with count, rate and time left;
/// elsewhere (a log, CI) a plain line every few seconds.
public final class ProgressReporter: Sendable {
    private let sample: @Sendable () -> (done: Int, total: Int, rendered: Int, failed: Int, elapsed: Double)
    private let terminal: Bool
    private let interval: Double
    private let stopped = Monitor(false)

    public init(terminal: Bool = isatty(2) != 0,
                sample: @escaping @Sendable () -> (done: Int, total: Int, rendered: Int, failed: Int, elapsed: Double)) {
        self.sample = sample
        self.terminal = terminal
        interval = terminal ? 0.2 : 5
    }

    public func start() {
        BlockingPool.dedicated(name: "molshot-progress") { [self] in
            // A line every `interval` until stopped (a stop wakes the wait at once).
            // The line is written under the lock, so a stop's final line comes after it.
            while stopped.wait(until: { $0 }, deadline: Date().addingTimeInterval(interval), then: { _ in true }) == nil {
                stopped.read { if !$0 { emit(final: false) } }
            }
        }
    }

    public func stop() {
        stopped.update { $0 = true }
        if terminal { emit(final: true) }
    }

    public static func describe(done: Int, total: Int, failed: Int, elapsed: Double) -> String {
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        let left = rate > 0 ? Double(total - done) / rate : 0
        let eta = String(format: "%d:%02d", Int(left) / 60, Int(left) % 60)
        return "\(done)/\(total) \(String(format: "%.1f", rate))/s ETA \(eta)" + (failed > 0 ? " \(failed) failed" : "")
    }

    private func emit(final: Bool) {
        let s = sample()
        let text = ProgressReporter.describe(done: s.done, total: s.total, failed: s.failed, elapsed: s.elapsed)
        if terminal {
            let width = 30
            let filled = s.total > 0 ? width * s.done / s.total : width
            let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
            FileHandle.standardError.write(Data("\r[\(bar)] \(text)\u{1B}[K\(final ? "\n" : "")".utf8))
        } else {
            FileHandle.standardError.write(Data("molshot: thumbnails \(text)\n".utf8))
        }
    }
}

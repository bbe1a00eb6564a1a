import Core
import Foundation
import Gestures
import Graphics
import Imaging

/// Finishes, encodes and writes frames on a concurrent queue, at most four at a time (on two cores
/// a serial one became the slower stage for small molecules); the first failure is reported by
/// the next `write` or by `finish`.
final class FrameWriter: Sendable {
    private let queue = DispatchQueue(label: "molshot.frames", attributes: .concurrent)
    private let directory: String
    private let keep: Bool
    private let state = Locked<(kept: [Int: [UInt8]], failure: (any Error)?)>(([:], nil))
    private let slots = DispatchSemaphore(value: 4)

    private let encoder: PNGEncoder

    /// Names `frame-NNNNN.png`, as this writer gives them.
    static func isFrameName(_ name: String) -> Bool {
        name.hasPrefix("frame-") && name.hasSuffix(".png") && name.dropFirst(6).dropLast(4).allSatisfy(\.isNumber)
    }

    init(directory: String, keep: Bool, encoder: PNGEncoder) {
        self.directory = directory
        self.keep = keep
        self.encoder = encoder
    }

    /// Queues `frame` to be finished (edge smoothing, caption), encoded and written.
    func write(_ frame: ReplayFrame, number: Int) throws {
        if let failure = state.withLock({ $0.failure }) { throw failure }
        slots.wait()
        queue.async { [self] in
            defer { slots.signal() }
            do {
                let png = try encoder.encode(try frame.finished())
                try AtomicFile.write(png, to: (directory as NSString).appendingPathComponent(String(format: "frame-%05d.png", number)))
                if keep { state.withLock { $0.kept[number] = png } }
            } catch {
                state.withLock { if $0.failure == nil { $0.failure = error } }
            }
        }
    }

    /// Waits for every frame; returns the PNGs kept for an animation, in frame order.
    func finish() throws -> [[UInt8]] {
        queue.sync(flags: .barrier) {}
        let (kept, failure) = state.withLock { $0 }
        if let failure { throw failure }
        return kept.keys.sorted().map { kept[$0]! }
    }
}

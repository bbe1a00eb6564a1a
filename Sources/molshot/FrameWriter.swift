import Core
import Foundation
import Gestures
import Graphics
import Imaging

/// Finishes, encodes and writes frames on a concurrent queue, at most four at a time (on two cores
/// a serial one became the slower stage for small molecules); the first failure is reported by
/// the next `write` or by `finish`.
final class FrameWriter: @unchecked Sendable {
    private let queue = DispatchQueue(label: "molshot.frames", attributes: .concurrent)
    private let directory: String
    private let keep: Bool
    private var kept: [Int: [UInt8]] = [:]
    private var failure: Error?
    private let lock = NSLock()
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
        lock.lock()
        if let failure { lock.unlock(); throw failure }
        lock.unlock()
        slots.wait()
        queue.async { [self] in
            defer { slots.signal() }
            do {
                let png = try encoder.encode(try frame.finished())
                try AtomicFile.write(png, to: (directory as NSString).appendingPathComponent(String(format: "frame-%05d.png", number)))
                lock.lock()
                if keep { kept[number] = png }
                lock.unlock()
            } catch {
                lock.lock()
                if failure == nil { failure = error }
                lock.unlock()
            }
        }
    }

    /// Waits for every frame; returns the PNGs kept for an animation, in frame order.
    func finish() throws -> [[UInt8]] {
        queue.sync(flags: .barrier) {}
        lock.lock()
        defer { lock.unlock() }
        if let failure { throw failure }
        return kept.keys.sorted().map { kept[$0]! }
    }
}

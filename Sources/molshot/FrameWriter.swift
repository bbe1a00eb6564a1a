import Core
import Foundation
import Gestures
import Graphics
import Imaging

/// Finishes frames (edge smoothing, caption) on a concurrent queue, at most four at a time (on two
/// cores a serial one became the slower stage for small molecules), and hands them on: as
/// numbered PNG files in a folder, or to a movie, which encodes them in order on its own thread.
/// The first failure is reported by the next `write` or by `finish`.
final class FrameWriter: Sendable {
    enum Destination: Sendable {
        /// `frame-NNNNN.png` in a folder; `keep`: the PNGs are also kept for an animated PNG.
        case folder(String, keep: Bool, encoder: PNGEncoder)
        case movie(MovieStream)
    }

    private let queue = DispatchQueue(label: "molshot.frames", attributes: .concurrent)
    private let destination: Destination
    private let state = Locked<(kept: [Int: [UInt8]], failure: (any Error)?)>(([:], nil))
    private let slots = DispatchSemaphore(value: 4)

    /// Names `frame-NNNNN.png`, as this writer gives them.
    static func isFrameName(_ name: String) -> Bool {
        name.hasPrefix("frame-") && name.hasSuffix(".png") && name.dropFirst(6).dropLast(4).allSatisfy(\.isNumber)
    }

    init(_ destination: Destination) {
        self.destination = destination
    }

    /// Queues frame `number` (1, 2, ...), finished by `finish`, to be written.
    func write(number: Int, _ finish: @escaping @Sendable () throws -> RGBAImage) throws {
        if let failure = state.withLock({ $0.failure }) { throw failure }
        slots.wait()
        queue.async { [self] in
            defer { slots.signal() }
            do {
                let image = try finish()
                switch destination {
                case .folder(let directory, let keep, let encoder):
                    let png = try encoder.encode(image)
                    try AtomicFile.write(png, to: (directory as NSString).appendingPathComponent(String(format: "frame-%05d.png", number)))
                    if keep { state.withLock { $0.kept[number] = png } }
                case .movie(let movie):
                    try movie.add(image, number: number)
                }
            } catch {
                state.withLock { if $0.failure == nil { $0.failure = error } }
            }
        }
    }

    /// Queues a replay's frame.
    func write(_ frame: ReplayFrame, number: Int) throws {
        try write(number: number) { try frame.finished() }
    }

    /// Waits for every frame (and the movie's end); returns the PNGs kept for an animation, in frame order.
    func finish() throws -> [[UInt8]] {
        queue.sync(flags: .barrier) {}
        let (kept, failure) = state.withLock { $0 }
        if case .movie(let movie) = destination {
            if let failure {
                movie.cancel()
                throw failure
            }
            try movie.finish()
        }
        if let failure { throw failure }
        return kept.keys.sorted().map { kept[$0]! }
    }

    /// Drops what is not written yet: a movie is left unmade.
    func cancel() {
        queue.sync(flags: .barrier) {}
        if case .movie(let movie) = destination { movie.cancel() }
    }
}

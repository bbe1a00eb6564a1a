import CVideoWriter
import Core
import Foundation

/// The movie formats Molshot writes through FFmpeg's libraries, chosen by the output's extension.
public enum MovieFormat: String, Sendable, CaseIterable {
    /// H.264 in MP4 (yuv420p, even sizes, the index first): PowerPoint, Keynote, journals, browsers.
    case mp4
    /// VP9 in WebM: web pages.
    case webm
    /// GIF with one palette for the movie: chat and issue trackers.
    case gif

    /// The extensions of movie files, each with its format.
    public static let extensions: [(name: String, format: MovieFormat)] = [("mp4", .mp4), ("m4v", .mp4), ("webm", .webm), ("gif", .gif)]

    /// The format `path` names by its extension (.mp4, .m4v, .webm, .gif, in any case), or nil.
    public init?(path: String) {
        let ext = (path as NSString).pathExtension.lowercased()
        guard let format = MovieFormat.extensions.first(where: { $0.name == ext })?.format else { return nil }
        self = format
    }

    /// Most frames a second the format plays as given: GIF counts delays in hundredths of a
    /// second and browsers slow delays under 2 of them, so 50.
    public var maxFPS: Double { self == .gif ? 50 : 240 }

    var kind: Int32 {
        switch self {
        case .mp4: 0
        case .webm: 1
        case .gif: 2
        }
    }
}

/// A movie written frame by frame (frames go to the encoder as they come; none is kept): one
/// owner, not shared between threads. The file appears whole at `finish` (written beside it and
/// renamed); `cancel`, or an error, leaves nothing.
public final class MovieWriter {
    public let path: String
    public let format: MovieFormat
    public let width: Int
    public let height: Int
    public let fps: Double
    public private(set) var frameCount = 0
    private var handle: OpaquePointer?
    private let temporary: String

    /// Whether movies can be written here (FFmpeg's libraries open); the reason where not.
    public static func unavailableReason() -> String? {
        var message = [CChar](repeating: 0, count: 512)
        return molshot_video_available(&message, message.count) == 0 ? nil : String(nulTerminated: message)
    }

    /// Opens a movie of `width` x `height` pictures at `fps`; transparent pixels are laid over
    /// `matte` (0xRRGGBB). `quality` 1-100, nil for the format's default (H.264 crf 18, VP9 crf 30).
    public init(path: String, format: MovieFormat, width: Int, height: Int, fps: Double, quality: Int? = nil, matte: UInt32 = 0xFFFFFF) throws {
        guard fps > 0, fps <= format.maxFPS else {
            throw ImagingError("\(path): \(format.rawValue.uppercased()) plays at most \(Int(format.maxFPS)) frames a second, not \(fps)")
        }
        self.path = path
        self.format = format
        self.width = width
        self.height = height
        self.fps = fps
        let directory = (path as NSString).deletingLastPathComponent
        temporary = (directory.isEmpty ? "." : directory) + "/.\((path as NSString).lastPathComponent).\(getpid()).part.\(format.rawValue)"
        var message = [CChar](repeating: 0, count: 512)
        guard let h = molshot_video_open(temporary, format.kind, Int32(width), Int32(height), fps, Int32(quality ?? 0), matte,
                                         &message, message.count) else {
            try? FileManager.default.removeItem(atPath: temporary)
            throw ImagingError("\(path): \(String(nulTerminated: message))")
        }
        handle = h
    }

    deinit { cancel() }

    /// Adds `image` (the movie's size) as the next frame.
    public func write(_ image: RGBAImage) throws {
        guard let handle else { throw ImagingError("\(path): the movie is already finished") }
        guard image.width == width, image.height == height else {
            throw ImagingError("\(path): frame \(frameCount + 1) is \(image.width)x\(image.height), the movie \(width)x\(height)")
        }
        var message = [CChar](repeating: 0, count: 512)
        let status = image.pixels.withUnsafeBufferPointer { molshot_video_write(handle, $0.baseAddress, width * 4, &message, message.count) }
        guard status == 0 else {
            cancel()
            throw ImagingError("\(path): frame \(frameCount + 1): \(String(nulTerminated: message))")
        }
        frameCount += 1
    }

    /// Ends the movie and puts it in place.
    public func finish() throws {
        guard let handle else { throw ImagingError("\(path): the movie is already finished") }
        self.handle = nil
        var message = [CChar](repeating: 0, count: 512)
        guard molshot_video_close(handle, &message, message.count) == 0 else {
            try? FileManager.default.removeItem(atPath: temporary)
            throw ImagingError("\(path): \(String(nulTerminated: message))")
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(atPath: temporary)
            throw ImagingError("\(path): cannot put the movie in place: \(reason)")
        }
    }

    /// Drops the movie: nothing is left on disk.
    public func cancel() {
        guard let handle else { return }
        self.handle = nil
        molshot_video_abort(handle)
        try? FileManager.default.removeItem(atPath: temporary)
    }
}

/// A movie made from frames finished on several threads: `add` takes them in any order with
/// their numbers (1, 2, ...), and one thread of its own, which owns the `MovieWriter`, encodes
/// them in order. At most `capacity` frames wait for it (`add` blocks while they do), so memory
/// stays flat however long the movie. The movie's size is its first frame's.
public final class MovieStream: Sendable {
    public let path: String
    private let queue: BlockingQueue<RGBAImage>
    private let order = Locked<(pending: [Int: RGBAImage], next: Int)>(([:], 1))
    private let state = Locked<(cancelled: Bool, failure: ImagingError?)>((false, nil))
    private let encoding: Background<Int>

    public init(path: String, format: MovieFormat, fps: Double, quality: Int? = nil, matte: UInt32 = 0xFFFFFF, capacity: Int = 3) {
        self.path = path
        let queue = BlockingQueue<RGBAImage>(capacity: capacity), state = self.state
        self.queue = queue
        encoding = Background {
            var writer: MovieWriter?
            do {
                while let image = queue.pop() {
                    if state.withLock({ $0.cancelled }) { break }
                    if writer == nil {
                        writer = try MovieWriter(path: path, format: format, width: image.width, height: image.height, fps: fps,
                                                 quality: quality, matte: matte)
                    }
                    try writer!.write(image)
                }
                if state.withLock({ $0.cancelled }) {
                    writer?.cancel()
                    while queue.pop() != nil {}
                    return 0
                }
                guard let writer else { throw ImagingError("\(path): a movie needs at least one frame") }
                try writer.finish()
                return writer.frameCount
            } catch {
                writer?.cancel()
                let failure = error as? ImagingError ?? ImagingError("\(path): \(error)")
                state.withLock { $0.failure = failure }
                // Frames still coming are dropped until the stream is closed.
                while queue.pop() != nil {}
                throw failure
            }
        }
    }

    /// Adds frame `number`; throws the encoder's failure, if it has failed, so drawing stops early.
    public func add(_ image: RGBAImage, number: Int) throws {
        if let failure = state.withLock({ $0.failure }) { throw failure }
        let queue = queue
        // In order: the frames that are next are pushed under the lock, so none overtakes another.
        order.withLock { o in
            o.pending[number] = image
            while let next = o.pending.removeValue(forKey: o.next) {
                queue.push(next)
                o.next += 1
            }
        }
    }

    /// Ends the movie once every frame added is encoded; the number of frames.
    @discardableResult
    public func finish() throws -> Int {
        queue.close()
        return try encoding.value()
    }

    /// Drops the movie (nothing is left on disk) and waits for its thread.
    public func cancel() {
        state.withLock { $0.cancelled = true }
        queue.close()
        _ = try? encoding.value()
    }
}

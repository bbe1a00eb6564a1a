import CFrameWriter
import Core
import Foundation

/// How a live view's frames are encoded: PNG (exact, the default, what replays and tests compare),
/// or JPEG (libjpeg-turbo) or WebP (libwebp) for a browser that takes them: a 512 px molecule
/// frame is several times smaller, so more frames cross a slow link. Quality 1-100.
public enum FrameEncoder: Sendable {
    case png(PNGEncoder)
    case jpeg(quality: Int)
    case webp(quality: Int)

    /// The names the service takes (`frames=`).
    public static let names = ["png", "jpeg", "webp"]
    public static let defaultQuality = 80

    /// The encoder named `name` ("png", "jpeg", "webp"), PNG as `png` for PNG.
    public static func named(_ name: String, quality: Int = defaultQuality, png: PNGEncoder) -> FrameEncoder? {
        switch name.lowercased() {
        case "png": return .png(png)
        case "jpeg", "jpg": return .jpeg(quality: quality)
        case "webp": return .webp(quality: quality)
        default: return nil
        }
    }

    public var name: String {
        switch self {
        case .png: return "png"
        case .jpeg: return "jpeg"
        case .webp: return "webp"
        }
    }

    public var mediaType: String { "image/\(name)" }

    /// How a frame drawn coarser while the view moves is encoded: PNG through the deflate of runs
    /// and rows (`PNGEncoder.Deflate.runsAndRows`), a few times as fast as zlib or libdeflate on an
    /// enlarged frame and a little larger; a frame there and gone (the full one follows) wants
    /// speed. The rows filtered UP, which that deflate's matches in the row above suit. A PNG
    /// asked small (adaptive filters) or already deflated so (a map's) stays as it is; JPEG and
    /// WebP too.
    public var forMovingFrames: FrameEncoder {
        guard case .png(var encoder) = self, encoder.filter != .adaptive, encoder.deflate == .zlib else { return self }
        encoder.filter = .up
        encoder.deflate = .runsAndRows
        return .png(encoder)
    }

    /// `image` encoded; transparent pixels go over `matte` in JPEG, which has no alpha.
    public func encode(_ image: RGBAImage, matte: Color = .white) throws -> [UInt8] {
        var out: UnsafeMutablePointer<UInt8>? = nil
        var size = 0
        var message = [CChar](repeating: 0, count: 256)
        switch self {
        case .png(let encoder):
            return try encoder.encode(image)
        case .jpeg(let quality):
            let byte = { (v: Float) in UInt32(max(0, min(255, (v * 255).rounded()))) }
            let m = byte(matte.red) << 16 | byte(matte.green) << 8 | byte(matte.blue)
            let status = image.pixels.withUnsafeBufferPointer { p in
                molshot_jpeg_encode(p.baseAddress, Int32(image.width), Int32(image.height), image.width * 4, Int32(quality), m,
                                    &out, &size, &message, message.count)
            }
            guard status == 0, let out else { throw ImagingError(String(nulTerminated: message)) }
            defer { molshot_jpeg_free(out) }
            return Array(UnsafeBufferPointer(start: out, count: size))
        case .webp(let quality):
            let status = image.pixels.withUnsafeBufferPointer { p in
                molshot_webp_encode(p.baseAddress, Int32(image.width), Int32(image.height), image.width * 4, Int32(quality),
                                    image.isOpaque ? 0 : 1, &out, &size, &message, message.count)
            }
            guard status == 0, let out else { throw ImagingError(String(nulTerminated: message)) }
            defer { molshot_webp_free(out) }
            return Array(UnsafeBufferPointer(start: out, count: size))
        }
    }
}

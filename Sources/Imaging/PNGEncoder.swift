import CPNGWriter
import Core
import Foundation

/// PNG encoding with libpng, at a chosen zlib level and filter: fast for thumbnails, small for
/// archives (at libpng's defaults, encoding costs as much as drawing a 10k-atom frame).
public struct PNGEncoder: Sendable {
    public enum Filter: Sendable {
        case none, sub, up, adaptive
        var mask: Int32 {
            switch self {
            case .none: return Int32(MOLSHOT_PNG_FILTER_NONE)
            case .sub: return Int32(MOLSHOT_PNG_FILTER_SUB)
            case .up: return Int32(MOLSHOT_PNG_FILTER_UP)
            case .adaptive: return Int32(MOLSHOT_PNG_FILTER_ALL)
            }
        }
    }

    /// What compresses the filtered rows.
    public enum Deflate: Sendable {
        /// zlib at `level`; the picture's last strip (the whole of a thumbnail) through libdeflate
        /// at the same level, 2.5 times as fast at level 1 and about 1% smaller.
        case zlib
        /// Molshot's own (`Sources/CPNGWriter/fast_deflate.c`): matches one pixel back, one byte back
        /// and in the row above, no hash table, Huffman codes per block; `level` is not used. For
        /// flat pictures: a 2000 px map in 6 ms against zlib level 1's 11 ms, 9% larger; shaded
        /// molecules come out 15-40% larger than zlib's, so they keep zlib.
        case runsAndRows
    }

    public var level: Int
    public var filter: Filter
    public var deflate = Deflate.zlib
    /// Writes a picture with no transparent pixel as RGB (a quarter less to compress and store).
    /// Off where files must share one format whatever their content, as frames of an APNG do.
    public var dropsOpaqueAlpha = true

    /// Level 1 unfiltered: a millisecond a thumbnail, files within 20% of the smallest. Molecules
    /// as Molshot draws them (outlines, small shaded atoms, flat background) compress better
    /// unfiltered than through UP: the corpus's 144 thumbnails at 256 px deflate (libdeflate
    /// level 1) in 155 ms to 52.3 KB each unfiltered, 165 ms and 51.7 KB through UP (level 2 with
    /// UP, the choice before: 212 ms, 50.8 KB); twelve 1024 px pictures of four proteins in three
    /// modes 172 ms and 449 KB unfiltered, 176 ms and 466 KB through UP.
    public static let fast = PNGEncoder(level: 1, filter: .none)
    /// For pictures of flat colors (pathway maps, their tiles and frames): no filter, since runs of
    /// one color compress as they are and a filter breaks them at every edge, and the deflate of
    /// runs and rows. A 2000 px map: 6.1 ms and 396 KB, against 10.8 ms and 362 KB for zlib level 1
    /// unfiltered and 16.0 ms and 455 KB with UP (`.fast`).
    public static let flat = PNGEncoder(level: 1, filter: .none, deflate: .runsAndRows)
    public static let small = PNGEncoder(level: 9, filter: .adaptive)

    public init(level: Int, filter: Filter, deflate: Deflate = .zlib) {
        self.level = max(0, min(9, level))
        self.filter = filter
        self.deflate = deflate
    }

    public func encode(_ image: RGBAImage) throws -> [UInt8] {
        var out: UnsafeMutablePointer<UInt8>? = nil
        var size = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = image.pixels.withUnsafeBufferPointer { p in
            molshot_png_encode(p.baseAddress, Int32(image.width), Int32(image.height), image.width * 4, Int32(level),
                               filter.mask, dropsOpaqueAlpha && image.isOpaque ? 1 : 0, deflate == .runsAndRows ? 1 : 0, &out, &size, &message, message.count)
        }
        guard status == 0, let out else {
            throw ImagingError("PNG encoding failed: \(String(nulTerminated: message))")
        }
        defer { molshot_png_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: size))
    }

    /// Encodes and writes to `path` through a temporary file and a rename, so that a reader
    /// never sees half a PNG and an old file is only replaced by a whole new one.
    public func write(_ image: RGBAImage, to path: String) throws {
        try AtomicFile.write(try encode(image), to: path)
    }
}

/// Reads PNG files back into images (contact sheets, tests).
public enum PNGDecoder {
    public static func read(_ path: String) throws -> RGBAImage {
        var pixels: UnsafeMutablePointer<UInt8>? = nil
        var width: Int32 = 0, height: Int32 = 0
        var message = [CChar](repeating: 0, count: 256)
        guard molshot_png_decode_file(path, &pixels, &width, &height, &message, message.count) == 0, let pixels else {
            throw ImagingError("cannot read PNG \(path): \(String(nulTerminated: message))")
        }
        defer { molshot_png_free(pixels) }
        return RGBAImage(width: Int(width), height: Int(height),
                         pixels: Array(UnsafeBufferPointer(start: pixels, count: Int(width) * Int(height) * 4)))
    }
}

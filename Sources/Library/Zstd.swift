import CZstd

/// Whole-buffer zstd: what the library keeps its originals and compact models in.
enum Zstd {
    static func compress(_ input: [UInt8], level: Int32) -> [UInt8] {
        let bound = ZSTD_compressBound(input.count)
        var out = [UInt8](repeating: 0, count: bound)
        let n = out.withUnsafeMutableBytes { o in
            input.withUnsafeBytes { i in ZSTD_compress(o.baseAddress, bound, i.baseAddress, input.count, level) }
        }
        precondition(ZSTD_isError(n) == 0, "zstd: \(String(cString: ZSTD_getErrorName(n)))")
        out.removeSubrange(n...)
        return out
    }

    /// The frame's content, refused past `limit` bytes or where the frame does not state its size.
    static func decompress(_ input: [UInt8], limit: Int = 1 << 31) throws -> [UInt8] {
        let size = input.withUnsafeBytes { ZSTD_getFrameContentSize($0.baseAddress, input.count) }
        guard size != ZSTD_CONTENTSIZE_ERROR, size != ZSTD_CONTENTSIZE_UNKNOWN, size <= UInt64(limit) else {
            throw LibraryError(.machine, "a stored blob is not a zstd frame of known size")
        }
        var out = [UInt8](repeating: 0, count: Int(size))
        let n = out.withUnsafeMutableBytes { o in
            input.withUnsafeBytes { i in ZSTD_decompress(o.baseAddress, Int(size), i.baseAddress, input.count) }
        }
        guard ZSTD_isError(n) == 0, n == Int(size) else {
            throw LibraryError(.machine, "a stored blob does not decompress: \(String(cString: ZSTD_getErrorName(n)))")
        }
        return out
    }
}

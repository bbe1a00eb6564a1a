import CZlib
#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// Reads a whole file into memory, inflating gzip (recognized by its magic bytes, not its name)
/// and refusing to hold more than `limit` bytes either way.
public enum FileInput {
    public static let defaultLimit = 2 << 30

    /// The file's bytes, inflated if it is gzip.
    public static func read(path: String, limit: Int = defaultLimit) throws -> [UInt8] {
        let raw = try readAll(path: path, limit: limit)
        if raw.count >= 2 && raw[0] == 0x1F && raw[1] == 0x8B {
            return try inflate(raw, source: path, limit: limit)
        }
        return raw
    }

    static func readAll(path: String, limit: Int) throws -> [UInt8] {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else {
            throw StructureError(file: path, line: nil, message: "cannot open: \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw StructureError(file: path, line: nil, message: "cannot read: \(String(cString: strerror(errno)))")
        }
        guard (info.st_mode & S_IFMT) != S_IFDIR else {
            throw StructureError(file: path, line: nil, message: "is a directory")
        }
        let size = Int(info.st_size)
        guard size <= limit else {
            throw StructureError(file: path, line: nil, message: "is \(size) bytes, over the limit of \(limit)")
        }
        var bytes = [UInt8](repeating: 0, count: size)
        var total = 0
        let failure: Int32? = bytes.withUnsafeMutableBytes { buffer in
            while total < size {
                let n = Glibc.read(fd, buffer.baseAddress! + total, size - total)
                if n < 0 { if errno == EINTR { continue }; return errno }
                if n == 0 { break }
                total += n
            }
            return nil
        }
        if let failure {
            throw StructureError(file: path, line: nil, message: "cannot read: \(String(cString: strerror(failure)))")
        }
        if total < size { bytes.removeLast(size - total) }
        return bytes
    }

    /// Inflates gzip data, every member of a multi-member file, up to `limit` bytes.
    public static func inflate(_ input: [UInt8], source: String, limit: Int = defaultLimit) throws -> [UInt8] {
        var output = [UInt8]()
        output.reserveCapacity(min(limit, max(input.count * 4, 1 << 16)))
        var stream = z_stream()
        // 15 window bits + 16: gzip wrapper only.
        guard inflateInit2_(&stream, 15 + 16, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw StructureError(file: source, line: nil, message: "cannot start gzip decoder")
        }
        defer { inflateEnd(&stream) }
        let chunk = 1 << 18
        var buffer = [UInt8](repeating: 0, count: chunk)
        try input.withUnsafeBufferPointer { inBuf in
            stream.next_in = UnsafeMutablePointer(mutating: inBuf.baseAddress)
            stream.avail_in = UInt32(inBuf.count)
            while true {
                let status: Int32 = buffer.withUnsafeMutableBufferPointer { out in
                    stream.next_out = out.baseAddress
                    stream.avail_out = UInt32(chunk)
                    return CZlib.inflate(&stream, Z_NO_FLUSH)
                }
                let produced = chunk - Int(stream.avail_out)
                if output.count + produced > limit {
                    throw StructureError(file: source, line: nil, message: "inflates past the limit of \(limit) bytes (see --max-bytes)")
                }
                output.append(contentsOf: buffer[0..<produced])
                switch status {
                case Z_STREAM_END:
                    // Another gzip member may follow (concatenated files, bgzip).
                    if stream.avail_in >= 2 && stream.next_in[0] == 0x1F && stream.next_in[1] == 0x8B {
                        inflateReset(&stream)
                        continue
                    }
                    return
                case Z_OK:
                    continue
                case Z_BUF_ERROR:
                    if stream.avail_in == 0 {
                        throw StructureError(file: source, line: nil, message: "gzip data is truncated (ends after \(output.count) inflated bytes)")
                    }
                    continue
                default:
                    let reason = stream.msg.map { String(cString: $0) } ?? "error \(status)"
                    throw StructureError(file: source, line: nil, message: "gzip data is corrupt: \(reason)")
                }
            }
        }
        return output
    }
}

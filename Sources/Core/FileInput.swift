import CLibDeflate
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

    /// The setting that bounds what a file may inflate to, as the limit's message names it: the
    /// command line's `--max-bytes`, unless the process's front end says otherwise once at its
    /// start (the service, and its render processes: `--max-body`, eight times over).
    public static let limitSetting = Locked("--max-bytes")

    /// The file's bytes, inflated if it is gzip.
    public static func read(path: String, limit: Int = defaultLimit) throws -> [UInt8] {
        try inflatedIfGzip(try readAll(path: path, limit: limit), source: path, limit: limit)
    }

    /// Whether `bytes` start as gzip does (its magic bytes; names do not count).
    public static func isGzip(_ bytes: [UInt8]) -> Bool { bytes.count >= 2 && bytes[0] == 0x1F && bytes[1] == 0x8B }

    /// `bytes` inflated if they are gzip, else as they are; `source` names them in errors.
    public static func inflatedIfGzip(_ bytes: [UInt8], source: String, limit: Int = defaultLimit) throws -> [UInt8] {
        isGzip(bytes) ? try inflate(bytes, source: source, limit: limit) : bytes
    }

    /// The file's bytes as they are on disk, refusing more than `limit`.
    public static func readAll(path: String, limit: Int = defaultLimit) throws -> [UInt8] {
        BlockingCheck.blocking("FileInput.readAll(\(path))")
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else {
            throw InputFileError(file: path, message: "cannot open: \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw InputFileError(file: path, message: "cannot read: \(String(cString: strerror(errno)))")
        }
        guard (info.st_mode & S_IFMT) != S_IFDIR else {
            throw InputFileError(file: path, message: "is a directory")
        }
        let size = Int(info.st_size)
        guard size <= limit else {
            throw InputFileError(file: path, message: "is \(size) bytes, over the limit of \(limit)")
        }
        var failure: Int32? = nil
        // Not zero-filled first: read() writes every byte that is kept.
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            var total = 0
            while total < size {
                let n = Glibc.read(fd, buffer.baseAddress! + total, size - total)
                if n < 0 { if errno == EINTR { continue }; failure = errno; break }
                if n == 0 { break }
                total += n
            }
            count = total
        }
        if let failure {
            throw InputFileError(file: path, message: "cannot read: \(String(cString: strerror(failure)))")
        }
        return bytes
    }

    /// Inflates gzip data, every member of a multi-member file, up to `limit` bytes.
    public static func inflate(_ input: [UInt8], source: String, limit: Int = defaultLimit) throws -> [UInt8] {
        if let whole = inflateOneMember(input, limit: limit) { return whole }
        var capacity = min(max(1 << 16, gzipSizeHint(input) + 1), limit + 1)
        return try input.withUnsafeBufferPointer { inBuf in
            let gzip = try GzipStream(inBuf, source: source)
            defer { gzip.end() }
            // Straight into the array, sized by the trailer (right nearly always: no copy); where
            // more comes (several members), into one twice as large with what came so far.
            var result: [UInt8] = [], produced = 0, finished = false
            repeat {
                let sofar = result
                result = try [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
                    if produced > 0 { sofar.withUnsafeBufferPointer { buffer.baseAddress!.update(from: $0.baseAddress!, count: produced) } }
                    defer { count = produced }
                    finished = try gzip.inflate(into: buffer.baseAddress!, capacity: capacity, produced: &produced, limit: limit)
                }
                capacity = min(capacity * 2, limit + 1)
            } while !finished
            return result
        }
    }

    /// One gzip member inflated at once by libdeflate into an array of the size its trailer states,
    /// where that is all the input and its size is right (nearly every .gz): faster than zlib's
    /// stream (the corpus's four .cif.gz files, 2.0 MB, read and parsed in 34 ms against 44). Nil
    /// otherwise (several members, a size past 4 GB or the limit, damage), for zlib's stream,
    /// which reads every member and says what is wrong.
    static func inflateOneMember(_ input: [UInt8], limit: Int) -> [UInt8]? {
        let size = gzipSizeHint(input)
        guard size > 0, size <= limit, let decompressor = libdeflate_alloc_decompressor() else { return nil }
        defer { libdeflate_free_decompressor(decompressor) }
        var whole = false
        let out = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            var used = 0, produced = 0
            let status = input.withUnsafeBufferPointer {
                libdeflate_gzip_decompress_ex(decompressor, $0.baseAddress, $0.count, buffer.baseAddress, size, &used, &produced)
            }
            whole = status == LIBDEFLATE_SUCCESS && used == input.count && produced == size
            count = whole ? produced : 0
        }
        return whole ? out : nil
    }

    /// The inflated size the gzip trailer states (of the last member, mod 2^32): a first guess,
    /// and 0 (none) where it is more than deflate can make of the input (1032 bytes out for each
    /// byte in at the most): 200 bytes of noise after a gzip header stated half a gigabyte, which
    /// was allocated before a byte was inflated.
    public static func gzipSizeHint(_ input: [UInt8]) -> Int {
        let n = input.count
        guard n >= 18 else { return 0 }
        let stated = Int(input[n - 4]) | Int(input[n - 3]) << 8 | Int(input[n - 2]) << 16 | Int(input[n - 1]) << 24
        return stated <= n * maximumDeflateRatio ? stated : 0
    }

    /// The most bytes deflate's format makes of one byte (RFC 1951: a 258-byte match in a code of
    /// 1 bit, with its distance's code, two bits, about 1032 to 1).
    public static let maximumDeflateRatio = 1032
}

/// A zlib inflate stream over gzip input. zlib keeps a pointer to its `z_stream`, so the
/// stream lives at a fixed heap address, never in a Swift value that may move.
public struct GzipStream {
    private let stream: UnsafeMutablePointer<z_stream>
    public let source: String

    public init(_ input: UnsafeBufferPointer<UInt8>, source: String) throws {
        self.source = source
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        // 15 window bits + 16: gzip wrapper only.
        guard inflateInit2_(stream, 15 + 16, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            stream.deallocate()
            throw InputFileError(file: source, message: "cannot start gzip decoder")
        }
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
        stream.pointee.avail_in = UInt32(clamping: input.count)
    }

    public func end() {
        inflateEnd(stream)
        stream.deallocate()
    }

    /// Inflates into `buffer` after `produced` bytes.
    /// True when all input is inflated; false when the buffer is full first.
    public func inflate(into buffer: UnsafeMutablePointer<UInt8>, capacity: Int, produced: inout Int, limit: Int) throws -> Bool {
        let piece = 1 << 16
        while true {
            if produced > limit {
                throw InputFileError(file: source, message: "inflates past the limit of \(limit) bytes (see \(FileInput.limitSetting.withLock { $0 }))")
            }
            if produced == capacity { return false }
            let room = min(capacity - produced, piece)
            stream.pointee.next_out = buffer + produced
            stream.pointee.avail_out = UInt32(room)
            let status = CZlib.inflate(stream, Z_NO_FLUSH)
            produced += room - Int(stream.pointee.avail_out)
            if produced > limit {
                throw InputFileError(file: source, message: "inflates past the limit of \(limit) bytes (see \(FileInput.limitSetting.withLock { $0 }))")
            }
            switch status {
            case Z_STREAM_END:
                // Another gzip member may follow (concatenated files, bgzip).
                if stream.pointee.avail_in >= 2 && stream.pointee.next_in[0] == 0x1F && stream.pointee.next_in[1] == 0x8B {
                    inflateReset(stream)
                    continue
                }
                return true
            case Z_OK:
                continue
            case Z_BUF_ERROR:
                if stream.pointee.avail_in == 0 {
                    throw InputFileError(file: source, message: "gzip data is truncated (ends after \(produced) inflated bytes)")
                }
                continue
            default:
                let reason = stream.pointee.msg.map { String(cString: $0) } ?? "error \(status)"
                throw InputFileError(file: source, message: "gzip data is corrupt: \(reason)")
            }
        }
    }
}

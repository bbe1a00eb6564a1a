import Foundation

/// Writes a file whole or not at all: to a temporary name beside it, then a rename, so that a
/// reader (or a run killed halfway) never finds half a file under the final name.
public enum AtomicFile {
    /// Temporary files carry this marker; `removeLeftovers` clears those a killed run left.
    public static let marker = ".partial-"

    public static func write(_ bytes: [UInt8], to path: String) throws {
        // Bytes held whole already: no large buffer to copy them through (they go straight to the file).
        try write(to: path, bufferBytes: 0) { try $0.write(bytes) }
    }

    /// Writes a file whole or not at all as `body` streams it (through a buffer of `bufferBytes`, 4 KiB at least),
    /// so a file larger than memory would hold twice is never held whole.
    public static func write(to path: String, bufferBytes: Int = 1 << 20, _ body: (Stream) throws -> Void) throws {
        BlockingCheck.blocking("AtomicFile.write(\(path))")
        let url = URL(fileURLWithPath: path)
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent("." + url.lastPathComponent + marker + String(getpid()) + "-" + UUID().uuidString.prefix(8))
        let fd = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw failure(path, errno) }
        let stream = Stream(fd: fd, path: path, capacity: bufferBytes)
        do {
            try body(stream)
            try stream.flush()
        } catch {
            close(fd)
            unlink(temporary.path)
            throw error
        }
        close(fd)
        guard rename(temporary.path, path) == 0 else {
            let code = errno
            unlink(temporary.path)
            throw failure(path, code)
        }
    }

    /// Bytes on their way into a file `write(to:_:)` is making.
    public final class Stream {
        let fd: Int32
        let path: String
        private var buffer: [UInt8] = []
        private let capacity: Int

        init(fd: Int32, path: String, capacity: Int) {
            self.fd = fd
            self.path = path
            self.capacity = max(4096, capacity)
            buffer.reserveCapacity(self.capacity)
        }

        public func write(_ bytes: UnsafeRawBufferPointer) throws {
            if buffer.count + bytes.count > capacity { try flush() }
            if bytes.count >= capacity {
                try put(bytes)
            } else {
                buffer.append(contentsOf: bytes)
            }
        }

        public func write(_ bytes: [UInt8]) throws {
            try bytes.withUnsafeBytes { try write($0) }
        }

        /// The values' bytes as they lie in memory.
        public func write<T: BitwiseCopyable>(values: [T]) throws {
            try values.withUnsafeBytes { try write($0) }
        }

        func flush() throws {
            guard !buffer.isEmpty else { return }
            try buffer.withUnsafeBytes { try put($0) }
            buffer.removeAll(keepingCapacity: true)
        }

        private func put(_ bytes: UnsafeRawBufferPointer) throws {
            var written = 0
            while written < bytes.count {
                let n = Glibc.write(fd, bytes.baseAddress! + written, bytes.count - written)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { throw AtomicFile.failure(path, errno) }
                written += n
            }
        }
    }

    /// A path the user can fix (missing folder, no permission, a folder in the way) is the
    /// request's fault; anything else (a full disk) the machine's.
    static func failure(_ path: String, _ code: Int32) -> Error {
        let reason = String(cString: strerror(code))
        switch code {
        case ENOENT, ENOTDIR, EISDIR, EACCES, EPERM, EROFS, EBUSY, ENAMETOOLONG:
            return RequestError(field: "output", "\(path): cannot write there: \(reason)")
        default:
            return IOFailure("cannot write \(path): \(reason)")
        }
    }

    /// Removes temporary files a killed writer left in `directory`.
    public static func removeLeftovers(in directory: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for name in names where name.hasPrefix(".") && name.contains(marker) {
            unlink((directory as NSString).appendingPathComponent(name))
        }
    }
}

/// A file the machine could not read or write (a full disk, an I/O error): not the request's fault.
public struct IOFailure: Fault, Sendable, Equatable {
    public var kind: FaultKind { .machine }
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

import CISAL
import Foundation

/// A gzip file inflated on a thread of its own into a buffer of the size its trailer states,
/// while readers read what has come so far: the inflating and the reading overlap on two cores,
/// where inflating it whole first left the second core waiting (ISA-L's inflater streams in
/// pieces at the speed libdeflate inflates whole, and zlib's is 2.5 times slower).
///
/// Readers read only bytes below what `wait(beyond:)` returned. The owner calls `finish()`
/// before it lets go of the buffer; only where that says the file came out whole (one gzip
/// member, its checksum and stated size right, no bytes after it) is what was read from it
/// the file's: otherwise the owner reads the file again the way that names what is wrong.
///
/// Sendable without the checker's proof for its buffer: the inflating thread writes only bytes
/// past those it has made known through `progress`, and readers read only bytes before, so no
/// byte is written and read at once (the monitor's lock orders the writes before the reads).
public final class InflatingBytes: @unchecked Sendable {
    /// The buffer, of the size the trailer states; bytes below `wait(beyond:)`'s answer are the file's.
    public let bytes: UnsafeBufferPointer<UInt8>
    private let storage: UnsafeMutableBufferPointer<UInt8>
    private let input: [UInt8]
    private struct Progress {
        var ready = 0
        var ended = false
        var whole = false
    }
    private let progress = Monitor(Progress())

    /// Bytes inflated a step: readers see each step's bytes as soon as it ends.
    static let step = 128 * 1024

    /// Starts inflating `input` where it is gzip and its trailer states a size of at least
    /// `minimum` and at most `limit` bytes (and no more than deflate can make of the input), on
    /// a machine of two cores or more; nil otherwise.
    public static func start(_ input: [UInt8], minimum: Int, limit: Int) -> InflatingBytes? {
        guard FileInput.isGzip(input), Cores.active >= 2 else { return nil }
        let size = FileInput.gzipSizeHint(input)
        guard size > 0, size >= minimum, size <= limit, size < Int(UInt32.max) else { return nil }
        return InflatingBytes(input, size: size)
    }

    private init(_ input: [UInt8], size: Int) {
        self.input = input
        storage = .allocate(capacity: size)
        bytes = UnsafeBufferPointer(storage)
        BlockingPool.dedicated(name: "molshot-gunzip") { [self] in inflate() }
    }

    deinit { storage.deallocate() }

    /// How many bytes are ready once more than `count` are, or once the inflating has ended
    /// (then no more will come: the same `count` where it ended there).
    public func wait(beyond count: Int) -> Int {
        progress.wait(until: { $0.ready > count || $0.ended }) { $0.ready }
    }

    /// How many bytes are ready once at least `count` are (or the inflating has ended).
    public func wait(atLeast count: Int) -> Int {
        var have = 0
        while have < count {
            let now = wait(beyond: have)
            if now == have { break }
            have = now
        }
        return have
    }

    /// Waits until the inflating has ended; true where the file came out whole: one member, its
    /// CRC-32 and stated size right, every byte of the input used.
    public func finish() -> Bool {
        progress.wait(until: \.ended) { $0.whole }
    }

    /// The inflating thread: a step at a time into the buffer, each step's end made known.
    private func inflate() {
        let state = UnsafeMutablePointer<inflate_state>.allocate(capacity: 1)
        defer { state.deallocate() }
        // Zeroed before ISA-L's init, which sets only the fields it knows of.
        UnsafeMutableRawPointer(state).initializeMemory(as: UInt8.self, repeating: 0, count: MemoryLayout<inflate_state>.size)
        var complete = false
        input.withUnsafeBufferPointer { source in
            isal_inflate_init(state)
            // The gzip wrapper read and checked by ISA-L: header, then the trailer's CRC-32 and size.
            state.pointee.crc_flag = UInt32(ISAL_GZIP)
            state.pointee.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
            state.pointee.avail_in = UInt32(source.count)
            let size = storage.count
            var produced = 0
            while true {
                let room = min(Self.step, size - produced)
                let before = (Int(state.pointee.avail_in), produced)
                state.pointee.next_out = storage.baseAddress! + produced
                state.pointee.avail_out = UInt32(room)
                let status = isal_inflate(state)
                molshot_isal_clear_upper()
                produced = Int(state.pointee.total_out)
                progress.update { $0.ready = max($0.ready, produced) }
                guard status == ISAL_DECOMP_OK || status == ISAL_OUT_OVERFLOW || status == ISAL_END_INPUT else { break }
                if state.pointee.block_state == ISAL_BLOCK_FINISH {
                    complete = produced == size && state.pointee.avail_in == 0
                    break
                }
                // No progress: the input ended before the member did, or it holds more than stated.
                if (Int(state.pointee.avail_in), produced) == before { break }
            }
        }
        progress.update {
            $0.ended = true
            $0.whole = complete
        }
    }
}

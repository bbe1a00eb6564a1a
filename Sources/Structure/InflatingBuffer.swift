import Core
import Foundation

/// Gzip inflated on a thread of its own while a line-based reader consumes the lines already
/// there: on two cores, inflating and parsing a large .pdb.gz overlap instead of adding up.
/// The buffer is sized from the gzip trailer and never moves; if the data turns out larger
/// (several members), `overflowed` is set and the caller reads the file the ordinary way.
///
/// Sendable without the checker's proof: the inflating thread writes only bytes past `available`
/// and publishes each step under `condition`; readers read only bytes before the `available` they
/// were given under it, and `failure`, `overflowed` once `done` is set.
final class InflatingBuffer: @unchecked Sendable {
    let base: UnsafeMutablePointer<UInt8>
    let capacity: Int
    private let condition = NSCondition()
    private var available = 0
    private var done = false
    private(set) var failure: StructureError?
    private(set) var overflowed = false

    init(compressed: [UInt8], source: String, limit: Int) {
        capacity = max(1, min(FileInput.gzipSizeHint(compressed), limit))
        base = .allocate(capacity: capacity)
        BlockingPool.dedicated(name: "molshot-inflate") { [self] in
            compressed.withUnsafeBufferPointer { input in
                var produced = 0
                do {
                    let gzip = try GzipStream(input, source: source)
                    defer { gzip.end() }
                    let complete = try gzip.inflate(into: base, capacity: capacity, produced: &produced, limit: limit) { n in
                        condition.lock()
                        available = n
                        condition.broadcast()
                        condition.unlock()
                    }
                    if !complete { overflowed = true }
                } catch let error as InputFileError {
                    failure = StructureError(error)
                } catch {
                    failure = StructureError(file: source, line: nil, message: "\(error)")
                }
            }
            condition.lock()
            done = true
            condition.broadcast()
            condition.unlock()
        }
    }

    deinit { base.deallocate() }

    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: capacity) }

    /// Waits until more than `count` bytes are inflated or inflating has stopped; returns how many there are.
    func wait(beyond count: Int) -> Int {
        condition.lock()
        defer { condition.unlock() }
        while available <= count && !done { condition.wait() }
        return available
    }

    /// Waits for the inflating thread to finish.
    func finish() {
        condition.lock()
        while !done { condition.wait() }
        condition.unlock()
    }
}

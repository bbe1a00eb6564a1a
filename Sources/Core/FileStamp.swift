import Foundation

/// What tells a file's change without reading it: its inode, size and modification time (an edit
/// in place and a file renamed over it both change it).
public struct FileStamp: Equatable, Sendable {
    public var inode: UInt64 = 0, size: Int64 = -1, seconds = 0, nanoseconds = 0

    public init(_ path: String) {
        var st = stat()
        guard stat(path, &st) == 0 else { return }
        inode = UInt64(st.st_ino)
        size = Int64(st.st_size)
        seconds = st.st_mtim.tv_sec
        nanoseconds = st.st_mtim.tv_nsec
    }
}

/// Follows a file another process edits or replaces (a tokens file, a ticket key): looks at it
/// every `interval` seconds on a thread of its own and calls `changed` with `target` when its
/// stamp changes. Holds `target` weakly: the watching ends when nothing else holds it, or when
/// `stopped` is set.
public enum FileFollower {
    public static func follow<T: AnyObject & Sendable>(_ path: String, every interval: Double, name: String, holding target: T,
                                                       until stopped: Locked<Bool>, changed: @escaping @Sendable (T) -> Void) {
        let weak = WeakBox(target), seen = FileStamp(path)
        BlockingPool.dedicated(name: name) {
            var stamp = seen
            while let held = weak.value, !stopped.withLock({ $0 }) {
                usleep(UInt32(interval * 1e6))
                guard !stopped.withLock({ $0 }) else { break }
                let now = FileStamp(path)
                guard now != stamp else { continue }
                stamp = now
                changed(held)
            }
        }
    }
}

/// A weak reference that can cross to a watcher's thread (the referent is itself Sendable).
final class WeakBox<T: AnyObject & Sendable>: Sendable {
    private let box: Locked<Weak>
    private struct Weak: Sendable {
        // A weak reference to a Sendable referent: Sendable as it is; the lock guards the slot.
        weak var value: T?
    }
    init(_ value: T) { box = Locked(Weak(value: value)) }
    var value: T? { box.withLock { $0.value } }
}

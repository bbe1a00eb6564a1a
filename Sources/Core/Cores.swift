import Foundation

/// The cores this process may use, read once.
///
/// Foundation's `activeProcessorCount` opens and reads two cgroup files on every call (cpu quota
/// and cpuset): about 10 µs, which was a third of loading a small PDB file and was paid again for
/// every picture and every live frame that asked. Every part of the program asks here instead.
public enum Cores {
    public static let active: Int = max(1, ProcessInfo.processInfo.activeProcessorCount)
}

import Foundation

/// Where a command's time goes: with `MOLSHOT_TRACE` on (`1`; `0` is off), each `trace` prints a line to standard
/// error with the monotonic clock in milliseconds (`TRACE 812345.6 load done`), so that a
/// harness that notes the clock before starting the process sees every stage from the start.
public enum StageTrace {
    public static let enabled = EnvironmentVariable.trace.isOn(default: false)
}

public func trace(_ stage: @autoclosure () -> String) {
    guard StageTrace.enabled else { return }
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    let ms = Double(now.tv_sec % 1_000_000) * 1000 + Double(now.tv_nsec) / 1e6
    FileHandle.standardError.write(Data("TRACE \(String(format: "%.1f", ms)) \(stage())\n".utf8))
}

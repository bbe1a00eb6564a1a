import Foundation

/// The molshot executable the tests run as a user would: the one `MOLSHOT_TEST_BINARY` names where
/// the run sets it (`Tests/all` names the release build, the binary users install, which also runs
/// the command-line suites in a third of the time), else the debug build beside the test runner.
public enum TestBinary {
    public static let molshot: URL = {
        if let named = ProcessInfo.processInfo.environment["MOLSHOT_TEST_BINARY"], !named.isEmpty {
            return URL(fileURLWithPath: named)
        }
        let runner = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: runner).deletingLastPathComponent().appendingPathComponent("molshot")
    }()
}

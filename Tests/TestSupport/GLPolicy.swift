import Foundation
import Graphics
import XCTest

/// The one rule for tests that need an OpenGL context (every suite that draws uses it):
/// where no context can be made, the test fails with the reason, unless the run says
/// `MOLSHOT_ALLOW_NO_GL=1`; then it is skipped, and the run ends by saying loudly how many were.
/// A green run that drew nothing is what this prevents: the README's test command needs no
/// setting to require GL.
public enum GLPolicy {
    public static var allowsNoGL: Bool { ProcessInfo.processInfo.environment["MOLSHOT_ALLOW_NO_GL"] == "1" }

    /// `make`'s value; its error where it cannot be made (a skip only where allowed).
    public static func need<T>(_ make: () throws -> T) throws -> T {
        do { return try make() } catch { throw refusal(error) }
    }

    /// What a test that needs GL throws for `error`: the error itself, or a counted skip.
    public static func refusal(_ error: Error) -> Error {
        guard allowsNoGL else { return error }
        SkippedForGL.shared.add()
        return XCTSkip("no OpenGL context (MOLSHOT_ALLOW_NO_GL=1): \(error)")
    }
}

/// Counts the tests skipped for want of GL and says so when the test bundle finishes.
private final class SkippedForGL: NSObject, XCTestObservation, @unchecked Sendable {
    // Tests only: XCTest calls observers on its one thread; the count is behind a lock.
    static let shared = SkippedForGL()
    private let lock = NSLock()
    private var count = 0
    private var registered = false

    func add() {
        let register = lock.withLock { () -> Bool in
            count += 1
            defer { registered = true }
            return !registered
        }
        if register { XCTestObservationCenter.shared.addTestObserver(self) }
    }

    func testBundleDidFinish(_ testBundle: Bundle) {
        let n = lock.withLock { count }
        let line = String(repeating: "*", count: 72)
        FileHandle.standardError.write(Data("\(line)\n*** \(n) test(s) SKIPPED: no OpenGL context could be made (MOLSHOT_ALLOW_NO_GL=1).\n*** Nothing was drawn in them: this run does not show that Molshot draws.\n\(line)\n".utf8))
    }
}

extension GLPolicy {
    /// Whether this process can make an OpenGL context (tried once, on the backend `MOLSHOT_GL`
    /// names, which the molshot processes the tests start take too): nil, or why not.
    static let unavailable: String? = {
        do {
            _ = try GraphicsDevice()
            return nil
        } catch {
            return "\(error)"
        }
    }()

    /// For a test that draws (in this process or in a molshot process it starts): nothing where
    /// a context can be made; else the failure, or a counted skip under `MOLSHOT_ALLOW_NO_GL=1`.
    public static func check() throws {
        if let reason = unavailable { throw refusal(GLUnavailable(reason: reason)) }
    }
}

struct GLUnavailable: Error, CustomStringConvertible {
    var reason: String
    var description: String { "no OpenGL context can be made here: \(reason)" }
}

/// A test case whose tests draw: each starts with `GLPolicy.check()`.
open class GLTestCase: XCTestCase {
    override open func setUpWithError() throws {
        try super.setUpWithError()
        try GLPolicy.check()
    }
}

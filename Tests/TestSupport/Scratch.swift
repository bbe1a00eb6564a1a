import Foundation
import XCTest

/// A folder of its own for one test (under the temporary folder, named by `prefix` and a UUID),
/// removed when the test ends.
public enum Scratch {
    public static func folder(for test: XCTestCase, prefix: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        test.addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }
}

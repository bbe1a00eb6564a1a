import Core
import Foundation
import XCTest

/// The core count every part of the program asks for is the system's.
final class CoresTests: XCTestCase {
    func testActiveIsWhatTheSystemSays() {
        // A first version read itself in its own initializer, got 1, and ran every command on one core.
        XCTAssertEqual(Cores.active, max(1, ProcessInfo.processInfo.activeProcessorCount))
        XCTAssertEqual(Cores.active, Cores.active)
    }
}

import Core
import Foundation
@testable import Service
import XCTest

/// The request log: gathered, written together, and bounded when nobody reads it.
final class LogWriterTests: XCTestCase {
    func testLinesPastTheLimitAreDroppedAndCounted() {
        let written = Locked<[String]>([])
        let log = LogWriter(batch: 64, limit: 100, sink: { data in written.withLock { $0.append(String(decoding: data, as: UTF8.self)) } }, flushing: false)
        for i in 0..<10 { log.write("GET /v1/thumbnails/\(i).png 200 5277 0.1ms\n") }
        XCTAssertEqual(written.withLock { $0 }, [], "nothing is written where the line is made")
        log.flush()
        let lines = written.withLock { $0 }.joined().split(separator: "\n")
        XCTAssertEqual(lines.count, 3, "\(lines)")
        XCTAssertEqual(lines.first, "GET /v1/thumbnails/0.png 200 5277 0.1ms")
        XCTAssertEqual(lines.last, "error: 8 log lines dropped: standard error was not read")
        // Emptied: the next lines are kept again, and nothing more is counted as dropped.
        log.write("GET /healthz 200 3 0.1ms\n")
        log.flush()
        XCTAssertEqual(written.withLock { $0 }.last, "GET /healthz 200 3 0.1ms\n")
    }

    func testAFlushingWriterWritesWithinAFewTenthsOfASecond() {
        let written = Locked<String>("")
        let log = LogWriter(sink: { data in written.withLock { $0 += String(decoding: data, as: UTF8.self) } }, flushing: true)
        log.write("GET /healthz 200 3 0.1ms\n")
        let deadline = Date().addingTimeInterval(5)
        while written.withLock({ $0.isEmpty }) && Date() < deadline { usleep(10_000) }
        XCTAssertEqual(written.withLock { $0 }, "GET /healthz 200 3 0.1ms\n")
    }
}

import Foundation
@testable import Service
import XCTest

/// The thumbnails a server keeps in memory: bounded in bytes, the least recently read going first.
final class ThumbnailStoreTests: XCTestCase {
    func testTheLeastRecentlyReadGoFirstOnceTheMemoryIsFull() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("molshot-thumbstore-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for name in ["a", "b", "c"] {
            try Data(repeating: UInt8(ascii: name.unicodeScalars.first!), count: 1000).write(to: folder.appendingPathComponent("\(name).png"))
        }
        // Room for two files of 1,000 bytes, not three.
        let store = ThumbnailStore(folder: folder.path, memory: 2500)
        _ = try await store.file("a.png")
        _ = try await store.file("b.png")
        XCTAssertNotNil(store.kept("a.png"), "a read again: b is now the least recently read")
        let read = try await store.file("c.png")
        let c = try XCTUnwrap(read)
        XCTAssertEqual(Array(c.bytes.readableBytesView), [UInt8](repeating: UInt8(ascii: "c"), count: 1000))
        XCTAssertNil(store.kept("b.png"), "b went to make room")
        XCTAssertNotNil(store.kept("a.png"))
        XCTAssertNotNil(store.kept("c.png"))
        XCTAssertEqual(c.headers[.eTag], c.etag)
        XCTAssertEqual(c.whole[.contentType], "image/png")
        let none = try await store.file("missing.png")
        XCTAssertNil(none)
    }
}

import Core
import Foundation
import TestSupport
import XCTest

/// gzip inflated on a thread of its own while it is read: the bytes that come are the file's, and
/// the file counts as whole only where it is one member with its checksum and size right.
final class InflatingBytesTests: XCTestCase {
    /// Text of `count` bytes that deflate does not shrink to nothing (several steps of output).
    private func text(_ count: Int) -> [UInt8] {
        var state: UInt32 = 12345
        return (0..<count).map { i in
            state = state &* 1_103_515_245 &+ 12345
            return i % 81 == 80 ? 0x0A : 0x20 + UInt8((state >> 16) % 60)
        }
    }

    /// All of it, read as it came: each answer of `wait(beyond:)` larger, the bytes the same.
    private func readAll(_ filling: InflatingBytes) -> [UInt8] {
        var have = 0, answers = 0
        while true {
            let now = filling.wait(beyond: have)
            if now == have { break }
            XCTAssertGreaterThan(now, have)
            have = now
            answers += 1
        }
        return Array(filling.bytes[0..<have])
    }

    func testTheBytesAreTheFilesAsTheyCome() throws {
        guard Cores.active >= 2 else { throw XCTSkip("one core: files are inflated whole") }
        let plain = text(1_000_000)
        let filling = try XCTUnwrap(InflatingBytes.start(try Gzip.compress(plain), minimum: 1, limit: 1 << 30))
        XCTAssertEqual(filling.bytes.count, plain.count)
        XCTAssertTrue(readAll(filling) == plain, "the bytes as gzip -d gives them")
        XCTAssertTrue(filling.finish())
        XCTAssertEqual(filling.wait(atLeast: plain.count), plain.count)
    }

    func testOnlyAWholeSingleMemberCounts() throws {
        guard Cores.active >= 2 else { throw XCTSkip("one core: files are inflated whole") }
        let plain = text(400_000)
        let good = try Gzip.compress(plain)
        func whole(_ bytes: [UInt8]) -> Bool? {
            guard let filling = InflatingBytes.start(bytes, minimum: 1, limit: 1 << 30) else { return nil }
            // Read to where it ended (damage inflates to wrong bytes before it is found: only a
            // whole file's bytes are used).
            _ = readAll(filling)
            return filling.finish()
        }
        XCTAssertEqual(whole(good), true)
        var crc = good
        crc[crc.count - 6] ^= 1
        XCTAssertEqual(whole(crc), false, "a wrong CRC-32")
        XCTAssertEqual(whole(Array(good.dropLast(200)) + Array(good.suffix(4))), false, "cut short, the trailer's size kept")
        var middle = good
        for k in (good.count / 2)..<(good.count / 2 + 20) { middle[k] ^= 0x5A }
        XCTAssertEqual(whole(middle), false, "damage mid-stream")
        let tail = try Gzip.compress(Array("tail\n".utf8))
        var twoMembers = good + tail
        // The last trailer's size made the first's, so that the buffer is the first member's size.
        twoMembers.replaceSubrange((twoMembers.count - 4)..., with: good.suffix(4))
        XCTAssertEqual(whole(twoMembers), false, "a second member")
        var larger = good
        larger[larger.count - 4] &+= 1
        XCTAssertEqual(whole(larger), false, "a trailer stating one byte more")
        var smaller = good
        smaller[smaller.count - 4] &-= 1
        XCTAssertEqual(whole(smaller), false, "a trailer stating one byte less")
    }

    func testWhatIsNotStartedIsLeftToTheWholeInflating() throws {
        let good = try Gzip.compress(text(10_000))
        XCTAssertNil(InflatingBytes.start(Array("plain text".utf8), minimum: 1, limit: 1 << 30), "not gzip")
        XCTAssertNil(InflatingBytes.start(good, minimum: 20_000, limit: 1 << 30), "smaller than the minimum")
        XCTAssertNil(InflatingBytes.start(good, minimum: 1, limit: 5_000), "over the limit: nothing allocated")
        // A trailer stating more than deflate can make of the input (noise after a gzip header).
        let noise: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3] + [UInt8](repeating: 7, count: 20) + [0xFF, 0xFF, 0xFF, 0x7F]
        XCTAssertNil(InflatingBytes.start(noise, minimum: 1, limit: 1 << 30))
    }
}

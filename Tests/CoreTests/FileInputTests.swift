import Core
import Foundation
import TestSupport
import XCTest

/// gzip input inflated whole: into one array where the trailer states its size, grown where it
/// does not (several members, whose last trailer gives only the last one's size).
final class FileInputTests: XCTestCase {
    private func gzip(_ text: Data) throws -> [UInt8] { try Gzip.compress([UInt8](text)) }

    func testAMemberInflatesToWhatWasCompressed() throws {
        let text = Data((0..<300_000).map { UInt8(ascii: "a") &+ UInt8($0 % 23) })
        XCTAssertEqual(try FileInput.inflate(gzip(text), source: "one.gz"), [UInt8](text))
    }

    func testMembersWhoseLastTrailerUnderstatesTheWholeAreAllInflated() throws {
        let first = Data((0..<300_000).map { UInt8(ascii: "A") &+ UInt8($0 % 19) }), last = Data("tail\n".utf8)
        let joined = try gzip(first) + gzip(last)
        XCTAssertEqual(FileInput.gzipSizeHint(joined), 5, "the trailer gives the last member's size only")
        XCTAssertEqual(try FileInput.inflate(joined, source: "two.gz"), [UInt8](first + last))
    }

    func testATrailerThatMisstatesTheSizeOrDamageIsTheStreamsErrorNamingTheFile() throws {
        let text = Data((0..<100_000).map { UInt8(ascii: "a") &+ UInt8($0 % 7) })
        var wrong = try gzip(text)
        // The size in the trailer one too large: the whole-member pass does not take it, and the
        // stream finds the length check wrong and says so, naming the file.
        wrong[wrong.count - 4] &+= 1
        XCTAssertThrowsError(try FileInput.inflate(wrong, source: "wrong-size.gz")) { error in
            XCTAssertTrue("\(error)".contains("wrong-size.gz") && "\(error)".contains("length"), "\(error)")
        }
        // Damaged data: the stream's error, naming the file.
        var damaged = try gzip(text)
        for k in 40..<60 { damaged[k] ^= 0x5A }
        XCTAssertThrowsError(try FileInput.inflate(damaged, source: "damaged.gz")) { error in
            XCTAssertTrue("\(error)".contains("damaged.gz"), "\(error)")
        }
        // Cut short: said so.
        let cut = Array(try gzip(text).dropLast(30))
        XCTAssertThrowsError(try FileInput.inflate(cut, source: "cut.gz")) { error in
            XCTAssertTrue("\(error)".contains("cut.gz"), "\(error)")
        }
    }

    func testInflatingPastTheLimitIsRefusedNamingTheFile() throws {
        let text = Data(repeating: UInt8(ascii: "x"), count: 200_000)
        XCTAssertThrowsError(try FileInput.inflate(gzip(text), source: "big.gz", limit: 100_000)) { error in
            XCTAssertTrue("\(error)".contains("big.gz"), "\(error)")
        }
    }
}

import Core
import Foundation
import XCTest

/// gzip input inflated whole: into one array where the trailer states its size, grown where it
/// does not (several members, whose last trailer gives only the last one's size).
final class FileInputTests: XCTestCase {
    private func gzip(_ text: Data) throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/gzip")
        process.arguments = ["-c", "-n"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(text)
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return [UInt8](data)
    }

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

    func testInflatingPastTheLimitIsRefusedNamingTheFile() throws {
        let text = Data(repeating: UInt8(ascii: "x"), count: 200_000)
        XCTAssertThrowsError(try FileInput.inflate(gzip(text), source: "big.gz", limit: 100_000)) { error in
            XCTAssertTrue("\(error)".contains("big.gz"), "\(error)")
        }
    }
}

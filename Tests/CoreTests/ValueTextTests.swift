import Core
import XCTest

final class ValueTextTests: XCTestCase {
    func testSizesAreWxHOrOneNumber() throws {
        XCTAssertTrue(try ValueText.size("512x384", field: "size", maximumSide: 8192) == (512, 384))
        XCTAssertTrue(try ValueText.size("256", field: "size", maximumSide: 8192) == (256, 256))
        XCTAssertTrue(try ValueText.size("64X32", field: "size", maximumSide: 8192) == (64, 32))
    }

    func testAHalfSizeIsRefusedNamingTheFieldAndValue() {
        for bad in ["10x", "x10", "10x10x10", "", "0x5", "abc", "9000x10"] {
            XCTAssertThrowsError(try ValueText.size(bad, field: "size", maximumSide: 8192), bad) { error in
                let e = error as! RequestError
                XCTAssertEqual(e.field, "size")
                XCTAssertTrue(e.message.contains("(got \(bad))"), "\(e.message) names \(bad)")
                XCTAssertEqual(e.kind, .request)
            }
        }
    }

    func testTriplesPairsAndNumbers() throws {
        XCTAssertEqual(try ValueText.triple("-90, 0,45.5", field: "rotate"), SIMD3(-90, 0, 45.5))
        XCTAssertEqual(try ValueText.pair("-10,4", field: "pan"), SIMD2(-10, 4))
        XCTAssertThrowsError(try ValueText.triple("1,2", field: "rotate"))
        XCTAssertThrowsError(try ValueText.triple("1,2,nan", field: "rotate"))
        XCTAssertThrowsError(try ValueText.pair("1,,2", field: "pan"))
        XCTAssertEqual(try ValueText.number("2", field: "zoom", positive: true), 2)
        XCTAssertThrowsError(try ValueText.number("-1", field: "zoom", positive: true)) { error in
            XCTAssertEqual((error as! RequestError).description, "zoom must be a positive number (got -1)")
        }
        XCTAssertEqual(try ValueText.integer("9", field: "png-level", in: 0...9), 9)
        XCTAssertThrowsError(try ValueText.integer("10", field: "png-level", in: 0...9))
        XCTAssertTrue(try ValueText.flag("", field: "waters"))
        XCTAssertFalse(try ValueText.flag("false", field: "waters"))
        XCTAssertThrowsError(try ValueText.flag("maybe", field: "waters"))
    }

    func testColorsByNameAndHex() {
        XCTAssertEqual(Color(parsing: "white"), .white)
        XCTAssertEqual(Color(parsing: "Transparent"), .transparent)
        XCTAssertEqual(Color(parsing: "#FF8000")?.rgb, 0xFF8000)
        XCTAssertEqual(Color(parsing: "336699")?.rgb, 0x336699)
        XCTAssertEqual(Color(parsing: "#00000080")?.alpha ?? 0, 128 / 255, accuracy: 1e-6)
        XCTAssertNil(Color(parsing: "#12345"))
        XCTAssertNil(Color(parsing: "#GG0000"))
        XCTAssertNil(Color(parsing: "+12345"))
    }

    func testErrorsSayWhoseFaultTheyAre() {
        XCTAssertEqual(RequestError(field: "size", "bad").faultKind, .request)
        XCTAssertEqual(InputFileError(file: "a.txt", line: 3, message: "bad").description, "a.txt:3: bad")
        XCTAssertEqual(InputFileError(file: "a.txt", message: "bad").faultKind, .input)
        XCTAssertEqual(MachineError("no disk").faultKind, .machine)
        struct Other: Error {}
        XCTAssertEqual(Other().faultKind, .machine)
    }

    func testFNV1aIsStable() {
        XCTAssertEqual(FNV1a.hash("".utf8), 0xcbf2_9ce4_8422_2325)
        XCTAssertEqual(FNV1a.hash("a".utf8), 0xaf63_dc4c_8601_ec8c)
        XCTAssertEqual(FNV1a.hex(0xab, digits: 4), "00ab")
    }
}

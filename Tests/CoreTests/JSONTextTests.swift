import Core
import Foundation
import XCTest

final class JSONTextTests: XCTestCase {
    private func parse(_ text: String) throws -> Any { try JSONText.parse(Array(text.utf8)) }

    func testValuesComeOutAsSwiftValues() throws {
        let v = try parse(#" {"a": [1, -2.5, 3e2, true, false, null], "b": {"c": "d"}, "e": "\u00e9\ud83d\ude00\n\"/"} "#)
        let o = try XCTUnwrap(v as? [String: Any])
        let a = try XCTUnwrap(o["a"] as? [Any])
        XCTAssertEqual(a.count, 6)
        XCTAssertEqual(a[0] as? Double, 1)
        XCTAssertEqual(a[1] as? Double, -2.5)
        XCTAssertEqual(a[2] as? Double, 300)
        XCTAssertEqual(a[3] as? Bool, true)
        XCTAssertEqual(a[4] as? Bool, false)
        XCTAssertTrue(a[5] is JSONText.Null)
        XCTAssertNil(a[3] as? Double, "a Boolean is not a number")
        XCTAssertEqual((o["b"] as? [String: Any])?["c"] as? String, "d")
        XCTAssertEqual(o["e"] as? String, "\u{E9}\u{1F600}\n\"/")
    }

    func testAgreesWithFoundationOnARealMap() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../shared/corpus/pathways/escher_e_coli_core.json").path
        guard let data = FileManager.default.contents(atPath: path) else { throw XCTSkip("no corpus") }
        let ours = try XCTUnwrap(try JSONText.parse([UInt8](data)) as? [Any])
        let foundation = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [Any])
        let a = try XCTUnwrap(ours[1] as? [String: Any]), b = try XCTUnwrap(foundation[1] as? [String: Any])
        let nodesA = try XCTUnwrap(a["nodes"] as? [String: Any]), nodesB = try XCTUnwrap(b["nodes"] as? [String: Any])
        XCTAssertEqual(Set(nodesA.keys), Set(nodesB.keys))
        for (id, n) in nodesB {
            // Foundation's numbers are off in the last digit at times (1056.5867919921875 in the file
            // comes out 1056.586791992188); ours are strtod's, correctly rounded.
            let x = try XCTUnwrap((n as? [String: Any])?["x"] as? NSNumber).doubleValue
            XCTAssertEqual(try XCTUnwrap(JSONText.number((nodesA[id] as? [String: Any])?["x"])), x, accuracy: abs(x) * 1e-14, id)
        }
    }

    func testNumbersAreCorrectlyRounded() throws {
        XCTAssertEqual(try parse("1056.5867919921875") as? Double, 1056.5867919921875)
        XCTAssertEqual(try parse("-0.1") as? Double, -0.1)
        XCTAssertEqual(try parse("123456789012345678901234") as? Double, 123456789012345678901234.0)
        XCTAssertEqual(try parse("2.5E-3") as? Double, 0.0025)
    }

    func testIdsAreStringsOrWholeNumbers() {
        XCTAssertEqual(JSONText.id("12"), "12")
        XCTAssertEqual(JSONText.id(12.0), "12")
        XCTAssertEqual(JSONText.id(1.5), "1.5")
        XCTAssertNil(JSONText.id(true))
    }

    func testErrorsGiveLineAndColumn() {
        let cases: [(String, Int, Int, String)] = [
            ("{\"a\": 1,\n \"b\" 2}", 2, 6, "expected ':'"),
            ("[1, 2", 1, 6, "cut short"),
            ("{\"a\": tru}", 1, 7, "expected true"),
            ("[1] x", 1, 5, "more after the end"),
            ("\"abc", 1, 5, "cut short inside a string"),
            ("[01.]", 1, 5, "expected digits after '.'"),
            ("{\"a\": \"\\q\"}", 1, 10, "unknown escape"),
            ("", 1, 1, "cut short"),
        ]
        for (text, line, column, message) in cases {
            XCTAssertThrowsError(try parse(text), text) { error in
                guard let e = error as? JSONText.SyntaxError else { return XCTFail("\(error)") }
                XCTAssertEqual(e.line, line, text)
                XCTAssertEqual(e.column, column, text)
                XCTAssertTrue(e.message.contains(message), "\(text): \(e.message)")
            }
        }
    }

    func testDeepNestingIsRefusedNotRecursedInto() {
        let deep = String(repeating: "[", count: 100_000)
        XCTAssertThrowsError(try parse(deep)) { XCTAssertTrue("\($0)".contains("nested more than")) }
    }
}

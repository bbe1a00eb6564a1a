import Core
import Foundation
import XCTest

/// Environment variables are read by one rule, and the page that lists them is the table's.
final class EnvironmentTableTests: XCTestCase {
    func testOneRuleForEveryVariable() {
        let trace = EnvironmentVariable.trace
        XCTAssertFalse(trace.isOn(default: false, in: [:]))
        XCTAssertFalse(trace.isOn(default: false, in: ["MOLSHOT_TRACE": ""]), "empty is not given")
        XCTAssertTrue(trace.isOn(default: true, in: ["MOLSHOT_TRACE": ""]))
        for off in ["0", "false", "FALSE", "no", "Off"] { XCTAssertFalse(trace.isOn(default: true, in: ["MOLSHOT_TRACE": off]), off) }
        for on in ["1", "true", "yes", "2"] { XCTAssertTrue(trace.isOn(default: false, in: ["MOLSHOT_TRACE": on]), on) }
        XCTAssertNil(EnvironmentVariable.database.text(in: ["MOLSHOT_DB": ""]))
        XCTAssertEqual(EnvironmentVariable.database.text(in: ["MOLSHOT_DB": "/x.sqlite"]), "/x.sqlite")
        XCTAssertNil(EnvironmentVariable.httpTimeout.number(in: ["MOLSHOT_HTTP_TIMEOUT": "ten"]))
    }

    func testTheDocumentedTableIsTheDeclaredOne() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let page = try String(contentsOf: root.appendingPathComponent("docs/environment.md"), encoding: .utf8)
        XCTAssertTrue(page.contains(EnvironmentVariable.markdown), "docs/environment.md's table should be:\n\(EnvironmentVariable.markdown)")
        // No variable is read outside the table: its names appear in Sources only there (and in the C loaders it lists).
        let sources = root.appendingPathComponent("Sources")
        let files = FileManager.default.enumerator(atPath: sources.path)!
        for case let file as String in files where file.hasSuffix(".swift") && !file.hasSuffix("EnvironmentTable.swift") {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            XCTAssertFalse(text.contains("environment[\"") || text.contains("getenv(\""), "\(file) reads a variable outside EnvironmentVariable")
        }
    }
}

import Foundation
import XCTest

/// docs/cli.md is what the binary says: each command's help as `molshot help` prints it, and
/// every command there (`docs/make-cli` writes the page again).
final class CommandReferenceTests: XCTestCase {
    func testTheCommandReferenceIsTheBinarysHelp() throws {
        let page = try String(contentsOf: InfoCommandTests.root.appendingPathComponent("docs/cli.md"), encoding: .utf8)
        let width = ["COLUMNS": "100"]
        func help(_ words: [String]) throws -> String { try MolshotBinary.run(["help"] + words, environment: width).stdout }
        func subcommands(_ text: String) -> [String] {
            guard let list = text.components(separatedBy: "SUBCOMMANDS:\n").dropFirst().first else { return [] }
            return list.split(separator: "\n").filter { $0.hasPrefix("  ") && ($0.dropFirst(2).first?.isLowercase ?? false) }
                .map { String($0.dropFirst(2).prefix { $0 != " " }) }
        }
        var expected: [[String]] = []
        for c in subcommands(try MolshotBinary.run(["--help"], environment: width).stdout) {
            expected.append([c])
            for s in subcommands(try help([c])) { expected.append([c, s]) }
        }
        XCTAssertGreaterThan(expected.count, 12)
        let sections = page.components(separatedBy: "\n## molshot ").dropFirst()
        XCTAssertEqual(sections.map { String($0.prefix { $0 != "\n" }) }, expected.map { $0.joined(separator: " ") },
                       "docs/cli.md lists every command (run docs/make-cli)")
        for (section, words) in zip(sections, expected) {
            let block = section.components(separatedBy: "```\n").dropFirst().first ?? ""
            XCTAssertEqual(block, try help(words), "molshot help \(words.joined(separator: " ")) differs from docs/cli.md (run docs/make-cli)")
        }
    }
}

import Foundation
import Service
import XCTest

/// `molshot serve`'s settings are declared once (`ServiceSettings.all`): its options, their help,
/// the config file's keys and the checks of both come from there.
final class ServeSettingsTests: XCTestCase {
    func testEverySettingIsAnOptionWithItsHelpAndNoOptionIsNotASetting() throws {
        let run = try MolshotBinary.run(["serve", "--help"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let listed = Set(run.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "," })
            .filter { $0.hasPrefix("--") }.map { String($0.dropFirst(2)).components(separatedBy: "=").first! })
        let settings = Set(ServiceSettings.all.map(\.name))
        XCTAssertEqual(listed.subtracting(["config", "help", "version"]), settings)
        for s in ServiceSettings.all {
            // Help text as the table says (ArgumentParser wraps lines: compare words).
            let words = s.helpText.split(separator: " ").prefix(4).joined(separator: " ")
            XCTAssertTrue(run.stdout.replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "  ", with: " ")
                .contains(words), "--\(s.name): \(words)")
        }
    }

    /// The same value is refused the same way as an option and as a config key, naming each.
    func testOptionsAndConfigKeysTakeTheSameValues() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("molshot-settings-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        for (name, bad, good) in [("max-side", "9000", "8192"), ("port", "70000", "0"), ("render-seconds", "0", "2.5"), ("max-body", "0", "1")] {
            let setting = try XCTUnwrap(ServiceSettings.named(name))
            let option = try MolshotBinary.run(["serve", "--\(name)", bad, "--db", dir.appendingPathComponent("none.sqlite").path])
            XCTAssertNotEqual(option.status, 0)
            XCTAssertTrue(option.stderr.contains("--\(name) must be"), option.stderr)
            let file = dir.appendingPathComponent("c.json").path
            try "{\"\(setting.key)\": \(bad)}".write(toFile: file, atomically: true, encoding: .utf8)
            var c = ServiceConfiguration(database: "")
            XCTAssertThrowsError(try c.read(configFile: file)) { XCTAssertTrue("\($0)".contains("\(setting.key): must be"), "\($0)") }
            try "{\"\(setting.key)\": \(good)}".write(toFile: file, atomically: true, encoding: .utf8)
            XCTAssertNoThrow(try c.read(configFile: file))
            var d = ServiceConfiguration(database: "")
            XCTAssertNoThrow(try ServiceSettings.apply([(name, good)], to: &d))
        }
    }
}

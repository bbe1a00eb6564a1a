import Foundation
import XCTest

/// The README's layout holds: each module imports only the modules of ours its line names (the
/// layers below it), and none imports a front end.
final class LayoutTests: XCTestCase {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources")

    /// Of our modules, what each may import (as the README's Layout section says).
    static let allowed: [String: Set<String>] = [
        "Core": ["CZlib", "CLibDeflate"],
        "Imaging": ["CPNGWriter", "CZlib", "Core"],
        "Structure": ["Core"],
        "Scene": ["Core"],
        "Text": ["CFreeType", "Imaging", "Core"],
        "Graphics": ["COpenGL", "Imaging", "Core"],
        "MoleculeView": ["Graphics", "Structure", "Scene", "Imaging", "Core"],
        "Pathways": ["Graphics", "Text", "Imaging", "Core"],
        "Library": ["CHTTP", "CSQLite", "CZstd", "Structure", "Core"],
        "Thumbnails": ["MoleculeView", "Graphics", "Structure", "Scene", "Text", "Imaging", "Core", "CMemory"],
        "Gestures": ["MoleculeView", "Pathways", "Graphics", "Structure", "Scene", "Text", "Imaging", "Core"],
        "Service": ["Gestures", "Library", "MoleculeView", "Pathways", "Graphics", "Structure", "Imaging", "Core", "CMemory"],
        "LiveClient": [],
    ]

    func testEachModuleImportsOnlyTheLayersItsLayoutLineNames() throws {
        let ours = Set(try FileManager.default.contentsOfDirectory(atPath: Self.sources.path))
        XCTAssertTrue(ours.contains("Core") && ours.contains("Service"), "Sources/ found at \(Self.sources.path)")
        for (module, allowed) in Self.allowed {
            let directory = Self.sources.appendingPathComponent(module)
            guard let files = FileManager.default.enumerator(atPath: directory.path) else { return XCTFail("no \(module)") }
            for case let file as String in files where file.hasSuffix(".swift") {
                let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
                for line in text.split(separator: "\n") where line.hasPrefix("import ") || line.hasPrefix("@testable import ") {
                    let name = String(line.split(separator: " ").last!)
                    guard ours.contains(name) else { continue }
                    XCTAssertTrue(allowed.contains(name), "\(module)/\(file) imports \(name), which the layout does not let it")
                }
            }
        }
    }
}

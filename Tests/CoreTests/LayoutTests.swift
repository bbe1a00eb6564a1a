import Foundation
import XCTest

/// The layout holds: every module of ours (the CLI included) imports only modules its target in
/// `Package.swift` depends on, in every import form Swift has; and those dependencies are the
/// layers below it that the docs/architecture.md names, so no module reaches a front end.
final class LayoutTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let sources = root.appendingPathComponent("Sources")

    /// Of our modules, what each may depend on (as the docs/architecture.md says).
    static let allowed: [String: Set<String>] = [
        "Core": ["CZlib", "CLibDeflate", "CISAL", "CDigest"],
        "Imaging": ["CPNGWriter", "CFrameWriter", "CVideoWriter", "CZlib", "Core"],
        "Structure": ["CZlib", "Core"],
        "Density": ["Core"],
        "Scene": ["Core"],
        "Text": ["CFreeType", "Imaging", "Core"],
        "Graphics": ["COpenGL", "Imaging", "Core"],
        "MoleculeView": ["Graphics", "Structure", "Density", "Scene", "Text", "Imaging", "Core", "CMemory"],
        "PathwayModel": ["Core"],
        "Pathways": ["PathwayModel", "Graphics", "Text", "Imaging", "Core"],
        "Library": ["CHTTP", "CSQLite", "CZstd", "Structure", "Core"],
        "Thumbnails": ["MoleculeView", "Graphics", "Structure", "Density", "Scene", "Text", "Imaging", "Core", "CMemory"],
        "Gestures": ["MoleculeView", "Pathways", "PathwayModel", "Graphics", "Structure", "Scene", "Text", "Imaging", "Core"],
        "Service": ["Gestures", "Thumbnails", "Library", "MoleculeView", "Pathways", "PathwayModel", "Graphics", "Structure", "Density", "Imaging", "Core", "CMemory"],
        "LiveClient": [],
        "molshot": ["Core", "Structure", "Density", "Library", "Pathways", "PathwayModel", "Service", "MoleculeView", "Graphics", "Imaging", "Scene", "Thumbnails",
                    "Gestures", "CMemory", "LiveClient"],
    ]

    /// Each target's name and the names in its `dependencies:` list (targets and products), read
    /// from `Package.swift` as written.
    static func manifestTargets() throws -> [String: Set<String>] {
        let text = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        var targets: [String: Set<String>] = [:]
        let calls = try NSRegularExpression(pattern: #"\.(target|executableTarget|testTarget|systemLibrary)\(\s*name:\s*"([^"]+)""#)
        let ns = text as NSString
        for match in calls.matches(in: text, range: NSRange(location: 0, length: ns.length)) {
            let name = ns.substring(with: match.range(at: 2))
            // The call's text up to its closing parenthesis.
            var depth = 0, end = match.range.location
            let chars = Array(ns.substring(from: match.range.location).utf16)
            for (i, c) in chars.enumerated() {
                if c == 0x28 { depth += 1 } else if c == 0x29 { depth -= 1; if depth == 0 { end = match.range.location + i; break } }
            }
            let call = ns.substring(with: NSRange(location: match.range.location, length: end - match.range.location))
            var deps: Set<String> = []
            if let list = call.range(of: "dependencies:") {
                var d = 0, body = ""
                for c in call[list.upperBound...] {
                    if c == "[" { d += 1; if d == 1 { continue } }
                    if c == "]" { d -= 1; if d == 0 { break } }
                    if d >= 1 { body.append(c) }
                }
                let quoted = try NSRegularExpression(pattern: #""([^"]+)""#)
                let b = body as NSString
                for q in quoted.matches(in: body, range: NSRange(location: 0, length: b.length)) { deps.insert(b.substring(with: q.range(at: 1))) }
            }
            targets[name] = deps
        }
        return targets
    }

    /// The modules a Swift file imports, in every form: `import X`, `import X.Y`, `import struct X.Y`,
    /// with attributes (`@testable`, `@preconcurrency`, `@_exported`, `@_implementationOnly`) and
    /// access levels (`public`, `package`, `internal`, `fileprivate`, `private`) before it.
    static func imports(_ text: String) -> Set<String> {
        let kinds: Set<String> = ["typealias", "struct", "class", "enum", "protocol", "let", "var", "func"]
        var found: Set<String> = []
        for raw in text.split(separator: "\n") {
            var words = raw.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            while let first = words.first, first.hasPrefix("@") || ["public", "package", "internal", "fileprivate", "private"].contains(first) {
                words.removeFirst()
            }
            guard words.first == "import", words.count >= 2 else { continue }
            var path = words[1]
            if kinds.contains(path), words.count >= 3 { path = words[2] }
            found.insert(String(path.split(separator: ".").first ?? ""))
        }
        return found
    }

    func testImportFormsAreAllRead() {
        let text = """
            import A
            @testable import B
            @preconcurrency import C
            public import D
            @_exported import E.Sub
            import struct F.Thing
            internal import G
            @preconcurrency @_implementationOnly import H
            // import NotThis
            let importNot = 1
            """
        XCTAssertEqual(Self.imports(text), ["A", "B", "C", "D", "E", "F", "G", "H"])
    }

    /// Modules the toolchain brings, which no manifest declares.
    static let toolchain: Set<String> = ["Foundation", "FoundationEssentials", "FoundationNetworking", "FoundationXML", "Darwin", "Dispatch", "Glibc", "Synchronization", "Swift", "_Concurrency"]

    func testEachModuleImportsOnlyItsDependenciesAndThoseAreTheLayersBelowIt() throws {
        let targets = try Self.manifestTargets()
        let ours = Set(try FileManager.default.contentsOfDirectory(atPath: Self.sources.path))
        XCTAssertTrue(ours.contains("Core") && ours.contains("Service") && ours.contains("molshot"), "Sources/ found at \(Self.sources.path)")
        XCTAssertEqual(Set(Self.allowed.keys), ours.filter { !$0.hasPrefix("C") || $0 == "Core" }, "every Swift module of ours has a layout line")
        for module in ours.sorted() {
            guard let deps = targets[module] else { XCTFail("Sources/\(module) has no target in Package.swift"); continue }
            // Package.swift's dependencies among our modules are the layout's.
            if let allowed = Self.allowed[module] {
                for d in deps where ours.contains(d) {
                    XCTAssertTrue(allowed.contains(d), "Package.swift lets \(module) depend on \(d), which the layout does not")
                }
            }
            let directory = Self.sources.appendingPathComponent(module)
            guard let files = FileManager.default.enumerator(atPath: directory.path) else { XCTFail("no \(module)"); continue }
            for case let file as String in files where file.hasSuffix(".swift") {
                let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
                for name in Self.imports(text) where ours.contains(name) && name != module {
                    XCTAssertTrue(deps.contains(name), "\(module)/\(file) imports \(name), which its target in Package.swift does not depend on")
                }
                // A package's module is used only where its product is declared (NIOCore came through
                // Hummingbird unnamed), and no module of ours hands another on (`@_exported`).
                for name in Self.imports(text) where !ours.contains(name) && name != module && !Self.toolchain.contains(name) {
                    XCTAssertTrue(deps.contains(name), "\(module)/\(file) imports \(name), a product its target in Package.swift does not declare")
                }
                XCTAssertFalse(text.contains("@_exported"), "\(module)/\(file) re-exports a module: import it where it is used")
            }
        }
    }

    /// GCD's global queue is not used (docs/architecture.md, "Threads"): blocking work goes to
    /// `BlockingPool`, whose size is said in one place. The PDB reader's helpers had used it.
    func testNoModuleUsesTheGlobalDispatchQueue() throws {
        guard let files = FileManager.default.enumerator(atPath: Self.sources.path) else { return XCTFail("no Sources/") }
        var read = 0
        for case let file as String in files where file.hasSuffix(".swift") {
            let text = try String(contentsOf: Self.sources.appendingPathComponent(file), encoding: .utf8)
            read += 1
            for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where line.contains("DispatchQueue.global") && !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                XCTFail("Sources/\(file):\(n + 1) uses DispatchQueue.global: submit to BlockingPool.shared instead")
            }
        }
        XCTAssertGreaterThan(read, 100, "Sources/ read at \(Self.sources.path)")
    }

    /// Every command names itself (`commandName:`). A command without one is named by
    /// ArgumentParser through `String(describing:)` of its type, which asks the Swift runtime for
    /// three protocol conformances of that metatype, each a scan of the binary's 8,700 conformance
    /// records, and every process start asks it of the commands before its own: naming them all
    /// took parsing `molshot thumbnails` over the corpus from 6.2 to 4.7 ms.
    func testEveryCommandNamesItself() throws {
        let folder = Self.sources.appendingPathComponent("molshot")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }
        var configurations = 0
        for file in files {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            var rest = text[...]
            while let start = rest.range(of: "CommandConfiguration(") {
                rest = rest[start.upperBound...]
                configurations += 1
                let line = text[..<start.lowerBound].filter { $0 == "\n" }.count + 1
                XCTAssertTrue(rest.drop(while: \.isWhitespace).hasPrefix("commandName:"),
                              "Sources/molshot/\(file):\(line): CommandConfiguration without commandName: first")
            }
        }
        XCTAssertGreaterThan(configurations, 20, "commands read in \(folder.path)")
    }
}

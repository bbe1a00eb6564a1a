import Foundation
import Library
@testable import Service
import XCTest

/// The OpenAPI document describes the routes the controllers declare: every path and method, and
/// for each the query parameters the route takes, no more and no fewer.
final class OpenAPIRoutesTests: XCTestCase {
    /// Each documented operation ("GET /v1/molecules/{id}") with the query parameters it lists.
    static func documented() throws -> [String: Set<String>] {
        let text = try String(contentsOf: ServiceSafetyTests.root.appendingPathComponent("Assets/openapi.yaml"), encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // components/parameters: NAME: {name: N, in: query|path, ...}
        var inQuery: [String: String] = [:]
        let component = try NSRegularExpression(pattern: #"^    ([A-Za-z0-9_-]+): \{name: ([A-Za-z0-9_-]+), in: (query|path)"#)
        let inline = try NSRegularExpression(pattern: #"\{name: ([A-Za-z0-9_-]+), in: query"#)
        let ref = try NSRegularExpression(pattern: ##"\$ref: "#/components/parameters/([A-Za-z0-9_-]+)""##)
        func groups(_ re: NSRegularExpression, _ line: String) -> [[String]] {
            let ns = line as NSString
            return re.matches(in: line, range: NSRange(location: 0, length: ns.length)).map { m in
                (1..<m.numberOfRanges).map { ns.substring(with: m.range(at: $0)) }
            }
        }
        var inComponents = false
        for line in lines {
            if line.hasPrefix("  parameters:") { inComponents = true; continue }
            if inComponents && line.hasPrefix("  ") && !line.hasPrefix("    ") { inComponents = false }
            if inComponents, let g = groups(component, line).first, g[2] == "query" { inQuery[g[0]] = g[1] }
        }
        var operations: [String: Set<String>] = [:]
        var path: String?, operation: String?
        var inPaths = false
        for line in lines {
            if line == "paths:" { inPaths = true; continue }
            if inPaths && !line.hasPrefix(" ") && !line.isEmpty { inPaths = false }
            guard inPaths else { continue }
            if line.hasPrefix("  /") && line.hasSuffix(":") { path = String(line.dropFirst(2).dropLast()); operation = nil; continue }
            if let path, let method = ["get", "post", "delete", "put"].first(where: { line == "    \($0):" }) {
                operation = "\(method.uppercased()) \(path)"
                operations[operation!] = []
                continue
            }
            guard let operation else { continue }
            for g in groups(inline, line) { operations[operation]!.insert(g[0]) }
            for g in groups(ref, line) { if let name = inQuery[g[0]] { operations[operation]!.insert(name) } }
        }
        return operations
    }

    func testTheDocumentIsTheRouteTable() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("molshot-openapi-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let db = scratch.appendingPathComponent("library.sqlite").path
        _ = try MoleculeLibrary(path: db)
        let service = try MolshotService(configuration: ServiceConfiguration(database: db))
        defer { service.close() }
        let documented = try Self.documented()
        var declared: [String: Set<String>] = [:]
        for route in service.table.routes { declared["\(route.method.rawValue) \(route.template)"] = route.query }
        XCTAssertEqual(Set(documented.keys), Set(declared.keys), "documented and declared operations")
        for (operation, query) in declared {
            guard let listed = documented[operation] else { continue }
            XCTAssertEqual(listed, query, "\(operation): documented query parameters and those the route takes")
        }
    }
}

import Foundation
import XCTest
@testable import Structure

/// Paths of the project's fixtures and, where it is present, of the shared corpus.
enum Fixtures {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func path(_ name: String) -> String { root.appendingPathComponent("Tests/Fixtures/\(name)").path }

    static func load(_ name: String) throws -> Structure { try StructureFile.load(path: path(name)) }

    /// Every atom record, alternate locations included (`--altloc all`): what a reader's own tests look at.
    static func loadAll(_ name: String) throws -> Structure { try loadAll(path: path(name)) }

    static func loadAll(path: String) throws -> Structure {
        var options = StructureFile.Options()
        options.altloc = .all
        return try StructureFile.load(path: path, options: options)
    }

    /// `../shared/corpus` beside the checkout, or `$MOLSHOT_CORPUS`; nil where absent.
    static let corpus: URL? = {
        let env = ProcessInfo.processInfo.environment["MOLSHOT_CORPUS"]
        let url = env.map { URL(fileURLWithPath: $0) } ?? root.deletingLastPathComponent().appendingPathComponent("shared/corpus")
        return FileManager.default.fileExists(atPath: url.appendingPathComponent("MANIFEST.tsv").path) ? url : nil
    }()

    /// A BinaryCIF file read against the mmCIF it was made from: the same models, atoms (within
    /// 0.001 Å, names, elements, alternate locations), chains and assemblies.
    static func assertReadAlike(_ b: Structure, _ c: Structure, _ label: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(b.models.count, c.models.count, label, file: file, line: line)
        XCTAssertEqual(b.models[0].atoms.count, c.models[0].atoms.count, label, file: file, line: line)
        for (x, y) in zip(b.models[0].atoms, c.models[0].atoms) {
            let d = x.position - y.position
            XCTAssertLessThan(max(abs(d.x), abs(d.y), abs(d.z)), 0.001, label, file: file, line: line)
            XCTAssertEqual(x.name, y.name, label, file: file, line: line)
            XCTAssertEqual(x.element, y.element, label, file: file, line: line)
            XCTAssertEqual(x.altLoc, y.altLoc, label, file: file, line: line)
        }
        XCTAssertEqual(b.models[0].chains, c.models[0].chains, label, file: file, line: line)
        XCTAssertEqual(b.assemblies, c.assemblies, label, file: file, line: line)
    }

    static func requireCorpus() throws -> URL {
        guard let corpus else { throw XCTSkip("no shared corpus beside the checkout (set MOLSHOT_CORPUS)") }
        return corpus
    }

    /// Runs `body` and returns the StructureError it throws; fails the test if it throws none.
    static func error(_ body: () throws -> Any, file: StaticString = #filePath, line: UInt = #line) -> StructureError? {
        do {
            _ = try body()
            XCTFail("expected an error", file: file, line: line)
        } catch let error as StructureError {
            return error
        } catch {
            XCTFail("expected a StructureError, got \(error)", file: file, line: line)
        }
        return nil
    }
}

extension Model {
    func atom(_ residueNumber: Int32, _ name: String, chain: String? = nil) -> Atom? {
        atoms.first { a in
            let r = residues[Int(a.residue)]
            return r.number == residueNumber && a.name == ShortName(name) && (chain == nil || chains[Int(r.chain)].id == chain)
        }
    }
}

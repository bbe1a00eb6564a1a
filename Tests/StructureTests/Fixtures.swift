import Foundation
import XCTest
@testable import Structure

/// Paths of the project's fixtures and, where it is present, of the shared corpus.
enum Fixtures {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func path(_ name: String) -> String { root.appendingPathComponent("Tests/Fixtures/\(name)").path }

    static func load(_ name: String) throws -> Structure { try StructureFile.load(path: path(name)) }

    /// `../shared/corpus` beside the checkout, or `$MOLSHOT_CORPUS`; nil where absent.
    static let corpus: URL? = {
        let env = ProcessInfo.processInfo.environment["MOLSHOT_CORPUS"]
        let url = env.map { URL(fileURLWithPath: $0) } ?? root.deletingLastPathComponent().appendingPathComponent("shared/corpus")
        return FileManager.default.fileExists(atPath: url.appendingPathComponent("MANIFEST.tsv").path) ? url : nil
    }()

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

import Core
import Foundation
import XCTest
@testable import Structure

/// Broader checks over `../shared/corpus` (real files from several projects); skipped where absent.
final class CorpusTests: XCTestCase {
    struct Entry {
        var file: String
        var models: Int
        var atomsModel1: Int
        var atomsAllModels: Int
        var chains: Int?
    }

    func manifest() throws -> (URL, [Entry]) {
        let corpus = try Fixtures.requireCorpus()
        let text = try String(contentsOf: corpus.appendingPathComponent("MANIFEST.tsv"), encoding: .utf8)
        var rows = text.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        let header = rows.removeFirst()
        func col(_ name: String) -> Int { header.firstIndex(of: name)! }
        return (corpus, rows.map {
            Entry(file: $0[col("file")], models: Int($0[col("models")])!, atomsModel1: Int($0[col("atoms_model1")])!,
                  atomsAllModels: Int($0[col("atoms_all_models")])!, chains: Int($0[col("chains")]))
        })
    }

    func testEveryCorpusFileLoadsWithTheManifestCounts() throws {
        let (corpus, entries) = try manifest()
        XCTAssertGreaterThan(entries.count, 50)
        let perception = try BondPerception.standard()
        for entry in entries {
            let path = corpus.appendingPathComponent(entry.file).path
            do {
                // The manifest counts every atom record: read with every alternate location.
                let s = try Fixtures.loadAll(path: path)
                XCTAssertEqual(s.models.count, entry.models, entry.file)
                XCTAssertEqual(s.models[0].atoms.count, entry.atomsModel1, entry.file)
                XCTAssertEqual(s.models.reduce(0) { $0 + $1.atoms.count }, entry.atomsAllModels, entry.file)
                if let chains = entry.chains {
                    XCTAssertEqual(s.models[0].chainIDs.count, chains, entry.file)
                }
                let bonds = perception.bonds(of: s.models[0], embedded: s.embeddedTemplates)
                for b in bonds where b.source != .explicit {
                    let x = s.models[0].atoms[Int(b.a)], y = s.models[0].atoms[Int(b.b)]
                    let d = ((x.position - y.position) * (x.position - y.position)).sum().squareRoot()
                    XCTAssertLessThanOrEqual(d, perception.maximumLength(x.element, y.element), "\(entry.file) \(x.name)-\(y.name)")
                    XCTAssertTrue(x.altLoc == 0 || y.altLoc == 0 || x.altLoc == y.altLoc, entry.file)
                }
            } catch {
                XCTFail("\(entry.file): \(error)")
            }
        }
    }

    /// Read for its first model only (`firstModelOnly`, as thumbnails read), every PDB and mmCIF
    /// file of the corpus gives one model, the full read's first: the same atoms, residues,
    /// chains, explicit bonds, secondary structure and entities (the NMR entries among them).
    func testTheFirstModelAloneIsTheFullReadsFirstModel() throws {
        let (corpus, entries) = try manifest()
        var multi = 0
        for entry in entries where StructureFile.formatFromName(entry.file).map({ $0 == .pdb || $0 == .mmcif }) ?? false {
            let path = corpus.appendingPathComponent(entry.file).path
            var options = StructureFile.Options()
            let full = try StructureFile.load(path: path, options: options)
            options.firstModelOnly = true
            let first = try StructureFile.load(path: path, options: options)
            XCTAssertEqual(first.models.count, 1, entry.file)
            guard let a = first.models.first, let b = full.models.first else { continue }
            XCTAssertEqual(a.number, b.number, entry.file)
            XCTAssertEqual(a.atoms, b.atoms, entry.file)
            XCTAssertEqual(a.residues, b.residues, entry.file)
            XCTAssertEqual(a.chains.map(\.id), b.chains.map(\.id), entry.file)
            XCTAssertEqual(a.explicitBonds.map { [$0.a, $0.b] }, b.explicitBonds.map { [$0.a, $0.b] }, entry.file)
            XCTAssertEqual(first.secondaryStructure.count, full.secondaryStructure.count, entry.file)
            XCTAssertEqual(first.entities.map(\.id), full.entities.map(\.id), entry.file)
            if full.models.count > 1 { multi += 1 }
        }
        XCTAssertGreaterThanOrEqual(multi, 5, "the corpus's NMR entries among them")
    }

    func testPDBAndMMCIFOfOneEntryGiveTheSameAtoms() throws {
        let (corpus, entries) = try manifest()
        let files = Set(entries.map(\.file))
        var pairs = 0
        for entry in entries where entry.file.hasSuffix(".pdb") {
            let stem = String(entry.file.dropLast(4))
            guard let cif = [stem + ".cif", stem.uppercased() + ".cif"].first(where: files.contains) else { continue }
            let a = try StructureFile.load(path: corpus.appendingPathComponent(entry.file).path)
            let b = try StructureFile.load(path: corpus.appendingPathComponent(cif).path)
            XCTAssertEqual(a.models.count, b.models.count, entry.file)
            assertSameAtoms(a.models[0], b.models[0], entry.file)
            pairs += 1
        }
        XCTAssertGreaterThanOrEqual(pairs, 13)
    }

    func testGzipAndPlainCopiesAgree() throws {
        let corpus = try Fixtures.requireCorpus()
        for (plain, gz) in [("1A8O.cif", "1A8O.cif.gz"), ("1CRN.cif", "1CRN.cif.gz")] {
            let a = try StructureFile.load(path: corpus.appendingPathComponent(plain).path)
            let b = try StructureFile.load(path: corpus.appendingPathComponent(gz).path)
            XCTAssertEqual(a.models[0].atoms.count, b.models[0].atoms.count)
        }
        // The large gzip PDB is parsed while it inflates: the same atoms as inflating first.
        let path = corpus.appendingPathComponent("1aon.pdb.gz").path
        let streamed = try StructureFile.load(path: path)
        let whole = try StructureFile.parse(FileInput.read(path: path), source: path)
        XCTAssertEqual(streamed.models[0].atoms, whole.models[0].atoms)
        XCTAssertEqual(streamed.metadata, whole.metadata)
    }
}

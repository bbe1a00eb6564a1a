import Core
import Foundation
@testable import Library
import Structure
import XCTest

final class MoleculeLibraryTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("molshot-lib-\(UUID().uuidString)")
    var library: MoleculeLibrary!
    let perception = try! BondPerception.standard()

    override func setUpWithError() throws {
        library = try MoleculeLibrary(path: scratch.appendingPathComponent("sub/library.sqlite").path)
    }

    override func tearDown() {
        library = nil
        try? FileManager.default.removeItem(at: scratch)
    }

    func fixture(_ name: String) -> String { Self.root.appendingPathComponent("Tests/Fixtures/\(name)").path }

    @discardableResult
    func add(_ name: String) throws -> MoleculeRecord {
        guard case .added(let r) = try library.importFile(fixture(name), perception: perception, separate: true) else {
            XCTFail("\(name) was not added")
            throw LibraryError(.machine, "not added")
        }
        return r
    }

    func testImportKeepsTheRecordAndSkipsTheSameFile() throws {
        let r = try add("1crn.pdb")
        XCTAssertEqual(r.name, "1crn")
        XCTAssertEqual(r.format, "pdb")
        XCTAssertEqual(r.pdbId, "1CRN")
        XCTAssertEqual(r.atoms, 327)
        XCTAssertEqual(r.bonds, 337)
        XCTAssertEqual(r.resolution ?? 0, 1.5, accuracy: 1e-6)
        let raw = try FileInput.readAll(path: fixture("1crn.pdb"))
        XCTAssertEqual(r.checksum, FNV1a.hex(FNV1a.hash(raw), digits: 16))
        guard case .duplicate(let again) = try library.importFile(fixture("1crn.pdb"), perception: perception) else {
            return XCTFail("the same file was imported twice")
        }
        XCTAssertEqual(again.id, r.id)
        let gz = try add("1lzh.pdb.gz")
        XCTAssertEqual(try library.original(id: gz.id), try FileInput.read(path: fixture("1lzh.pdb.gz")), "the file's text kept")
        let stored = try XCTUnwrap(library.database.statement("SELECT length(bytes), codec FROM originals WHERE molecule = ?").bind(.int(gz.id))
            .first { ($0.int(0), $0.text(1)) })
        XCTAssertEqual(stored.1, "zstd-model-1", "written against its own compact model")
        XCTAssertLessThan(stored.0, try FileInput.readAll(path: fixture("1lzh.pdb.gz")).count, "kept in less than its gzip")
    }

    func testAtomsPastWhatAFixedColumnHoldsAreImportedAndKeptByteForByte() throws {
        // mmCIF takes any number: 3e38 scaled to a coordinate column passes an Int64, which trapped
        // the writing of the kept original's prefix.
        let r = try add("far-apart.cif")
        XCTAssertEqual(try library.original(id: r.id), try FileInput.read(path: fixture("far-apart.cif")))
        XCTAssertEqual(try library.load(String(r.id)).1.models[0].atoms.count, 3)
    }

    func testALoadedMoleculeHasTheFilesAtomsAndBonds() throws {
        for name in ["1crn.pdb", "1CRN.cif", "Caffeine.pdb", "TYR.sdf", "adrenalin.mol2", "SampleMolecule.xyz", "small.pqr", "1lzh.pdb.gz"] {
            let r = try add(name)
            let file = try StructureFile.load(path: fixture(name))
            XCTAssertEqual(try library.original(id: r.id), try FileInput.read(path: fixture(name)), name)
            let (_, stored) = try library.load(String(r.id))
            let a = file.models[0], b = stored.models[0]
            XCTAssertEqual(a.atoms, b.atoms, name)
            XCTAssertEqual(a.residues, b.residues, name)
            XCTAssertEqual(a.chains, b.chains, name)
            XCTAssertEqual(a.radii, b.radii, name)
            XCTAssertEqual(perception.bonds(of: a, embedded: file.embeddedTemplates), perception.bonds(of: b), name)
            XCTAssertEqual(stored.metadata.title, file.metadata.title, name)
        }
    }

    func testListPagesAndQueries() throws {
        for name in ["1crn.pdb", "1bna.pdb", "Caffeine.pdb", "TYR.sdf", "1CRN.cif"] { try add(name) }
        let all = try library.list()
        XCTAssertEqual(all.total, 5)
        XCTAssertEqual(all.molecules.map(\.name), ["1crn", "1bna", "Caffeine", "TYR", "1CRN"])
        let page = try library.list(offset: 2, limit: 2)
        XCTAssertEqual(page.total, 5)
        XCTAssertEqual(page.molecules.map(\.name), ["Caffeine", "TYR"])
        XCTAssertEqual(try library.list(query: "hydrophobic").molecules.map(\.name), ["1crn", "1CRN"], "by title, any case")
        XCTAssertEqual(try library.list(query: "caff").total, 1, "by name")
        XCTAssertEqual(try library.list(query: "Fixtures/TYR").total, 1, "by source path")
        XCTAssertEqual(try library.list(query: "100%").total, 0, "% is a character, not a wildcard")
    }

    func testNamesIdsAndAmbiguity() throws {
        let a = try add("1crn.pdb"), b = try add("1CRN.cif")
        XCTAssertEqual(try library.record(String(a.id)).id, a.id)
        XCTAssertThrowsError(try library.record("1crn")) { error in
            let e = error as! LibraryError
            XCTAssertEqual(e.kind, .request)
            XCTAssertTrue(e.message.contains("matches 2 molecules: \(a.id) (\(a.source)), \(b.id) (\(b.source))"), e.message)
        }
        XCTAssertThrowsError(try library.record("999")) { XCTAssertEqual(($0 as? LibraryError)?.kind, .request) }
        let caffeine = try add("Caffeine.pdb")
        XCTAssertEqual(try library.record("CAFFEINE").id, caffeine.id)
    }

    func testRemoveTakesEveryRowWithIt() throws {
        let r = try add("1crn.pdb")
        try add("Caffeine.pdb")
        _ = try library.remove(id: r.id)
        XCTAssertEqual(try library.list().total, 1)
        for table in ["metadata", "atoms", "bonds", "originals", "compact_models"] {
            let s = try library.database.statement("SELECT count(*) FROM \(table) WHERE molecule = ?").bind(.int(r.id))
            _ = try s.step()
            XCTAssertEqual(s.int(0), 0, table)
        }
        XCTAssertThrowsError(try library.remove(id: r.id))
    }

    func testRescanRewritesFromTheOriginals() throws {
        let r = try add("1crn.pdb")
        // (The compact model stays: the kept original is written against it.)
        try library.database.execute("DELETE FROM atoms; DELETE FROM elements; DELETE FROM chains; UPDATE molecules SET atoms = 0")
        let (done, failed) = try library.rescan(perception: perception)
        XCTAssertEqual(done, 1)
        XCTAssertTrue(failed.isEmpty)
        XCTAssertEqual(try library.record(id: r.id)?.atoms, 327)
        XCTAssertEqual(try library.load(String(r.id)).structure.models[0].atoms.count, 327)
    }

    func testTheREADMEQueries() throws {
        try add("1crn.pdb")
        try add("Heme.sdf")
        try add("heme-site.pdb")
        // Every molecule with a HEM ligand.
        let withHem = try library.database.statement("""
            SELECT DISTINCT m.name FROM molecules m JOIN atoms a ON a.molecule = m.id WHERE a.residue_name = 'HEM' ORDER BY m.name
            """)
        var names: [String] = []
        while try withHem.step() { names.append(withHem.text(0)!) }
        XCTAssertEqual(names, ["heme-site"])
        // Atoms per element in 1crn.
        let perElement = try library.database.statement("""
            SELECT e.element, e.count FROM elements e JOIN molecules m ON m.id = e.molecule WHERE m.name = '1crn' ORDER BY e.count DESC
            """)
        var counts: [String: Int] = [:]
        while try perElement.step() { counts[perElement.text(0)!] = perElement.int(1) }
        XCTAssertEqual(counts, ["C": 202, "O": 64, "N": 55, "S": 6])
        let sequence = try library.metadata(id: 1).first { $0.key == "sequence.A" }?.value
        XCTAssertEqual(sequence, "TTCCPSIVARSNFNVCRLPGTPEAICATYTGCIIIPGATCPGDYAN")
    }

    func testStatsAndIntegrity() throws {
        try add("1crn.pdb")
        try add("TYR.sdf")
        let s = try library.stats()
        XCTAssertEqual(s.molecules, 2)
        XCTAssertEqual(s.atoms, 327 + 24)
        XCTAssertEqual(s.formats, ["pdb": 1, "sdf": 1])
        XCTAssertGreaterThan(s.databaseBytes, 0)
        let check = try library.database.statement("PRAGMA integrity_check")
        _ = try check.step()
        XCTAssertEqual(check.text(0), "ok")
        let mode = try library.database.statement("PRAGMA journal_mode")
        _ = try mode.step()
        XCTAssertEqual(mode.text(0), "wal")
    }

    func testAReaderRunsWhileAnImportGoesOn() throws {
        let path = library.path
        try add("1crn.pdb")
        let crambin = try String(contentsOfFile: fixture("1crn.pdb"), encoding: .utf8)
        let writerDone = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var writerError: Error?
        let scratch = scratch, perception = perception
        Thread {
            do {
                let writer = try MoleculeLibrary(path: path)
                for i in 0..<30 {
                    let copy = scratch.appendingPathComponent("copy\(i).pdb")
                    try Data((crambin + "REMARK 999 COPY \(i)\n").utf8).write(to: copy)
                    _ = try writer.importFile(copy.path, perception: perception, separate: true)
                }
            } catch { writerError = error }
            writerDone.signal()
        }.start()
        let reader = try MoleculeLibrary(path: path)
        var reads = 0
        while writerDone.wait(timeout: .now()) == .timedOut {
            let (total, molecules) = try reader.list(limit: 1000)
            XCTAssertEqual(total, molecules.count)
            // Every molecule listed is whole: its atoms are all counted, its model is there.
            let s = try reader.database.statement("""
                SELECT m.atoms, (SELECT sum(count) FROM elements e WHERE e.molecule = m.id)
                    * (SELECT count(*) FROM compact_models c WHERE c.molecule = m.id) FROM molecules m
                """)
            while try s.step() { XCTAssertEqual(s.int(0), s.int(1)) }
            reads += 1
        }
        XCTAssertNil(writerError)
        XCTAssertGreaterThan(reads, 1)
        XCTAssertEqual(try reader.list().total, 31)
    }

    /// A library of schema version 2 (FNV-unique files, ids reused) brought to version 3 keeps its
    /// molecules, their rows and ids; a private file can then be kept by two owners.
    func testAVersion2LibraryIsBroughtUpToDateWithItsRows() throws {
        let path = scratch.appendingPathComponent("old.sqlite").path
        do {
            let old = try SQLiteDatabase(path: path)
            try old.execute(LibrarySchema.migrations[0])
            try old.execute(LibrarySchema.migrations[1])
            try old.execute("PRAGMA user_version = 2")
        }
        // Rows as version 2 wrote them, through today's import (which only fills the new columns after).
        let crambin = [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixture("1crn.pdb"))))
        do {
            let v2 = try SQLiteDatabase(path: path)
            try v2.execute("""
                INSERT INTO molecules (id, name, source, checksum, format, models, atoms, bonds, chains, residues, file_bytes, added, owner, private)
                VALUES (7, '1crn', '1crn.pdb', '\(FNV1a.hex(FNV1a.hash(crambin), digits: 16))', 'pdb', 1, 1, 0, 1, 1, \(crambin.count), 'then', 'alice', 1);
                INSERT INTO atoms VALUES (7, 0, 1, 'N', 'N', 'THR', 1, '', 'A', 0, '', 17.0, 14.1, 3.6, 1, 13.8, 0);
                """)
            try v2.statement("INSERT INTO originals (molecule, bytes) VALUES (7, ?)").bind(.blob(crambin)).run()
        }
        let lib = try MoleculeLibrary(path: path)
        let kept = try XCTUnwrap(try lib.record(id: 7))
        XCTAssertEqual(kept.name, "1crn")
        // Its polymer atom went from the rows into the counts (schema 4 keeps atom rows for ligands only).
        XCTAssertEqual(try lib.database.statement("SELECT count(*) FROM atoms WHERE molecule = 7").first { $0.int(0) }, 0)
        XCTAssertEqual(try lib.database.statement("SELECT count FROM elements WHERE molecule = 7").first { $0.int(0) }, 1)
        XCTAssertEqual(try lib.database.statement("SELECT chain || residues || atoms FROM chains WHERE molecule = 7").first { $0.text(0) }, "A11")
        XCTAssertEqual(try lib.list(query: "1crn").molecules.map(\.id), [7], "found through the search index the migration filled")
        // Alice importing her file again finds it (by its bytes: version 2 kept no SHA-256); bob gets his own.
        guard case .duplicate(let same) = try lib.importBytes(crambin, source: "1crn.pdb", name: "1crn", perception: perception,
                                                              owner: "alice", isPrivate: true) else { return XCTFail("alice's own file is hers") }
        XCTAssertEqual(same.id, 7)
        guard case .added(let bobs) = try lib.importBytes(crambin, source: "1crn.pdb", name: "1crn", perception: perception,
                                                          owner: "bob", isPrivate: true) else { return XCTFail("bob keeps his own copy") }
        XCTAssertGreaterThanOrEqual(bobs.id, MoleculeLibrary.privateIDs, "a private molecule's id is drawn from the private range")
        _ = try lib.remove(id: bobs.id)
        guard case .added(let next) = try lib.importFile(fixture("Caffeine.pdb"), perception: perception) else { return XCTFail() }
        XCTAssertEqual(next.id, 8, "public ids go on from the highest there was")
        _ = try lib.remove(id: next.id)
        guard case .added(let after) = try lib.importFile(fixture("TYR.sdf"), perception: perception) else { return XCTFail() }
        XCTAssertEqual(after.id, 9, "a removed id is not given again")
    }

    func testEntryFactsPackedAndAsEarlierLibrariesKeptThemReadBackTheSame() throws {
        // 3PQR: assemblies, entities, helices and strands, label ids unlike the author ids.
        let structure = try StructureFile.load(path: fixture("bcif/3PQR.bcif.gz"))
        let facts = EntryFacts(structure, model: structure.models[0])
        XCTAssertFalse(facts.ranges.isEmpty)
        XCTAssertFalse(facts.assemblies.isEmpty)
        XCTAssertTrue(facts.residueLabelSeq.contains { $0 != 0 })
        let packed = try facts.encoded()
        XCTAssertEqual(Array(packed.prefix(4)), EntryFacts.packedMagic)
        XCTAssertEqual(try EntryFacts.decode(packed), facts)
        // Every field of the binary form, the optional ones both ways: modified residues and their
        // parents, component names, an assembly with a problem, an entity without a polymer type.
        var more = facts
        more.componentNames["PSU"] = "PSEUDOURIDINE-5'-MONOPHOSPHATE"
        more.modifications = ["PSU": "U", "MSE": "MET"]
        more.residueParents = [3: "U", 17: "MET"]
        more.assemblies[0].problem = "operator 61 is not listed"
        more.assemblies[0].operators["2"] = [-1, 0, 0, 0, -1, 0, 0, 0, 1, 12.5, -0.25, 1e-7]
        more.entities.append(Entity(id: "9", type: "water", description: "water", chains: ["W"]))
        XCTAssertEqual(try EntryFacts.decode(try more.encoded()), more)
        // A library from 2026-11-26: the small facts as JSON beside the binary columns (MEF2).
        let earlier = try more.encodedWithJSONSmallFacts()
        XCTAssertEqual(Array(earlier.prefix(4)), Array("MEF2".utf8))
        XCTAssertEqual(try EntryFacts.decode(earlier), more)
        // A library from before the packed form: zstd JSON.
        let json = Zstd.compress(Array(try JSONEncoder().encode(facts)), level: 6)
        XCTAssertEqual(try EntryFacts.decode(json), facts)
        // A damaged blob is an error, not a crash.
        XCTAssertThrowsError(try EntryFacts.decode(Array(packed.prefix(packed.count / 2))))
        // What the library gives back draws as the file does: the same facts.
        let record = try add("bcif/3PQR.bcif.gz")
        let loaded = try library.load(String(record.id)).structure
        XCTAssertEqual(EntryFacts(loaded, model: loaded.models[0]), facts)
    }

    func testTheDefaultPathFollowsXDG() {
        XCTAssertEqual(MoleculeLibrary.defaultPath(environment: ["MOLSHOT_DB": "/x/y.db", "HOME": "/h"]), "/x/y.db")
        XCTAssertEqual(MoleculeLibrary.defaultPath(environment: ["XDG_DATA_HOME": "/d", "HOME": "/h"]), "/d/molshot/library.sqlite")
        XCTAssertEqual(MoleculeLibrary.defaultPath(environment: ["HOME": "/h"]), "/h/.local/share/molshot/library.sqlite")
    }

    /// The shared corpus, where it is present: every structure imports and loads as it reads.
    func testTheCorpusImportsAndLoadsAsItsFilesRead() throws {
        let env = ProcessInfo.processInfo.environment["MOLSHOT_CORPUS"]
        let corpus = env.map { URL(fileURLWithPath: $0) } ?? Self.root.deletingLastPathComponent().appendingPathComponent("shared/corpus")
        guard FileManager.default.fileExists(atPath: corpus.appendingPathComponent("MANIFEST.tsv").path) else {
            throw XCTSkip("no shared corpus beside the checkout (set MOLSHOT_CORPUS)")
        }
        let files = try StructureInputs.collect([corpus.path]).filter { !$0.contains("/pathways/") }
        XCTAssertGreaterThan(files.count, 50)
        for file in files {
            let r: MoleculeRecord
            switch try library.importFile(file, perception: perception, separate: true) {
            case .added(let a): r = a
            case .duplicate(let d), .anotherSource(let d): r = d
            }
            let fromFile = try StructureFile.load(path: file)
            XCTAssertEqual(try library.original(id: r.id), try FileInput.read(path: file), "the text kept, byte for byte: \(file)")
            let stored = try library.load(String(r.id)).structure.models[0]
            XCTAssertEqual(stored.atoms, fromFile.models[0].atoms, file)
            XCTAssertEqual(perception.bonds(of: stored), perception.bonds(of: fromFile.models[0], embedded: fromFile.embeddedTemplates), file)
        }
        let check = try library.database.statement("PRAGMA integrity_check")
        XCTAssertEqual(try check.first { $0.text(0) }, "ok")
    }
}

import Core
import Foundation
import XCTest
@testable import Structure

/// The molecule as the archive defines it: assemblies against biotite's and gemmi's builders,
/// entities and label ids, modified residues, BinaryCIF against the mmCIF it was written from,
/// REMARK 2, CONECT after ENDMDL, and writing coordinates back.
final class EntryTests: XCTestCase {
    /// Tests/Fixtures/assemblies-reference.tsv: made by bench/tools/assembly_reference.py (biotite 1.6.0, gemmi 0.7.5).
    struct Reference {
        var file: String
        var assembly: String
        var atoms: Int
        var centroid: SIMD3<Double>
        var radiusOfGyration: Double
    }

    func references() throws -> [Reference] {
        let text = try String(contentsOfFile: Fixtures.path("assemblies-reference.tsv"), encoding: .utf8)
        return text.split(separator: "\n").dropFirst(2).map { line in
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return Reference(file: f[0], assembly: f[1], atoms: Int(f[2])!, centroid: SIMD3(Double(f[4])!, Double(f[5])!, Double(f[6])!),
                             radiusOfGyration: Double(f[7])!)
        }
    }

    static func shape(_ model: Model) -> (count: Int, centroid: SIMD3<Double>, rg: Double) {
        let mask = model.defaultConformerMask()
        let points = model.atoms.indices.filter { mask[$0] }.map { SIMD3<Double>(model.atoms[$0].position) }
        let c = points.reduce(SIMD3<Double>.zero, +) / Double(points.count)
        let rg = (points.reduce(0.0) { $0 + (($1 - c) * ($1 - c)).sum() } / Double(points.count)).squareRoot()
        return (points.count, c, rg)
    }

    /// Every assembly of the corpus files the reference lists (18 files, 24 assemblies): the
    /// count as drawn within 1% of biotite's, and the built assembly's centroid and radius of
    /// gyration within 0.01 Å; then written as mmCIF and read back, the same.
    func testAssembliesMatchBiotiteAndSurviveWritingMMCIF() throws {
        let corpus = try Fixtures.requireCorpus()
        let refs = try references()
        XCTAssertGreaterThanOrEqual(Set(refs.map(\.file)).count, 5)
        var checked = 0
        for ref in refs {
            // The 283,800-atom capsids once each (assembly 6 is assembly 1 in the crystal frame).
            if ref.atoms > 100_000 && ref.assembly != "1" { continue }
            let structure = try StructureFile.load(path: corpus.appendingPathComponent(ref.file).path)
            let summary = StructureSummary(file: ref.file, structure: structure, bonds: [])
            let listed = try XCTUnwrap(summary.assemblies.first { $0.id == ref.assembly }, "\(ref.file) assembly \(ref.assembly)")
            XCTAssertLessThanOrEqual(abs(listed.atoms - ref.atoms), ref.atoms / 100, "\(ref.file) \(ref.assembly)")
            let built = try structure.applying(.id(ref.assembly), source: ref.file)
            let shape = EntryTests.shape(built.models[0])
            XCTAssertEqual(shape.count, listed.atoms, "\(ref.file) \(ref.assembly)")
            XCTAssertLessThan(abs(shape.rg - ref.radiusOfGyration), 0.01, "\(ref.file) \(ref.assembly)")
            XCTAssertLessThan(((shape.centroid - ref.centroid) * (shape.centroid - ref.centroid)).sum().squareRoot(), 0.01, "\(ref.file) \(ref.assembly)")
            let again = try StructureFile.parse(CoordinateWriter.write(built, as: .mmcif), source: "\(ref.file).cif")
            let shape2 = EntryTests.shape(again.models[0])
            XCTAssertEqual(shape2.count, shape.count, ref.file)
            XCTAssertLessThan(abs(shape2.rg - shape.rg), 0.01, ref.file)
            XCTAssertEqual(again.models[0].chainIDs, built.models[0].chainIDs, ref.file)
            checked += 1
        }
        XCTAssertGreaterThanOrEqual(checked, 15)
    }

    func testTheCapsidIsSixtyCopiesWithDistinctChainNames() throws {
        let corpus = try Fixtures.requireCorpus()
        let s = try StructureFile.load(path: corpus.appendingPathComponent("1f2n.cif").path)
        XCTAssertEqual(s.assemblies.map(\.id), ["1", "2", "3", "4", "5", "6"])
        let capsid = try s.applying(.auto, source: "1f2n.cif")
        XCTAssertEqual(capsid.models[0].atoms.count, 283_800)
        let ids = capsid.models[0].chainIDs
        XCTAssertEqual(ids.count, 180)
        XCTAssertEqual(Array(ids.prefix(4)), ["A", "B", "C", "A-2"])
        XCTAssertTrue(ids.contains("C-60"))
        // The file's helices and strands follow each copy.
        XCTAssertEqual(capsid.secondaryStructure.count, s.secondaryStructure.count * 60)
        // Bounded before building.
        XCTAssertThrowsError(try s.applying(.id("1"), source: "1f2n.cif", maxAtoms: 100_000)) { error in
            XCTAssertTrue((error as? AssemblyError)?.tooLarge ?? false, "\(error)")
        }
        XCTAssertThrowsError(try s.applying(.id("7"), source: "1f2n.cif")) { error in
            XCTAssertTrue("\(error)".contains("declares 1, 2, 3, 4, 5, 6"), "\(error)")
        }
        // PDB REMARK 350 gives the same capsid.
        let pdb = try StructureFile.load(path: corpus.appendingPathComponent("1f2n.pdb").path).applying(.auto, source: "1f2n.pdb")
        XCTAssertEqual(EntryTests.shape(pdb.models[0]).rg, EntryTests.shape(capsid.models[0]).rg, accuracy: 0.01)
    }

    func testOperatorExpressions() throws {
        XCTAssertEqual(try AssemblyBuilder.expand("1", source: "x"), [["1"]])
        XCTAssertEqual(try AssemblyBuilder.expand("1,2,5", source: "x"), [["1"], ["2"], ["5"]])
        XCTAssertEqual(try AssemblyBuilder.expand("(1-3)", source: "x"), [["1"], ["2"], ["3"]])
        XCTAssertEqual(try AssemblyBuilder.expand("(X0)(1-2,5)", source: "x"), [["X0", "1"], ["X0", "2"], ["X0", "5"]])
        XCTAssertEqual(try AssemblyBuilder.expand("(1-60)(61-88)", source: "x").count, 60 * 28)
        XCTAssertEqual(try AssemblyBuilder.expand("P", source: "x"), [["P"]])
        for bad in ["(1-60", "", "1,,2", "(1-100000000)", "(1-1000)(1-1000)", "5-1"] {
            XCTAssertThrowsError(try AssemblyBuilder.expand(bad, source: "x"), bad)
        }
        // A product applies its second operator first: a shift after a turn is not a turn after a shift.
        let turn = Assembly.Operator(rotation: [0, -1, 0, 1, 0, 0, 0, 0, 1], translation: [0, 0, 0])
        let shift = Assembly.Operator(rotation: Assembly.Operator.identity.rotation, translation: [10, 0, 0])
        XCTAssertEqual(shift.after(turn).apply(SIMD3(1, 0, 0)), SIMD3(10, 1, 0))
        XCTAssertEqual(turn.after(shift).apply(SIMD3(1, 0, 0)), SIMD3(0, 11, 0))
    }

    /// An assembly the file gets wrong (a bad expression, an operator it does not define) is listed
    /// with what is wrong and refused when asked for; the model still reads and `auto` passes it by.
    func testABadAssemblyLeavesTheModelReadable() throws {
        let text = try String(contentsOfFile: Fixtures.path("one-atom.cif"), encoding: .utf8) + """
            loop_
            _pdbx_struct_assembly.id
            _pdbx_struct_assembly.details
            1 'bad expression'
            2 'missing operator'
            loop_
            _pdbx_struct_assembly_gen.assembly_id
            _pdbx_struct_assembly_gen.oper_expression
            _pdbx_struct_assembly_gen.asym_id_list
            1 '(1-3' A
            2 '7' A
            loop_
            _pdbx_struct_oper_list.id
            _pdbx_struct_oper_list.matrix[1][1]
            1 1.0
            """
        let s = try StructureFile.parse(Array(text.utf8), source: "bad.cif")
        XCTAssertEqual(s.models[0].atoms.count, 1)
        XCTAssertEqual(s.assemblies.map(\.id), ["1", "2"])
        XCTAssertNotNil(s.assemblies[0].problem)
        XCTAssertTrue(s.assemblies[1].problem?.contains("operator 7") ?? false, "\(String(describing: s.assemblies[1].problem))")
        XCTAssertNil(try AssemblyBuilder.resolve(.auto, in: s, source: "bad.cif"))
        XCTAssertThrowsError(try s.applying(.id("2"), source: "bad.cif")) { error in
            XCTAssertTrue("\(error)".contains("cannot be built"), "\(error)")
        }
        XCTAssertTrue(StructureSummary(file: "bad.cif", structure: s, bonds: []).text.contains("2: cannot be built"))
    }

    func testAutoIsTheModelWhereTheFirstAssemblyIsTheModelUnchanged() throws {
        let corpus = try Fixtures.requireCorpus()
        let aki = try StructureFile.load(path: corpus.appendingPathComponent("1aki.cif").path)
        XCTAssertEqual(aki.assemblies.count, 1)
        XCTAssertNil(try AssemblyBuilder.resolve(.auto, in: aki, source: "1aki"))
        let dimer = try StructureFile.load(path: corpus.appendingPathComponent("1A8O.cif").path)
        XCTAssertEqual(try AssemblyBuilder.resolve(.auto, in: dimer, source: "1A8O")?.id, "1")
        XCTAssertNil(try AssemblyBuilder.resolve(.model, in: dimer, source: "1A8O"))
    }

    func testEntitiesAndLabelIDs() throws {
        let s = try Fixtures.load("1CRN.cif")
        XCTAssertEqual(s.entities.map(\.id), ["1"])
        XCTAssertEqual(s.entities[0].description, "CRAMBIN")
        XCTAssertEqual(s.entities[0].polymerType, "polypeptide(L)")
        XCTAssertEqual(s.entities[0].sequence?.count, 46)
        XCTAssertEqual(s.models[0].chains[0].labelID, "A")
        XCTAssertEqual(s.models[0].chains[0].entity, "1")
        XCTAssertEqual(s.models[0].residues[0].labelSeq, 1)
        XCTAssertEqual(try Selection(parsing: "entity 1").atoms(in: s.models[0]).count, 327)
        XCTAssertEqual(try Selection(parsing: "label_asym B").atoms(in: s.models[0]).count, 0)
        // PDB: COMPND and SEQRES.
        let pdb = try Fixtures.load("1crn.pdb")
        XCTAssertEqual(pdb.entities.first?.description, "CRAMBIN")
        XCTAssertEqual(pdb.entities.first?.sequence, s.entities[0].sequence)
    }

    /// The tRNA's modified nucleotides and 1A8O's selenomethionines stay in their chains.
    func testModifiedResiduesArePolymer() throws {
        let corpus = try Fixtures.requireCorpus()
        let trna = try StructureFile.load(path: corpus.appendingPathComponent("TransferRNA.pdb").path)
        let summary = StructureSummary(file: "tRNA", structure: trna, bonds: [])
        XCTAssertEqual(summary.ligands.map(\.name), ["MG"])
        XCTAssertEqual(summary.chains.first { $0.id == "A" }?.sequence?.count, 76)
        XCTAssertEqual(Set(summary.modifiedResidues.map(\.name)), ["2MG", "H2U", "M2G", "OMC", "OMG", "YG", "PSU", "5MC", "7MG", "5MU", "1MA"])
        XCTAssertEqual(summary.modifiedResidues.first { $0.name == "PSU" }?.parent, "U")
        let model = trna.models[0]
        XCTAssertEqual(try Selection(parsing: "modres").atoms(in: model).count,
                       model.residues.filter(\.isModified).reduce(0) { $0 + $1.atoms.count })
        XCTAssertTrue(try Selection(parsing: "ligand and resn PSU").atoms(in: model).isEmpty)
        XCTAssertFalse(try Selection(parsing: "nucleic and resn PSU").atoms(in: model).isEmpty)
        for name in ["1A8O.pdb", "1A8O.cif.gz", "1A8O.cif"] {
            let s = try StructureFile.load(path: corpus.appendingPathComponent(name).path)
            let sum = StructureSummary(file: name, structure: s, bonds: [])
            XCTAssertTrue(sum.ligands.isEmpty, name)
            XCTAssertEqual(sum.modifiedResidues.first?.name, "MSE", name)
            XCTAssertEqual(sum.modifiedResidues.first?.count, 4, name)
            XCTAssertTrue(sum.chains[0].sequence?.hasPrefix("MDIRQGPKEPFRDYVDRFYKTLRAEQASQEVKNWMTE") ?? false, name)
        }
    }

    /// The modified residues' table as read (bytes) is the table the asset holds, read here line by
    /// line as text: all 2,044 components, parents (the first of several) and letters; with a few
    /// known ones.
    func testModifiedResidueParentsAreTheAssetsTable() throws {
        let text = try String(contentsOf: try Resources.asset("ccd-parents.tsv"), encoding: .utf8)
        var expected: [ShortName: (ShortName, Character?)] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let f = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard f.count >= 3 else { continue }
            expected[ShortName(f[0])] = (ShortName(f[1].split(separator: ",").first.map(String.init) ?? ""), f[2].first)
        }
        let table = ResidueLetters.parents
        XCTAssertEqual(table.count, expected.count)
        XCTAssertGreaterThan(table.count, 2000)
        for (name, (parent, letter)) in expected {
            XCTAssertEqual(table[name]?.parent, parent, "\(name)")
            XCTAssertEqual(table[name]?.letter, letter, "\(name)")
        }
        XCTAssertEqual(ResidueLetters.parent(of: ShortName("MSE")), ShortName("MET"))
        XCTAssertEqual(ResidueLetters.parent(of: ShortName("PSU")), ShortName("U"))
        XCTAssertEqual(ResidueLetters.letter(ShortName("DPR")), "P")
        XCTAssertTrue(expected.values.contains { $0.1 == nil }, "a component with no letter of its own is in the table")
    }

    func testRemark2ResolutionOfOldFiles() throws {
        let corpus = try Fixtures.requireCorpus()
        for (name, r) in [("Insulin.pdb", 1.6), ("1tii.pdb", 2.25), ("DNA.pdb", 1.9), ("TransferRNA.pdb", 3.0), ("1hpv.pdb", 1.9)] {
            let s = try StructureFile.load(path: corpus.appendingPathComponent(name).path)
            XCTAssertEqual(Double(s.metadata.resolution ?? 0), r, accuracy: 0.001, name)
        }
        let text = "REMARK   2 RESOLUTION. 2.5  ANGSTROMS.\nATOM      1  CA  ALA A   1       0.000   0.000   0.000  1.00  0.00           C\n"
        XCTAssertEqual(try StructureFile.parse(Array(text.utf8), source: "r.pdb").metadata.resolution, 2.5)
    }

    /// The EMDB maps an entry names: PDB `REMARK 900` (5KHE, fitted to EMD-8249, names four
    /// maps in order); mmCIF `_pdbx_database_related`, the associated EM volume first whatever
    /// its row, other databases and repeats left out.
    func testTheEMDBMapsAnEntryNames() throws {
        let khe = try Fixtures.load("maps/5khe.pdb.gz")
        XCTAssertEqual(khe.metadata.relatedMaps, ["EMD-8249", "EMD-8248", "EMD-8250", "EMD-8251"])
        let cif = """
            data_X
            loop_
            _pdbx_database_related.db_name
            _pdbx_database_related.details
            _pdbx_database_related.db_id
            _pdbx_database_related.content_type
            PDB  'same protein' 5KHC unspecified
            EMDB 'other state'  EMD-8250 'other EM volume'
            EMDB 'the map'      EMD-8249 'associated EM volume'
            EMDB 'repeat'       EMD-8250 'other EM volume'
            EMDB 'not an id'    XYZ 'other EM volume'
            #
            loop_
            _atom_site.group_PDB
            _atom_site.id
            _atom_site.type_symbol
            _atom_site.label_atom_id
            _atom_site.label_comp_id
            _atom_site.label_asym_id
            _atom_site.label_seq_id
            _atom_site.Cartn_x
            _atom_site.Cartn_y
            _atom_site.Cartn_z
            ATOM 1 C CA ALA A 1 0 0 0
            """
        XCTAssertEqual(try StructureFile.parse(Array(cif.utf8), source: "r.cif").metadata.relatedMaps, ["EMD-8249", "EMD-8250"])
        XCTAssertEqual(try Fixtures.load("1crn.pdb").metadata.relatedMaps, [])
    }

    func testConectAfterTheLastModelBondsEveryModel() throws {
        var text = ""
        for m in 1...2 {
            text += "MODEL        \(m)\n"
            text += "HETATM    1  C1  LIG A   1       0.000   0.000   0.000  1.00  0.00           C\n"
            text += "HETATM    2  O1  LIG A   1       1.400   0.000   0.000  1.00  0.00           O\n"
            text += "ENDMDL\n"
        }
        text += "CONECT    1    2\nEND\n"
        let s = try StructureFile.parse(Array(text.utf8), source: "two.pdb")
        XCTAssertEqual(s.models.count, 2)
        XCTAssertEqual(s.models.map(\.explicitBonds.count), [1, 1])
    }

    /// BinaryCIF written by biotite from five corpus files, and one the RCSB's CoordinateServer
    /// wrote (Mol*'s example): the same atoms as the mmCIF, coordinates within 0.001 Å.
    func testBinaryCIFReadsAsItsMMCIF() throws {
        let corpus = try Fixtures.requireCorpus()
        for (bcif, cif) in [("1CRN", "1CRN.cif"), ("1A8O", "1A8O.cif"), ("1bna", "1bna.cif"), ("3PQR", "3PQR.cif"), ("1pfe", "1pfe.cif.gz")] {
            let b = try Fixtures.load("bcif/\(bcif).bcif.gz")
            let c = try StructureFile.load(path: corpus.appendingPathComponent(cif).path)
            Fixtures.assertReadAlike(b, c, bcif)
            XCTAssertEqual(b.metadata, c.metadata, bcif)
            XCTAssertEqual(b.entities, c.entities, bcif)
            XCTAssertEqual(b.secondaryStructure, c.secondaryStructure, bcif)
        }
        let rcsb = try Fixtures.load("bcif/1cbs_full.bcif")
        XCTAssertEqual(rcsb.metadata.id, "1CBS")
        XCTAssertEqual(rcsb.models[0].atoms.count, 1213)
        XCTAssertEqual(rcsb.models[0].atoms[0].position, SIMD3(16.979, 13.301, 44.555))
    }

    /// Hostile BinaryCIF: a clear error, never a crash or a large allocation.
    func testHostileBinaryCIF() throws {
        let good = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("bcif/1cbs_full.bcif")))
        var cases: [(String, [UInt8])] = []
        for cut in [1, 20, 200, good.count / 2, good.count - 1] { cases.append(("truncated at \(cut)", Array(good.prefix(cut)))) }
        // A map declaring 2^32-1 entries, an array of 2^32-1, a binary of 4 GB, 10,000 nested arrays.
        cases.append(("huge map", [0xDF, 0xFF, 0xFF, 0xFF, 0xFF] + Array("dataBlocks".utf8)))
        cases.append(("huge array", [0x81, 0xAA] + Array("dataBlocks".utf8) + [0xDD, 0xFF, 0xFF, 0xFF, 0xFF, 0x00]))
        cases.append(("huge binary", [0x81, 0xAA] + Array("dataBlocks".utf8) + [0xC6, 0xFF, 0xFF, 0xFF, 0xFF]))
        cases.append(("deep", [0x81, 0xAA] + Array("dataBlocks".utf8) + [UInt8](repeating: 0x91, count: 10_000) + [0xC0]))
        // A run-length column declaring 10^9 values for one row.
        cases.append(("run length", BinaryCIFBuilder.oneColumn(rows: 1, encoding: [("kind", .s("RunLength")), ("srcType", .i(3)), ("srcSize", .i(1_000_000_000))],
                                                              data: [1, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0x7F])))
        cases.append(("wrong length", BinaryCIFBuilder.oneColumn(rows: 5, encoding: nil, data: [1, 0, 0, 0])))
        for (what, bytes) in cases {
            XCTAssertThrowsError(try StructureFile.parse(bytes, source: "hostile.bcif"), what) { error in
                XCTAssertTrue(error is StructureError, "\(what): \(error)")
                XCTAssertTrue("\(error)".contains("hostile.bcif"), "\(what): \(error)")
            }
        }
    }

    func testWritingPDBRoundTripsAndRefusesWhatDoesNotFit() throws {
        let s = try Fixtures.load("1orc.pdb")
        let again = try StructureFile.parse(CoordinateWriter.write(s, as: .pdb), source: "x.pdb")
        XCTAssertEqual(again.models[0].atoms.count, s.models[0].atoms.count)
        for (a, b) in zip(again.models[0].atoms, s.models[0].atoms) {
            XCTAssertEqual(a.position, b.position)
            XCTAssertEqual(a.name, b.name)
            XCTAssertEqual(a.element, b.element)
            XCTAssertEqual(a.altLoc, b.altLoc)
        }
        XCTAssertEqual(again.models[0].residues.map(\.insertionCode), s.models[0].residues.map(\.insertionCode))
        XCTAssertEqual(again.models[0].chainIDs, s.models[0].chainIDs)
        let cif = try StructureFile.parse(CoordinateWriter.write(s, as: .mmcif), source: "x.cif")
        XCTAssertEqual(cif.models[0].atoms.map(\.position), s.models[0].atoms.map(\.position))
        XCTAssertEqual(cif.secondaryStructure, s.secondaryStructure)
        var long = s
        long.models[0].chains[0].id = "AB"
        XCTAssertThrowsError(try CoordinateWriter.write(long, as: .pdb)) { error in
            XCTAssertTrue("\(error)".contains("chain id 'AB'"), "\(error)")
        }
    }
}

/// Hand-made BinaryCIF documents for the hostile cases.
enum BinaryCIFBuilder {
    enum V { case s(String), i(Int) }

    static func str(_ s: String) -> [UInt8] { [0xD9, UInt8(s.utf8.count)] + Array(s.utf8) }
    static func int(_ v: Int) -> [UInt8] { [0xD2] + withUnsafeBytes(of: Int32(v).bigEndian, Array.init) }

    /// One category `_atom_site` with one column `Cartn_y` of `rows` rows, its data a ByteArray of Int32 after `encoding`.
    static func oneColumn(rows: Int, encoding: [(String, V)]?, data: [UInt8]) -> [UInt8] {
        var encodings: [[UInt8]] = []
        if let encoding {
            var m: [UInt8] = [0x80 | UInt8(encoding.count)]
            for (k, v) in encoding {
                m += str(k)
                switch v {
                case .s(let s): m += str(s)
                case .i(let i): m += int(i)
                }
            }
            encodings.append(m)
        }
        encodings.append([0x82] + str("kind") + str("ByteArray") + str("type") + int(3))
        var column: [UInt8] = [0x83] + str("name") + str("Cartn_y") + str("mask") + [0xC0] + str("data")
        column += [0x82] + str("data") + [0xC4, UInt8(data.count)] + data + str("encoding") + [0x90 | UInt8(encodings.count)] + encodings.joined()
        let category: [UInt8] = [0x83] + str("name") + str("_atom_site") + str("rowCount") + int(rows) + str("columns") + [0x91] + column
        let block: [UInt8] = [0x82] + str("header") + str("X") + str("categories") + [0x91] + category
        return [0x81] + str("dataBlocks") + [0x91] + block
    }
}

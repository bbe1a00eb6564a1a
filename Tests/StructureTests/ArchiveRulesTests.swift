import Foundation
import Core
import XCTest
@testable import Structure

/// The archive's rules on its own files: alternate locations counted as gemmi and biotite keep
/// them, assembly copies named apart however the file spells the assembly, symmetry copies
/// selected by their deposited chain, D-amino acids in the chain they sit in.
final class ArchiveRulesTests: XCTestCase {
    /// Tests/Fixtures/archive/altloc-reference.tsv (bench/tools/altloc_reference.py: gemmi 0.7.5
    /// `remove_alternative_conformations` and `make_assembly`, biotite 1.6.0 `altloc="first"`).
    func references() throws -> [(file: String, assembly: String, gemmi: Int, biotite: Int)] {
        let text = try String(contentsOfFile: Fixtures.path("archive/altloc-reference.tsv"), encoding: .utf8)
        return text.split(separator: "\n").dropFirst(2).map { line in
            let f = line.split(separator: "\t").map(String.init)
            return (f[0], f[1], Int(f[2])!, Int(f[3])!)
        }
    }

    /// 5eil and 3wip are rich in alternate locations, 4zxb spells its assembly in two gen rows:
    /// the model, every assembly, and each written as mmCIF and read back, count what gemmi and
    /// biotite count.
    func testEveryCountKeepsTheFirstAlternateAsGemmiAndBiotiteDo() throws {
        let rows = try references()
        XCTAssertEqual(rows.count, 7)
        for row in rows {
            let structure = try Fixtures.load("archive/\(row.file).gz")
            XCTAssertEqual(row.gemmi, row.biotite, "the two references agree on \(row.file) \(row.assembly)")
            if row.assembly == "model" {
                XCTAssertEqual(structure.models[0].atoms.count, row.gemmi, row.file)
                XCTAssertEqual(StructureSummary(file: row.file, structure: structure, bonds: []).atoms, row.gemmi, row.file)
                continue
            }
            let assembly = try XCTUnwrap(structure.assemblies.first { $0.id == row.assembly })
            XCTAssertEqual(AssemblyBuilder.atomCounts(assembly, in: structure.models[0]).all, row.gemmi, "\(row.file) \(row.assembly)")
            let built = try structure.applying(.id(row.assembly), source: row.file)
            XCTAssertEqual(built.models[0].atoms.count, row.gemmi, "\(row.file) \(row.assembly)")
            let text = CoordinateWriter.mmCIF(built)
            let back = try StructureFile.parse(Array(text.utf8), source: "written", format: .mmcif)
            XCTAssertEqual(back.models[0].atoms.count, row.gemmi, "\(row.file) \(row.assembly) written and read back")
        }
    }

    func testAlternatesAsked() throws {
        var options = StructureFile.Options()
        let raw = try FileInput.readAll(path: Fixtures.path("archive/5eil.cif.gz"), limit: 1 << 28)
        let first = try StructureFile.decode(raw, source: "5eil", options: options)
        XCTAssertEqual(first.alternatesLeftAside, 44)
        options.altloc = .all
        let all = try StructureFile.decode(raw, source: "5eil", options: options)
        XCTAssertEqual(all.models[0].atoms.count, 7327, "every atom record")
        XCTAssertEqual(all.alternatesLeftAside, 0)
        options.altloc = .id(UInt8(ascii: "B"))
        let b = try StructureFile.decode(raw, source: "5eil", options: options)
        XCTAssertEqual(b.models[0].atoms.count, 7283, "B where a residue has it: as many atoms as A here")
        XCTAssertTrue(b.models[0].atoms.contains { $0.altLoc == UInt8(ascii: "B") })
        XCTAssertFalse(b.models[0].atoms.contains { $0.altLoc == UInt8(ascii: "A") })
        options.altloc = .occupancy
        let occupancy = try StructureFile.decode(raw, source: "5eil", options: options)
        XCTAssertEqual(occupancy.models[0].atoms.count + occupancy.alternatesLeftAside, 7327)
        XCTAssertNil(AltLocChoice(parsing: "AB"))
        XCTAssertEqual(AltLocChoice(parsing: "Occupancy"), .occupancy)
    }

    /// 4zxb's assembly 1 is operator 1 over chains A-L in one gen row and operator 2 over the
    /// same chains in another: the second copy is A-2..., as copies of one row are named, so
    /// every atom is read back (gemmi 0.7.5 read 12,918 of 25,836 when both were named A...).
    func testCopiesFromSeparateRowsAreNamedApart() throws {
        let structure = try Fixtures.load("archive/4zxb.cif.gz")
        let built = try structure.applying(.id("1"), source: "4zxb")
        let model = built.models[0]
        let ids = model.chainIDs
        XCTAssertTrue(ids.contains("A") && ids.contains("A-2"), "\(ids)")
        // Each label_asym id once per copy.
        let labels = model.chains.map(\.labelID)
        XCTAssertEqual(Set(labels).count, labels.count, "label ids unique: \(labels)")
        XCTAssertEqual(Set(model.chains.map(\.copy)), [1, 2])
        XCTAssertEqual(model.chains.first { $0.id == "A-2" }?.deposited, "A")
        let text = CoordinateWriter.mmCIF(built)
        let back = try StructureFile.parse(Array(text.utf8), source: "written", format: .mmcif)
        XCTAssertEqual(back.models[0].atoms.count, 25836)
        XCTAssertEqual(Set(back.models[0].chainIDs), Set(ids))
        // chain A is both copies, chain A-2 the second, copy 1 the first.
        let a = try Selection(parsing: "chain A").atoms(in: model).count
        let a2 = try Selection(parsing: "chain A-2").atoms(in: model).count
        XCTAssertEqual(a, 2 * a2)
        XCTAssertEqual(try Selection(parsing: "copy 1").atoms(in: model).count, 12918)
        XCTAssertEqual(try Selection(parsing: "operator 2").atoms(in: model).count, 12918)
    }

    /// 1F2N's capsid: chain A in all 60 copies, three chains, the symmetry axes of an icosahedron.
    func testACapsidsChainIsEveryCopyOfIt() throws {
        let corpus = try Fixtures.requireCorpus()
        let structure = try StructureFile.load(path: corpus.appendingPathComponent("1f2n.cif").path)
        let model = try structure.applying(.id("1"), source: "1f2n").models[0]
        let deposited = try Selection(parsing: "chain A").atoms(in: structure.models[0]).count
        XCTAssertEqual(try Selection(parsing: "chain A").atoms(in: model).count, 60 * deposited)
        XCTAssertEqual(Set(model.chains.filter { $0.deposited == "A" }.map(\.copy)).count, 60)
        XCTAssertEqual(model.depositedChainIDs.prefix(3), ["A", "B", "C"])
        XCTAssertEqual(try Selection(parsing: "copy 7 and chain B").atoms(in: model).count,
                       try Selection(parsing: "chain B").atoms(in: structure.models[0]).count)
        let axes = model.symmetryAxes
        XCTAssertEqual(Set(axes.keys), [2, 3, 5])
        // An icosahedron's 5-fold and nearest 3-fold are 37.38° apart; some pair of them is.
        let angle = Double(acos(abs((axes[5]! * axes[3]!).sum()))) * 180 / .pi
        let allowed = [37.38, 79.19, 100.81, 142.62].map { min($0, 180 - $0) }
        XCTAssertTrue(allowed.contains { abs($0 - angle) < 0.5 }, "5-fold to 3-fold: \(angle)°")
    }

    /// 4CXL's chain B holds a D-proline (DPR) inside its peptide: a modified residue of the
    /// polymer (the CCD gives it the one-letter code P), not a ligand.
    func testADAminoAcidInAChainIsPolymer() throws {
        let structure = try Fixtures.load("archive/4cxl.cif.gz")
        let summary = StructureSummary(file: "4cxl", structure: structure, bonds: [])
        XCTAssertFalse(summary.ligands.contains { $0.name == "DPR" }, "\(summary.ligands)")
        XCTAssertTrue(summary.modifiedResidues.contains { $0.name == "DPR" && $0.parent == "PRO" }, "\(summary.modifiedResidues)")
        let dpr = try XCTUnwrap(structure.models[0].residues.first { $0.name == ShortName("DPR") })
        XCTAssertFalse(dpr.isLigand)
        XCTAssertEqual(dpr.standardName, ShortName("PRO"))
    }

    /// 7JX4's acetyl cap is bonded to GLY 1 (C to N, 1.33 Å): the chain's, no ligand; its HYP a
    /// modified residue (parent PRO).
    func testACapBondedToTheChainIsTheChains() throws {
        let s = try Fixtures.load("7jx4-ace-cap.pdb")
        let summary = StructureSummary(file: "7jx4", structure: s, bonds: [])
        XCTAssertEqual(summary.ligands.map(\.name), [], "no ligands")
        let ace = try XCTUnwrap(s.models[0].residues.first { $0.name == ShortName("ACE") })
        XCTAssertFalse(ace.isLigand)
        XCTAssertTrue(summary.modifiedResidues.contains { $0.name == "HYP" && $0.parent == "PRO" }, "\(summary.modifiedResidues)")
        XCTAssertTrue(summary.text.contains("ACE (cap)"), summary.text)
    }

    /// Residue numbers at the ends of Int32 beside a group with no parent: compared without
    /// arithmetic that traps (`number + 1` ended the process on Int32.max).
    func testCapsAtTheEndsOfTheNumbersDoNotTrap() throws {
        let text = """
            data_x
            loop_
            _atom_site.group_PDB
            _atom_site.id
            _atom_site.type_symbol
            _atom_site.label_atom_id
            _atom_site.label_comp_id
            _atom_site.auth_asym_id
            _atom_site.auth_seq_id
            _atom_site.Cartn_x
            _atom_site.Cartn_y
            _atom_site.Cartn_z
            ATOM 1 C C ALA A 2147483647 0 0 0
            HETATM 2 C C1 XYZ A -2147483648 1.2 0 0
            ATOM 3 N N GLY A -2147483647 2.4 0 0
            """
        let s = try StructureFile.parse(Array(text.utf8), source: "ends.cif")
        XCTAssertEqual(s.models[0].residues.count, 3)
    }

    /// Residues and chains as the RCSB counts them: 1A8O's chain A is 70 residues with 88 waters apart;
    /// the library's (and the viewer's) counts are of polymer chains and residues.
    func testCountsLeaveWatersApart() throws {
        let corpus = try Fixtures.requireCorpus()
        let structure = try StructureFile.load(path: corpus.appendingPathComponent("1A8O.pdb").path)
        let summary = StructureSummary(file: "1A8O", structure: structure, bonds: [])
        XCTAssertEqual(summary.chains.map(\.residues), [70])
        XCTAssertEqual(summary.chains.map(\.waters), [88])
        XCTAssertEqual(structure.models[0].countedChainsAndResidues.chains, 1)
        XCTAssertEqual(structure.models[0].countedChainsAndResidues.residues, 70)
        // 1HPV as the RCSB counts it: 2 chains, 198 residues (the inhibitor and waters apart).
        let hpv = try Fixtures.load("1hpv.pdb").models[0].countedChainsAndResidues
        XCTAssertEqual(hpv.chains, 2)
        XCTAssertEqual(hpv.residues, 198)
    }

    /// The RCSB's python-mmcif BinaryCIF of 5eil and 4zxb read as their mmCIF: atoms, chains,
    /// entities, assemblies, metadata, secondary structure, modified residues.
    func testBinaryCIFReadsAsTheMMCIFOfTheSameEntry() throws {
        for entry in ["5eil", "4zxb"] {
            let b = try Fixtures.load("archive/\(entry).bcif.gz"), c = try Fixtures.load("archive/\(entry).cif.gz")
            Fixtures.assertReadAlike(b, c, entry)
            XCTAssertEqual(b.metadata, c.metadata, entry)
            XCTAssertEqual(b.entities, c.entities, entry)
            XCTAssertEqual(b.secondaryStructure, c.secondaryStructure, entry)
            XCTAssertEqual(b.componentNames, c.componentNames, entry)
            XCTAssertEqual(b.alternatesLeftAside, c.alternatesLeftAside, entry)
            XCTAssertEqual(b.models[0].residues, c.models[0].residues, entry)
        }
    }

    /// Mol*'s `cif2bcif` (the RCSB's encoder) as biotite 1.6.0 reads the same file: 3LZM, 1,461
    /// atoms of chain A in 316 residues, 152 of the atoms hetero (waters and ligands).
    func testMolstarsEncoderReadsAsBiotiteReadsIt() throws {
        let s = try Fixtures.load("archive/3lzm_cif2bcif.bcif.gz")
        XCTAssertEqual(s.metadata.id, "3LZM")
        XCTAssertEqual(s.metadata.title, "STRUCTURAL STUDIES OF MUTANTS OF T4 LYSOZYME THAT ALTER HYDROPHOBIC STABILIZATION")
        let m = s.models[0]
        XCTAssertEqual(m.atoms.count, 1461)
        XCTAssertEqual(Set(m.chainIDs), ["A"])
        XCTAssertEqual(m.residues.count, 316)
        XCTAssertEqual(m.residues.filter(\.isHetero).reduce(0) { $0 + $1.atoms.count }, 152, "hetero atoms")
        XCTAssertFalse(s.entities.isEmpty)
    }
}

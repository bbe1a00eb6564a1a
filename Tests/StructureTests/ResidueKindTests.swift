import Foundation
@testable import Structure
import XCTest

/// What each residue is, from what the molecule is (the entity tables, the Chemical Component
/// Dictionary's types, the bonds to its neighbours), on files of the producers that write them
/// differently (`Tests/Fixtures/producers/`, each with its source in FIXTURES.md).
final class ResidueKindTests: XCTestCase {
    func kinds(_ model: Model) -> [ResidueKind: Int] {
        model.residues.reduce(into: [:]) { $0[$1.kind, default: 0] += 1 }
    }

    /// MDAnalysis writes ions as ATOM records in the protein's (blank) chain: they were counted
    /// as 19 residues of the protein (81 for its 62). As biotite's filter_amino_acids and
    /// MDAnalysis's own `protein` count them: 62 amino acids, and 8 NA and 11 CL ions.
    func testIonsWrittenAsAtomRecordsAreIons() throws {
        let model = try XCTUnwrap(Fixtures.load("producers/mdanalysis-cobrotoxin-ions.pdb").models.first)
        XCTAssertEqual(kinds(model), [.polymer: 62, .ion: 19])
        let ions = model.residues.filter { $0.kind == .ion }.map(\.name.description)
        XCTAssertEqual(ions.filter { $0 == "NA" }.count, 8)
        XCTAssertEqual(ions.filter { $0 == "CL" }.count, 11)
        XCTAssertTrue(model.residues.allSatisfy { !$0.isHetero }, "the file writes every record as ATOM")
        XCTAssertEqual(model.chains.map(\.id), ["SYST"], "a blank chain id takes the segment id, as ChimeraX reads it")
        let protein = try Selection(parsing: "protein").mask(in: model).filter { $0 }.count
        let ligand = try Selection(parsing: "ligand").mask(in: model).filter { $0 }.count
        XCTAssertEqual(ligand, 19, "each ion is one atom")
        XCTAssertEqual(protein + ligand, model.atoms.count)
    }

    /// PyMOL 2.5 writes the author number into `label_seq_id` for every residue and no entity
    /// tables: the nine sugars of 1IGY's glycan read as "modified residues whose parent is
    /// themselves". They are ligands (carbohydrates); the protein's residues are its own.
    func testPyMOLsLabelSeqIDMakesNoCapOfASugar() throws {
        let model = try XCTUnwrap(Fixtures.load("producers/pymol25-1igy-glycan.cif").models.first)
        XCTAssertFalse(model.residues.contains { $0.isModified }, "no modified residue: \(model.residues.filter(\.isModified).map(\.name))")
        let sugars = model.residues.filter { ComponentType.of($0.name) == .saccharide }
        XCTAssertEqual(sugars.count, 9)
        XCTAssertTrue(sugars.allSatisfy(\.isLigand))
        XCTAssertTrue(model.residues.filter { $0.chain == 0 }.allSatisfy { $0.kind == .polymer }, "chain B's residues are its polymer's")
    }

    /// The same file without `_atom_site.group_PDB` (as Mol*'s exports can leave it out): the
    /// record type decides nothing, so the residues are what they were with it.
    func testAFileWithoutGroupPDBIsClassifiedAsWithIt() throws {
        let text = try String(contentsOfFile: Fixtures.path("producers/pymol25-1igy-glycan.cif"), encoding: .utf8)
        var lines = text.components(separatedBy: "\n").filter { $0 != "_atom_site.group_PDB" }
        for k in lines.indices where lines[k].hasPrefix("ATOM ") || lines[k].hasPrefix("HETATM ") {
            lines[k] = String(lines[k].drop { $0 != " " }.drop { $0 == " " })
        }
        let without = try StructureFile.decode(Array(lines.joined(separator: "\n").utf8), source: "no-group.cif").models[0]
        let with = try XCTUnwrap(Fixtures.load("producers/pymol25-1igy-glycan.cif").models.first)
        XCTAssertEqual(without.atoms.count, with.atoms.count)
        XCTAssertEqual(without.residues.map(\.kind), with.residues.map(\.kind))
        XCTAssertEqual(without.residues.filter { ComponentType.of($0.name) == .saccharide }.filter(\.isLigand).count, 9)
    }

    /// Refmac's and phenix's files have REMARK 3 and no REMARK 2 (1BNA's without its REMARK 2):
    /// the resolution is REMARK 3's RESOLUTION RANGE HIGH, not its BIN line's (NULL) or REMARK 200's.
    func testREMARK3GivesTheResolutionWithoutREMARK2() throws {
        let text = try String(contentsOfFile: Fixtures.path("1bna.pdb"), encoding: .utf8)
        let without = text.components(separatedBy: "\n").filter { !$0.hasPrefix("REMARK   2") }.joined(separator: "\n")
        XCTAssertNotEqual(without, text)
        let structure = try StructureFile.decode(Array(without.utf8), source: "1bna-remark3.pdb")
        XCTAssertEqual(structure.metadata.resolution, 1.9)
    }

    /// A PDB file's COMPND names chain A a polymer, and its four free arginines (HETATM, bonded to
    /// nothing; PLIP's 3EMS) sit in that chain: ligands, not residues of the lysozyme.
    func testFreeAminoAcidsInAPolymerChainAreLigands() throws {
        let model = try Fixtures.load("interactions/3ems.pdb.gz").models[0]
        let arginines = model.residues.filter { $0.isHetero && $0.name.description == "ARG" }
        XCTAssertEqual(arginines.count, 4)
        XCTAssertTrue(arginines.allSatisfy { $0.kind == .ligand })
        XCTAssertEqual(model.residues.filter { $0.kind == .polymer }.count, 129, "the lysozyme's 129")
    }

    /// The archive's own 1IGY states its glycans as branched entities: they are branched.
    func testBranchedEntitiesAreBranched() throws {
        guard let corpus = Fixtures.corpus else { throw XCTSkip("../shared/corpus is absent") }
        let structure = try StructureFile.load(path: corpus.appendingPathComponent("1igy.cif").path)
        let model = try XCTUnwrap(structure.models.first)
        let glycan = model.chains.filter { $0.entity == "3" || $0.entity == "4" }
        XCTAssertEqual(glycan.count, 2)
        for chain in glycan {
            XCTAssertTrue(chain.residues.allSatisfy { model.residues[Int($0)].kind == .branched }, "chain \(chain.id)")
        }
        XCTAssertEqual(kinds(model)[.polymer], 2 * (213 + 434) - (model.residues.filter(\.isModified).count))
    }

    /// Maestro's capped peptide (ATOM records throughout): the N-terminal ACE and the
    /// C-terminal NMA are caps of the chain, bonded to it, not ligands.
    func testCapsBondedToTheChainAreItsResidues() throws {
        let model = try XCTUnwrap(Fixtures.load("producers/maestro-capped-peptide.pdb").models.first)
        let caps = model.residues.filter(\.isModified)
        XCTAssertEqual(caps.map(\.name.description), ["ACE", "NMA"])
        XCTAssertEqual(kinds(model)[.ligand], nil)
        XCTAssertEqual(kinds(model)[.polymer], 14)
    }

    /// antechamber's GAFF atom types (oh, c3, ho, hc, h1) are no element symbols: read as
    /// symbols they gave no elements (or calcium for ca, niobium for nb).
    func testGAFFAtomTypesGiveTheirElements() throws {
        let structure = try Fixtures.load("producers/antechamber-gaff-ethanol.mol2")
        let model = try XCTUnwrap(structure.models.first)
        XCTAssertEqual(model.atoms.map(\.element.symbol), ["O", "C", "C", "H", "H", "H", "H", "H", "H"])
    }

    func testForceFieldAndSYBYLTypes() {
        func element(_ type: String) -> String {
            let bytes = Array(type.utf8)
            return bytes.withUnsafeBufferPointer { MOL2Reader.element(ofType: $0, 0..<bytes.count).symbol }
        }
        XCTAssertEqual(["ca", "nb", "nh", "cl", "br", "f", "s6", "p5", "CT", "CA", "NA", "HC"].map(element),
                       ["C", "N", "N", "Cl", "Br", "F", "S", "P", "C", "C", "N", "H"])
        XCTAssertEqual(["C.ar", "N.am", "Cl", "Br", "Fe", "Zn", "Na", "Mg", "H", "O.co2"].map(element),
                       ["C", "N", "Cl", "Br", "Fe", "Zn", "Na", "Mg", "H", "O"])
    }

    /// OPM marks the membrane's planes with DUM atoms: markers, never a molecule to draw.
    /// (Written here after OPM's layout: no OPM file is reachable from this machine.)
    func testOPMMembraneMarkersAreDummies() throws {
        let text = "REMARK      1/2 of bilayer thickness:   14.1\n"
            + "ATOM      1  N   ALA A   1      11.104   6.134  -6.504  1.00  0.00           N\n"
            + "HETATM 2001  N   DUM  2001     -28.000 -12.000 -14.100\n"
            + "HETATM 2002  O   DUM  2002     -28.000 -12.000  14.100\n"
        let structure = try StructureFile.decode(Array(text.utf8), source: "opm.pdb")
        let model = try XCTUnwrap(structure.models.first)
        XCTAssertEqual(model.residues.map(\.kind), [.polymer, .dummy, .dummy])
        XCTAssertFalse(model.residues.contains { $0.isLigand })
    }

    /// A Chemical Component Dictionary entry (no `_atom_site`) was refused as "not a structure":
    /// it is a model of one ligand at its ideal coordinates, bonded by its own `_chem_comp_bond`
    /// with their orders (ATP: 47 atoms, 49 bonds, as the dictionary lists them).
    func testAComponentEntryIsAMoleculeWithItsOwnBonds() throws {
        let structure = try Fixtures.load("producers/ccd-ATP.cif")
        XCTAssertEqual(structure.metadata.id, "ATP")
        XCTAssertEqual(structure.metadata.title, "ADENOSINE-5'-TRIPHOSPHATE")
        let model = try XCTUnwrap(structure.models.first)
        XCTAssertEqual(model.atoms.count, 47)
        XCTAssertEqual(model.residues.map(\.kind), [.ligand])
        let bonds = try BondPerception.standard().bonds(of: model, embedded: structure.embeddedTemplates)
        XCTAssertEqual(bonds.count, 49)
        let pg = try XCTUnwrap(model.atoms.firstIndex { $0.name == ShortName("PG") })
        let o1g = try XCTUnwrap(model.atoms.firstIndex { $0.name == ShortName("O1G") })
        XCTAssertEqual(bonds.first { Set([Int($0.a), Int($0.b)]) == Set([pg, o1g]) }?.order, 2, "PG=O1G is double in the entry")
        XCTAssertEqual(bonds.filter(\.aromatic).count, 10, "adenine's ten aromatic bonds")
        // Ideal coordinates: PG at (1.200, -0.226, -6.850).
        XCTAssertEqual(model.atoms[pg].position.x, 1.2, accuracy: 1e-4)
    }

    /// A components file of several blocks: each block's component a model.
    func testEachBlockOfAComponentsFileIsAModel() throws {
        let structure = try Fixtures.load("producers/ccd-components-ATP-HEM-NAG.cif")
        XCTAssertEqual(structure.models.map { $0.residues.map(\.name.description) }, [["ATP"], ["HEM"], ["NAG"]])
        XCTAssertEqual(structure.models.map(\.atoms.count), [47, 75, 30])
        XCTAssertEqual(structure.models[1].atoms.filter { $0.element.symbol == "Fe" }.count, 1)
    }

    /// python-ihm 2.12's own docking example (its `simple-docking.py` run as shipped): subunit A
    /// as three CA atoms, subunit B as three beads of radius 1.2 A in `_ihm_sphere_obj_site`,
    /// which had been refused as "not a structure" without its atoms and drawn without its beads
    /// with them.
    func testAnIntegrativeModelsBeadsAreResiduesOfTheirRadius() throws {
        let structure = try Fixtures.load("producers/python-ihm-docking-spheres.cif")
        XCTAssertEqual(structure.models.count, 1)
        let model = structure.models[0]
        XCTAssertEqual(model.chains.map(\.id), ["A", "B"])
        let beads = model.residues.indices.filter { model.residues[$0].kind == .coarse }
        XCTAssertEqual(beads.count, 3)
        XCTAssertTrue(beads.allSatisfy { model.chains[Int(model.residues[$0].chain)].id == "B" })
        XCTAssertEqual(model.chains[1].entity, "2")
        XCTAssertEqual(beads.map { model.residues[$0].number }, [1, 3, 5], "seq_id_begin")
        XCTAssertEqual(beads.map { model.residues[$0].name.description }, ["ALA", "ALA", "ALA"], "named by the entity's sequence")
        let radii = try XCTUnwrap(model.radii)
        XCTAssertEqual(radii.count, model.atoms.count)
        XCTAssertEqual(beads.map { radii[Int(model.residues[$0].atoms.lowerBound)] }, [1.2, 1.2, 1.2])
        XCTAssertEqual(model.atoms[Int(model.residues[beads[1]].atoms.lowerBound)].position, SIMD3(4, 5, 6))
        // The CA atoms stay a polymer chain of three residues.
        XCTAssertEqual(model.residues.filter { $0.kind == .polymer }.count, 3)
        let summary = StructureSummary(file: "ihm", structure: structure, bonds: [])
        XCTAssertEqual(summary.beads, 3)
        XCTAssertEqual(try Selection(parsing: "beads").atoms(in: model).count, 3)
        XCTAssertEqual(try Selection(parsing: "polymer").atoms(in: model).count, 3, "the CA atoms, not the beads")
        XCTAssertTrue(summary.text.contains("beads:      3"), summary.text)
        // Beads alone are a structure too.
        let text = try String(contentsOfFile: Fixtures.path("producers/python-ihm-docking-spheres.cif"), encoding: .utf8)
        let start = try XCTUnwrap(text.range(of: "loop_\n_atom_site.group_PDB"))
        let end = try XCTUnwrap(text.range(of: "#", range: start.upperBound..<text.endIndex))
        let alone = try StructureFile.decode(Array((String(text[..<start.lowerBound]) + String(text[end.upperBound...])).utf8), source: "beads.cif")
        XCTAssertEqual(alone.models[0].residues.map(\.kind), [.coarse, .coarse, .coarse])
    }

    /// Beads written as mmCIF go back to `_ihm_sphere_obj_site` (seq_id_begin and _end, radius,
    /// entity, asym) and read back the same; PDB format, which cannot hold them, refuses by name.
    func testBeadsRoundTripThroughMMCIFAndPDBRefusesThem() throws {
        let structure = try Fixtures.load("producers/python-ihm-docking-spheres.cif")
        let text = try String(decoding: CoordinateWriter.write(structure, as: .mmcif), as: UTF8.self)
        XCTAssertTrue(text.contains("_ihm_sphere_obj_site.object_radius"))
        XCTAssertTrue(text.contains("3 2 5 6 B 7.000 8.000 9.000 1.200 1"), text)
        let back = try StructureFile.decode(Array(text.utf8), source: "back.cif").models[0]
        let model = structure.models[0]
        XCTAssertEqual(back.residues.map(\.kind), model.residues.map(\.kind))
        XCTAssertEqual(back.atoms.map(\.position), model.atoms.map(\.position))
        XCTAssertEqual(back.radii, model.radii)
        XCTAssertThrowsError(try CoordinateWriter.write(structure, as: .pdb)) { error in
            XCTAssertTrue("\(error)".contains("beads"), "\(error)")
        }
    }

    /// A bead's bad radius or coordinate is an error naming the row, not a sphere.
    func testABadBeadIsAnError() throws {
        let text = try String(contentsOfFile: Fixtures.path("producers/python-ihm-docking-spheres.cif"), encoding: .utf8)
        let bad = text.replacingOccurrences(of: "4.000 5.000 6.000 1.200", with: "4.000 5.000 6.000 -3")
        XCTAssertNotEqual(bad, text)
        XCTAssertThrowsError(try StructureFile.decode(Array(bad.utf8), source: "bad.cif")) { error in
            XCTAssertTrue("\(error)".contains("_ihm_sphere_obj_site row 2"), "\(error)")
        }
    }

    /// python-modelcif 1.8's ligand example (its `ligands.py` run as shipped): a chain of three
    /// residues (CA atoms) and an iron-sulfur cluster (SF4, the example's one iron atom of it) of a
    /// non-polymer entity: what `ligand` selects (one metal atom: an ion).
    func testAModelCIFLigandIsALigand() throws {
        let structure = try Fixtures.load("producers/python-modelcif-ligand.cif")
        let model = structure.models[0]
        XCTAssertEqual(model.residues.map(\.kind), [.polymer, .polymer, .polymer, .ion])
        XCTAssertTrue(model.residues[3].isLigand)
        let summary = StructureSummary(file: "modelcif", structure: structure, bonds: [])
        XCTAssertEqual(summary.ligands.map(\.name), ["SF4"])
    }

    /// CHARMM-GUI's output for AMBER force fields (a peptide on a Lipid21 membrane; step5_input.pdb
    /// cut to the peptide, the ions, 50 waters and 9 lipid residues): chain ids blank, segments
    /// PROA, MEMB, IONS, TIP3 their chains; tleap's terminal names NGLU and CPRO residues of the
    /// peptide (parents GLU, PRO), not caps; TIP3P as TP3 waters (a CCD ligand's name too: water
    /// here because each is one oxygen and two hydrogens); Na+ and Cl- ions.
    func testCHARMMGUIsAMBERSystemIsPeptideWaterIonsAndLipids() throws {
        let model = try Fixtures.load("producers/charmmgui-amber-peptide-membrane.pdb").models[0]
        XCTAssertEqual(Set(model.chains.map(\.id)), ["PROA", "MEMB", "IONS", "TIP3"])
        let peptide = model.residues.filter { model.chains[Int($0.chain)].id == "PROA" }
        XCTAssertEqual(peptide.count, 20)
        XCTAssertTrue(peptide.allSatisfy { $0.kind == .polymer }, "\(peptide.map { "\($0.name) \($0.kind)" })")
        XCTAssertEqual(peptide.first?.name.description, "NGLU")
        XCTAssertEqual(peptide.first?.parent.description, "GLU")
        XCTAssertEqual(peptide.last?.parent.description, "PRO")
        XCTAssertEqual(model.residues.filter { $0.kind == .water }.count, 50)
        XCTAssertEqual(model.residues.filter { $0.kind == .ion }.count, 136)
        XCTAssertEqual(Set(model.residues.filter { $0.kind == .ligand }.map(\.name.description)), ["PA", "PC", "OL"])
    }

    /// CHARMM-GUI's output for CHARMM36 (a POPE membrane; step5_input.pdb cut to two lipids, 30
    /// waters and the ions): POT and CLA ions, TIP3 waters, POPE ligands, chains from segments.
    func testCHARMMGUIsCHARMM36SystemIsLipidsWaterAndIons() throws {
        let model = try Fixtures.load("producers/charmmgui-charmm36-membrane.pdb").models[0]
        XCTAssertEqual(Set(model.chains.map(\.id)), ["MEMB", "IONS", "TIP3"])
        XCTAssertEqual(model.residues.filter { $0.kind == .ion }.map(\.name.description).sorted(), ["CLA", "CLA", "CLA", "CLA", "CLA", "POT", "POT", "POT", "POT", "POT"])
        XCTAssertEqual(model.residues.filter { $0.kind == .water }.count, 30)
        XCTAssertEqual(model.residues.filter { $0.kind == .ligand }.map(\.name.description), ["POPE", "POPE"])
    }
}


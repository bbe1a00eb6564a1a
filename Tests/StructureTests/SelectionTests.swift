import Foundation
import Structure
import XCTest

/// The selection language on fixture files; expected counts worked out from the files' columns
/// (awk and a few lines of Python), not from the code under test.
final class SelectionTests: XCTestCase {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")

    func model(_ file: String) throws -> Model {
        try XCTUnwrap(try StructureFile.load(path: Self.fixtures.appendingPathComponent(file).path).models.first)
    }

    func count(_ expression: String, in model: Model) throws -> Int {
        try Selection(parsing: expression).atoms(in: model).count
    }

    func testCountsOnCrambin() throws {
        let m = try model("1crn.pdb")
        let expected: [(String, Int)] = [
            ("all", 327), ("none", 0), ("name CA", 46), ("n. ca", 46), ("resn CYS", 36), ("resn cys and name SG", 6), ("elem S", 6),
            ("not name CA", 281), ("resi 1-10", 70), ("(resi 1-5 or resi 40-46) and backbone", 49), ("chain A", 327), ("chain B", 0),
            ("polymer", 327), ("protein", 327), ("nucleic", 0), ("water", 0), ("ligand", 0), ("within 3 of name SG", 18),
            ("within 5 of name SG and name CA", 11), ("name CA+CB", 46 + 42), ("not not all", 327),
            ("resi 1-5,40-46 and backbone", 49), ("all and not (polymer or water)", 0),
        ]
        for (expression, n) in expected {
            XCTAssertEqual(try count(expression, in: m), n, expression)
        }
        // Atoms named C, CA, CB, CG1, ...: every carbon in crambin, whose carbons all have names starting with C.
        XCTAssertEqual(try count("name C*", in: m), try count("elem C", in: m))
        XCTAssertEqual(try count("name CA or name CB", in: m), try count("name CA+CB", in: m))
    }

    /// PyMOL's words: sidechain, byres, around, het; backbone of polymer residues only (1hpv's
    /// 80 waters have O atoms; counts from awk over the ATOM and HETATM records).
    func testPyMOLWordsAndBackboneOfPolymersOnly() throws {
        let crambin = try model("1crn.pdb")
        XCTAssertEqual(try count("sidechain", in: crambin), 142)
        XCTAssertEqual(try count("sc. and name CA", in: crambin), 0)
        XCTAssertEqual(try count("byres name SG", in: crambin), try count("resn CYS", in: crambin))
        XCTAssertEqual(try count("name SG around 3", in: crambin), 18 - 6, "within 3 of SG without the SG atoms")
        XCTAssertEqual(try count("byres (name SG around 3)", in: crambin), try count("byres (within 3 of name SG)", in: crambin))
        let protease = try model("1hpv.pdb")
        XCTAssertEqual(try count("backbone", in: protease), 794)
        XCTAssertEqual(try count("backbone and water", in: protease), 0)
        XCTAssertEqual(try count("het", in: protease), 115)
        XCTAssertEqual(try count("het and not water", in: protease), 35)
        // byres takes whole residues: every residue it touches is there entire.
        let near = try Selection(parsing: "byres (resn 478 around 4)").mask(in: protease)
        for (i, atom) in protease.atoms.enumerated() where near[i] {
            let residue = protease.residues[Int(atom.residue)]
            XCTAssertTrue(residue.atoms.allSatisfy { near[Int($0)] })
        }
        XCTAssertThrowsError(try Selection(parsing: "chian A")) { e in
            XCTAssertTrue("\(e)".contains("chian is not a selection word") && "\(e)".contains("(did you mean chain?)"), "\(e)")
        }
        XCTAssertThrowsError(try Selection(parsing: "ligand around")) { e in XCTAssertTrue("\(e)".contains("expected a distance in Å after around"), "\(e)") }
    }

    func testNucleicAcidWaterAndChains() throws {
        let m = try model("1bna.pdb")
        XCTAssertEqual(try count("all", in: m), 566)
        XCTAssertEqual(try count("water", in: m), 80)
        XCTAssertEqual(try count("chain A and not water", in: m), 243)
        XCTAssertEqual(try count("nucleic", in: m), 566 - 80)
        XCTAssertEqual(try count("polymer or water", in: m), 566)
        XCTAssertEqual(try count("elem P", in: m), 22)
        XCTAssertEqual(try count("hetatm", in: m), 80)
        XCTAssertEqual(try count("not polymer and not water", in: m), 0)
    }

    func testBadExpressionsSayWhereAndWhat() {
        let cases: [(String, Int, String)] = [
            ("chain A and", 12, "expected a selection, found the end"),
            ("resi 10-x", 6, "10-x is not a residue number or range"),
            ("within x of water", 8, "expected a distance"),
            ("within 5 water", 10, "expected of after within 5"),
            ("(chain A", 9, "expected ) to close the ( at 1"),
            ("chain A B", 9, "expected and, or or the end, found B"),
            ("colour red", 1, "colour is not a selection word"),
            ("chain", 6, "expected chain ids after chain"),
            ("name CA )", 9, "expected and, or or the end, found )"),
            ("and water", 1, "expected a selection before and"),
        ]
        for (expression, position, words) in cases {
            XCTAssertThrowsError(try Selection(parsing: expression), expression) { error in
                guard let e = error as? SelectionError else { return XCTFail("\(expression): \(error)") }
                XCTAssertEqual(e.position, position, "\(expression): \(e.message)")
                XCTAssertTrue(e.message.contains(words), "\(expression): \(e.message)")
                XCTAssertTrue(e.description.contains("^"), "the message points at the place")
            }
        }
    }
}

import XCTest
@testable import Structure

final class PDBReaderTests: XCTestCase {
    func testCrambinHierarchyAndMetadata() throws {
        let s = try Fixtures.load("1crn.pdb")
        XCTAssertEqual(s.format, .pdb)
        XCTAssertEqual(s.metadata.id, "1CRN")
        XCTAssertEqual(s.metadata.method, "X-RAY DIFFRACTION")
        XCTAssertEqual(s.metadata.resolution, 1.5)
        XCTAssertTrue(s.metadata.title.hasPrefix("WATER STRUCTURE OF A HYDROPHOBIC PROTEIN AT ATOMIC RESOLUTION."))
        XCTAssertEqual(s.models.count, 1)
        let m = s.models[0]
        XCTAssertEqual(m.atoms.count, 327)
        XCTAssertEqual(m.residues.count, 46)
        XCTAssertEqual(m.chains.map(\.id), ["A"])
        let first = m.atoms[0]
        XCTAssertEqual(first.name, ShortName("N"))
        XCTAssertEqual(first.element, .nitrogen)
        XCTAssertEqual(first.position, SIMD3<Float>(17.047, 14.099, 3.625))
        XCTAssertEqual(first.bFactor, 13.79)
        XCTAssertEqual(m.residues[0].name, ShortName("THR"))
        XCTAssertEqual(m.residues[0].atoms, 0..<7)
        XCTAssertEqual(m.explicitBonds.count, 3, "three disulfides in CONECT")
    }

    func testOldLayoutWithLineNumbersInColumns73To80() throws {
        // Columns 73-80 hold "1GDR 109": neither segment id nor element.
        let s = try Fixtures.load("pdb1gdr.ent")
        XCTAssertEqual(s.models[0].atoms.count, 105)
        XCTAssertTrue(s.models[0].atoms.allSatisfy { $0.element == .carbon && $0.name == ShortName("CA") })
        XCTAssertEqual(s.metadata.title, "GAMMA DELTA RESOLVASE", "COMPND stands in for TITLE, without the line ids")
    }

    func testCRLFAndMissingResidueNames() throws {
        let s = try Fixtures.load("Nanotube.pdb")
        XCTAssertEqual(s.models[0].atoms.count, 288)
        XCTAssertTrue(s.models[0].atoms.allSatisfy { $0.element == .carbon })
        XCTAssertEqual(s.models[0].explicitBonds.count, 416)
    }

    func testCaffeineWithoutResidueOrChain() throws {
        let m = try Fixtures.load("Caffeine.pdb").models[0]
        XCTAssertEqual(m.atoms.count, 24)
        XCTAssertEqual(m.atoms.filter { $0.element == .hydrogen }.count, 10)
        XCTAssertEqual(m.atoms.filter { $0.element == .nitrogen }.count, 4)
        XCTAssertEqual(m.chains.map(\.id), [""])
        XCTAssertEqual(m.explicitBonds.count, 25, "CONECT lists each bond from both ends; zero fields are no atom")
    }

    func testConectFindsAtomsByDenseAndBySparseSerials() throws {
        func atom(_ serial: Int, _ name: String, _ x: Double) -> String {
            "HETATM" + String(repeating: " ", count: 5 - String(serial).count) + "\(serial) \(name.padding(toLength: 4, withPad: " ", startingAt: 0)) LIG A   1    "
                + String(format: "%8.3f%8.3f%8.3f", x, 0.0, 0.0) + "  1.00  0.00           C"
        }
        for serials in [[1, 2, 3], [7, 50_000, 99_999]] {
            var text = (0..<3).map { atom(serials[$0], "C\($0 + 1)", Double($0) * 1.5) }.joined(separator: "\n") + "\n"
            // Bonds 1-2 and 2-3, one listed from both ends, and a partner no atom has.
            func field(_ n: Int) -> String { String(repeating: " ", count: 5 - String(n).count) + "\(n)" }
            text += "CONECT" + field(serials[0]) + field(serials[1]) + "\n"
            text += "CONECT" + field(serials[1]) + field(serials[0]) + field(serials[2]) + field(12_345) + "\nEND\n"
            let bytes = Array(text.utf8)
            let m = try bytes.withUnsafeBufferPointer { try PDBReader.read($0, source: "conect.pdb") }.models[0]
            XCTAssertEqual(m.explicitBonds.map { [$0.a, $0.b] }, [[0, 1], [1, 2]], "serials \(serials)")
        }
    }

    func testModelsHybrid36AndIons() throws {
        let s = try Fixtures.load("multimodel.pdb")
        XCTAssertEqual(s.models.map(\.number), [1, 2])
        XCTAssertEqual(s.models.map(\.atoms.count), [10, 2])
        XCTAssertEqual(s.metadata.title, "TWO MODELS, HYBRID-36 NUMBERS, A CALCIUM ION AND A MERCURY ATOM SPLIT OVER TWO LINES")
        XCTAssertEqual(s.metadata.method, "SOLUTION NMR")
        let m = s.models[0]
        let calcium = m.atoms[8], mercury = m.atoms[9]
        XCTAssertEqual(calcium.serial, 100_000, "A0000 in hybrid-36")
        XCTAssertEqual(m.residues[Int(calcium.residue)].number, 10_000, "A000 in hybrid-36")
        XCTAssertEqual(calcium.element.symbol, "Ca", "CA starting in column 13 of a HETATM is calcium")
        XCTAssertEqual(mercury.element.symbol, "Hg")
        XCTAssertEqual(m.atoms[1].element, .carbon, "' CA ' is an alpha carbon")
        XCTAssertEqual(s.models[1].atoms[0].position.x, 0.1)
    }

    func testElementInferredFromAtomNameColumns() {
        func infer(_ name: String, _ residue: String = "ALA", hetero: Bool = false) -> String {
            Array(name.utf8).withUnsafeBufferPointer {
                PDBReader.inferElement($0, 0, residueName: ShortName(residue), hetero: hetero).symbol
            }
        }
        XCTAssertEqual(infer(" CA "), "C")
        XCTAssertEqual(infer("CA  ", "CA", hetero: true), "Ca")
        XCTAssertEqual(infer("1HB "), "H")
        XCTAssertEqual(infer("HD21", "ASN"), "H")
        XCTAssertEqual(infer("HO5'", "DA", hetero: true), "H")
        XCTAssertEqual(infer("FE  ", "HEM", hetero: true), "Fe")
        XCTAssertEqual(infer(" NA ", "HEM", hetero: true), "N")
        XCTAssertEqual(infer("CL1 ", "LIG", hetero: true), "Cl")
        XCTAssertEqual(infer("C12 ", "LIG", hetero: true), "C")
        XCTAssertEqual(infer("    "), "X")
    }

    func testAlternateLocationsAndInsertionCodes() throws {
        let m = try Fixtures.load("1orc.pdb").models[0]
        XCTAssertEqual(m.atoms.count, 559)
        let alternates = m.atoms.filter { $0.altLoc != 0 }
        XCTAssertEqual(alternates.count, 12)
        XCTAssertEqual(Set(alternates.map(\.altLoc)), [UInt8(ascii: "A"), UInt8(ascii: "B")])
        let mask = m.defaultConformerMask()
        XCTAssertEqual(zip(m.atoms, mask).filter { $0.0.altLoc != 0 && $0.1 }.count, 6, "one conformer of each pair")
        XCTAssertEqual(m.residues.filter { $0.insertionCode != 0 }.count, 5)
    }

    func testReadingTwiceGivesTheSameStructure() throws {
        let a = try Fixtures.load("1orc.pdb"), b = try Fixtures.load("1orc.pdb")
        XCTAssertEqual(a.models[0].atoms, b.models[0].atoms)
        XCTAssertEqual(a.models[0].residues, b.models[0].residues)
    }
}

import Foundation
import Structure
import XCTest

final class SecondaryStructureTests: XCTestCase {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")

    func load(_ file: String) throws -> Structure { try StructureFile.load(path: Self.fixtures.appendingPathComponent(file).path) }

    static func letters(_ s: [SecondaryStructure]) -> String { String(s.map { $0 == .helix ? "H" : $0 == .strand ? "E" : "-" }) }

    func testRecordsOfPDBAndMMCIFAgree() throws {
        let pdb = try load("1crn.pdb"), cif = try load("1CRN.cif")
        XCTAssertEqual(pdb.secondaryStructure, [
            SecondaryStructureRange(kind: .helix, chain: "A", start: 7, end: 19), SecondaryStructureRange(kind: .helix, chain: "A", start: 23, end: 30),
            SecondaryStructureRange(kind: .strand, chain: "A", start: 1, end: 4), SecondaryStructureRange(kind: .strand, chain: "A", start: 32, end: 35),
        ])
        let fromPDB = pdb.models[0].secondaryStructure(from: pdb.secondaryStructure)
        XCTAssertEqual(Self.letters(fromPDB), "EEEE--HHHHHHHHHHHHH---HHHHHHHH-EEEE-----------")
        XCTAssertEqual(Self.letters(cif.models[0].secondaryStructure(from: cif.secondaryStructure)), Self.letters(fromPDB))
    }

    func testAssignedFromTheBackboneAgreesWithTheRecords() throws {
        for (file, least) in [("1crn.pdb", 0.85), ("1orc.pdb", 0.8), ("pdb1gdr.ent", 0.8)] {
            let s = try load(file)
            let m = s.models[0]
            let stated = m.secondaryStructure(from: s.secondaryStructure), assigned = m.assignedSecondaryStructure()
            let protein = (0..<m.residues.count).filter { !m.residues[$0].isHetero && !m.residues[$0].isWater }
            let same = protein.filter { stated[$0] == assigned[$0] }.count
            print("\(file)\n  \(Self.letters(protein.map { stated[$0] }))\n  \(Self.letters(protein.map { assigned[$0] }))")
            XCTAssertGreaterThanOrEqual(Double(same) / Double(protein.count), least, "\(file): \(same) of \(protein.count) residues agree")
            XCTAssertTrue(assigned.contains(.helix) || !stated.contains(.helix), "\(file): helices found")
        }
    }
}

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

    /// Residues' states as DSSP (mkdssp 4.2.2, `--output-format dssp`) assigns them: H an alpha
    /// helix, E a strand, anything else (3-10 and pi helices, bridges, turns, bends) a loop, keyed by
    /// chain and residue number with insertion code.
    static func dssp(_ file: String) throws -> [String: SecondaryStructure] {
        let text = try String(contentsOf: fixtures.appendingPathComponent("dssp").appendingPathComponent(file), encoding: .utf8)
        var out: [String: SecondaryStructure] = [:]
        var body = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("  #  RESIDUE") { body = true; continue }
            let c = Array(line)
            guard body, c.count > 16, c[13] != "!" else { continue }
            let number = String(c[5..<10]).trimmingCharacters(in: .whitespaces) + String(c[10]).trimmingCharacters(in: .whitespaces)
            out["\(c[11]):\(number)"] = c[16] == "H" ? .helix : c[16] == "E" ? .strand : .coil
        }
        return out
    }

    func testAssignedFromTheBackboneAgreesWithDSSP() throws {
        // The files' records set aside: what the backbone alone gives, beside DSSP's own assignment.
        for (file, least) in [("1crn", 0.95), ("1orc", 0.95), ("1hpv", 0.95)] {
            let reference = try Self.dssp("\(file).dssp")
            let m = try load("\(file).pdb").models[0]
            let assigned = m.assignedSecondaryStructure()
            var same = 0, compared = 0, mine = "", theirs = ""
            var helices = (0, 0), strands = (0, 0)
            for (k, residue) in m.residues.enumerated() {
                let key = "\(m.chains[Int(residue.chain)].id):\(residue.number)\(residue.insertionCode == 0 ? "" : String(UnicodeScalar(residue.insertionCode)))"
                guard let expected = reference[key] else { continue }
                compared += 1
                if expected == assigned[k] { same += 1 }
                if expected == .helix { helices.0 += 1; if assigned[k] == .helix { helices.1 += 1 } }
                if expected == .strand { strands.0 += 1; if assigned[k] == .strand { strands.1 += 1 } }
                mine += Self.letters([assigned[k]])
                theirs += Self.letters([expected])
            }
            print("\(file): \(same) of \(compared) agree (DSSP, then Molshot)\n  \(theirs)\n  \(mine)")
            XCTAssertGreaterThan(compared, 40, file)
            XCTAssertGreaterThanOrEqual(Double(same) / Double(compared), least, "\(file): \(same) of \(compared) residues agree")
            XCTAssertGreaterThanOrEqual(Double(helices.1), Double(helices.0) * 0.9, "\(file): helix residues found \(helices)")
            XCTAssertGreaterThanOrEqual(Double(strands.1), Double(strands.0) * 0.9, "\(file): strand residues found \(strands)")
        }
    }
}

import XCTest
@testable import Structure

final class SmallMoleculeTests: XCTestCase {
    func testSDFBondsAndOrdersAreExact() throws {
        let s = try Fixtures.load("TYR.sdf")
        XCTAssertEqual(s.format, .sdf)
        let m = s.models[0]
        XCTAssertEqual(m.atoms.count, 24)
        XCTAssertTrue(m.bondsAreComplete)
        // The bond block as written: first atom, second atom, type.
        let text = try String(contentsOfFile: Fixtures.path("TYR.sdf"), encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let counts = lines[3]
        let atomCount = Int(counts.prefix(3).trimmingCharacters(in: .whitespaces))!
        let bondCount = Int(counts.dropFirst(3).prefix(3).trimmingCharacters(in: .whitespaces))!
        var expected: [[Int]] = []
        for line in lines[(4 + atomCount)..<(4 + atomCount + bondCount)] {
            let f = line.split(separator: " ").compactMap { Int($0) }
            expected.append([min(f[0], f[1]) - 1, max(f[0], f[1]) - 1, f[2]])
        }
        let bonds = try BondPerception.standard().bonds(of: m)
        XCTAssertEqual(bonds.map { [Int($0.a), Int($0.b), $0.aromatic ? 4 : Int($0.order)] }, expected)
        XCTAssertTrue(bonds.allSatisfy { $0.source == .explicit })
        XCTAssertEqual(bonds.filter { $0.order == 2 }.count, expected.filter { $0[2] == 2 }.count)
    }

    func testV3000ReadsLikeV2000() throws {
        let v2 = try Fixtures.load("03F.sdf").models[0], v3 = try Fixtures.load("03F.v3000.sdf").models[0]
        XCTAssertEqual(v2.atoms.count, 130)
        XCTAssertEqual(v2.atoms.map(\.element), v3.atoms.map(\.element))
        XCTAssertEqual(v2.atoms.map(\.position), v3.atoms.map(\.position))
        XCTAssertEqual(v2.atoms.map(\.charge), v3.atoms.map(\.charge))
        XCTAssertEqual(v2.explicitBonds, v3.explicitBonds)
    }

    func testSeveralSDFRecordsAreModels() throws {
        let s = try Fixtures.load("Heme.sdf")
        XCTAssertEqual(s.models.map(\.atoms.count), [43, 43])
    }

    func testMOL2() throws {
        let s = try Fixtures.load("adrenalin.mol2")
        XCTAssertEqual(s.format, .mol2)
        let m = s.models[0]
        XCTAssertEqual(m.atoms.count, 26)
        XCTAssertEqual(m.explicitBonds.count, 26)
        XCTAssertEqual(m.atoms.filter { $0.element == .oxygen }.count, 3)
        XCTAssertEqual(m.atoms.filter { $0.element == .nitrogen }.count, 1)
    }

    func testXYZBondsComeFromDistances() throws {
        let s = try Fixtures.load("SampleMolecule.xyz")
        XCTAssertEqual(s.format, .xyz)
        let m = s.models[0]
        XCTAssertEqual(m.atoms.count, 47)
        let bonds = try BondPerception.standard().bonds(of: m)
        XCTAssertFalse(bonds.isEmpty)
        XCTAssertTrue(bonds.allSatisfy { $0.source == .distance })
        // Every hydrogen has exactly one partner.
        var degree = [Int](repeating: 0, count: m.atoms.count)
        for b in bonds { degree[Int(b.a)] += 1; degree[Int(b.b)] += 1 }
        for (i, atom) in m.atoms.enumerated() where atom.element == .hydrogen { XCTAssertEqual(degree[i], 1, "hydrogen \(i)") }
    }

    func testSDFBondToMissingAtomNamesTheLine() {
        let text = "name\n  prog\n\n  2  1  0  0  0  0  0  0  0  0999 V2000\n    0.0000    0.0000    0.0000 C   0  0\n    1.5000    0.0000    0.0000 C   0  0\n  1  3  1  0\nM  END\n$$$$\n"
        let error = Fixtures.error { try StructureFile.parse(Array(text.utf8), source: "bad.sdf") }
        XCTAssertEqual(error?.line, 7)
        XCTAssertEqual(error?.message, "bond joins atoms 1 and 3; the record has 2 atoms")
    }

    func testABlankTitleLineIsStillTheTitle() throws {
        // RDKit, Marvin and Open Babel write molfiles whose first line is empty.
        var lines = try String(contentsOfFile: Fixtures.path("TYR.sdf"), encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false)
        lines[0] = ""
        let blank = try StructureFile.parse(Array(lines.joined(separator: "\n").utf8), source: "blank.sdf")
        XCTAssertEqual(blank.models.count, 1)
        XCTAssertEqual(blank.models[0].atoms.map(\.position), try Fixtures.load("TYR.sdf").models[0].atoms.map(\.position))
        XCTAssertEqual(blank.metadata.title, "")
        // The second record of a file with a blank title, and blank lines at the end.
        let heme = try String(contentsOfFile: Fixtures.path("Heme.sdf"), encoding: .utf8)
        var records = heme.components(separatedBy: "$$$$\n")
        var second = records[1].split(separator: "\n", omittingEmptySubsequences: false)
        second[0] = ""
        records[1] = second.joined(separator: "\n")
        let both = try StructureFile.parse(Array((records.joined(separator: "$$$$\n") + "\n\n").utf8), source: "heme.sdf")
        XCTAssertEqual(both.models.map(\.atoms.count), [43, 43])
    }
}

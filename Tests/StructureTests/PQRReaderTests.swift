import XCTest
@testable import Structure

final class PQRReaderTests: XCTestCase {
    func testFieldsSeparatedByBlanksWithAndWithoutAChain() throws {
        let s = try Fixtures.load("small.pqr")
        XCTAssertEqual(s.format, .pqr)
        let m = s.models[0]
        XCTAssertEqual(m.atoms.map(\.element), [.nitrogen, .carbon, .carbon, .oxygen, .hydrogen, Element(atomicNumber: 30)])
        XCTAssertEqual(m.atoms[1].position, SIMD3(0, 0, 0))
        XCTAssertEqual(m.atoms[5].position, SIMD3(4, 0, 0))
        XCTAssertEqual(m.chains.map(\.id), ["A", ""])
        XCTAssertEqual(m.residues.map(\.name.description), ["GLY", "ZN"])
        XCTAssertEqual(m.radii ?? [], [1.824, 1.908, 1.908, 1.6612, 1.1, 1.39])
    }

    func testABadRadiusNamesTheLineAndField() {
        let text = "ATOM      1  N   GLY A   1      -1.195   0.722  -0.123 -0.3000 wide\n"
        let error = Fixtures.error { try StructureFile.parse(Array(text.utf8), source: "bad.pqr") }
        XCTAssertEqual(error?.line, 1)
        XCTAssertEqual(error?.message, "bad radius 'wide' (field 11)")
    }
}

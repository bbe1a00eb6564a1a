import XCTest
@testable import Structure

final class MMCIFReaderTests: XCTestCase {
    func testSameEntryFromPDBAndMMCIFGivesTheSameAtoms() throws {
        let pdb = try Fixtures.load("1crn.pdb"), cif = try Fixtures.load("1CRN.cif")
        XCTAssertEqual(cif.format, .mmcif)
        assertSameAtoms(pdb.models[0], cif.models[0])
        XCTAssertEqual(cif.metadata.id, "1CRN")
        XCTAssertEqual(cif.metadata.method, "X-RAY DIFFRACTION")
        XCTAssertEqual(cif.metadata.resolution, 1.5)
        XCTAssertEqual(cif.models[0].explicitBonds.count, 3, "_struct_conn disulfides")
    }

    func testQuotedAndMultiLineValuesAndAltLocs() throws {
        let s = try Fixtures.loadAll("quoted.cif")
        XCTAssertEqual(s.metadata.title, "A title on a text field that spans two lines")
        XCTAssertEqual(s.metadata.method, "X-RAY DIFFRACTION")
        XCTAssertEqual(s.metadata.resolution, 1.8)
        let m = s.models[0]
        XCTAssertEqual(m.atoms.map(\.name.description), ["O5'", "C5'", "C5'", "C4'", "ZN"])
        XCTAssertEqual(m.atoms.map(\.altLoc), [0, UInt8(ascii: "A"), UInt8(ascii: "B"), 0, 0])
        XCTAssertEqual(m.atoms[4].element.symbol, "Zn")
        XCTAssertEqual(m.chains.map(\.id), ["A", "B"])
        XCTAssertTrue(m.residues[1].isHetero)
    }

    func testBrokenLoopNamesTheLine() {
        let text = "data_x\nloop_\n_atom_site.id\n_atom_site.type_symbol\n_atom_site.Cartn_x\n_atom_site.Cartn_y\n_atom_site.Cartn_z\n1 C 1.0 2.0 3.0\n2 C 1.0 2.0\n"
        let error = Fixtures.error { try StructureFile.parse(Array(text.utf8), source: "broken.cif") }
        XCTAssertEqual(error?.file, "broken.cif")
        XCTAssertEqual(error?.line, 9)
        XCTAssertTrue(error?.message.contains("middle of a row") ?? false, error?.message ?? "")
    }

    func testBadCoordinateNamesTheLine() {
        let text = "data_x\nloop_\n_atom_site.id\n_atom_site.type_symbol\n_atom_site.Cartn_x\n_atom_site.Cartn_y\n_atom_site.Cartn_z\n1 C 1.0 2.0 3.0\n2 C 1.0 abc 3.0\n"
        let error = Fixtures.error { try StructureFile.parse(Array(text.utf8), source: "bad.cif") }
        XCTAssertEqual(error?.line, 9)
        XCTAssertEqual(error?.message, "bad Cartn_y 'abc' in _atom_site")
    }
}

/// The same atoms with the same coordinates, in any order (mmCIF may list waters or
/// alternate locations in another order than the PDB file).
func assertSameAtoms(_ a: Model, _ b: Model, _ label: String = "", file: StaticString = #filePath, line: UInt = #line) {
    func records(_ m: Model) -> [String] {
        m.atoms.map { x in
            let r = m.residues[Int(x.residue)]
            return "\(m.chains[Int(r.chain)].id) \(r.number)\(r.insertionCode) \(r.name) \(x.name) \(x.altLoc) \(x.element) \(x.position)"
        }.sorted()
    }
    XCTAssertEqual(a.atoms.count, b.atoms.count, label, file: file, line: line)
    XCTAssertEqual(a.residues.count, b.residues.count, label, file: file, line: line)
    let ra = records(a), rb = records(b)
    if let i = ra.indices.first(where: { $0 < rb.count && ra[$0] != rb[$0] }) {
        XCTFail("\(label): \(ra[i]) differs from \(rb[i])", file: file, line: line)
    }
}

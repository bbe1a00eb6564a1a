import MoleculeView
import Structure
import XCTest

/// Which atoms are shown, how large and in what color: no GL needed.
final class AtomLookTests: XCTestCase {
    func testAFewHeavyAtomsKeepTheirHydrogens() throws {
        let water = try Rendering.structure(xyz: ["O 0 0 0", "H 0.96 0 0", "H -0.24 0.93 0"])
        XCTAssertEqual(AtomFilter().visible(water.models[0]), [true, true, true])
        let caffeine = try StructureFile.load(path: Rendering.fixtures.appendingPathComponent("Caffeine.pdb").path).models[0]
        let shown = AtomFilter().visible(caffeine)
        XCTAssertFalse(zip(caffeine.atoms, shown).contains { $0.element.isHydrogen && $1 }, "14 heavy atoms: hydrogens hidden")
        XCTAssertTrue(zip(caffeine.atoms, AtomFilter(hydrogens: true).visible(caffeine)).contains { $0.element.isHydrogen && $1 })
    }

    func testUniformBFactorsTakeTheMiddleOfTheScale() throws {
        let s = try Rendering.structure(xyz: ["C 0 0 0", "C 1.5 0 0"])
        let colors = ColorTheme.bfactor.colors(for: s.models[0], elements: try ElementTable.shared())
        XCTAssertEqual(colors, [0xFFFFFF, 0xFFFFFF], "white, the middle of blue-white-red")
    }

    /// The B-factor scale spans the molecule, not its waters: a crystal's waters often reach higher
    /// B-factors than any protein atom, and would leave the protein all blue.
    func testBFactorScaleLeavesWatersOut() throws {
        let pdb = [
            "ATOM      1  CA  ALA A   1       0.000   0.000   0.000  1.00 10.00           C",
            "ATOM      2  CB  ALA A   1       1.500   0.000   0.000  1.00 30.00           C",
            "HETATM    3  O   HOH A 101       5.000   0.000   0.000  1.00 90.00           O",
        ].joined(separator: "\n") + "\n"
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("bscale-\(getpid()).pdb")
        try pdb.write(to: url, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: url) }
        let model = try StructureFile.load(path: url.path).models[0]
        let (lo, hi) = ColorTheme.bfactorRange(of: model)
        XCTAssertEqual(lo, 10)
        XCTAssertEqual(hi, 30)
        let colors = ColorTheme.bfactor.colors(for: model, elements: try ElementTable.shared())
        XCTAssertEqual(Array(colors.prefix(2)), [0x0000FF, 0xFF0000], "the coldest protein atom blue, the hottest red")
    }

    func testSpacefillDrawsTheRadiiAPQRFileStates() throws {
        let s = try StructureFile.load(path: Rendering.fixtures.appendingPathComponent("small.pqr").path)
        let g = Spacefill().geometry(of: s.models[0], bonds: [], visible: [Bool](repeating: true, count: 6),
                                     elements: try ElementTable.shared())
        XCTAssertEqual(stride(from: 3, to: g.spheres.count, by: 4).map { g.spheres[$0] }, [1.824, 1.908, 1.908, 1.6612, 1.1, 1.39])
    }
}

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

    func testSpacefillDrawsTheRadiiAPQRFileStates() throws {
        let s = try StructureFile.load(path: Rendering.fixtures.appendingPathComponent("small.pqr").path)
        let g = Spacefill().geometry(of: s.models[0], bonds: [], visible: [Bool](repeating: true, count: 6),
                                     elements: try ElementTable.shared())
        XCTAssertEqual(stride(from: 3, to: g.spheres.count, by: 4).map { g.spheres[$0] }, [1.824, 1.908, 1.908, 1.6612, 1.1, 1.39])
    }
}

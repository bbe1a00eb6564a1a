import Foundation
import Graphics
import MoleculeView
import Scene
import Structure
import XCTest

/// Cartoons: a tube, ribbons and arrows swept along the backbone, drawn as a mesh.
final class CartoonTests: XCTestCase {
    func testHelicesAreDrawnWhereTheHelicalResiduesAre() throws {
        let s = try StructureFile.load(path: Rendering.fixtures.appendingPathComponent("1crn.pdb").path)
        let p = try Rendering.prepared(s, "cartoon")
        XCTAssertEqual(p.geometry.meshes.count, 1)
        XCTAssertEqual(p.geometry.sphereCount, 0, "every residue of crambin is in the cartoon")
        var style = RenderStyle.transparent
        style.antialias = 0
        let size = 300
        let image = try Rendering.draw(p, size: size, style: style)
        let camera = p.fittedCamera
        let model = p.model
        let states = model.secondaryStructure(from: s.secondaryStructure)
        var helixHits = 0, helices = 0
        for (r, residue) in model.residues.enumerated() where states[r] == .helix {
            guard let ca = residue.atoms.first(where: { model.atoms[Int($0)].name.description == "CA" }) else { continue }
            helices += 1
            let q = camera.project(model.atoms[Int(ca)].position, width: size, height: size)
            // The ribbon is 2.2 Å wide about the CA's curve: within a few pixels of the projected CA.
            var near = false
            for dy in -3...3 { for dx in -3...3 {
                let x = Int(q.x) + dx, y = Int(q.y) + dy
                if x >= 0, y >= 0, x < size, y < size, image.pixel(x, y).a > 0 { near = true }
            } }
            if near { helixHits += 1 }
        }
        XCTAssertEqual(helices, 21)
        XCTAssertGreaterThanOrEqual(helixHits, helices - 1, "the ribbon passes by the helices' CA atoms (\(helixHits) of \(helices))")
        // Far from every atom, nothing is drawn: the cartoon is not a blob.
        XCTAssertLessThan(image.coverage().count, size * size / 3)
    }

    func testCartoonsAreExportedAndLigandsKeepTheirAtoms() throws {
        let s = try StructureFile.load(path: Rendering.fixtures.appendingPathComponent("1bna.pdb").path)
        let p = try Rendering.prepared(s, "cartoon")
        let meshes = MoleculeMesh.meshes(p, detail: .low)
        XCTAssertTrue(meshes.contains { $0.name == "cartoon" && $0.triangleCount > 1000 }, "\(meshes.map(\.name))")
        let cartoon = try XCTUnwrap(meshes.first { $0.name == "cartoon" })
        XCTAssertEqual(cartoon.colors.count, cartoon.positions.count)
        // The first residue of each strand has no phosphate: it stays as atoms.
        XCTAssertGreaterThan(p.geometry.sphereCount, 0)
        // Bases are slabs over their rings: each N3 of a phosphate-carrying nucleotide has slab corners a quarter Å off it.
        let model = p.model
        var slabbed = 0, bases = 0
        for residue in model.residues where residue.atoms.contains(where: { model.atoms[Int($0)].name.description == "P" }) {
            guard let n3 = residue.atoms.first(where: { model.atoms[Int($0)].name.description == "N3" }) else { continue }
            bases += 1
            let q = model.atoms[Int(n3)].position
            if cartoon.positions.contains(where: { (($0 - q) * ($0 - q)).sum() < 0.3 * 0.3 }) { slabbed += 1 }
        }
        XCTAssertGreaterThan(bases, 20)
        XCTAssertEqual(slabbed, bases, "every base is drawn as a slab")
    }

    func testAutoModeIsCartoonForPolymersAndBallAndStickForSmallMolecules() throws {
        func model(_ file: String) throws -> Model {
            try XCTUnwrap(try StructureFile.load(path: Rendering.fixtures.appendingPathComponent(file).path).models.first)
        }
        XCTAssertEqual(Representations.automatic(for: try model("1crn.pdb")), "cartoon")
        XCTAssertEqual(Representations.automatic(for: try model("1bna.pdb")), "cartoon")
        XCTAssertEqual(Representations.automatic(for: try model("Caffeine.pdb")), "ball-and-stick")
        XCTAssertEqual(Representations.automatic(for: try model("TYR.sdf")), "ball-and-stick")
        // Past the residue limit: spacefill (a large assembly made of crambin's residues many times over).
        var big = try model("1crn.pdb")
        let one = big.residues
        for _ in 0..<(Representations.spacefillResidues / one.count + 1) { big.residues += one }
        XCTAssertEqual(Representations.automatic(for: big), "spacefill")
        let s = try StructureFile.load(path: Rendering.fixtures.appendingPathComponent("1crn.pdb").path)
        XCTAssertFalse(try Rendering.prepared(s, "auto").geometry.meshes.isEmpty, "auto draws crambin as a cartoon")
    }
}

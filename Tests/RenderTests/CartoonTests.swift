import Foundation
import Graphics
import Imaging
import MoleculeView
import Scene
import Structure
import XCTest

/// Cartoons: a tube, ribbons and arrows swept along the backbone, drawn as a mesh.
final class CartoonTests: XCTestCase {
    func testHelicesAreDrawnWhereTheHelicalResiduesAre() throws {
        let s = try StructureFile.load(path: Rendering.fixtures.appendingPathComponent("1crn.pdb").path)
        let p = try Rendering.prepared(s, .cartoon)
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

    /// Putty: the tube is thick where B-factors are high and thin where they are low (PyMOL's
    /// scale: 0.4 Å at the mean, 0.24 Å at least, 1.6 Å at most), and even where they do not vary.
    func testPuttyRadiusFollowsBFactors() throws {
        let s = try StructureFile.load(path: Rendering.fixtures.appendingPathComponent("1crn.pdb").path)
        let model = s.models[0]
        let visible = [Bool](repeating: true, count: model.atoms.count)
        let elements = try ElementTable.shared()
        func radii(_ m: Model) -> [Int32: Float] {
            let g = Putty().geometry(of: m, bonds: [], visible: visible, elements: elements)
            guard let mesh = g.meshes.first else { return [:] }
            XCTAssertEqual(mesh.name, Putty.name)
            // The curve passes through each CA: the nearest ring there is at the tube's radius.
            var r: [Int32: Float] = [:]
            for (v, a) in zip(mesh.positions, mesh.atoms) {
                let d = length(v - m.atoms[Int(a)].position)
                r[a] = min(r[a] ?? .greatestFiniteMagnitude, d)
            }
            return r
        }
        let measured = radii(model)
        XCTAssertGreaterThan(measured.count, 40, "every residue of crambin is in the putty")
        let cas = measured.keys.sorted { model.atoms[Int($0)].bFactor < model.atoms[Int($1)].bFactor }
        let cold = try XCTUnwrap(measured[cas.first!]), hot = try XCTUnwrap(measured[cas.last!])
        XCTAssertGreaterThan(hot, 2 * cold, "highest B \(model.atoms[Int(cas.last!)].bFactor): \(hot) Å; lowest \(model.atoms[Int(cas.first!)].bFactor): \(cold) Å")
        XCTAssertGreaterThanOrEqual(cold, 0.24 * 0.9)
        XCTAssertLessThanOrEqual(hot, 1.6 * 1.01)
        // All B-factors alike: one radius, 0.4 Å.
        var flat = model
        for i in flat.atoms.indices { flat.atoms[i].bFactor = 20 }
        for (_, r) in radii(flat) { XCTAssertEqual(r, 0.4, accuracy: 0.02) }
        // The mode is named as PyMOL names it too.
        XCTAssertEqual(DrawMode(named: "cartoon_putty"), .putty)
    }

    func testCartoonsAreExportedAndLigandsKeepTheirAtoms() throws {
        let s = try StructureFile.load(path: Rendering.fixtures.appendingPathComponent("1bna.pdb").path)
        let p = try Rendering.prepared(s, .cartoon)
        let meshes = MoleculeMesh.meshes(p, detail: .low)
        XCTAssertTrue(meshes.contains { $0.name == Cartoon.name && $0.triangleCount > 1000 }, "\(meshes.map(\.name))")
        let cartoon = try XCTUnwrap(meshes.first { $0.name == Cartoon.name })
        XCTAssertEqual(cartoon.colors.count, cartoon.positions.count)
        // The first residue of each strand has no phosphate: its O5' starts the backbone, and
        // none of its atoms is left as a ball-and-stick blob at the strand's end.
        let model0 = p.model
        for chain in model0.chains {
            guard let first = chain.residues.first.map({ model0.residues[Int($0)] }),
                  Selection.nucleotides.contains(first.name.description.uppercased()) else { continue }
            XCTAssertFalse(first.atoms.contains { a in p.geometry.sphereAtoms.contains(a) },
                           "chain \(chain.id)'s first nucleotide \(first.name) is in the cartoon, not a blob")
        }
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
        XCTAssertEqual(Representations.automatic(for: try model("1crn.pdb")), .cartoon)
        XCTAssertEqual(Representations.automatic(for: try model("1bna.pdb")), .cartoon)
        XCTAssertEqual(Representations.automatic(for: try model("Caffeine.pdb")), .ballAndStick)
        XCTAssertEqual(Representations.automatic(for: try model("TYR.sdf")), .ballAndStick)
        // Past the residue limit: spacefill (a large assembly made of crambin's residues many times over).
        var big = try model("1crn.pdb")
        let one = big.residues
        for _ in 0..<(Representations.spacefillResidues / one.count + 1) { big.residues += one }
        XCTAssertEqual(Representations.automatic(for: big), .spacefill)
        let s = try StructureFile.load(path: Rendering.fixtures.appendingPathComponent("1crn.pdb").path)
        XCTAssertFalse(try Rendering.prepared(s, .auto).geometry.meshes.isEmpty, "auto draws crambin as a cartoon")
    }

    func testSmallPicturesGetCoarserCartoonsThatLookTheSame() throws {
        XCTAssertEqual([Cartoon(pixelsPerÅngström: 1).samples, Cartoon(pixelsPerÅngström: 1).sides], [2, 4])
        XCTAssertEqual([Cartoon(pixelsPerÅngström: 40).samples, Cartoon(pixelsPerÅngström: 40).sides], [Cartoon.fullSamples, Cartoon.fullSides])
        let s = try StructureFile.load(path: Rendering.fixtures.appendingPathComponent("1hpv.pdb").path)
        var request = RenderRequest()
        request.width = 128
        request.height = 128
        let perception = try BondPerception.standard()
        let small = try PreparedMolecule(s, mode: .cartoon, request: request, perception: perception)
        let full = try PreparedMolecule(s, mode: .cartoon, request: request, perception: perception, fixedView: false)
        XCTAssertNotNil(small.detailScale)
        XCTAssertNil(full.detailScale)
        let fewer = small.geometry.meshes[0].indices.count, all = full.geometry.meshes[0].indices.count
        XCTAssertLessThan(fewer * 2, all, "fewer triangles at 128 px: \(fewer) of \(all)")
        // Drawn at that size the two pictures look alike: averaged over 4 x 4 pixels (a pixel's shift
        // along a thin tube is no difference to the eye), few blocks differ, and by little.
        let renderer = try Rendering.renderer()
        func picture(_ p: PreparedMolecule) throws -> RGBAImage {
            try renderer.render(renderer.makeScene(p.geometry, atomColors: p.atomColors), camera: request.camera(for: p),
                                width: 128, height: 128, style: request.style(for: p))
        }
        let a = try picture(small), b = try picture(full)
        var differing = 0, covered = 0
        for by in 0..<32 { for bx in 0..<32 {
            var sa = SIMD3<Int>(0, 0, 0), sb = SIMD3<Int>(0, 0, 0)
            for y in (by * 4)..<(by * 4 + 4) { for x in (bx * 4)..<(bx * 4 + 4) {
                let p = a.pixel(x, y), q = b.pixel(x, y)
                sa &+= SIMD3(Int(p.r), Int(p.g), Int(p.b))
                sb &+= SIMD3(Int(q.r), Int(q.g), Int(q.b))
            } }
            if sb != SIMD3(repeating: 255 * 16) { covered += 1 }
            let d = sa &- sb
            if (abs(d.x) + abs(d.y) + abs(d.z)) / 16 > 60 { differing += 1 }
        } }
        XCTAssertGreaterThan(covered, 200)
        XCTAssertLessThan(differing * 20, covered, "\(differing) of \(covered) drawn 4 x 4 blocks differ")
        // At a size that shows every detail, full detail.
        request.width = 1024
        request.height = 1024
        XCTAssertNil(try PreparedMolecule(s, mode: .cartoon, request: request, perception: perception).detailScale)
    }

    /// A cartoon perceives bonds only among what it does not trace; its ligands' balls and sticks
    /// are those it draws from every bond: the same spheres, bonds and orders, in the same order.
    func testTheCartoonsBallsAndSticksNeedOnlyTheirOwnBonds() throws {
        let perception = try BondPerception.standard()
        for file in ["1hpv.pdb", "1crn.pdb", "1bna.pdb", "7jx4-ace-cap.pdb"] {
            let s = try StructureFile.load(path: Rendering.fixtures.appendingPathComponent(file).path)
            let p = try Rendering.prepared(s, .cartoon)
            let model = s.models[0]
            let visible = AtomFilter(hydrogens: false).visible(model)
            let whole = Cartoon().geometry(of: model, bonds: perception.bonds(of: model, embedded: s.embeddedTemplates), visible: visible,
                                           elements: perception.elements, secondaryStructure: s.secondaryStructure)
            let only = Cartoon.bondedAtoms(model, visible: visible)!
            XCTAssertTrue(only.contains(false), "\(file): the cartoon traces residues")
            XCTAssertEqual(p.bonds.count, perception.bonds(of: model, embedded: s.embeddedTemplates).filter { only[Int($0.a)] && only[Int($0.b)] }.count)
            XCTAssertEqual(p.geometry.spheres, whole.spheres, file)
            XCTAssertEqual(p.geometry.cylinders, whole.cylinders, file)
            XCTAssertEqual(p.geometry.cylinderRadii, whole.cylinderRadii, file)
            XCTAssertEqual(p.geometry.cylinderAtoms, whole.cylinderAtoms, file)
            XCTAssertEqual(p.geometry.meshes.map { $0.positions }, whole.meshes.map { $0.positions }, file)
        }
        XCTAssertGreaterThan(try Rendering.prepared(try StructureFile.load(path: Rendering.fixtures.appendingPathComponent("1hpv.pdb").path),
                                                    .cartoon).geometry.cylinderCount, 20, "the inhibitor's bonds")
    }

    /// A residue the cartoon cannot join to a neighbour (its CA 11.7 Å from the one before) falls
    /// back to its atoms, a sphere for a lone CA, as PyMOL and Mol* draw it: it had been left out
    /// of the tube and of the balls both, so a model of a few CAs drew next to nothing.
    func testALoneResidueFallsBackToItsAtoms() throws {
        let text = """
            ATOM      1  CA  ALA A   1       0.000   0.000   0.000  1.00  0.00           C
            ATOM      2  CA  GLY A   5       3.800   0.000   0.000  1.00  0.00           C
            ATOM      3  CA  SER A   9      15.000   3.600   0.000  1.00  0.00           C
            """
        let s = try StructureFile.decode(Array(text.utf8), source: "three-cas.pdb")
        let model = s.models[0]
        let visible = AtomFilter().visible(model)
        let g = Cartoon().geometry(of: model, bonds: [], visible: visible, elements: try ElementTable.shared(), secondaryStructure: [])
        XCTAssertEqual(g.meshes.count, 1, "the first two CAs are a tube")
        XCTAssertEqual(g.sphereAtoms, [2], "the third, a sphere")
        XCTAssertEqual(Cartoon.bondedAtoms(model, visible: visible), [false, false, true])
    }
}


import Foundation
import Graphics
import Imaging
import MoleculeView
import Scene
import Structure
import XCTest

/// The stand-in a live view draws while a large structure turns (`CoarseSpheres`).
final class CoarseSpheresTests: XCTestCase {
    func testOneSphereAResidueAtItsCentreInItsAtomsMeanColour() throws {
        let s = try StructureFile.load(path: Rendering.fixtures.appendingPathComponent("1crn.pdb").path)
        let request = try RenderRequest([("size", "256"), ("mode", "spacefill")])
        let p = try PreparedMolecule(s, mode: .spacefill, request: request, perception: try BondPerception.standard())
        XCTAssertTrue(CoarseSpheres.applies(to: p.geometry))
        let colors = p.geometry.colorsOfSpheres(p.atomColors)
        let stand = CoarseSpheres.make(p.geometry, model: p.model, sphereColors: colors)
        // Crambin's 46 residues, each one sphere (far under the budget; no residue spans 12 Å).
        XCTAssertEqual(stand.geometry.sphereCount, 46)
        XCTAssertEqual(stand.colors.count, 46)
        // The first residue (THR 1): its atoms' centre and mean colour, as large as their spheres together.
        let first = (0..<p.geometry.sphereCount).filter { p.model.atoms[Int(p.geometry.sphereAtoms[$0])].residue == 0 }
        var centre = SIMD3<Float>(repeating: 0), volume: Float = 0
        var sum = SIMD3<Double>(repeating: 0)
        for i in first {
            centre += SIMD3(p.geometry.spheres[4 * i], p.geometry.spheres[4 * i + 1], p.geometry.spheres[4 * i + 2])
            volume += pow(p.geometry.spheres[4 * i + 3], 3)
            let c = colors[i]
            sum += SIMD3(Double(c >> 16 & 0xFF), Double(c >> 8 & 0xFF), Double(c & 0xFF))
        }
        centre /= Float(first.count)
        let sphere = Array(stand.geometry.spheres[0..<4])
        XCTAssertEqual(sphere[0], centre.x, accuracy: 1e-3)
        XCTAssertEqual(sphere[1], centre.y, accuracy: 1e-3)
        XCTAssertEqual(sphere[2], centre.z, accuracy: 1e-3)
        XCTAssertEqual(sphere[3], cbrt(volume), accuracy: 1e-3)
        XCTAssertGreaterThan(sphere[3], 3, "larger than any one atom")
        let mean = sum / Double(first.count), c = stand.colors[0]
        XCTAssertEqual(Double(c >> 16 & 0xFF), mean.x, accuracy: 0.6)
        XCTAssertEqual(Double(c >> 8 & 0xFF), mean.y, accuracy: 0.6)
        XCTAssertEqual(Double(c & 0xFF), mean.z, accuracy: 0.6)
    }

    func testAStructurePastTheBudgetJoinsNeighboursButNotChainsOrFarAtoms() throws {
        let s = try StructureFile.load(path: Rendering.fixtures.appendingPathComponent("1crn.pdb").path)
        let request = try RenderRequest([("size", "256"), ("mode", "spacefill")])
        let p = try PreparedMolecule(s, mode: .spacefill, request: request, perception: try BondPerception.standard())
        let colors = p.geometry.colorsOfSpheres(p.atomColors)
        // A budget of 10 spheres for 327 atoms: groups gather 32 atoms or more, unless the next atom
        // lies over 12 Å from the group's first one.
        let stand = CoarseSpheres.make(p.geometry, model: p.model, sphereColors: colors, budget: 10)
        XCTAssertLessThan(stand.geometry.sphereCount, 46, "neighbouring residues joined")
        XCTAssertGreaterThan(stand.geometry.sphereCount, 10, "but never past 12 Å: a 30-atom run of a chain spans more")
        // Every atom is within reach of some stand-in (nothing dropped): the stand-ins' volume is the atoms'.
        let atoms = (0..<p.geometry.sphereCount).reduce(Float(0)) { $0 + pow(p.geometry.spheres[4 * $1 + 3], 3) }
        let stands = (0..<stand.geometry.sphereCount).reduce(Float(0)) { $0 + pow(stand.geometry.spheres[4 * $1 + 3], 3) }
        XCTAssertEqual(stands, atoms, accuracy: atoms * 1e-4)
    }

    func testBallAndStickAndCartoonsHaveNoStandIn() throws {
        let s = try StructureFile.load(path: Rendering.fixtures.appendingPathComponent("1crn.pdb").path)
        let request = try RenderRequest([("size", "256")])
        for mode in [DrawMode.ballAndStick, .cartoon] {
            let p = try PreparedMolecule(s, mode: mode, request: request, perception: try BondPerception.standard())
            XCTAssertFalse(CoarseSpheres.applies(to: p.geometry), "\(mode)")
            XCTAssertNil(try Rendering.renderer().drawCoarse(p, camera: p.fittedCamera, width: 64, height: 64, style: RenderStyle()))
        }
    }

    func testTheStandInIsDrawnWhereTheAtomsAre() throws {
        let s = try StructureFile.load(path: Rendering.fixtures.appendingPathComponent("1crn.pdb").path)
        let request = try RenderRequest([("size", "128"), ("mode", "spacefill"), ("background", "white")])
        let p = try PreparedMolecule(s, mode: .spacefill, request: request, perception: try BondPerception.standard())
        let renderer = try Rendering.renderer()
        let camera = p.fittedCamera
        var style = request.style(for: p)
        style.antialias = 0
        let full = try renderer.draw(p, camera: camera, width: 128, height: 128, style: style).finished()
        let coarse = try XCTUnwrap(try renderer.drawCoarse(p, camera: camera, width: 128, height: 128, style: style)).finished()
        func covered(_ a: RGBAImage) -> [Bool] {
            (0..<(a.width * a.height)).map { i in let q = a.pixel(i % a.width, i / a.width); return min(q.0, q.1, q.2) < 250 }
        }
        let a = covered(full), b = covered(coarse)
        let both = zip(a, b).filter { $0 && $1 }.count, either = zip(a, b).filter { $0 || $1 }.count
        XCTAssertGreaterThan(Double(both) / Double(either), 0.8, "the same shape")
        XCTAssertFalse(full == coarse, "drawn from other spheres")
    }
}

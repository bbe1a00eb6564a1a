import Foundation
import Graphics
import MoleculeView
import Structure
import XCTest

/// Occlusion per atom, once per structure (`--occlusion-method atoms`).
final class AtomOcclusionTests: XCTestCase {
    func testABuriedAtomIsDarkerThanAnExposedOne() {
        // A block of atoms packed as a protein's core (one per 2.75 Å cube, 0.048 per Å³).
        var block: [SIMD3<Float>] = []
        for x in 0..<12 { for y in 0..<12 { for z in 0..<12 { block.append(SIMD3(Float(x), Float(y), Float(z)) * 2.75) } } }
        let centre = SIMD3<Float>(repeating: 5.5 * 2.75), face = SIMD3<Float>(5.5 * 2.75, 5.5 * 2.75, 11 * 2.75)
        let corner = SIMD3<Float>(repeating: 11 * 2.75), away = SIMD3<Float>(repeating: 80)
        let b = AtomOcclusion.buriedness(of: [centre, face, corner, away], among: block)
        XCTAssertEqual(b[0], 1, accuracy: 0.01, "inside: fully buried")
        XCTAssertGreaterThan(b[0], b[1])
        XCTAssertGreaterThan(b[1], b[2], "a face is more buried than a corner")
        XCTAssertEqual(b[2], 0, accuracy: 0.01, "a corner sees an eighth of a packed cube: exposed")
        XCTAssertEqual(b[3], 0, "nothing around")
    }

    func testAtomsMethodDarkensThePictureOnceForAllViews() throws {
        let s = try StructureFile.load(path: Rendering.fixtures.appendingPathComponent("1hpv.pdb").path)
        let perception = try BondPerception.standard()
        var request = try RenderRequest([("size", "160"), ("mode", "spacefill"), ("look", "plain"), ("background", "transparent")])
        let plain = try PreparedMolecule(s, mode: .spacefill, request: request, perception: perception)
        try request.set("occlusion", "0.8")
        try request.set("occlusion-method", "atoms")
        XCTAssertEqual(request.style(shownAtoms: 2000).effects.occlusion, 0, "no screen-space occlusion on top")
        let shaded = try PreparedMolecule(s, mode: .spacefill, request: request, perception: perception)
        // Every atom keeps its hue and none gets lighter; many get darker.
        var darker = 0
        for (a, b) in zip(plain.atomColors, shaded.atomColors) {
            XCTAssertLessThanOrEqual(b & 0xFF, a & 0xFF)
            if b != a { darker += 1 }
        }
        XCTAssertGreaterThan(darker, plain.atomColors.count / 4)
        let renderer = try Rendering.renderer()
        func brightness(_ p: PreparedMolecule) throws -> Double {
            let image = try renderer.render(renderer.makeScene(p.geometry, atomColors: p.atomColors), camera: request.camera(for: p),
                                            width: 160, height: 160, style: request.style(for: p))
            var sum = 0, n = 0
            for y in 0..<160 { for x in 0..<160 where image.pixel(x, y).a == 255 { let q = image.pixel(x, y); sum += Int(q.r) + Int(q.g) + Int(q.b); n += 1 } }
            return Double(sum) / Double(max(n, 1))
        }
        XCTAssertLessThan(try brightness(shaded), try brightness(plain) * 0.95)
        XCTAssertThrowsError(try RenderRequest([("occlusion-method", "rays")])) { error in
            XCTAssertTrue("\(error)".contains("occlusion-method must be one of: screen, atoms (got rays)"), "\(error)")
        }
    }
}

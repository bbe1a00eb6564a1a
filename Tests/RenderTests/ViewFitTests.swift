import Core
import Foundation
import Imaging
import MoleculeView
import Scene
import Structure
import XCTest

/// The default view as the numbers give it, with nothing drawn: the principal axes whatever the
/// representation, the fit to the frame's margin, the automatic look by size. (Tests/all runs
/// this class once: it makes no OpenGL context, so the EGL run would repeat the same arithmetic.)
final class ViewFitTests: XCTestCase {
    func testChangingOnlyTheRepresentationKeepsTheView() throws {
        for file in ["1hpv.pdb", "1bna.pdb", "1crn.pdb"] {
            let s = try StructureFile.load(path: Rendering.fixtures.appendingPathComponent(file).path)
            let first = try Rendering.prepared(s, .spacefill).principalAxes
            for mode in [DrawMode.surface, .cartoon, .putty, .ballAndStick, .sticks, .lines] {
                XCTAssertEqual(try Rendering.prepared(s, mode).principalAxes, first, "\(file) \(mode)")
            }
            XCTAssertEqual(try Rendering.prepared(s, .cartoon, color: .chain).principalAxes, first, "\(file) by chain")
            let shows = try PreparedMolecule(s, shows: [try Show(parsing: "cartoon: chain A"), try Show(parsing: "spacefill: not chain A")],
                                             perception: try BondPerception.standard())
            XCTAssertEqual(shows.principalAxes, first, "\(file) shows")
        }
    }

    func testTheFitTouchesTheMarginOnTheTighterAxisAndNeverCrossesIt() {
        var seed: UInt64 = 42
        func random() -> Float {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Float(seed >> 40) / Float(1 << 24)
        }
        for trial in 0..<40 {
            var spheres: [Float] = []
            let stretch = SIMD3<Float>(1 + random() * 20, 1 + random() * 6, 1 + random() * 3)
            for _ in 0..<(5 + trial) {
                spheres += [(random() - 0.5) * stretch.x, (random() - 0.5) * stretch.y, (random() - 0.5) * stretch.z, 1 + random()]
            }
            var turn = Camera(center: .zero, radius: 1)
            turn.rotate(degreesX: random() * 360, degreesY: random() * 360, degreesZ: random() * 360)
            let camera = Camera.fitted(spheres: spheres, rotation: turn.rotation)
            for (w, h) in [(256, 256), (400, 200), (120, 500), (1024, 768), (33, 900)] {
                let unitsPerPixel = camera.worldUnitsPerPixel(width: w, height: h)
                var lo = SIMD2<Float>(repeating: .greatestFiniteMagnitude), hi = -lo
                for i in 0..<(spheres.count / 4) {
                    let c = camera.project(SIMD3(spheres[4 * i], spheres[4 * i + 1], spheres[4 * i + 2]), width: w, height: h)
                    let r = spheres[4 * i + 3] / unitsPerPixel
                    lo = pointwiseMin(lo, c - r)
                    hi = pointwiseMax(hi, c + r)
                }
                let margin = camera.margin * Float(min(w, h))
                let tolerance: Float = 0.01
                XCTAssertGreaterThanOrEqual(lo.x, margin - tolerance, "trial \(trial) \(w)x\(h) left")
                XCTAssertGreaterThanOrEqual(lo.y, margin - tolerance, "trial \(trial) \(w)x\(h) top")
                XCTAssertLessThanOrEqual(hi.x, Float(w) - margin + tolerance, "trial \(trial) \(w)x\(h) right")
                XCTAssertLessThanOrEqual(hi.y, Float(h) - margin + tolerance, "trial \(trial) \(w)x\(h) bottom")
                let touchesX = abs(lo.x - margin) < 0.05 && abs(hi.x - (Float(w) - margin)) < 0.05
                let touchesY = abs(lo.y - margin) < 0.05 && abs(hi.y - (Float(h) - margin)) < 0.05
                XCTAssertTrue(touchesX || touchesY, "trial \(trial) \(w)x\(h): fills the tighter axis (\(lo), \(hi))")
            }
        }
    }

    func testTheAutoLookIllustratesLargeStructuresOnly() {
        let request = RenderRequest()
        XCTAssertEqual(request.style(shownAtoms: 100).effects, DepthEffects())
        XCTAssertFalse(request.style(shownAtoms: 100).depthCue)
        let large = request.style(shownAtoms: RenderRequest.illustratedAtoms)
        XCTAssertGreaterThan(large.effects.outline, 0)
        XCTAssertGreaterThan(large.effects.occlusion, 0)
        XCTAssertTrue(large.depthCue)
        XCTAssertEqual(request.style(shownAtoms: 100_000, bonds: true).effects, DepthEffects(), "ball-and-stick stays plain")
        var plain = request
        plain.look = .plain
        XCTAssertEqual(plain.style(shownAtoms: 100_000).effects, DepthEffects())
    }
}

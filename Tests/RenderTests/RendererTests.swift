import Foundation
import Graphics
import Imaging
import MoleculeView
import Scene
import Structure
import XCTest

final class RendererTests: XCTestCase {
    func testTransparentBackgroundAndOpaqueMolecule() throws {
        let image = try Rendering.draw(try Rendering.prepared(try Rendering.structure(xyz: ["C 0 0 0"]), .spacefill))
        for (x, y) in [(0, 0), (199, 0), (0, 199), (199, 199)] { XCTAssertEqual(image.pixel(x, y).a, 0, "corner \(x),\(y)") }
        XCTAssertEqual(image.pixel(100, 100).a, 255)
    }

    func testSingleCarbonIsACenteredGreyDiskOfTheFittedRadius() throws {
        let image = try Rendering.draw(try Rendering.prepared(try Rendering.structure(xyz: ["C 0 0 0"]), .spacefill))
        let (count, centroid) = image.coverage()
        // The view fits the van der Waals sphere (1.70 Å) plus a 3% margin into 100 pixels.
        let expected: Float = 100 * 1.70 / (1.70 * 1.03)
        XCTAssertEqual((Float(count) / .pi).squareRoot(), expected, accuracy: 1.0)
        XCTAssertEqual(centroid.x, 100, accuracy: 0.5)
        XCTAssertEqual(centroid.y, 100, accuracy: 0.5)
        // Carbon is grey: the lit disk has equal red, green and blue everywhere.
        for (x, y) in [(100, 100), (70, 120), (130, 80)] {
            let p = image.pixel(x, y)
            XCTAssertEqual(Int(p.r), Int(p.g), accuracy: 2)
            XCTAssertEqual(Int(p.g), Int(p.b), accuracy: 2)
            XCTAssertGreaterThan(p.r, 40)
            XCTAssertLessThan(p.r, 250)
        }
    }

    func testFacesTurnedFromTheKeyLightKeepTheirShape() throws {
        // The key light comes from the upper left: toward the lower right rim of a sphere it gives
        // nothing, and only the fill light from the camera still shades the surface round.
        var style = RenderStyle.transparent
        style.antialias = 0
        let image = try Rendering.draw(try Rendering.prepared(try Rendering.structure(xyz: ["C 0 0 0"]), .spacefill), style: style)
        style.fill = 0
        let flat = try Rendering.draw(try Rendering.prepared(try Rendering.structure(xyz: ["C 0 0 0"]), .spacefill), style: style)
        XCTAssertLessThanOrEqual(abs(Int(flat.pixel(158, 158).r) - Int(flat.pixel(167, 167).r)), 1, "without it, flat")
        let inner = image.pixel(158, 158), outer = image.pixel(167, 167)
        XCTAssertEqual(outer.a, 255)
        XCTAssertGreaterThan(Int(inner.r), Int(outer.r) + 6, "the unlit side darkens toward the rim: \(inner.r) then \(outer.r)")
        XCTAssertGreaterThan(outer.r, 30, "and does not go black")
    }

    func testZoomTwoDoublesTheProjectedSize() throws {
        let p = try Rendering.prepared(try Rendering.structure(xyz: ["C 0 0 0"]), .spacefill)
        let small = try Rendering.draw(p) { $0.zoom = 0.4 }.coverage().count
        let large = try Rendering.draw(p) { $0.zoom = 0.8 }.coverage().count
        XCTAssertEqual((Float(large) / Float(small)).squareRoot(), 2, accuracy: 0.03)
    }

    func testPanMovesThePictureByThosePixels() throws {
        let p = try Rendering.prepared(try Rendering.structure(xyz: ["C -1 0 0", "O 1.4 0.3 0"]), .ballAndStick)
        let before = try Rendering.draw(p) { $0.zoom = 0.6 }.coverage()
        let after = try Rendering.draw(p) { $0.zoom = 0.6; $0.pan = SIMD2(17, -9) }.coverage()
        XCTAssertEqual(after.count, before.count, accuracy: 3)
        XCTAssertEqual(after.centroid.x - before.centroid.x, 17, accuracy: 0.1)
        XCTAssertEqual(after.centroid.y - before.centroid.y, -9, accuracy: 0.1)
    }

    func testHalfTurnAboutYMirrorsAnAsymmetricMolecule() throws {
        let p = try Rendering.prepared(try Rendering.structure(xyz: ["C -1.2 0 0", "O 1.0 0.4 0"]), .spacefill)
        let red = { (r: UInt8, g: UInt8, b: UInt8) in Int(r) > Int(g) + 60 }
        let front = try Rendering.draw(p).coverage(where: red)
        let back = try Rendering.draw(p) { $0.rotate(degreesX: 0, degreesY: 180, degreesZ: 0) }.coverage(where: red)
        XCTAssertGreaterThan(front.count, 500)
        XCTAssertGreaterThan(front.centroid.x, 100, "oxygen on the right")
        XCTAssertEqual(back.centroid.x, 200 - front.centroid.x, accuracy: 1.5, "and on the left after the turn")
        XCTAssertEqual(back.centroid.y, front.centroid.y, accuracy: 1.5)
    }

    func testSpacefillCoversMoreThanBallAndStick() throws {
        let s = try StructureFile.load(path: Rendering.fixtures.appendingPathComponent("1crn.pdb").path)
        let sticks = try Rendering.draw(try Rendering.prepared(s, .ballAndStick)).coverage().count
        let spheres = try Rendering.draw(try Rendering.prepared(s, .spacefill)).coverage().count
        XCTAssertGreaterThan(Double(spheres), Double(sticks) * 1.2)
    }

    func testTheSameInputGivesIdenticalBytes() throws {
        let s = try StructureFile.load(path: Rendering.fixtures.appendingPathComponent("Caffeine.pdb").path)
        let p = try Rendering.prepared(s, .ballAndStick, hydrogens: true)
        let a = try Rendering.draw(p) { $0.rotate(degreesX: 20, degreesY: 30, degreesZ: 0) }
        let b = try Rendering.draw(p) { $0.rotate(degreesX: 20, degreesY: 30, degreesZ: 0) }
        XCTAssertTrue(a == b, "two renders differ")
        XCTAssertEqual(try PNGEncoder.fast.encode(a), try PNGEncoder.fast.encode(b))
    }

    func testBallAndStickDrawsBondsBetweenAtoms() throws {
        // Two carbons 1.5 Å apart: the pixel halfway between them is covered only by the bond.
        let p = try Rendering.prepared(try Rendering.structure(xyz: ["C -0.75 0 0", "C 0.75 0 0"]), .ballAndStick)
        XCTAssertEqual(p.geometry.cylinderCount, 1, "one bond, one cylinder in two colors")
        let image = try Rendering.draw(p)
        XCTAssertEqual(image.pixel(100, 100).a, 255)
        XCTAssertEqual(image.pixel(100, 60).a, 0)
    }

    func testGeometryBuffersAreReleasedWithTheirScene() throws {
        let renderer = try Rendering.renderer()
        let before = renderer.device.liveObjects
        do {
            let p = try Rendering.prepared(try Rendering.structure(xyz: ["C 0 0 0", "C 1.5 0 0"]), .ballAndStick)
            let scene = renderer.makeScene(p.geometry, atomColors: p.atomColors)
            XCTAssertEqual(renderer.device.liveObjects["vertexArray", default: 0], before["vertexArray", default: 0] + 2)
            // Spheres and their colors; bonds, their radii and their colors.
            XCTAssertEqual(renderer.device.liveObjects["buffer", default: 0], before["buffer", default: 0] + 5)
            _ = scene
        }
        XCTAssertEqual(renderer.device.liveObjects, before)
    }

    /// `body` run twice: the renderer ray-casting small pictures on the CPU, then drawing them with
    /// GL; it casts again after.
    private func bothWaysOfDrawing(_ renderer: MoleculeRenderer, _ body: () throws -> Void) rethrows {
        defer { renderer.castsSmallPictures = true }
        for casting in [true, false] {
            renderer.castsSmallPictures = casting
            try body()
        }
    }

    /// The culling tests' fixtures in `mode`, each uploaded once and turned four ways.
    private func eachTurnedView(_ renderer: MoleculeRenderer, _ mode: DrawMode,
                                _ body: (String, PreparedMolecule, MoleculeScene, Camera, Float) throws -> Void) throws {
        for file in ["1crn.pdb", "1bna.pdb"] {
            let s = try StructureFile.load(path: Rendering.fixtures.appendingPathComponent(file).path)
            let p = try Rendering.prepared(s, mode)
            let scene = renderer.makeScene(p.geometry, atomColors: p.atomColors)
            for turn in [Float(0), 37, 90, 161] {
                var camera = p.fittedCamera
                camera.rotate(degreesX: turn, degreesY: turn * 1.3, degreesZ: 0)
                try body(file, p, scene, camera, turn)
            }
        }
    }

    /// `scene` drawn square with no culling, then with culling from any count (either way of
    /// drawing, as the renderer is set); the thresholds are put back after.
    private func withoutAndWithCulling(_ renderer: MoleculeRenderer, _ scene: MoleculeScene, _ camera: Camera,
                                       size: Int) throws -> (all: RGBAImage, culled: RGBAImage) {
        defer { renderer.occlusionCullingMinimum = MoleculeRenderer.spheresToCull; renderer.castCullingMinimum = SphereCaster.spheresToCull }
        renderer.occlusionCullingMinimum = Int.max; renderer.castCullingMinimum = Int.max
        let all = try renderer.render(scene, camera: camera, width: size, height: size, style: .transparent)
        renderer.occlusionCullingMinimum = 0; renderer.castCullingMinimum = 0
        return (all, try renderer.render(scene, camera: camera, width: size, height: size, style: .transparent))
    }

    func testCullingHiddenSpheresChangesNoPixel() throws {
        let renderer = try Rendering.renderer()
        try bothWaysOfDrawing(renderer) {
            try eachTurnedView(renderer, .spacefill) { file, p, scene, camera, turn in
                let (all, culled) = try withoutAndWithCulling(renderer, scene, camera, size: 300)
                XCTAssertTrue(all == culled, "\(file) turned \(turn): culling changed pixels")
                if turn == 0 {
                    let visible = SphereOcclusion.visible(p.geometry.spheres, rotation: camera.rotation)
                    XCTAssertLessThan(visible.count, p.geometry.sphereCount, "\(file): some spheres are hidden")
                }
            }
        }
    }

    func testCullingHiddenBallsAndTheirBondsChangesNoPixelInSmallPictures() throws {
        // Ball-and-stick is culled from `ballsToCull` balls up; here from any count, at sizes where
        // atoms are a few pixels across, as a large structure in a thumbnail.
        let renderer = try Rendering.renderer()
        try bothWaysOfDrawing(renderer) {
            renderer.ballCullingMinimum = 0
            defer { renderer.ballCullingMinimum = MoleculeRenderer.ballsToCull }
            var changed = 0, culledSome = false
            try eachTurnedView(renderer, .ballAndStick) { _, p, scene, camera, _ in
                let (all, culled) = try withoutAndWithCulling(renderer, scene, camera, size: 48)
                for i in stride(from: 0, to: all.pixels.count, by: 4) where (0..<4).contains(where: { abs(Int(all.pixels[i + $0]) - Int(culled.pixels[i + $0])) > 8 }) {
                    changed += 1
                }
                let minimumRadius = RenderStyle().minimumAtomPixels * camera.worldUnitsPerPixel(width: 48, height: 48)
                var drawn = p.geometry.spheres
                for k in stride(from: 3, to: drawn.count, by: 4) { drawn[k] = max(drawn[k], minimumRadius) }
                if SphereOcclusion.visible(drawn, rotation: camera.rotation).count < p.geometry.sphereCount { culledSome = true }
            }
            XCTAssertTrue(culledSome, "some balls are hidden")
            XCTAssertLessThanOrEqual(changed, 4, "culling changed \(changed) pixels in 8 pictures of 48 x 48")
        }
    }

    func testCullingTakesSpheresFrontToBackWhateverTheSignOfTheirDepth() {
        // Spheres behind a large one, with fronts below zero (where a float's bits sort the other
        // way round as integers), listed before it: culling must still take the large one first.
        let spheres: [Float] = [
            1, 1, -20, 1,   // 0: front -19, behind 3
            -2, 0, -6, 2,   // 1: front -4, behind 3
            0, -1, -0.5, 0.5, // 2: front 0 (as -0.5 + 0.5), behind 3
            0, 0, 0, 10,    // 3: front 10, in front of all but 4
            30, 0, 5, 1,    // 4: front 6, beside 3, in view
            1, 1, 12, 1,    // 5: front 13, in front of 3
        ]
        XCTAssertEqual(SphereOcclusion.visible(spheres, rotation: .identity), [3, 4, 5])
        // The median radius the culling grid is cut to, found without sorting: as a sort finds it.
        var radii: [Float] = []
        for k in 0..<101 { radii += [0, 0, 0, Float((k * 37) % 11) * 0.25] }
        let sorted = stride(from: 3, to: radii.count, by: 4).map { radii[$0] }.sorted()
        XCTAssertEqual(MoleculeGeometry.medianRadius(radii), sorted[sorted.count / 2])
    }

    func testCullingDoneAheadIsUsedForItsDirectionOnly() throws {
        let renderer = try Rendering.renderer()
        defer { renderer.castCullingMinimum = SphereCaster.spheresToCull }
        // Both culling from 300 spheres here.
        renderer.castCullingMinimum = MoleculeRenderer.spheresToCull
        try bothWaysOfDrawing(renderer) {
            let s = try StructureFile.load(path: Rendering.fixtures.appendingPathComponent("1crn.pdb").path)
            let p = try Rendering.prepared(s, .spacefill)
            var camera = p.fittedCamera
            camera.rotate(degreesX: 20, degreesY: 45, degreesZ: 0)
            let ahead = try XCTUnwrap(MoleculeRenderer.visibleSpheres(p.geometry, camera: camera, width: 240, height: 240, style: .transparent))
            XCTAssertLessThan(ahead.indices.count, p.geometry.sphereCount)
            XCTAssertNil(MoleculeRenderer.visibleSpheres(try Rendering.prepared(s, .ballAndStick).geometry, camera: camera, width: 240, height: 240,
                                                         style: .transparent),
                         "no culling with bonds under ballsToCull balls")
            let plain = try renderer.render(renderer.makeScene(p.geometry, atomColors: p.atomColors), camera: camera,
                                            width: 240, height: 240, style: .transparent)
            let scene = renderer.makeScene(p.geometry, atomColors: p.atomColors, visibility: ahead)
            XCTAssertTrue(try renderer.render(scene, camera: camera, width: 240, height: 240, style: .transparent) == plain)
            // Another direction ignores it: a sphere hidden from the first view is still drawn in the second.
            var other = camera
            other.rotate(degreesX: 0, degreesY: 180, degreesZ: 0)
            let reference = try renderer.render(renderer.makeScene(p.geometry, atomColors: p.atomColors), camera: other,
                                                width: 240, height: 240, style: .transparent)
            XCTAssertTrue(try renderer.render(scene, camera: other, width: 240, height: 240, style: .transparent) == reference)
        }
    }

    func testOneTriangleImpostorsDrawTheSamePictureAsQuads() throws {
        let renderer = try Rendering.renderer()
        // One-triangle covers are GL's: the CPU ray caster has none.
        renderer.castsSmallPictures = false
        defer { renderer.triangleImpostorPixels = 6; renderer.castsSmallPictures = true }
        let s = try StructureFile.load(path: Rendering.fixtures.appendingPathComponent("1bna.pdb").path)
        let p = try Rendering.prepared(s, .ballAndStick)
        let scene = renderer.makeScene(p.geometry, atomColors: p.atomColors)
        var camera = p.fittedCamera
        camera.rotate(degreesX: 30, degreesY: 50, degreesZ: 0)
        var style = RenderStyle.transparent
        style.antialias = 0
        renderer.triangleImpostorPixels = 0
        let quads = try renderer.render(scene, camera: camera, width: 160, height: 160, style: style)
        renderer.triangleImpostorPixels = 100
        let triangles = try renderer.render(scene, camera: camera, width: 160, height: 160, style: style)
        // The same surfaces; only how far the rasterizer interpolates across a different triangle
        // can move an edge pixel or a shade by a level.
        var differing = 0
        for i in stride(from: 0, to: quads.pixels.count, by: 4) {
            let d = (0..<4).map { abs(Int(quads.pixels[i + $0]) - Int(triangles.pixels[i + $0])) }.max()!
            if d > 8 { differing += 1 }
        }
        let covered = quads.coverage().count
        XCTAssertGreaterThan(covered, 1000)
        XCTAssertLessThan(differing, covered / 100, "fewer than 1% of the molecule's pixels differ visibly")
    }

    func testBondsTrimmedToTheirVisiblePartDrawTheSamePicture() throws {
        let renderer = try Rendering.renderer()
        try bothWaysOfDrawing(renderer) {
            let s = try StructureFile.load(path: Rendering.fixtures.appendingPathComponent("Caffeine.pdb").path)
            let p = try Rendering.prepared(s, .ballAndStick, hydrogens: true)
            var whole = p.geometry
            for i in 0..<whole.cylinderCount {
                whole.cylinders[i * 8 + 3] = 0
                whole.cylinders[i * 8 + 7] = 0
            }
            XCTAssertTrue(p.geometry.cylinders[3] > 0.2, "a carbon's sphere hides the first 0.35 Å of its bonds")
            var camera = p.fittedCamera
            camera.rotate(degreesX: 50, degreesY: 20, degreesZ: 0)
            let trimmed = try renderer.render(renderer.makeScene(p.geometry, atomColors: p.atomColors), camera: camera,
                                              width: 300, height: 300, style: .transparent)
            let full = try renderer.render(renderer.makeScene(whole, atomColors: p.atomColors), camera: camera,
                                           width: 300, height: 300, style: .transparent)
            var differing = 0
            for i in stride(from: 0, to: full.pixels.count, by: 4) {
                let d = (0..<4).map { abs(Int(full.pixels[i + $0]) - Int(trimmed.pixels[i + $0])) }.max()!
                if d > 8 { differing += 1 }
            }
            XCTAssertLessThan(differing, full.coverage().count / 100, "the trimmed ends were hidden anyway")
        }
    }

    func testSizesAboveTheLimitAreRefused() throws {
        let renderer = try Rendering.renderer()
        let p = try Rendering.prepared(try Rendering.structure(xyz: ["C 0 0 0"]), .spacefill)
        let scene = renderer.makeScene(p.geometry, atomColors: p.atomColors)
        XCTAssertThrowsError(try renderer.render(scene, camera: p.fittedCamera, width: 8193, height: 10, style: RenderStyle()))
    }

    func testWideAndTallImagesCropNothing() throws {
        let s = try StructureFile.load(path: Rendering.fixtures.appendingPathComponent("Caffeine.pdb").path)
        let p = try Rendering.prepared(s, .ballAndStick, hydrogens: true)
        let r = try Rendering.renderer()
        let scene = r.makeScene(p.geometry, atomColors: p.atomColors)
        for (w, h) in [(256, 256), (400, 120), (120, 400)] {
            for turn in stride(from: Float(0), to: 360, by: 45) {
                var camera = p.fittedCamera
                camera.rotate(degreesX: turn, degreesY: turn * 0.7, degreesZ: 0)
                let image = try r.render(scene, camera: camera, width: w, height: h, style: .transparent)
                XCTAssertTrue(image.borderIsEmpty, "\(w)x\(h) turned \(turn)")
            }
        }
    }
}

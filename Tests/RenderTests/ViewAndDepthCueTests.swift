import Core
import Foundation
import Graphics
import Imaging
import MoleculeView
import Scene
import Structure
import XCTest

/// The oriented default view as drawn, and outlines, ambient occlusion and the smallest atom size.
final class ViewAndDepthCueTests: XCTestCase {
    /// Pixels of the molecule (alpha above half): their bounding box as (minX, minY, maxX, maxY).
    func box(_ image: RGBAImage) -> (Int, Int, Int, Int) {
        var lo = (Int.max, Int.max), hi = (-1, -1)
        for y in 0..<image.height {
            for x in 0..<image.width where image.pixel(x, y).a > 127 {
                lo = (min(lo.0, x), min(lo.1, y))
                hi = (max(hi.0, x), max(hi.1, y))
            }
        }
        return (lo.0, lo.1, hi.0, hi.1)
    }

    func render(_ p: PreparedMolecule, _ request: RenderRequest, style: RenderStyle = .transparent) throws -> RGBAImage {
        let r = try Rendering.renderer()
        return try r.render(r.scene(for: p), camera: request.camera(for: p), width: request.width, height: request.height, style: style)
    }

    /// A chain of atoms along a slanted line, with a little sideways wobble.
    func rod(direction: SIMD3<Float>, count: Int = 30) -> [String] {
        let d = direction / (direction * direction).sum().squareRoot()
        let side = SIMD3<Float>(d.y, -d.x, 0) / max((d.x * d.x + d.y * d.y).squareRoot(), 1e-3)
        return (0..<count).map { i in
            let p = d * Float(i) * 1.5 + side * Float(i % 3) * 0.8
            return "C \(p.x) \(p.y) \(p.z)"
        }
    }

    func testTheOrientedViewOfALongMoleculeLaysItAcross() throws {
        for direction in [SIMD3<Float>(1, 1, 1), SIMD3(0, 0, 1), SIMD3(-0.2, 1, 0.3)] {
            let p = try Rendering.prepared(try Rendering.structure(xyz: rod(direction: direction)), .spacefill)
            var request = RenderRequest()
            (request.width, request.height) = (300, 300)
            let (x0, y0, x1, y1) = box(try render(p, request))
            XCTAssertGreaterThan(x1 - x0, 3 * (y1 - y0), "rod along \(direction) lies across the picture")
            request.view = .file
            let (fx0, _, fx1, _) = box(try render(p, request))
            XCTAssertGreaterThan(x1 - x0, fx1 - fx0, "and fills more of it than the file's view (\(direction))")
        }
        // A real long molecule: the nanotube fixture.
        let tube = try StructureFile.load(path: Rendering.fixtures.appendingPathComponent("Nanotube.pdb").path)
        var request = RenderRequest()
        (request.width, request.height) = (256, 256)
        let (x0, y0, x1, y1) = box(try render(try Rendering.prepared(tube, .ballAndStick), request))
        XCTAssertGreaterThan(x1 - x0, y1 - y0, "the nanotube's axis runs across")
    }

    /// The atoms as the camera shows them touch the margin on the tighter axis and never cross it,
    /// at many aspect ratios and turns (orthographic: exact).
    /// The view is of the molecule, not of its representation: every mode and colouring of the
    /// same atoms is oriented alike (spacefill to surface no longer shows the other face), and a
    /// `--show` of the same atoms too.
    func testTheSameFileGivesTheSameViewAndBytesTwice() throws {
        let path = Rendering.fixtures.appendingPathComponent("1crn.pdb").path
        var request = RenderRequest()
        (request.width, request.height) = (160, 120)
        var images: [RGBAImage] = []
        for _ in 0..<2 {
            let p = try Rendering.prepared(try StructureFile.load(path: path), .ballAndStick)
            images.append(try render(p, request))
        }
        XCTAssertTrue(images[0] == images[1])
        // The view does not depend on the order of the atoms.
        let lines = rod(direction: SIMD3(1, 0.3, -0.5)) + ["O 3 4 1", "N -2 5 -1"]
        let a = try Rendering.prepared(try Rendering.structure(xyz: lines), .spacefill)
        let b = try Rendering.prepared(try Rendering.structure(xyz: lines.reversed()), .spacefill)
        let qa = a.principalAxes, qb = b.principalAxes
        XCTAssertEqual(abs(qa.x * qb.x + qa.y * qb.y + qa.z * qb.z + qa.w * qb.w), 1, accuracy: 1e-4)
    }

    func testOutlinesFollowDepthEdgesAndLeaveAFlatSphereAlone() throws {
        let p = try Rendering.prepared(try Rendering.structure(xyz: ["C 0 0 0"]), .spacefill)
        var style = RenderStyle.transparent
        style.antialias = 0
        let plain = try Rendering.draw(p, style: style)
        style.effects = DepthEffects(outline: 2)
        let outlined = try Rendering.draw(p, style: style)
        // Inside the disk nothing changes; just outside it, a dark ring appears.
        var inside = 0, changedInside = 0, ring = 0, darkRing = 0
        for y in 0..<200 {
            for x in 0..<200 {
                let r = ((Float(x) + 0.5 - 100) * (Float(x) + 0.5 - 100) + (Float(y) + 0.5 - 100) * (Float(y) + 0.5 - 100)).squareRoot()
                if r < 90 {
                    inside += 1
                    if plain.pixel(x, y) != outlined.pixel(x, y) { changedInside += 1 }
                } else if r > 97.6 && r < 98.6 {
                    ring += 1
                    let q = outlined.pixel(x, y)
                    if q.a == 255 && q.r < 40 && q.g < 40 && q.b < 40 { darkRing += 1 }
                }
            }
        }
        XCTAssertGreaterThan(inside, 20000)
        XCTAssertEqual(changedInside, 0, "a sphere's own surface has no outline")
        XCTAssertGreaterThan(darkRing, ring * 9 / 10, "its silhouette is outlined")

        // A small atom in front of a large one: an outline where the front one passes over the back.
        let pair = try Rendering.prepared(try Rendering.structure(xyz: ["C 0 0 0", "C 1.2 0 7"]), .spacefill)
        let front = try Rendering.draw(pair, style: style)
        var darkInside = 0
        for y in 60..<140 {
            for x in 60..<140 where front.pixel(x, y).r < 40 { darkInside += 1 }
        }
        XCTAssertGreaterThan(darkInside, 50, "the nearer atom is outlined over the farther")
    }

    func testOcclusionDarkensABuriedAtomMoreThanAnExposedOne() throws {
        // The middle atom alone, and ringed by atoms nearer the eye (file view: the eye looks down -z).
        let middle = ["C 0 0 0"]
        let ring = (0..<8).map { k -> String in
            let a = Float(k) * Float.pi / 4
            return "C \(3.2 * Foundation.cos(Double(a))) \(3.2 * Foundation.sin(Double(a))) 2.5"
        }
        func brightness(_ lines: [String], occlusion: Float, size: Int) throws -> Float {
            let p = try Rendering.prepared(try Rendering.structure(xyz: lines), .spacefill)
            var style = RenderStyle.transparent
            style.effects = DepthEffects(occlusion: occlusion)
            var camera = p.fittedCamera
            camera.center = .zero
            let r = try Rendering.renderer()
            let image = try r.render(r.makeScene(p.geometry, atomColors: p.atomColors), camera: camera, width: size, height: size, style: style)
            var sum: Float = 0, n: Float = 0
            for y in (size * 19 / 40)..<(size * 21 / 40) { for x in (size * 19 / 40)..<(size * 21 / 40) { sum += Float(image.pixel(x, y).g); n += 1 } }
            return sum / n
        }
        // 200 px: the occlusion radius spans many pixels (sampled every other pixel); 64 px with two
        // far atoms widening the view: a few pixels (sampled at every pixel).
        for (size, far) in [(200, [String]()), (64, ["C 24 0 0", "C -24 0 0"])] {
            let exposed = try brightness(middle + far, occlusion: 0, size: size) - brightness(middle + far, occlusion: 1, size: size)
            let buried = try brightness(middle + ring + far, occlusion: 0, size: size) - brightness(middle + ring + far, occlusion: 1, size: size)
            XCTAssertLessThan(exposed, 2, "an atom alone is not darkened (\(size) px)")
            XCTAssertGreaterThan(buried, 15, "an atom at the bottom of a ring of nearer atoms is (\(size) px)")
        }
    }

    func testAtomsFarApartAreNeverDrawnSmallerThanTheMinimum() throws {
        let p = try Rendering.prepared(try Rendering.structure(xyz: ["H 0 0 0", "H 400 0 0", "H 0 300 0"]), .ballAndStick)
        var style = RenderStyle.transparent
        style.antialias = 0
        let image = try Rendering.draw(p, size: 256, style: style)
        // Each of the three atoms covers at least a disk of the minimum radius (about 7 pixels).
        XCTAssertGreaterThanOrEqual(image.coverage().count, 3 * 5)
        style.minimumAtomPixels = 0
        XCTAssertLessThan(try Rendering.draw(p, size: 256, style: style).coverage().count, 3 * 5)
    }
}

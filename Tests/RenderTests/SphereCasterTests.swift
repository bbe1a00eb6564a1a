import Foundation
import Graphics
import Imaging
@testable import MoleculeView
import Scene
import Structure
import XCTest

/// The CPU ray caster against the GL impostors it stands in for: the same picture to within
/// float rounding (rim samples, where the root of a near-zero number decides a pixel's shade).
final class SphereCasterTests: XCTestCase {
    /// Samples differing by more than 32 in some channel, and the mean difference over all channels.
    private func difference(_ a: RGBAImage, _ b: RGBAImage) -> (large: Int, mean: Double) {
        XCTAssertEqual(a.width, b.width)
        XCTAssertEqual(a.height, b.height)
        var large = 0, sum = 0
        for y in 0..<a.height {
            for x in 0..<a.width {
                let p = a.pixel(x, y), q = b.pixel(x, y)
                let d = [Int(p.r) - Int(q.r), Int(p.g) - Int(q.g), Int(p.b) - Int(q.b), Int(p.a) - Int(q.a)].map(abs)
                sum += d.reduce(0, +)
                if d.max()! > 32 { large += 1 }
            }
        }
        return (large, Double(sum) / Double(a.width * a.height * 4))
    }

    private func cast(_ p: PreparedMolecule, camera: Camera, size: Int, samples: Int = 1, style: RenderStyle) -> RGBAImage {
        let g = p.geometry
        let visible = MoleculeRenderer.visibleSpheres(g, camera: camera, width: size, height: size, style: style)
        return SphereCaster.draw(g, sphereColors: MoleculeScene.packedColors(g.colorsOfSpheres(p.atomColors)),
                                 cylinderColors: MoleculeScene.packedColors(g.colorsOfCylinders(p.atomColors)),
                                 visible: visible?.indices, camera: camera, width: size, height: size, samples: samples,
                                 style: style).finished()
    }

    private func gl(_ p: PreparedMolecule, camera: Camera, size: Int, style: RenderStyle) throws -> RGBAImage {
        let r = try Rendering.renderer()
        r.castsSmallPictures = false
        defer { r.castsSmallPictures = true }
        return try r.render(r.makeScene(p.geometry, atomColors: p.atomColors), camera: camera, width: size, height: size, style: style)
    }

    /// The styles the caster draws in (plain, outlined, depth-cued over transparency,
    /// supersampled) for spacefill and ball-and-stick of each of `files`, turned off its axes:
    /// `body(case name, prepared, camera, style, samples, side)`, the side a test's own where given.
    private func eachCase(_ files: [String], sides: [Int]? = nil,
                          _ body: (String, PreparedMolecule, Camera, RenderStyle, Int, Int) throws -> Void) throws {
        var outlined = RenderStyle()
        outlined.effects = DepthEffects(outline: 1.5, occlusion: 0.6)
        var cued = RenderStyle.transparent
        cued.depthCue = true
        var supersampled = RenderStyle()
        supersampled.antialias = 2
        let styles = [("plain", RenderStyle(), 1), ("outlined", outlined, 1), ("cued", cued, 1), ("supersampled", supersampled, 2)]
        for file in files {
            let s = try StructureFile.load(path: Rendering.fixtures.appendingPathComponent(file).path)
            for mode: DrawMode in [.spacefill, .ballAndStick] {
                let p = try Rendering.prepared(s, mode)
                for (k, (name, style, samples)) in styles.enumerated() {
                    var camera = p.fittedCamera
                    camera.rotate(degreesX: 23, degreesY: 41, degreesZ: 0)
                    try body("\(file) \(mode) \(name)", p, camera, style, samples, sides?[k] ?? 160)
                }
            }
        }
    }

    func testCastPicturesMatchTheImpostorShaders() throws {
        try eachCase(["1crn.pdb", "Caffeine.pdb", "1bna.pdb"]) { name, p, camera, style, samples, size in
            let cpu = cast(p, camera: camera, size: size, samples: samples, style: style)
            let reference = try gl(p, camera: camera, size: size, style: style)
            let (large, mean) = difference(cpu, reference)
            XCTAssertLessThan(Double(large) / Double(size * size), 0.005, "\(name): \(large) pixels differ")
            XCTAssertLessThan(mean, 0.3, "\(name): mean difference")
            XCTAssertEqual(Double(cpu.coverage().count), Double(reference.coverage().count),
                           accuracy: Double(reference.coverage().count) * 0.01 + 2, "\(name): coverage")
        }
    }

    /// Spheres lit four pixels at a time give the same bytes as one at a time, in every style
    /// the caster draws (plain, outlined, depth-cued over transparency, supersampled), for
    /// spacefill and ball-and-stick (bonds in a group send it down the one-pixel path) and at a
    /// width no multiple of four.
    func testFourPixelsAtOnceEqualOneAtATime() throws {
        try eachCase(["1crn.pdb", "Caffeine.pdb", "1hpv.pdb"], sides: [256, 203, 160, 131]) { name, p, camera, style, samples, size in
            let g = p.geometry
            func drawn(_ four: Bool) -> DrawnPicture {
                SphereCaster.draw(g, sphereColors: MoleculeScene.packedColors(g.colorsOfSpheres(p.atomColors)),
                                  cylinderColors: MoleculeScene.packedColors(g.colorsOfCylinders(p.atomColors)), visible: nil,
                                  camera: camera, width: size, height: size, samples: samples, style: style, fourAtOnce: four)
            }
            let one = drawn(false), four = drawn(true)
            XCTAssertTrue(one.image == four.image, "\(name): as drawn")
            XCTAssertTrue(one.finished() == four.finished(), "\(name): the picture")
            XCTAssertGreaterThan(four.finished().coverage().count, size * size / 20, "\(name): drawn")
        }
    }

    func testSingleCarbonIsACenteredLitDiskOfTheFittedRadius() throws {
        let p = try Rendering.prepared(try Rendering.structure(xyz: ["C 0 0 0"]), .spacefill)
        var style = RenderStyle.transparent
        style.antialias = 0
        let image = cast(p, camera: p.fittedCamera, size: 200, style: style)
        let (count, centroid) = image.coverage()
        XCTAssertEqual((Float(count) / .pi).squareRoot(), 100 / 1.03, accuracy: 1.0)
        XCTAssertEqual(centroid.x, 100, accuracy: 0.5)
        XCTAssertEqual(centroid.y, 100, accuracy: 0.5)
        XCTAssertEqual(image.pixel(2, 2).a, 0, "background stays transparent")
        // The key light is at the upper left: brighter there than at the lower right.
        XCTAssertGreaterThan(Int(image.pixel(70, 70).r), Int(image.pixel(140, 140).r) + 40)
        let center = image.pixel(100, 100)
        XCTAssertEqual(Int(center.r), Int(center.g), accuracy: 2, "carbon is grey")
    }

    func testNearerAtomHidesTheFartherOne() throws {
        // Oxygen (red) in front of carbon (grey), seen along z: the middle pixel is red.
        let p = try Rendering.prepared(try Rendering.structure(xyz: ["C 0 0 -3", "O 0 0 3"]), .spacefill)
        var camera = p.fittedCamera
        camera.rotation = .identity
        let image = cast(p, camera: camera, size: 100, style: .transparent)
        let middle = image.pixel(50, 50)
        XCTAssertGreaterThan(Int(middle.r), Int(middle.g) + 80, "\(middle)")
        camera.rotate(degreesX: 0, degreesY: 180, degreesZ: 0)
        let behind = cast(p, camera: camera, size: 100, style: .transparent).pixel(50, 50)
        XCTAssertEqual(Int(behind.r), Int(behind.g), accuracy: 3, "from behind, the grey carbon: \(behind)")
    }

    func testOnlySmallOrthographicSphereAndBondPicturesAreCast() throws {
        let s = try StructureFile.load(path: Rendering.fixtures.appendingPathComponent("1crn.pdb").path)
        let perception = try BondPerception.standard()
        func picture(_ settings: [(String, String)]) throws -> MoleculePicture {
            var request = RenderRequest()
            for (k, v) in settings { try request.set(k, v) }
            return try MoleculePicture(s, mode: request.modes[0], request: request, perception: perception)
        }
        XCTAssertTrue(try picture([("size", "256"), ("mode", "spacefill")]).casts)
        XCTAssertTrue(try picture([("size", "256"), ("mode", "ball-and-stick")]).casts)
        XCTAssertTrue(try picture([("size", "1024"), ("mode", "spacefill")]).casts)
        XCTAssertFalse(try picture([("size", "2048"), ("mode", "spacefill")]).casts, "large: llvmpipe")
        XCTAssertFalse(try picture([("size", "256"), ("mode", "cartoon")]).casts, "meshes: GL")
        XCTAssertFalse(try picture([("size", "256"), ("mode", "spacefill"), ("perspective", "true")]).casts)
        XCTAssertFalse(try picture([("size", "512"), ("mode", "spacefill"), ("antialias", "4")]).casts, "16 samples a pixel")
        // What `draw` returns for a cast picture is the cast.
        let p = try picture([("size", "128"), ("mode", "spacefill")])
        XCTAssertTrue(try p.draw(try Rendering.renderer()).finished() == p.cast()!.finished())
    }
}

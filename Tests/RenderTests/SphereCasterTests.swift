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
    private func eachCase(_ files: [String], modes: [DrawMode] = [.spacefill, .ballAndStick], sides: [Int]? = nil,
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
            for mode in modes {
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

    /// Spheres and triangles lit four pixels at a time give the same bytes as one at a time, in
    /// every style the caster draws (plain, outlined, depth-cued over transparency, supersampled),
    /// for spacefill, ball-and-stick (bonds in a group send it down the one-pixel path), cartoons
    /// (1hpv's with its inhibitor's balls and sticks: groups of both kinds go one at a time too) and
    /// a surface, and at a width no multiple of four.
    func testFourPixelsAtOnceEqualOneAtATime() throws {
        try eachCase(["1crn.pdb", "Caffeine.pdb", "1hpv.pdb"], modes: [.spacefill, .ballAndStick, .cartoon, .surface],
                     sides: [256, 203, 160, 131]) { name, p, camera, style, samples, size in
            let g = p.geometry
            func drawn(_ four: Bool) -> DrawnPicture {
                SphereCaster.draw(g, sphereColors: MoleculeScene.packedColors(g.colorsOfSpheres(p.atomColors)),
                                  cylinderColors: MoleculeScene.packedColors(g.colorsOfCylinders(p.atomColors)),
                                  meshColors: g.meshes.map { $0.packedDrawnColors(p.atomColors) },
                                  visible: nil, camera: camera, width: size, height: size, samples: samples, style: style, fourAtOnce: four)
            }
            let one = drawn(false), four = drawn(true)
            XCTAssertTrue(one.image == four.image, "\(name): as drawn")
            XCTAssertTrue(one.finished() == four.finished(), "\(name): the picture")
            XCTAssertGreaterThan(four.finished().coverage().count, size * size / 20, "\(name): drawn")
        }
    }

    /// Spheres and bonds passed over by the tiles of samples already covered nearer (and culled
    /// first or not) give the same bytes as every one cast, in spacefill and ball-and-stick, one
    /// and two samples a pixel, at sides no multiple of the tiles'.
    func testTilesPassOverOnlyHiddenSpheresAndBonds() throws {
        try eachCase(["1crn.pdb", "1hpv.pdb", "1bna.pdb"], modes: [.spacefill, .ballAndStick], sides: [256, 203, 160, 131]) { name, p, camera, style, samples, size in
            let g = p.geometry
            let culled = MoleculeRenderer.visibleSpheres(g, camera: camera, width: size, height: size, style: style, minimum: 0, balls: 0)
            XCTAssertNotNil(culled, name)
            func drawn(_ tiles: Bool, _ visible: [Int32]?) -> RGBAImage {
                SphereCaster.draw(g, sphereColors: MoleculeScene.packedColors(g.colorsOfSpheres(p.atomColors)),
                                  cylinderColors: MoleculeScene.packedColors(g.colorsOfCylinders(p.atomColors)),
                                  visible: visible, camera: camera, width: size, height: size, samples: samples, style: style,
                                  fourAtOnce: true, tiles: tiles).finished()
            }
            let all = drawn(false, nil)
            XCTAssertTrue(drawn(true, nil) == all, "\(name): tiles")
            XCTAssertTrue(drawn(true, culled?.indices) == all, "\(name): tiles after culling")
            XCTAssertGreaterThan(all.coverage().count, size * size / 20, "\(name): drawn")
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
        XCTAssertTrue(try picture([("size", "256"), ("mode", "cartoon")]).casts, "opaque meshes are cast")
        XCTAssertTrue(try picture([("size", "256"), ("mode", "surface")]).casts)
        XCTAssertFalse(try picture([("size", "256"), ("mode", "surface"), ("transparency", "0.5")]).casts, "see-through: GL")
        XCTAssertFalse(try picture([("size", "256"), ("mode", "spacefill"), ("perspective", "true")]).casts)
        XCTAssertFalse(try picture([("size", "512"), ("mode", "spacefill"), ("antialias", "4")]).casts, "16 samples a pixel")
        // What `draw` returns for a cast picture is the cast.
        let p = try picture([("size", "128"), ("mode", "spacefill")])
        XCTAssertTrue(try p.draw(try Rendering.renderer()).finished() == p.cast()!.finished())
    }

    /// Opaque meshes (cartoons with their ligands' balls and sticks, surfaces) cast on the CPU
    /// against `mesh.frag` drawn by GL: the same picture to within rounding at edges, in every
    /// style, with the samples GL would draw.
    func testCastMeshesMatchTheMeshShader() throws {
        func check(_ name: String, _ p: PreparedMolecule, _ camera: Camera, _ style: RenderStyle, _ size: Int) throws {
            let g = p.geometry
            XCTAssertFalse(g.meshes.isEmpty, name)
            // The samples GL would draw (a cartoon without atoms is supersampled).
            let samples = MoleculeRenderer.requestedSamples(style, typicalRadius: MoleculeGeometry.medianRadius(g.spheres),
                                                            pixelsPerUnit: 1 / camera.worldUnitsPerPixel(width: size, height: size))
            XCTAssertTrue(SphereCaster.casts(g, camera: camera, width: size, height: size, samples: samples))
            let meshColors = g.meshes.map { $0.packedDrawnColors(p.atomColors) }
            let cpu = SphereCaster.draw(g, sphereColors: MoleculeScene.packedColors(g.colorsOfSpheres(p.atomColors)),
                                        cylinderColors: MoleculeScene.packedColors(g.colorsOfCylinders(p.atomColors)),
                                        meshColors: meshColors, visible: nil, camera: camera, width: size, height: size,
                                        samples: samples, style: style).finished()
            let reference = try gl(p, camera: camera, size: size, style: style)
            let (large, mean) = difference(cpu, reference)
            XCTAssertLessThan(Double(large) / Double(size * size), 0.005, "\(name): \(large) pixels differ")
            XCTAssertLessThan(mean, 0.3, "\(name): mean difference")
            XCTAssertGreaterThan(reference.coverage().count, size * size / 10, "\(name): drawn")
            XCTAssertEqual(Double(cpu.coverage().count), Double(reference.coverage().count),
                           accuracy: Double(reference.coverage().count) * 0.01 + 2, "\(name): coverage")
        }
        try eachCase(["1crn.pdb", "1hpv.pdb", "1bna.pdb"], modes: [.cartoon]) { name, p, camera, style, _, size in
            try check(name, p, camera, style, size)
        }
        try eachCase(["1crn.pdb"], modes: [.surface]) { name, p, camera, style, _, size in try check(name, p, camera, style, size) }
    }

    /// Triangles GL draws nothing of (no area, a corner at infinity or not a number, far past the
    /// picture) draw nothing here either and trap nowhere; one the picture holds is drawn whole,
    /// its two faces lit alike, and a nearer one hides it.
    func testCastTrianglesAtTheEdgesOfArithmetic() throws {
        func picture(_ corners: [SIMD3<Float>], normal: SIMD3<Float> = SIMD3(0, 0, 1)) -> RGBAImage {
            var g = MoleculeGeometry()
            var m = Mesh(name: "t")
            m.positions = corners
            m.normals = corners.map { _ in normal }
            m.colors = corners.map { _ in 0xFF0000 }
            m.indices = (0..<UInt32(corners.count)).map { $0 }
            g.meshes = [m]
            let camera = Camera(center: SIMD3(0, 0, 0), radius: 10)
            return SphereCaster.draw(g, sphereColors: [], cylinderColors: [], meshColors: [MoleculeScene.packedColors(m.colors)],
                                     visible: nil, camera: camera, width: 64, height: 64, samples: 1, style: .transparent).finished()
        }
        let square: [SIMD3<Float>] = [[-5, -5, 0], [5, -5, 0], [5, 5, 0], [-5, -5, 0], [5, 5, 0], [-5, 5, 0]]
        let drawn = picture(square)
        let (count, centroid) = drawn.coverage()
        XCTAssertGreaterThan(count, 100)
        XCTAssertEqual(centroid.x, 31.5, accuracy: 1)
        XCTAssertEqual(centroid.y, 31.5, accuracy: 1)
        XCTAssertGreaterThan(Int(drawn.pixel(32, 32).r), 100, "red, lit")
        // The same square's back face (wound the other way, its normals away from the viewer), as
        // mesh.frag lights the side seen: the same picture.
        let reversed = [square[0], square[2], square[1], square[3], square[5], square[4]]
        XCTAssertTrue(picture(reversed, normal: SIMD3(0, 0, -1)) == drawn, "both faces lit alike")
        XCTAssertLessThan(Int(picture(reversed).pixel(32, 32).r), 100, "a back face whose normal faces the viewer is lit as its far side")
        for corners: [SIMD3<Float>] in [
            [[0, 0, 0], [1, 1, 0], [2, 2, 0]],                                  // no area
            [[0, 0, 0], [.infinity, 0, 0], [0, 1, 0]],
            [[0, 0, 0], [.nan, 0, 0], [0, 1, 0]],
            [[1e30, 1e30, 0], [3e38, 1e30, 0], [1e30, 3e38, 0]],                // far past the picture
            [[-1e30, -1e30, 0], [1e30, -1e30, 0], [0, 1e30, 0]],                // covering it, from far out
        ] {
            let image = picture(corners)
            XCTAssertEqual(image.width, 64, "\(corners)")
        }
        XCTAssertGreaterThan(picture([[-1e30, -1e30, 0], [1e30, -1e30, 0], [0, 1e30, 0]]).coverage().count, 64 * 64 / 2,
                             "a huge triangle over the picture is drawn (edges in doubles)")
        XCTAssertEqual(picture([[0, 0, 0], [1, 1, 0], [2, 2, 0]]).coverage().count, 0)
    }
}

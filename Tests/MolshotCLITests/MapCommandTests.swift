import Foundation
import Imaging
import TestSupport
import XCTest

/// `molshot info` and `molshot render` on density maps, as a user runs them.
final class MapCommandTests: GLTestCase {
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("molshot-maps-\(UUID().uuidString)")

    override func setUpWithError() throws {
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: scratch)
    }

    /// The header and statistics as gemmi (header words) and numpy (`mean`, `std`) give them.
    func testInfoJSONOfAMap() throws {
        let run = try MolshotBinary.run(["info", "--json", "Tests/Fixtures/maps/emd_3001.map.gz"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(json["grid"] as? [Int], [73, 43, 25])
        XCTAssertEqual(json["size"] as? [Int], [43, 25, 73])
        XCTAssertEqual(json["axes"] as? [Int], [3, 1, 2])
        XCTAssertEqual(json["start"] as? [Int], [0, -21, -12])
        XCTAssertEqual(json["spaceGroup"] as? Int, 4)
        let cell = try XCTUnwrap(json["cell"] as? [String: Double])
        XCTAssertEqual(cell["beta"] ?? 0, 94.326, accuracy: 1e-3)
        let stats = try XCTUnwrap(json["statistics"] as? [String: Double])
        XCTAssertEqual(stats["rms"] ?? 0, 0.157057221, accuracy: 1e-8)
        XCTAssertEqual(stats["mean"] ?? 0, 0.000532966682, accuracy: 1e-10)
    }

    func pixels(_ arguments: [String], where keep: (UInt8, UInt8, UInt8) -> Bool) throws -> Int {
        try MolshotBinary.renderedPixels(arguments + ["--size", "200"], output: scratch.appendingPathComponent("\(UUID().uuidString).png").path, where: keep)
    }

    static func blue(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> Bool { b > 100 && Int(b) > Int(r) + 30 && Int(b) > Int(g) + 30 }

    /// EMD-3197 at 1 sigma: a solid surface in ChimeraX's map colour fills much of the picture;
    /// the same level as a mesh is lines, a fraction of those pixels, in PyMOL's mesh blue.
    func testAMapIsDrawnAsASurfaceOrAMesh() throws {
        let surface = try pixels(["Tests/Fixtures/maps/EMD-3197.map", "--level", "1s"], where: Self.blue)
        let mesh = try pixels(["Tests/Fixtures/maps/EMD-3197.map", "--level", "1s", "--map-style", "mesh"], where: Self.blue)
        XCTAssertGreaterThan(surface, 8000, "the surface fills the picture")
        XCTAssertGreaterThan(mesh, 300, "the mesh's lines are drawn")
        XCTAssertLessThan(mesh, surface * 3 / 4, "a mesh, not a surface")
        // A level above the map's maximum draws nothing.
        XCTAssertEqual(try pixels(["Tests/Fixtures/maps/EMD-3197.map", "--level", "100"], where: Self.blue), 0)
    }

    /// A map with its model: the map in red (asked for) and the model's cartoon in its chain
    /// colour, both in one picture.
    func testAMapWithItsModel() throws {
        let red = try pixels(["Tests/Fixtures/maps/5i55_tiny.ccp4", "--model", "Tests/Fixtures/maps/5i55.cif", "--level", "1s", "--map-color", "red",
                              "--map-style", "transparent"], where: { r, g, b in r > 150 && Int(r) > Int(g) + 60 && Int(r) > Int(b) + 60 })
        XCTAssertGreaterThan(red, 30, "the map drawn (a small block beside the deposited model)")
        let both = try pixels(["Tests/Fixtures/maps/5i55_tiny.ccp4", "--model", "Tests/Fixtures/maps/5i55.cif", "--level", "1s"],
                              where: { r, g, b in !(r > 240 && g > 240 && b > 240) })
        let alone = try pixels(["Tests/Fixtures/maps/5i55_tiny.ccp4", "--level", "1s"], where: { r, g, b in !(r > 240 && g > 240 && b > 240) })
        XCTAssertNotEqual(both, alone, "the model changes the picture")
    }

    /// A crystallographic 2mFo-DFc map over its whole cell (gemmi's, from its test MTZ of 5wkd)
    /// with the model: drawn around the model; carved to 1.6 Å of three residues (PyMOL's
    /// `isomesh ..., carve=1.6`), a fraction of it, every line near those residues.
    func testACrystallographicMapCarvedAroundResidues() throws {
        let common = ["Tests/Fixtures/maps/5wkd_2fofc.ccp4.gz", "--model", "Tests/Fixtures/maps/5wkd.pdb", "--mode", "lines", "--map-style", "mesh", "--level", "1s"]
        let whole = try pixels(common, where: Self.blue)
        let carved = try pixels(common + ["--carve", "resi 302-304", "--carve-radius", "1.6"], where: Self.blue)
        XCTAssertGreaterThan(whole, 2000)
        XCTAssertGreaterThan(carved, 300)
        XCTAssertLessThan(carved, whole * 2 / 3)
        let none = try MolshotBinary.run(["render"] + common + ["--carve", "resi 999", "-o", scratch.appendingPathComponent("n.png").path])
        XCTAssertEqual(none.status, 1)
        XCTAssertTrue(none.stderr.contains("takes no atoms"), none.stderr)
    }

    /// `molshot thumbnails` over maps: a picture each, the map's isosurface at the level asked
    /// for; a run again skips them (the index), a hostile map fails alone.
    func testThumbnailsOfAFolderOfMaps() throws {
        let out = scratch.appendingPathComponent("thumbs").path
        let bad = scratch.appendingPathComponent("bad.map")
        try Data(repeating: 7, count: 2000).write(to: bad)
        let maps = ["Tests/Fixtures/maps/EMD-3197.map", "Tests/Fixtures/maps/emd_3001.map.gz", bad.path]
        var r = try MolshotBinary.run(["thumbnails"] + maps + ["-o", out, "--level", "1s", "--size", "128"])
        XCTAssertEqual(r.status, 1, "one map failed: \(r.stderr)")
        XCTAssertTrue(r.stderr.contains("bad.map"), r.stderr)
        let pictures = try FileManager.default.contentsOfDirectory(atPath: out).filter { $0.hasSuffix(".png") }
        XCTAssertEqual(pictures.count, 2, "\(pictures)")
        for p in pictures {
            let image = try PNGDecoder.read((out as NSString).appendingPathComponent(p))
            XCTAssertGreaterThan(MolshotBinary.pixels(of: image, where: Self.blue), 500, "\(p): the map drawn")
        }
        r = try MolshotBinary.run(["thumbnails"] + maps.dropLast() + ["-o", out, "--level", "1s", "--size", "128"])
        XCTAssertEqual(r.status, 0, r.stderr)
    }

    /// `molshot movie MAP`: a turntable of the map's surface, each frame drawn, the turn seen.
    func testAMovieOfAMap() throws {
        let out = scratch.appendingPathComponent("turn").path
        let r = try MolshotBinary.run(["movie", "Tests/Fixtures/maps/EMD-3197.map", "--level", "1s", "-o", out, "--size", "96", "--seconds", "1", "--fps", "4"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let frames = try (1...4).map { try PNGDecoder.read((out as NSString).appendingPathComponent(String(format: "frame-%05d.png", $0))) }
        for f in frames {
            XCTAssertGreaterThan(MolshotBinary.pixels(of: f, where: Self.blue), 300)
        }
        XCTAssertNotEqual(frames[0].pixels, frames[1].pixels, "the map turns")
    }

    /// `molshot export MAP --level 1s -o x.obj`: the isosurface over the stored block, as many
    /// triangles as scikit-image's `marching_cubes` makes on the same grid (4,332) and its area
    /// within 2% of that mesh's (211,827 Å²).
    func testAMapsIsosurfaceIsExported() throws {
        let out = scratch.appendingPathComponent("emd.obj").path
        let r = try MolshotBinary.run(["export", "Tests/Fixtures/maps/EMD-3197.map", "--level", "1s", "-o", out])
        XCTAssertEqual(r.status, 0, r.stderr)
        var vertices: [SIMD3<Double>] = [], area = 0.0, triangles = 0
        for line in try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n") {
            let f = line.split(separator: " ")
            if f.first == "v" { vertices.append(SIMD3(Double(f[1])!, Double(f[2])!, Double(f[3])!)) }
            if f.first == "f" {
                let k = f.dropFirst().map { Int($0.split(separator: "/")[0])! - 1 }
                let (a, b, c) = (vertices[k[0]], vertices[k[1]], vertices[k[2]])
                let u = b - a, v = c - a
                let n = SIMD3(u.y * v.z - u.z * v.y, u.z * v.x - u.x * v.z, u.x * v.y - u.y * v.x)
                area += (n * n).sum().squareRoot() / 2
                triangles += 1
            }
        }
        XCTAssertEqual(triangles, 4332)
        XCTAssertEqual(area, 211_827, accuracy: 211_827 * 0.02)
    }

    /// `--map-color zone`: the map in the colour of the nearest atom, here chain A's green
    /// (`--color chain`), where alone it is the default light blue-violet.
    func testAMapColouredByItsModelsChains() throws {
        let green: (UInt8, UInt8, UInt8) -> Bool = { r, g, b in g > 120 && Int(g) > Int(r) + 50 && Int(g) > Int(b) + 50 }
        let base = ["Tests/Fixtures/maps/5wkd_2fofc.ccp4.gz", "--model", "Tests/Fixtures/maps/5wkd.pdb", "--mode", "lines", "--level", "1s"]
        let zone = try pixels(base + ["--map-color", "zone", "--color", "chain"], where: green)
        let plain = try pixels(base + ["--color", "chain"], where: green)
        XCTAssertGreaterThan(zone, plain + 1000, "the map near the model in chain A's colour")
    }

    /// A truncated map and a map with an impossible mode: one clear error naming the file, exit 1.
    func testHostileMapsAreRefused() throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: "Tests/Fixtures/maps/EMD-3197.map", relativeTo: InfoCommandTests.root))
        let truncated = scratch.appendingPathComponent("truncated.map")
        try bytes.prefix(5000).write(to: truncated)
        var r = try MolshotBinary.run(["render", truncated.path, "-o", scratch.appendingPathComponent("t.png").path])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("\(truncated.path): truncated"), r.stderr)
        var mode = [UInt8](bytes)
        mode[12] = 99
        let bad = scratch.appendingPathComponent("mode.map")
        try Data(mode).write(to: bad)
        r = try MolshotBinary.run(["info", bad.path])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("\(bad.path): mode 99"), r.stderr)
        // --max-bytes holds for maps as for structures (gzip counted inflated).
        r = try MolshotBinary.run(["info", "--max-bytes", "20000", "Tests/Fixtures/maps/EMD-3197.map"])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("over the limit of 20000"), r.stderr)
        r = try MolshotBinary.run(["render", "--max-bytes", "100000", "Tests/Fixtures/maps/emd_3001.map.gz", "-o", scratch.appendingPathComponent("m.png").path])
        XCTAssertEqual(r.status, 1, "270 KB of gzip, over 100,000 bytes")
        r = try MolshotBinary.run(["render", "Tests/Fixtures/maps/EMD-3197.map", "--level", "lots", "-o", scratch.appendingPathComponent("l.png").path])
        XCTAssertNotEqual(r.status, 0)
        XCTAssertTrue(r.stderr.contains("--level") && r.stderr.contains("lots"), r.stderr)
    }
}

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

    static func green(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> Bool { g > 150 && Int(g) > Int(r) + 60 && Int(g) > Int(b) + 60 }
    static func cyan(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> Bool { b > 150 && g > 120 && Int(b) > Int(r) + 60 && Int(g) > Int(r) + 40 }

    /// An EM map with the model fitted to it (EMDB's EMD-8249, 35 Å, with the PDB's 5KHE: two
    /// chains): `--map-color zone:15` paints the map in chain A's green and chain B's cyan over
    /// much more of the picture than the cartoon alone takes; plain, neither colour spreads.
    func testAnEMMapWithItsModelColouredByChain() throws {
        let base = ["Tests/Fixtures/maps/emd_8249.map.gz", "--model", "Tests/Fixtures/maps/5khe.pdb.gz", "--level", "1s", "--mode", "cartoon", "--color", "chain"]
        let zoneGreen = try pixels(base + ["--map-color", "zone:15"], where: Self.green)
        let zoneCyan = try pixels(base + ["--map-color", "zone:15"], where: Self.cyan)
        let plainGreen = try pixels(base, where: Self.green), plainCyan = try pixels(base, where: Self.cyan)
        XCTAssertGreaterThan(zoneGreen, plainGreen + 1500, "chain A's part of the map")
        XCTAssertGreaterThan(zoneCyan, plainCyan + 1500, "chain B's part of the map")
        let far = try MolshotBinary.run(["render"] + base + ["--map-color", "zone:99", "-o", scratch.appendingPathComponent("z.png").path])
        XCTAssertEqual(far.status, 1, far.stderr)
        XCTAssertTrue(far.stderr.contains("zone:R"), far.stderr)
    }

    /// A ligand's density: 1RX2's 2mFo-DFc (gemmi, from Refmac's FWT/PHWT) at 1 sigma of the
    /// cell (0.435) carved to 1.6 Å of the folate, as PyMOL's `isomesh ..., carve=1.6`: a mesh
    /// round the ligand, a part of the box's; round NADP+ (48 atoms to folate's 32) more.
    func testALigandsDensityCarved() throws {
        let base = ["Tests/Fixtures/maps/1rx2_2fofc.ccp4.gz", "--model", "Tests/Fixtures/maps/1rx2.pdb.gz", "--map-style", "mesh", "--level", "0.435"]
        let folate = try pixels(base + ["--carve", "resn FOL", "--carve-radius", "1.6", "--show", "sticks: resn FOL"], where: Self.blue)
        let box = try pixels(base + ["--box", "resn FOL", "--show", "sticks: resn FOL"], where: Self.blue)
        XCTAssertGreaterThan(folate, 1500, "the folate's density drawn")
        XCTAssertLessThan(folate, box, "carved, less than the box round it")
    }

    /// `--level recommended`: the contour in the map's EMDB header, found in EMDB's layout
    /// (EMD-NNNN/map/, EMD-NNNN/header/) or given with --map-header, draws the picture that
    /// level given as a number draws; with no header, an error that says what to give.
    func testTheRecommendedLevel() throws {
        let mapDir = scratch.appendingPathComponent("EMD-8249/map"), headerDir = scratch.appendingPathComponent("EMD-8249/header")
        try FileManager.default.createDirectory(at: mapDir, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: headerDir, withIntermediateDirectories: true)
        let map = mapDir.appendingPathComponent("emd_8249.map.gz").path
        try FileManager.default.copyItem(atPath: URL(fileURLWithPath: "Tests/Fixtures/maps/emd_8249.map.gz", relativeTo: InfoCommandTests.root).path, toPath: map)
        func picture(_ args: [String]) throws -> RGBAImage {
            let out = scratch.appendingPathComponent("\(UUID().uuidString).png").path
            let r = try MolshotBinary.run(["render", map, "--size", "160", "-o", out] + args)
            XCTAssertEqual(r.status, 0, r.stderr)
            return try PNGDecoder.read(out)
        }
        var r = try MolshotBinary.run(["render", map, "--level", "recommended", "-o", scratch.appendingPathComponent("x.png").path])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("--map-header"), r.stderr)
        try Data(#"<emd emdb_id="EMD-8249"><map><contour_list><contour primary="true"><level>1.4</level><source>AUTHOR</source></contour></contour_list></map></emd>"#.utf8)
            .write(to: headerDir.appendingPathComponent("emd-8249-v30.xml"))
        XCTAssertEqual(try picture(["--level", "recommended"]).pixels, try picture(["--level", "1.4"]).pixels)
        XCTAssertNotEqual(try picture(["--level", "recommended"]).pixels, try picture(["--level", "0.5"]).pixels)
        let v19 = scratch.appendingPathComponent("v19.xml")
        try Data(#"<emdEntry accessCode="EMD-8249"><map><contourLevel source="author">0.5</contourLevel></map></emdEntry>"#.utf8).write(to: v19)
        XCTAssertEqual(try picture(["--level", "recommended", "--map-header", v19.path]).pixels, try picture(["--level", "0.5"]).pixels)
        r = try MolshotBinary.run(["render", map, "--level", "recommended", "--map-header", map, "-o", scratch.appendingPathComponent("y.png").path])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("\(map): is not an EMDB header"), r.stderr)
    }

    /// `molshot images ENTRY --maps DIR`: an EM entry whose file names its map (5KHE's REMARK 900
    /// names EMD-8249) gets the map with its model, each part in its chain's colour, and the map
    /// alone by radius (red near its centre to blue far out), at the header's level where there
    /// is one, else at the level that encloses the model's volume; the captions say which.
    func testImagesOfAnEMEntryWithItsMap() throws {
        let maps = scratch.appendingPathComponent("emdb"), out = scratch.appendingPathComponent("images").path
        try FileManager.default.createDirectory(at: maps.appendingPathComponent("EMD-8249/map"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: URL(fileURLWithPath: "Tests/Fixtures/maps/emd_8249.map.gz", relativeTo: InfoCommandTests.root).path,
                                         toPath: maps.appendingPathComponent("EMD-8249/map/emd_8249.map.gz").path)
        var r = try MolshotBinary.run(["images", "Tests/Fixtures/maps/5khe.pdb.gz", out, "--maps", maps.path, "--type", "map", "--size", "300"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let model = try PNGDecoder.read((out as NSString).appendingPathComponent("5khe_map_emd-8249_model_front_300x300.png"))
        XCTAssertGreaterThan(MolshotBinary.pixels(of: model, where: Self.green), 500)
        XCTAssertGreaterThan(MolshotBinary.pixels(of: model, where: Self.cyan), 500)
        let radial = try PNGDecoder.read((out as NSString).appendingPathComponent("5khe_map_emd-8249_radial_front_300x300.png"))
        XCTAssertGreaterThan(MolshotBinary.pixels(of: radial, where: { r, g, b in r > 60 && Int(r) > Int(g) + 30 && Int(r) > Int(b) + 30 }), 100, "red (shaded) near the centre")
        XCTAssertGreaterThan(MolshotBinary.pixels(of: radial, where: Self.blue), 100, "blue far out")
        func caption() throws -> [String: Any] {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: (out as NSString).appendingPathComponent("5khe_map_emd-8249_model_front.caption.json")))) as? [String: Any])
        }
        XCTAssertEqual(try caption()["map"] as? String, "EMD-8249")
        XCTAssertTrue((try caption()["mapLevelSource"] as? String ?? "").contains("model's volume"))
        // With EMDB's header beside the map, its recommended level.
        try FileManager.default.createDirectory(at: maps.appendingPathComponent("EMD-8249/header"), withIntermediateDirectories: true)
        try Data(#"<emd emdb_id="EMD-8249"><map><contour_list><contour primary="true"><level>1.4</level><source>AUTHOR</source></contour></contour_list></map></emd>"#.utf8)
            .write(to: maps.appendingPathComponent("EMD-8249/header/emd-8249-v30.xml"))
        r = try MolshotBinary.run(["images", "Tests/Fixtures/maps/5khe.pdb.gz", out, "--maps", maps.path, "--type", "map", "--size", "300", "--force"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try caption()["mapLevel"] as? Double, 1.4)
        XCTAssertTrue((try caption()["mapLevelSource"] as? String ?? "").contains("recommended"))
        // An entry that names no map found gets no map image, and no error.
        r = try MolshotBinary.run(["images", "Tests/Fixtures/1crn.pdb", out, "--maps", maps.path, "--type", "map,entry", "--size", "100"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertFalse(try FileManager.default.contentsOfDirectory(atPath: out).contains { $0.hasPrefix("1crn_map") })
    }
}

import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import MoleculeView
import Structure
import TestSupport
import XCTest

/// Meshes of what is drawn and the files they are written as, each read back by a small reader
/// of its own here: counts, bounds and colors as built.
final class ExportTests: XCTestCase {
    func crambin(_ mode: DrawMode = .ballAndStick) throws -> PreparedMolecule {
        try Rendering.prepared(try StructureFile.load(path: Rendering.fixtures.appendingPathComponent("1crn.pdb").path), mode)
    }

    func testSpheresAndBondsAreClosedOutwardMeshesOfTheAtomsColors() throws {
        let p = try crambin()
        let meshes = MoleculeMesh.meshes(p, detail: .low)
        XCTAssertEqual(meshes.map(\.name), ["chain_A"])
        let m = meshes[0]
        // 12 vertices and 20 triangles a ball; 2 x 6 sides x 2 ends and 2 x 12 triangles a bond.
        XCTAssertEqual(m.positions.count, p.geometry.sphereCount * 12 + p.geometry.cylinderCount * 24)
        XCTAssertEqual(m.triangleCount, p.geometry.sphereCount * 20 + p.geometry.cylinderCount * 24)
        // Every ball triangle faces out from its atom.
        for s in 0..<p.geometry.sphereCount {
            let center = SIMD3(p.geometry.spheres[4 * s], p.geometry.spheres[4 * s + 1], p.geometry.spheres[4 * s + 2])
            for t in (20 * s)..<(20 * s + 20) {
                let a = m.positions[Int(m.indices[3 * t])], b = m.positions[Int(m.indices[3 * t + 1])], c = m.positions[Int(m.indices[3 * t + 2])]
                let u = b - a, w = c - a
                let n = SIMD3(u.y * w.z - u.z * w.y, u.z * w.x - u.x * w.z, u.x * w.y - u.y * w.x)
                XCTAssertGreaterThan((n * ((a + b + c) / 3 - center)).sum(), 0)
            }
        }
        // Colors are the atoms': the first ball's vertices carry its atom's color.
        XCTAssertEqual(m.colors[0], p.atomColors[Int(p.geometry.sphereAtoms[0])])
        // Bounds: the atoms' with their radii (the low sphere's vertices lie on it, a little inside its extent).
        let b = m.bounds
        var lo = SIMD3<Float>(repeating: .greatestFiniteMagnitude), hi = -lo
        for s in 0..<p.geometry.sphereCount {
            let c = SIMD3(p.geometry.spheres[4 * s], p.geometry.spheres[4 * s + 1], p.geometry.spheres[4 * s + 2]), r = p.geometry.spheres[4 * s + 3]
            lo = pointwiseMin(lo, c - r)
            hi = pointwiseMax(hi, c + r)
        }
        for k in 0..<3 {
            XCTAssertGreaterThanOrEqual(b.min[k], lo[k] - 1e-3)
            XCTAssertLessThanOrEqual(b.max[k], hi[k] + 1e-3)
            XCTAssertLessThan(b.min[k] - lo[k], 0.3)
            XCTAssertLessThan(hi[k] - b.max[k], 0.3)
        }
        XCTAssertEqual(MoleculeMesh.meshes(p, detail: .high)[0].positions.count, p.geometry.sphereCount * 162 + p.geometry.cylinderCount * 64)
    }

    func testAStreamedGLBIsTheFileBuiltInMemoryByteForByte() throws {
        // Several chains (1hpv's two and its ligand) and slices of more than one block (64k vertices).
        let p = try Rendering.prepared(try StructureFile.load(path: Rendering.fixtures.appendingPathComponent("1hpv.pdb").path), .spacefill)
        let meshes = MoleculeMesh.meshes(p, detail: .high)
        XCTAssertGreaterThan(meshes.map(\.positions.count).max() ?? 0, 1 << 16)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("streamed-\(UUID().uuidString).glb").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try MeshFormat.glb.write(meshes, path: path)
        let streamed = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        XCTAssertTrue(streamed == MeshFormat.glb.files(meshes, path: path)[0].1)
        // Nothing is left beside it.
        let folder = (path as NSString).deletingLastPathComponent, name = (path as NSString).lastPathComponent
        XCTAssertFalse(try FileManager.default.contentsOfDirectory(atPath: folder).contains { $0.hasPrefix("." + name) })
    }

    /// Collada, OBJ and STL streamed to their files a slice at a time (1hpv's spacefill: more
    /// than one slice a mesh) read back whole: every number where its count says, every face.
    func testStreamedColladaOBJAndSTLReadBackWhole() throws {
        let p = try Rendering.prepared(try StructureFile.load(path: Rendering.fixtures.appendingPathComponent("1hpv.pdb").path), .spacefill)
        let meshes = MoleculeMesh.meshes(p, detail: .high)
        let vertices = meshes.reduce(0) { $0 + $1.positions.count }, triangles = meshes.reduce(0) { $0 + $1.triangleCount }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("streamed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        let stl = folder.appendingPathComponent("m.stl").path
        try MeshFormat.stl.write(meshes, path: stl)
        let stlBytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: stl)))
        XCTAssertEqual(stlBytes.count, 84 + 50 * triangles)
        XCTAssertEqual(stlBytes[80..<84].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }, triangles)

        let obj = folder.appendingPathComponent("m.obj").path
        try MeshFormat.obj.write(meshes, path: obj)
        let lines = try String(contentsOfFile: obj, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.filter { $0.hasPrefix("v ") }.count, vertices)
        XCTAssertEqual(lines.filter { $0.hasPrefix("vn ") }.count, vertices)
        XCTAssertEqual(lines.filter { $0.hasPrefix("f ") }.count, triangles)
        XCTAssertTrue(lines.allSatisfy { !$0.hasPrefix("v ") || $0.split(separator: " ").count == 4 })
        let materials = try String(contentsOfFile: folder.appendingPathComponent("m.mtl").path, encoding: .utf8)
        for name in Set(lines.filter { $0.hasPrefix("usemtl ") }.map { $0.dropFirst(7) }) { XCTAssertTrue(materials.contains("newmtl \(name)\n")) }

        let dae = folder.appendingPathComponent("m.dae").path
        try MeshFormat.dae.write(meshes, path: dae)
        let text = try String(contentsOfFile: dae, encoding: .utf8)
        // Well-formed XML, read by Python's expat (Foundation's XMLParser stops at text nodes of
        // 10 MB, as libxml2 does without its huge option; Collada readers stream them).
        let parsed = try Python.run("import sys, xml.etree.ElementTree as E; print(sum(1 for _ in E.parse(sys.argv[1]).iter()))", [dae])
        XCTAssertEqual(parsed.status, 0, parsed.output)
        let arrays = try NSRegularExpression(pattern: "<float_array [^>]*count=\"(\\d+)\">([^<]*)</float_array>")
        let found = arrays.matches(in: text, range: NSRange(text.startIndex..., in: text))
        XCTAssertEqual(found.count, 3 * meshes.count)
        for m in found {
            let count = Int(text[Range(m.range(at: 1), in: text)!])!
            XCTAssertEqual(text[Range(m.range(at: 2), in: text)!].split(separator: " ").count, count)
        }
        let faces = try NSRegularExpression(pattern: "<p>([^<]*)</p>").matches(in: text, range: NSRange(text.startIndex..., in: text))
        XCTAssertEqual(faces.reduce(0) { $0 + text[Range($1.range(at: 1), in: text)!].split(separator: " ").count }, 3 * triangles)
    }

    func testEachFormatReadsBack() throws {
        let p = try crambin(.spacefill)
        let meshes = MoleculeMesh.meshes(p, detail: .low)
        let v = meshes[0].positions.count, t = meshes[0].triangleCount
        // GLB: header, JSON chunk, BIN chunk; accessors with the counts and the bounds.
        let glb = MeshFormat.glb.files(meshes, path: "x.glb")[0].1
        XCTAssertEqual(Array(glb[0..<4]), Array("glTF".utf8))
        func u32(_ o: Int) -> Int { Int(glb[o]) | Int(glb[o + 1]) << 8 | Int(glb[o + 2]) << 16 | Int(glb[o + 3]) << 24 }
        XCTAssertEqual(u32(8), glb.count)
        let jsonLength = u32(12)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(glb[20..<(20 + jsonLength)])) as? [String: Any])
        let accessors = try XCTUnwrap(json["accessors"] as? [[String: Any]])
        XCTAssertEqual(accessors.map { $0["count"] as? Int }, [v, v, v, 3 * t])
        let max = try XCTUnwrap(accessors[0]["max"] as? [Double]), min = try XCTUnwrap(accessors[0]["min"] as? [Double])
        XCTAssertEqual(Float(max[0]), meshes[0].bounds.max.x, accuracy: 1e-4)
        XCTAssertEqual(Float(min[2]), meshes[0].bounds.min.z, accuracy: 1e-4)
        XCTAssertEqual(u32(20 + jsonLength), glb.count - 28 - jsonLength, "the BIN chunk holds the rest")
        XCTAssertEqual((json["nodes"] as? [[String: Any]])?.first?["name"] as? String, "chain_A")
        // glTF: the same document with the buffer inside.
        let gltf = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(MeshFormat.gltf.files(meshes, path: "x.gltf")[0].1)) as? [String: Any])
        let uri = try XCTUnwrap(((gltf["buffers"] as? [[String: Any]])?.first?["uri"] as? String))
        XCTAssertEqual(Data(base64Encoded: String(uri.dropFirst("data:application/octet-stream;base64,".count)))?.count, u32(20 + jsonLength))
        // STL: 84 bytes and 50 a triangle.
        let stl = MeshFormat.stl.files(meshes, path: "x.stl")[0].1
        XCTAssertEqual(stl.count, 84 + 50 * t)
        XCTAssertEqual(Int(stl[80]) | Int(stl[81]) << 8 | Int(stl[82]) << 16, t)
        // OBJ and MTL: vertices, normals, faces; a material for each color used.
        let obj = MeshFormat.obj.files(meshes, path: "/tmp/x.obj")
        XCTAssertEqual(obj.map(\.0), ["/tmp/x.obj", "/tmp/x.mtl"])
        let lines = String(decoding: obj[0].1, as: UTF8.self).split(separator: "\n")
        XCTAssertEqual(lines.filter { $0.hasPrefix("v ") }.count, v)
        XCTAssertEqual(lines.filter { $0.hasPrefix("vn ") }.count, v)
        XCTAssertEqual(lines.filter { $0.hasPrefix("f ") }.count, t)
        let colors = Set(meshes[0].colors)
        XCTAssertEqual(String(decoding: obj[1].1, as: UTF8.self).components(separatedBy: "newmtl ").count - 1, colors.count)
        XCTAssertTrue(lines.contains("usemtl c\(String(format: "%06X", p.atomColors[0]))"[...]))
        // Collada: well-formed XML, one geometry with the counts, in Ångström.
        final class Counter: NSObject, XMLParserDelegate {
            var counts: [String: [Int]] = [:]
            var unit = ""
            func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
                if let c = attributes["count"].flatMap(Int.init) { counts[name, default: []].append(c) }
                if name == "unit" { unit = attributes["name"] ?? "" }
            }
        }
        let parser = XMLParser(data: Data(MeshFormat.dae.files(meshes, path: "x.dae")[0].1))
        let counter = Counter()
        parser.delegate = counter
        XCTAssertTrue(parser.parse(), "\(String(describing: parser.parserError))")
        XCTAssertEqual(counter.counts["triangles"], [t])
        XCTAssertEqual(counter.counts["float_array"], [3 * v, 3 * v, 3 * v])
        XCTAssertEqual(counter.unit, "angstrom")
    }
}

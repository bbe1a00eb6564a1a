import Foundation
import XCTest

/// `molshot export` as a user runs it.
final class ExportCommandTests: XCTestCase {
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("molshot-export-\(UUID().uuidString)")

    override func setUpWithError() throws { try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true) }
    override func tearDown() { try? FileManager.default.removeItem(at: scratch) }

    func testEveryFormatIsWrittenWithNothingLeftBehind() throws {
        for ext in ["glb", "gltf", "dae", "obj", "stl"] {
            let out = scratch.appendingPathComponent("crambin.\(ext)").path
            let r = try MolshotBinary.run(["export", "Tests/Fixtures/1crn.pdb", "-o", out, "--mode", "spacefill", "--detail", "low"])
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertTrue(r.stderr.contains("1 mesh, \(327 * 12) vertices, \(327 * 20) triangles"), r.stderr)
            XCTAssertGreaterThan((try FileManager.default.attributesOfItem(atPath: out)[.size] as? Int) ?? 0, 1000)
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: scratch.appendingPathComponent("crambin.mtl").path), "OBJ brings its MTL")
        let left = try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { $0.hasPrefix(".") }
        XCTAssertEqual(left, [], "no temporary files left")
    }

    func testPartsKeepChainsAndBadRequestsAreRefused() throws {
        let out = scratch.appendingPathComponent("dna.glb").path
        let both = try MolshotBinary.run(["export", "Tests/Fixtures/1bna.pdb", "-o", out, "--detail", "low", "--mode", "ball-and-stick"])
        XCTAssertTrue(both.stderr.contains("2 meshes"), both.stderr)
        let one = try MolshotBinary.run(["export", "Tests/Fixtures/1bna.pdb", "-o", out, "--parts", "B", "--detail", "low", "--mode", "ball-and-stick"])
        XCTAssertEqual(one.status, 0, one.stderr)
        XCTAssertTrue(one.stderr.contains("1 mesh,"), one.stderr)
        let missing = try MolshotBinary.run(["export", "Tests/Fixtures/1bna.pdb", "-o", out, "--parts", "A,Q"])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains("--parts names chains the structure does not have: Q (it has A, B)"), missing.stderr)
        let format = try MolshotBinary.run(["export", "Tests/Fixtures/1bna.pdb", "-o", scratch.appendingPathComponent("dna.fbx").path])
        XCTAssertEqual(format.status, 1)
        XCTAssertTrue(format.stderr.contains(".glb, .gltf, .dae, .obj, .stl, .cif or .pdb"), format.stderr)
        let detail = try MolshotBinary.run(["export", "Tests/Fixtures/1bna.pdb", "-o", out, "--detail", "ultra"])
        XCTAssertEqual(detail.status, 1)
    }
}

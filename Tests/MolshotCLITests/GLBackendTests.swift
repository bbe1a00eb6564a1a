import Foundation
import TestSupport
import XCTest

/// OSMesa and EGL (surfaceless, on the same llvmpipe) draw the same pictures: every drawing path
/// through the binary with `--gl osmesa` and `--gl egl`, compared byte for byte.
final class GLBackendTests: GLTestCase {
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("molshot-gl-\(UUID().uuidString)")

    override func setUpWithError() throws {
        try super.setUpWithError()
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }
    override func tearDown() { try? FileManager.default.removeItem(at: scratch) }

    /// Runs `arguments` once per backend, `{out}` replaced by a folder of that backend's own.
    func both(_ arguments: [String]) throws -> (osmesa: URL, egl: URL) {
        var folders: [URL] = []
        for backend in ["osmesa", "egl"] {
            let out = scratch.appendingPathComponent(backend + "-" + UUID().uuidString)
            try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
            // Every picture drawn with GL (none ray-cast on the CPU), so that the backends are what differs.
            let run = try MolshotBinary.run(["--gl", backend] + arguments.map { $0.replacingOccurrences(of: "{out}", with: out.path) },
                                            environment: ["MOLSHOT_CAST": "0"])
            XCTAssertEqual(run.status, 0, "\(backend): \(arguments): \(run.stderr)")
            folders.append(out)
        }
        return (folders[0], folders[1])
    }

    /// Every file of the two folders, the same names and bytes.
    func assertSame(_ folders: (osmesa: URL, egl: URL), _ what: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: folders.osmesa.path).filter { $0.hasSuffix(".png") }.sorted()
        XCTAssertFalse(names.isEmpty, what, file: file, line: line)
        XCTAssertEqual(names, try FileManager.default.contentsOfDirectory(atPath: folders.egl.path).filter { $0.hasSuffix(".png") }.sorted(),
                       what, file: file, line: line)
        for name in names {
            let a = try Data(contentsOf: folders.osmesa.appendingPathComponent(name)), b = try Data(contentsOf: folders.egl.appendingPathComponent(name))
            XCTAssertTrue(a == b, "\(what): \(name) differs between OSMesa and EGL", file: file, line: line)
        }
    }

    func testDoctorSaysWhichBackendDraws() throws {
        let egl = try MolshotBinary.run(["doctor", "--gl", "egl"])
        XCTAssertEqual(egl.status, 0, egl.stderr)
        XCTAssertTrue(egl.stdout.contains("gl:       EGL, "), egl.stdout)
        XCTAssertTrue(egl.stdout.contains("renderer: "), egl.stdout)
        let osmesa = try MolshotBinary.run(["doctor", "--gl", "osmesa"])
        XCTAssertTrue(osmesa.stdout.contains("gl:       OSMesa"), osmesa.stdout + osmesa.stderr)
        let bad = try MolshotBinary.run(["doctor", "--gl", "vulkan"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertEqual(bad.stderr, "molshot: error: --gl (MOLSHOT_GL) must be auto, osmesa or egl (got vulkan)\n")
        let device = try MolshotBinary.run(["doctor", "--gl", "egl", "--gl-device", "99"])
        XCTAssertEqual(device.status, 2)
        XCTAssertTrue(device.stderr.hasPrefix("molshot: error: --gl-device 99: EGL has "), device.stderr)
    }

    /// Auto takes EGL where OSMesa does not open (MOLSHOT_OSMESA_LIBRARY names a file that is not there).
    func testAutoFallsBackToEGLWhereOSMesaIsMissing() throws {
        let run = try MolshotBinary.run(["doctor"], environment: ["MOLSHOT_GL": "auto", "MOLSHOT_OSMESA_LIBRARY": "/nonexistent/libOSMesa.so.8"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("gl:       EGL, "), run.stdout)
        let forced = try MolshotBinary.run(["doctor", "--gl", "osmesa"], environment: ["MOLSHOT_OSMESA_LIBRARY": "/nonexistent/libOSMesa.so.8"])
        XCTAssertEqual(forced.status, 2)
        XCTAssertTrue(forced.stderr.contains("OSMesa (libOSMesa.so.8) could not be opened") && forced.stderr.contains("--gl egl"), forced.stderr)
    }

    func testMoleculesCartoonsAndDepthEffectsAreTheSameOnBothBackends() throws {
        for (file, mode) in [("1crn.pdb", "ball-and-stick"), ("1crn.pdb", "spacefill"), ("1crn.pdb", "cartoon"), ("heme-site.pdb", "sticks"),
                             ("TYR.sdf", "ball-and-stick")] {
            let folders = try both(["render", "Tests/Fixtures/\(file)", "--mode", mode, "--size", "200", "--look", "illustrated", "-o", "{out}/a.png"])
            try assertSame(folders, "\(file) \(mode)")
        }
    }

    func testThumbnailsReplaysAndMapsAreTheSameOnBothBackends() throws {
        try assertSame(try both(["thumbnails", "Tests/Fixtures/1crn.pdb", "Tests/Fixtures/TYR.sdf", "-o", "{out}", "--size", "128"]), "thumbnails")
        try assertSame(try both(["replay", "Assets/samples/gestures.jsonl", "--molecule", "Tests/Fixtures/1crn.pdb", "-o", "{out}", "--size", "128"]),
                       "replay")
        try assertSame(try both(["pathway", "Tests/Fixtures/pathways/sbgn_glycolysis.sbgn", "-o", "{out}/map.png"]), "pathway")
    }

    /// The corpus (../shared/corpus or $MOLSHOT_CORPUS) as thumbnails in both modes, where it is.
    func testTheCorpusIsTheSameOnBothBackends() throws {
        let corpus = ProcessInfo.processInfo.environment["MOLSHOT_CORPUS"]
            ?? InfoCommandTests.root.deletingLastPathComponent().appendingPathComponent("shared/corpus").path
        guard FileManager.default.fileExists(atPath: corpus) else { throw XCTSkip("no corpus at \(corpus)") }
        try assertSame(try both(["thumbnails", corpus, "-o", "{out}", "--size", "128"]), "corpus")
    }
}

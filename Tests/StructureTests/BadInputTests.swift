import Core
import Foundation
import XCTest
@testable import Structure

/// Every kind of bad input gives one StructureError naming the file (and the line where there is one).
final class BadInputTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("molshot-bad-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let url = dir.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    func loadError(_ path: String, maxBytes: Int? = nil) -> StructureError? {
        var options = StructureFile.Options()
        if let maxBytes { options.maxBytes = maxBytes }
        return Fixtures.error { try StructureFile.load(path: path, options: options) }
    }

    func testEmptyFile() throws {
        let path = try write("empty.pdb", [])
        XCTAssertEqual(loadError(path)?.description, "\(path): is empty")
    }

    func testBinaryGarbage() throws {
        var generator = SystemRandomNumberGenerator()
        let path = try write("garbage.pdb", (0..<5000).map { _ in UInt8.random(in: 0...255, using: &generator) } + [0])
        XCTAssertEqual(loadError(path)?.message, "holds binary data, not a structure file")
    }

    func testTruncatedGzip() {
        let error = loadError(Fixtures.path("truncated.pdb.gz"))
        XCTAssertEqual(error?.file, Fixtures.path("truncated.pdb.gz"))
        XCTAssertTrue(error?.message.hasPrefix("gzip data is truncated") ?? false, error?.description ?? "")
    }

    func testGzipThatInflatesPastTheLimit() throws {
        // 4 MB of ATOM-like text compresses to a few kilobytes.
        let line = Array("ATOM      1  CA  ALA A   1       1.000   2.000   3.000  1.00 10.00           C  \n".utf8)
        var text: [UInt8] = []
        for _ in 0..<50_000 { text += line }
        let path = try write("bomb.pdb", text)
        let gz = dir.appendingPathComponent("bomb.pdb.gz").path
        let status = try Process.run(URL(fileURLWithPath: "/bin/gzip"), arguments: ["-k", path])
        status.waitUntilExit()
        let error = loadError(gz, maxBytes: 1_000_000)
        // The setting is the front end's: --max-bytes on the command line, --max-body in the service.
        XCTAssertEqual(error?.message, "inflates past the limit of 1000000 bytes (see \(FileInput.limitSetting.withLock { $0 }))")
        XCTAssertEqual(try StructureFile.load(path: gz).models[0].atoms.count, 50_000, "under the default limit it loads")
    }

    func testUnparseableCoordinateNamesLineAndColumns() throws {
        let path = try write("bad.pdb", Array("""
            HEADER    TEST
            ATOM      1  N   ALA A   1       1.000   2.000   3.000  1.00 10.00           N
            ATOM      2  CA  ALA A   1       1.500   2.x00   3.000  1.00 10.00           C

            """.utf8))
        let error = loadError(path)
        XCTAssertEqual(error?.line, 3)
        XCTAssertEqual(error?.message, "bad y coordinate '2.x00' (columns 39-46)")
    }

    func testShortAtomRecord() throws {
        let path = try write("short.pdb", Array("ATOM      1  N   ALA A   1       1.000   2.0\n".utf8))
        XCTAssertEqual(loadError(path)?.line, 1)
    }

    func testNoAtoms() throws {
        let path = try write("header.pdb", Array("HEADER    NOTHING HERE\nREMARK   1\nEND\n".utf8))
        XCTAssertEqual(loadError(path)?.message, "no ATOM or HETATM records: not a structure")
        let cif = try write("empty.cif", Array("data_x\n_entry.id X\n".utf8))
        XCTAssertEqual(loadError(cif)?.message, "no _atom_site records: not a structure")
    }

    func testUnknownFormatAndMissingFile() throws {
        let path = try write("notes.txt", Array("just some words\n".utf8))
        XCTAssertTrue(loadError(path)?.message.hasPrefix("unknown format") ?? false)
        XCTAssertTrue(loadError(dir.appendingPathComponent("absent.pdb").path)?.message.hasPrefix("cannot open") ?? false)
        XCTAssertEqual(loadError(dir.path)?.message, "is a directory")
    }

    func testGzipIsRecognizedByContentNotName() throws {
        let gz = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("1lzh.pdb.gz")))
        let path = try write("lysozyme.pdb", Array(gz))
        XCTAssertEqual(try StructureFile.load(path: path).models[0].atoms.count, 258)
    }
}

import Core
import Foundation
@testable import Library
import Structure
import XCTest

/// The atom records `OriginalCodec.render` writes are part of the stored format: every kept
/// original in every library was compressed against them, so they must not change by a byte
/// within a codec version. Pinned here by digest for a PDB and an mmCIF file (and checked to
/// give the file back through the codec).
final class OriginalCodecTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func testTheRecordsWrittenFromAModelAreTheStoredFormatsByteForByte() throws {
        let cases: [(file: String, kind: OriginalCodec.Kind, digest: String)] = [
            ("1crn.pdb", .pdb, "84d37d3889d35b4736f5c8011cbc0c4955d3a466753d8a95ea7d98df8d372814"),
            ("1CRN.cif", .mmcif, "4eacc4f5369d73abf4062f15ecdd08fe4d1efc92932f1f51c6fa18383fe6261d"),
            ("1hpv.pdb", .pdb, "e4c5b436b3cbf8150bb1d479d32690d040a633f3afea9ed55bc99afd2b943bf4"),
        ]
        for c in cases {
            let path = Self.root.appendingPathComponent("Tests/Fixtures/\(c.file)").path
            let text = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            let model = try StructureFile.load(path: path).models[0]
            let tags = c.kind == .mmcif ? OriginalCodec.atomSiteTags(text) : []
            let rendered = OriginalCodec.render(model, kind: c.kind, tags: tags)
            XCTAssertEqual(SHA256.hex(rendered), c.digest, c.file)
            let format: Structure.Format = c.kind == .pdb ? .pdb : .mmcif
            let blob = try XCTUnwrap(OriginalCodec.encode(text, model: model, format: format, level: 3), c.file)
            XCTAssertEqual(try OriginalCodec.decode(blob, model: { model }), text, c.file)
        }
    }
}

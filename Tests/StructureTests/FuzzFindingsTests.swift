import Foundation
import XCTest
@testable import Structure

/// Inputs the fuzzers (`fuzz/run`) found crashing the readers, kept in `Tests/Fixtures/fuzz`:
/// each is read, or refused with a StructureError, never a crash.
final class FuzzFindingsTests: XCTestCase {
    func testEveryFuzzFindingReadsOrFailsCleanly() throws {
        let folder = Fixtures.root.appendingPathComponent("Tests/Fixtures/fuzz")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        XCTAssertFalse(names.isEmpty)
        for name in names {
            do {
                let s = try StructureFile.load(path: folder.appendingPathComponent(name).path)
                if let model = s.models.first { _ = try BondPerception.standard().bonds(of: model, embedded: s.embeddedTemplates) }
            } catch is StructureError {}
        }
    }

    func testAChainIdOfEightFFBytesStartsAChain() throws {
        // The id that once matched the builder's "no chain yet" marker.
        var builder = ModelBuilder(number: 1)
        let ff = ShortName(raw: UInt64.max)
        builder.add(Atom(position: .zero, name: ShortName("CA"), element: .carbon), chain: ff, residueName: ShortName("GLY"),
                    residueNumber: 1, insertionCode: 0, hetero: false)
        let model = builder.finish()
        XCTAssertEqual(model.chains.count, 1)
        XCTAssertEqual(model.residues.count, 1)
    }
}

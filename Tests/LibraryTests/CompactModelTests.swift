import Foundation
@testable import Library
import Structure
import XCTest

/// The compact model a library keeps for each structure: written and read back exactly, and a
/// damaged one refused with an error, never a trap or a hang.
final class CompactModelTests: XCTestCase {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    func models() throws -> [(String, Model, [Bond])] {
        let perception = try BondPerception.standard()
        return try ["1crn.pdb", "1hpv.pdb", "Caffeine.pdb", "1CRN.cif", "TYR.sdf"].map { name in
            let s = try StructureFile.load(path: Self.fixtures.appendingPathComponent(name).path)
            let model = s.models[0]
            return (name, model, perception.bonds(of: model, embedded: s.embeddedTemplates))
        }
    }

    /// Every atom, residue, chain and bond as written, through the columns read ten bytes of
    /// varints at a time and the few last ones checked.
    func testAModelComesBackAsItWasWritten() throws {
        for (name, model, bonds) in try models() {
            let decoded = try CompactModel.decode(CompactModel.encode(model, bonds: bonds))
            XCTAssertEqual(decoded.atoms.count, model.atoms.count, name)
            for (a, b) in zip(decoded.atoms, model.atoms) {
                XCTAssertEqual(a.position, b.position, name)
                XCTAssertEqual(a.occupancy, b.occupancy, name)
                XCTAssertEqual(a.bFactor, b.bFactor, name)
                XCTAssertEqual(a.serial, b.serial, name)
                XCTAssertEqual(a.residue, b.residue, name)
                XCTAssertEqual(a.name, b.name, name)
                XCTAssertEqual(a.element, b.element, name)
                XCTAssertEqual(a.altLoc, b.altLoc, name)
                XCTAssertEqual(a.charge, b.charge, name)
            }
            XCTAssertEqual(decoded.residues.map(\.name), model.residues.map(\.name), name)
            XCTAssertEqual(decoded.residues.map(\.atoms), model.residues.map(\.atoms), name)
            XCTAssertEqual(decoded.residues.map(\.number), model.residues.map(\.number), name)
            XCTAssertEqual(decoded.chains.map(\.id), model.chains.map(\.id), name)
            XCTAssertEqual(decoded.explicitBonds.map { [$0.a, $0.b] }, bonds.map { [$0.a, $0.b] }, name)
            XCTAssertEqual(decoded.explicitBonds.map(\.order), bonds.map(\.order), name)
            XCTAssertEqual(decoded.explicitBonds.map(\.source), bonds.map(\.source), name)
        }
    }

    /// The model's bytes cut short anywhere, or with bytes changed (varints made long past 64
    /// bits, counts and name codes out of range), decode to an error or to some model: never a
    /// trap. The damage is done inside the compressed part, which is compressed again.
    func testADamagedModelIsRefusedNotTrappedOn() throws {
        var random = SystemRandomNumberGenerator()
        for (name, model, bonds) in try models().prefix(3) {
            let encoded = CompactModel.encode(model, bonds: bonds)
            let inner = try Zstd.decompress(Array(encoded[8...]))
            func wrapped(_ payload: [UInt8]) -> [UInt8] { Array(encoded[..<8]) + Zstd.compress(payload, level: 1) }
            var refused = 0
            for cut in stride(from: 0, to: inner.count, by: max(1, inner.count / 97)) {
                do { _ = try CompactModel.decode(wrapped(Array(inner[..<cut]))) } catch { refused += 1 }
            }
            XCTAssertGreaterThan(refused, 90, "\(name): cut short")
            for round in 0..<300 {
                var damaged = inner
                let at = Int.random(in: 0..<damaged.count, using: &random)
                if round % 3 == 0 {
                    // Eleven continuation bytes: a varint longer than 64 bits.
                    for k in at..<min(at + 11, damaged.count) { damaged[k] = 0xFF }
                } else {
                    damaged[at] = UInt8.random(in: 0...255, using: &random)
                }
                _ = try? CompactModel.decode(wrapped(damaged))
            }
        }
    }

    /// A model whose indices point past what it holds (a bond to an atom it does not have, a
    /// residue past its atoms, an atom of a residue it does not have, as a faulty render process
    /// could hand one to the server) is refused by name when it is read, before anything indexes
    /// with it; every real model's references hold.
    func testAModelWhoseReferencesPointPastItIsRefused() throws {
        for (name, model, bonds) in try models() {
            XCTAssertNil(try CompactModel.decode(CompactModel.encode(model, bonds: bonds)).referenceProblem, name)
        }
        let (_, model, bonds) = try models()[0]
        var farBond = bonds
        farBond[0] = Bond(0, Int32(model.atoms.count + 5), source: .distance)
        var farResidue = model
        farResidue.residues[3].atoms = 0..<Int32(model.atoms.count + 1)
        var farAtom = model
        farAtom.atoms[7].residue = Int32(model.residues.count)
        var farChain = model
        farChain.residues[0].chain = 99
        for (what, m, b, says) in [("bond", model, farBond, "bond 0 joins"), ("residue", farResidue, bonds, "residue 3 holds"),
                                   ("atom", farAtom, bonds, "atom 7 names residue"), ("chain", farChain, bonds, "residue 0 names chain 99")] {
            XCTAssertThrowsError(try CompactModel.decode(CompactModel.encode(m, bonds: b)), what) { e in
                XCTAssertTrue("\(e)".contains("damaged") && "\(e)".contains(says), "\(what): \(e)")
            }
        }
    }
}

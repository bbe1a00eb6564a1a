import Core
import Foundation
import Graphics
import Imaging
import MoleculeView
import Scene
import Structure
import XCTest

/// An icosahedral capsid as a virologist shows it: 1F2N's assembly (60 copies of chains A, B, C)
/// in the three colours of its T=3 lattice, and down its 5-, 3- and 2-fold axes.
final class CapsidTests: XCTestCase {
    func capsid() throws -> Structure {
        let path = Rendering.fixtures.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("shared/corpus/1f2n.cif").path
        guard FileManager.default.fileExists(atPath: path) else { throw XCTSkip("no shared corpus beside the checkout") }
        return try StructureFile.load(path: path).applying(.id("1"), source: "1f2n")
    }

    func testChainColoursAreTheDepositedChainsAcrossCopies() throws {
        let s = try capsid()
        let m = s.models[0]
        let polymer = m.atoms.indices.filter { !m.residues[Int(m.atoms[$0].residue)].isHetero }
        let elements = try ElementTable.shared()
        let byChain = ColorTheme.chain.colors(for: m, elements: elements)
        XCTAssertEqual(Set(polymer.map { byChain[$0] }).count, 3, "A, B and C in every copy")
        let byCopy = ColorTheme.copy.colors(for: m, elements: elements)
        XCTAssertGreaterThan(Set(polymer.map { byCopy[$0] }).count, 3, "each chain of each copy apart")
    }

    func testTheDefaultViewIsDownAFiveFoldAxis() throws {
        let s = try capsid()
        let perception = try BondPerception.standard()
        func draw(_ fields: [(String, String)]) throws -> RGBAImage {
            let request = try RenderRequest([("size", "160"), ("color", "chain")] + fields)
            let p = try PreparedMolecule(s, mode: try request.singleMode(), request: request, perception: perception)
            let r = try Rendering.renderer()
            return try r.render(r.scene(for: p), camera: request.camera(for: p), width: 160, height: 160, style: .transparent)
        }
        let unasked = try draw([]), five = try draw([("view", "5fold")]), three = try draw([("view", "3fold")])
        XCTAssertEqual(unasked.pixels, five.pixels, "orient takes the 5-fold of an icosahedral assembly")
        XCTAssertNotEqual(five.pixels, three.pixels)
        // Down a 5-fold, the picture turned by 72° about its centre is nearly itself.
        var same = 0, total = 0
        let c = 79.5, turn = 72 * Double.pi / 180
        for y in 20..<140 {
            for x in 20..<140 {
                let dx = Double(x) - c, dy = Double(y) - c
                guard dx * dx + dy * dy < 55 * 55 else { continue }
                let tx = Int((c + dx * cos(turn) - dy * sin(turn)).rounded()), ty = Int((c + dx * sin(turn) + dy * cos(turn)).rounded())
                let a = five.pixel(x, y), b = five.pixel(tx, ty)
                total += 1
                if abs(Int(a.r) - Int(b.r)) + abs(Int(a.g) - Int(b.g)) + abs(Int(a.b) - Int(b.b)) < 90 { same += 1 }
            }
        }
        XCTAssertGreaterThan(Double(same) / Double(total), 0.6, "\(same) of \(total) pixels alike after a fifth of a turn")
    }
}

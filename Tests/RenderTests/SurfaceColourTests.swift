import Core
import Foundation
import MoleculeView
import Structure
import XCTest

/// A surface's colours: blended across atom boundaries, and by chain where the colours are left to Molshot.
final class SurfaceColourTests: XCTestCase {
    func surface(_ name: String, _ color: ColorTheme) throws -> (mesh: Mesh, prepared: PreparedMolecule, elementColours: [UInt32]) {
        let s = try StructureFile.load(path: Rendering.fixtures.appendingPathComponent(name).path)
        let p = try PreparedMolecule(s, mode: .surface, color: .theme(color), perception: try BondPerception.standard())
        let mesh = try XCTUnwrap(p.geometry.meshes.first { $0.name == Surface.name })
        return (mesh, p, ColorTheme.element.colors(for: p.model, elements: try ElementTable.shared()))
    }

    /// Share of the mesh's edges across which a colour channel jumps by more than 96.
    func hardEdges(_ mesh: Mesh, _ colors: [UInt32]) -> Double {
        var hard = 0, all = 0
        for t in stride(from: 0, to: mesh.indices.count, by: 3) {
            for (a, b) in [(0, 1), (1, 2), (2, 0)] {
                let x = colors[Int(mesh.indices[t + a])], y = colors[Int(mesh.indices[t + b])]
                var jump = 0
                for shift: UInt32 in [16, 8, 0] {
                    let u = Int((x >> shift) & 0xFF), w = Int((y >> shift) & 0xFF)
                    jump = max(jump, abs(u - w))
                }
                all += 1
                if jump > 96 { hard += 1 }
            }
        }
        return Double(hard) / Double(max(all, 1))
    }

    func testElementColoursFadeAcrossAtomBoundaries() throws {
        let (mesh, _, colours) = try surface("1crn.pdb", .element)
        // What the owning atom alone would give: hard edges between carbon grey and oxygen red.
        let owned = mesh.atoms.map { colours[Int($0)] }
        let blended = mesh.colors
        XCTAssertEqual(blended.count, mesh.positions.count)
        let before = hardEdges(mesh, owned), after = hardEdges(mesh, blended)
        XCTAssertGreaterThan(before, 0.01, "crambin's surface has atom boundaries")
        XCTAssertLessThan(after, before * 0.5, "blending softens them: \(after) of edges jump against \(before)")
        // Mixed colours exist, not only the atoms' own.
        let own = Set(colours)
        XCTAssertGreaterThan(blended.filter { !own.contains($0) }.count, blended.count / 10)
        // Weights sum to one.
        for v in stride(from: 0, to: mesh.positions.count, by: 97) {
            let w = mesh.blendWeights[(v * Mesh.blendCount)..<((v + 1) * Mesh.blendCount)].reduce(0, +)
            XCTAssertEqual(w, 1, accuracy: 1e-4)
        }
    }

    func testTheAutoSurfaceOfAPolymerIsInChainColours() throws {
        let (mesh, prepared, _) = try surface("1hpv.pdb", .auto)
        let model = prepared.model
        let polymerChains = ["A", "B"]
        var coloursOfChain: [String: Set<UInt32>] = [:]
        let k = Mesh.blendCount
        for v in 0..<mesh.positions.count {
            // Vertices over one chain's polymer atoms alone.
            let atoms = (0..<k).filter { mesh.blendWeights[v * k + $0] > 0 }.map { Int(mesh.blendAtoms[v * k + $0]) }
            let residues = atoms.map { model.residues[Int(model.atoms[$0].residue)] }
            guard residues.allSatisfy({ !$0.isHetero }) else { continue }
            let chains = Set(residues.map { model.chains[Int($0.chain)].id })
            guard chains.count == 1, let chain = chains.first, polymerChains.contains(chain) else { continue }
            coloursOfChain[chain, default: []].insert(mesh.colors[v])
        }
        // One colour a chain, and not the same for both: no oxygen red or nitrogen blue specks.
        XCTAssertEqual(coloursOfChain["A"]?.count, 1)
        XCTAssertEqual(coloursOfChain["B"]?.count, 1)
        XCTAssertNotEqual(coloursOfChain["A"], coloursOfChain["B"])
    }
}

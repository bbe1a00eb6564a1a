import Foundation
import Graphics
import MoleculeView
import Scene
import Structure
import XCTest

/// Every structure of `../shared/corpus` renders in both modes with the molecule inside the frame.
final class CorpusRenderTests: XCTestCase {
    func testEveryCorpusStructureRendersInsideTheFrame() throws {
        let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("shared/corpus")
        let root = ProcessInfo.processInfo.environment["MOLSHOT_CORPUS"].map { URL(fileURLWithPath: $0) } ?? corpus
        guard let manifest = try? String(contentsOf: root.appendingPathComponent("MANIFEST.tsv"), encoding: .utf8) else {
            throw XCTSkip("no shared corpus beside the checkout")
        }
        let renderer = try Rendering.renderer()
        let perception = try BondPerception.standard()
        var style = RenderStyle.transparent
        style.antialias = 0  // Hard edges: the frame and the counts are what is checked here.
        var rendered = 0
        for line in manifest.split(separator: "\n").dropFirst() {
            let file = String(line.split(separator: "\t")[0])
            let structure = try StructureFile.load(path: root.appendingPathComponent(file).path)
            for mode: DrawMode in [.ballAndStick, .spacefill] {
                let p = try PreparedMolecule(structure, mode: mode, perception: perception)
                let image = try renderer.render(renderer.makeScene(p.geometry, atomColors: p.atomColors), camera: p.fittedCamera,
                                                width: 160, height: 120, style: style)
                let covered = image.coverage().count
                XCTAssertGreaterThan(covered, 200, "\(file) \(mode) draws something")
                XCTAssertTrue(image.borderIsEmpty, "\(file) \(mode) is cropped")
                rendered += 1
            }
        }
        XCTAssertGreaterThan(rendered, 100)
    }

    /// No molecule of the corpus, drawn as its entry describes it (assemblies built), whole or
    /// zoomed in, comes within a tenth of the overdraw a picture is refused at; 100,000 atoms at
    /// one point are far past it and refused before a sphere is cast.
    func testMoleculesStayFarUnderTheOverdrawLimitAndAPileOfAtomsIsRefused() throws {
        let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("shared/corpus")
        let perception = try BondPerception.standard()
        var pile = Model(number: 1)
        pile.atoms = (0..<100_000).map { _ in Atom(position: SIMD3(1, 2, 3), name: ShortName("C"), element: .carbon) }
        pile.residues = [Residue(name: ShortName("LIG"), number: 1, insertionCode: 0, isHetero: true, chain: 0, atoms: 0..<100_000)]
        pile.chains = [Chain(id: "A", residues: 0..<1)]
        var piled = Structure(format: .pdb)
        piled.models = [pile]
        XCTAssertThrowsError(try MoleculePicture(piled, mode: .spacefill, request: RenderRequest(), perception: perception)) { e in
            XCTAssertTrue("\(e)".contains("on top of one another"), "\(e)")
        }
        let root = ProcessInfo.processInfo.environment["MOLSHOT_CORPUS"].map { URL(fileURLWithPath: $0) } ?? corpus
        guard let manifest = try? String(contentsOf: root.appendingPathComponent("MANIFEST.tsv"), encoding: .utf8) else {
            throw XCTSkip("no shared corpus beside the checkout")
        }
        var most = (0.0, "")
        for line in manifest.split(separator: "\n").dropFirst() {
            let file = String(line.split(separator: "\t")[0])
            let structure = try StructureFile.load(path: root.appendingPathComponent(file).path)
            for zoom in ["1", "8"] {
                let request = try RenderRequest([("mode", "spacefill"), ("zoom", zoom), ("size", "256")])
                let molecule = try request.molecule(structure, source: file)
                let overdraw = try MoleculePicture(molecule, mode: .spacefill, request: request, perception: perception).sphereOverdraw(placed: true)
                if overdraw > most.0 { most = (overdraw, "\(file) zoom \(zoom)") }
            }
        }
        print("most overdraw in the corpus: \(most.0) (\(most.1))")
        XCTAssertLessThan(most.0, MoleculePicture.maxOverdraw / 10, most.1)
    }
}

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
}

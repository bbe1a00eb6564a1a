import Core
import Foundation
import Graphics
import Imaging
@testable import PathwayModel
@testable import Pathways
import XCTest

/// Tile pyramids are complete and join without seams; data overlays change the colors they should.
final class PathwayTilesAndOverlayTests: XCTestCase {
    typealias S = PathwayTestSupport
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("molshot-tiles-\(UUID().uuidString)")

    override func tearDown() { try? FileManager.default.removeItem(at: scratch) }

    func testEveryTileOfEveryLevelIsWrittenAndNeighboursJoinWithoutSeams() throws {
        let map = try PathwayFile.load(path: S.fixture("sbgn_glycolysis.sbgn"))
        var pyramid = TilePyramid(map: map, tileSize: 64, levels: 4)
        pyramid.blockTiles = 1  // every tile its own pass: seams would show
        let renderer = try S.renderer()
        try pyramid.write(map, to: scratch.path, renderer: renderer, theme: PathwayTheme(.standard))
        for z in 0..<4 {
            let (columns, rows) = pyramid.grid(level: z)
            XCTAssertEqual(columns, 1 << z, "the map is wider than tall: every column at level \(z)")
            XCTAssertLessThan(rows, max(2, 1 << z))
            for x in 0..<columns {
                for y in 0..<rows {
                    let tile = try PNGDecoder.read(scratch.appendingPathComponent("\(z)/\(x)/\(y).png").path)
                    XCTAssertEqual(tile.width, 64)
                }
            }
            XCTAssertFalse(FileManager.default.fileExists(atPath: scratch.appendingPathComponent("\(z)/\(columns)/0.png").path))
        }
        let info = try JSONSerialization.jsonObject(with: Data(contentsOf: scratch.appendingPathComponent("tiles.json"))) as? [String: Any]
        XCTAssertEqual(info?["levels"] as? Int, 4)
        // Level 3 stitched from its tiles is the picture drawn whole at the same scale and corner.
        let z = 3, (columns, rows) = pyramid.grid(level: z)
        let scale = pyramid.scale(level: z)
        let scene = try renderer.scene(map, scale: scale, theme: PathwayTheme(.standard))
        let whole = try renderer.draw(scene, corner: pyramid.bounds.min * scale, width: columns * 64, height: rows * 64,
                                      theme: PathwayTheme(.standard))
        var worst = 0, inked = 0, differing = 0
        for x in 0..<columns {
            for y in 0..<rows {
                let tile = try PNGDecoder.read(scratch.appendingPathComponent("\(z)/\(x)/\(y).png").path)
                for j in 0..<64 {
                    for i in 0..<64 {
                        let a = tile.pixel(i, j), b = whole.pixel(x * 64 + i, y * 64 + j)
                        let d = max(abs(Int(a.r) - Int(b.r)), abs(Int(a.g) - Int(b.g)), abs(Int(a.b) - Int(b.b)))
                        worst = max(worst, d)
                        if d > 8 { differing += 1 }
                        if a.r < 200 { inked += 1 }
                    }
                }
            }
        }
        // At most one of a pixel's 2x2 samples falls the other way where an edge lies exactly on a
        // sample (float rounding of a shifted viewport), and only in a few pixels.
        XCTAssertLessThanOrEqual(worst, 70, "tiles match the whole picture at their edges and inside")
        XCTAssertLessThan(differing, columns * rows * 64 * 64 / 500)
        XCTAssertGreaterThan(inked, 2000)
    }

    func testOverlaysColorTheReactionsAndMetabolitesTheyName() throws {
        let map = try S.map("""
            {"nodes": [{"id": "glc", "kind": "metabolite", "x": 50, "y": 100, "width": 40, "height": 40, "fill": "#FFFFFF", "label": ""},
                       {"id": "r1", "kind": "reaction", "x": 200, "y": 100, "width": 10, "height": 10, "label": ""},
                       {"id": "g6p", "kind": "metabolite", "x": 350, "y": 100, "width": 40, "height": 40, "fill": "#FFFFFF", "label": ""}],
             "edges": [{"from": "glc", "to": "r1", "kind": "substrate", "width": 6, "color": "#000000"},
                       {"from": "r1", "to": "g6p", "kind": "product", "width": 6, "color": "#000000"}]}
            """)
        let dir = scratch.path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try "reaction,flux\nR1,10\nother,-10\n".write(toFile: "\(dir)/flux.csv", atomically: true, encoding: .utf8)
        try #"{"glc": 0, "g6p": 5}"#.write(toFile: "\(dir)/conc.json", atomically: true, encoding: .utf8)
        let flux = try DataOverlay.load(path: "\(dir)/flux.csv", target: .reactions)
        let conc = try DataOverlay.load(path: "\(dir)/conc.json", target: .metabolites)
        XCTAssertEqual(flux.matches(in: map), 1)
        let shown = conc.applied(to: flux.applied(to: map))
        let image = try S.renderer().render(shown, view: MapView(origin: .zero, scale: 1), width: 400, height: 200, theme: PathwayTheme(.standard))
        // r1 has the largest flux: red edges; glc the smallest concentration: blue; g6p the largest: red.
        XCTAssertTrue(S.near(image, 125, 100, 0xB72920, tolerance: 50), "\(image.pixel(125, 100))")
        XCTAssertTrue(S.near(image, 50, 100, 0x4575B4, tolerance: 30), "\(image.pixel(50, 100))")
        XCTAssertTrue(S.near(image, 350, 100, 0xD73027, tolerance: 30), "\(image.pixel(350, 100))")
        let plain = try S.renderer().render(map, view: MapView(origin: .zero, scale: 1), width: 400, height: 200, theme: PathwayTheme(.standard))
        XCTAssertTrue(S.near(plain, 125, 100, 0x000000, tolerance: 50))
        // A legend in the corner.
        var legend = image
        try S.renderer().drawLegend([flux, conc], into: &legend, theme: PathwayTheme(.standard))
        var changed = 0
        for y in 0..<200 { for x in 0..<400 where legend.pixel(x, y) != image.pixel(x, y) { changed += 1; XCTAssertGreaterThan(x, 200) } }
        XCTAssertGreaterThan(changed, 2 * 150 * 10, "two color bars and their numbers")
        // A value that is not a number names its line.
        try "id,value\na,1\nb,lots\n".write(toFile: "\(dir)/bad.csv", atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try DataOverlay.load(path: "\(dir)/bad.csv", target: .reactions)) {
            XCTAssertEqual(($0 as? PathwayError)?.location, "line 3")
        }
    }
}

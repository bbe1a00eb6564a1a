import Core
import Foundation
import Graphics
import Imaging
@testable import PathwayModel
@testable import Pathways
import XCTest

/// Pixels of drawn maps: nodes where the map puts them, arrowheads pointing into their target,
/// curves through their control polygon, labels drawn or left out by size, every corpus map.
final class PathwayDrawingTests: XCTestCase {
    typealias S = PathwayTestSupport

    let twoNodes = """
        {"nodes": [
          {"id": "a", "kind": "gene-product", "x": 100, "y": 100, "width": 60, "height": 30, "shape": "rectangle", "fill": "#FF0000", "label": ""},
          {"id": "b", "kind": "metabolite", "x": 300, "y": 100, "width": 40, "height": 40, "fill": "#0000FF", "label": ""}],
         "edges": [{"from": "a", "to": "b", "kind": "product", "width": 4, "color": "#00AA00"}]}
        """

    func column(_ image: RGBAImage, x: Int, rgb: UInt32) -> Int {
        (0..<image.height).filter { S.near(image, x, $0, rgb, tolerance: 90) }.count
    }

    func testNodesLandOnTheirPixelsAndTheArrowPointsIntoTheTarget() throws {
        let map = try S.map(twoNodes)
        let image = try S.renderer().render(map, view: MapView(origin: .zero, scale: 1), width: 400, height: 200, theme: PathwayTheme(.standard))
        XCTAssertTrue(S.near(image, 100, 100, 0xFF0000), "\(image.pixel(100, 100))")
        XCTAssertTrue(S.near(image, 300, 100, 0x0000FF), "\(image.pixel(300, 100))")
        XCTAssertTrue(S.near(image, 10, 10, 0xFFFFFF))
        // The line leaves a's outline (x 130) and stops short of b's (x 280) in an arrowhead.
        XCTAssertTrue(S.near(image, 200, 100, 0x00AA00, tolerance: 60), "\(image.pixel(200, 100))")
        let line = column(image, x: 200, rgb: 0x00AA00), head = column(image, x: 266, rgb: 0x00AA00), tail = column(image, x: 140, rgb: 0x00AA00)
        XCTAssertEqual(line, 4, accuracy: 2)
        XCTAssertGreaterThan(head, line + 5, "the arrowhead is wider than the line at the target's end")
        XCTAssertEqual(tail, line, accuracy: 1, "no head at the source's end")
        XCTAssertEqual(column(image, x: 283, rgb: 0x00AA00), 0, "nothing drawn inside the target's outline")
    }

    func testTheViewMovesAndScalesTheMap() throws {
        let map = try S.map(twoNodes)
        // Scale 2 with the map point (50, 50) at the top left: a's center lands on (100, 100).
        let image = try S.renderer().render(map, view: MapView(origin: SIMD2(50, 50), scale: 2), width: 300, height: 200,
                                            theme: PathwayTheme(.standard))
        XCTAssertTrue(S.near(image, 100, 100, 0xFF0000))
        XCTAssertTrue(S.near(image, 100 + 54, 100, 0xFF0000), "60 units wide at scale 2 is 120 pixels")
        XCTAssertFalse(S.near(image, 100 + 64, 100, 0xFF0000))
    }

    func testABezierEdgeFollowsItsCurveNotItsChord() throws {
        let map = try S.map("""
            {"nodes": [{"id": "p", "x": 50, "y": 150, "width": 2, "height": 2, "shape": "none", "label": ""},
                       {"id": "q", "x": 350, "y": 150, "width": 2, "height": 2, "shape": "none", "label": ""}],
             "edges": [{"from": "p", "to": "q", "controls": [[150, 20], [250, 20]], "width": 3, "color": "#000000"}]}
            """)
        let image = try S.renderer().render(map, view: MapView(origin: .zero, scale: 1), width: 400, height: 200, theme: PathwayTheme(.standard))
        // B(0.5) = (200, 52.5); the chord's middle (200, 150) stays white.
        XCTAssertTrue(S.near(image, 200, 52, 0x000000, tolerance: 100), "\(image.pixel(200, 52))")
        XCTAssertTrue(S.near(image, 200, 150, 0xFFFFFF))
        // Inside the control polygon's hull: nothing above y = 20 + a line width.
        XCTAssertEqual(S.inked(image, x: 0..<400, y: 0..<18), 0)
        // And near B(0.25) = (125, 76.9) and B(0.75) = (275, 76.9).
        XCTAssertGreaterThan(S.inked(image, x: 123..<128, y: 74..<80), 0)
        XCTAssertGreaterThan(S.inked(image, x: 273..<278, y: 74..<80), 0)
    }

    func testLabelsAreDrawnWhenLegibleAndLeftOutWhenTooSmall() throws {
        let map = try S.map("""
            {"nodes": [{"id": "t", "kind": "label", "shape": "none", "x": 200, "y": 100, "label": "MOLSHOT", "fontSize": 24},
                       {"id": "u", "kind": "label", "shape": "none", "x": 0, "y": 0, "label": "", "width": 1, "height": 1},
                       {"id": "v", "kind": "label", "shape": "none", "x": 400, "y": 200, "label": "", "width": 1, "height": 1}]}
            """)
        let renderer = try S.renderer()
        let big = try renderer.render(map, view: MapView(origin: .zero, scale: 1), width: 400, height: 200, theme: PathwayTheme(.standard))
        XCTAssertGreaterThan(S.inked(big, x: 140..<260, y: 85..<115), 150, "the label's letters are there")
        XCTAssertEqual(S.inked(big, x: 0..<120, y: 0..<200), 0)
        // At a fifth of the size the letters would be under 6 pixels: left out, not smeared.
        let small = try renderer.render(map, view: MapView(origin: .zero, scale: 0.2), width: 80, height: 40, theme: PathwayTheme(.standard))
        XCTAssertEqual(S.inked(small, x: 0..<80, y: 0..<40), 0)
    }

    func testLabelsThatWouldCoverEachOtherAreMovedOrLeftOut() throws {
        var map = PathwayMap()
        for i in 0..<4 {
            map.nodes.append(PathwayMap.Node(id: "\(i)", kind: .metabolite, center: SIMD2(100, 100), size: .zero, shape: .none,
                                             label: "label \(i)", fontSize: 14))
        }
        let placed = try MapLabels(theme: PathwayTheme(.standard), fonts: FontCache()).place(map, scale: 1)
        XCTAssertGreaterThanOrEqual(placed.count, 2, "the second is moved up or down")
        for (i, a) in placed.enumerated() {
            for b in placed[(i + 1)...] {
                XCTAssertFalse(a.box.x < b.box.z && b.box.x < a.box.z && a.box.y < b.box.w && b.box.y < a.box.w, "\(a.box) covers \(b.box)")
            }
        }
    }

    func testTheDarkThemeAndARegion() throws {
        let map = try S.map(twoNodes)
        var request = PathwayRequest()
        request.region = "250,50,100,100"
        request.size = "200x200"
        request.theme = PathwayTheme(.dark)
        let (view, w, h) = try request.frame(for: map)
        XCTAssertEqual(view.scale, 2, accuracy: 1e-9)
        let image = try S.renderer().render(map, view: view, width: w, height: h, theme: request.theme)
        // b in the middle, its blue kept but darkened into the ground.
        let b = image.pixel(100, 100)
        XCTAssertTrue(Int(b.b) > Int(b.r) + 40 && b.b < 160, "b's center in the middle: \(b)")
        XCTAssertLessThan(Int(image.pixel(5, 5).r), 60, "a dark ground")
        request.region = "1,2,3"
        XCTAssertThrowsError(try request.frame(for: map)) { XCTAssertEqual(($0 as? RequestError)?.field, "region") }
    }

    func testTheWholeMapFitsAnyAspectRatio() throws {
        let map = try PathwayFile.load(path: S.fixture("sbgn_glycolysis.sbgn"))
        for size in ["600x600", "900x300", "300x900"] {
            var request = PathwayRequest()
            request.size = size
            let (view, w, h) = try request.frame(for: map)
            let b = map.bounds
            let lo = view.pixel(b.min), hi = view.pixel(b.max)
            XCTAssertGreaterThanOrEqual(lo.x, -0.5, size)
            XCTAssertGreaterThanOrEqual(lo.y, -0.5, size)
            XCTAssertLessThanOrEqual(hi.x, Double(w) + 0.5, size)
            XCTAssertLessThanOrEqual(hi.y, Double(h) + 0.5, size)
            XCTAssertTrue(abs(lo.x - (Double(w) - hi.x)) < 1 && abs(lo.y - (Double(h) - hi.y)) < 1, "centered at \(size)")
        }
    }

    func testEveryFixtureAndCorpusMapDraws() throws {
        var files = ["sbgn_glycolysis.sbgn", "kgml_ko03070.xml.gz", "escher_recon1_glycolysis_tca_ppp.json"].map(S.fixture)
        if let corpus = try? FileManager.default.contentsOfDirectory(atPath: S.corpus.path) {
            files += corpus.filter { !$0.hasSuffix(".tsv") }.sorted().map { S.corpus.appendingPathComponent($0).path }
        }
        let renderer = try S.renderer()
        for file in files {
            let map = try PathwayFile.load(path: file)
            var request = PathwayRequest()
            request.size = "800"
            let (view, w, h) = try request.frame(for: map)
            let image = try renderer.render(map, view: view, width: w, height: h, theme: request.theme)
            let inked = S.inked(image, x: 0..<w, y: 0..<h)
            XCTAssertGreaterThan(Double(inked) / Double(w * h), 0.01, file)
        }
    }

    /// A dashed outline far larger than any picture (a hostile file's box of 1e300) is cut into
    /// a bounded number of dashes: drawn at once, not walked dash by dash for ever.
    func testAHugeDashedOutlineIsDrawnInBoundedTime() throws {
        let json = #"{"nodes": [{"id": "a", "x": 0, "y": 0, "width": 1e300, "height": 1e300, "dashed": true, "label": "a"},"#
            + #" {"id": "b", "x": 10, "y": 10, "width": 40, "height": 20, "dashed": true}], "edges": []}"#
        let map = try PathwayFile.parse(Data(json.utf8), file: "huge.json")
        XCTAssertTrue(map.nodes.allSatisfy(\.dashed))
        var request = PathwayRequest()
        request.size = "200"
        let started = Date()
        _ = try PathwayPicture(map, request: request).draw(try S.renderer())
        XCTAssertLessThan(Date().timeIntervalSince(started), 30)
        var mesh = MapMesh(scale: 1)
        mesh.dashed([SIMD2(0, 0), SIMD2(1e300, 0)], width: 1, .black, dash: 4, gap: 3)
        mesh.dashed([SIMD2(0, 0), SIMD2(.infinity, 0)], width: 1, .black, dash: 4, gap: 3)
    }
}

import Core
import Foundation
import Gestures
import Graphics
import Imaging
import PathwayModel
import Pathways
import XCTest

/// Gestures on a pathway map: a tap selects the node under it (and is reported), fingers pan, a
/// pinch zooms about their midpoint, a double tap zooms in.
final class PathwayReplayTests: XCTestCase {
    let json = """
        {"nodes": [
          {"id": "a", "kind": "gene-product", "x": 100, "y": 100, "width": 60, "height": 30, "shape": "rectangle", "fill": "#FF0000", "label": "HK1"},
          {"id": "b", "kind": "metabolite", "x": 300, "y": 100, "width": 40, "height": 40, "fill": "#0000FF", "label": "glucose"},
          {"id": "c", "kind": "metabolite", "x": 300, "y": 300, "width": 40, "height": 40, "fill": "#00FF00", "label": "atp"}],
         "edges": [{"from": "a", "to": "b", "kind": "product", "width": 4, "color": "#000000"}]}
        """
    /// A replay of the map with its header read (closed at the test's end).
    func replay() throws -> (Replay<PathwayDriver>, PathwayDriver) {
        let map = try PathwayFile.parse(Data(json.utf8), file: "map.json")
        let r = Replay(map: map, source: "taps.jsonl", width: 400, height: 400, theme: PathwayTheme(.standard), fps: nil)
        addTeardownBlock { r.close() }
        try r.feed(#"{"type": "header", "version": 1, "viewport": {"width": 400, "height": 400}}"#, emit: { _, _ in })
        return (r, try XCTUnwrap(r.driver))
    }

    func touch(_ r: Replay<PathwayDriver>, _ phase: String, _ id: Int, _ p: SIMD2<Double>, t: Double, taps: Int = 0,
               tapped: (Tap) -> Void = { _ in }) throws {
        try r.feed(#"{"type": "touch", "t": \#(t), "phase": "\#(phase)", "id": \#(id), "x": \#(p.x), "y": \#(p.y), "tapCount": \#(taps)}"#,
                   emit: { _, _ in }, tapped: tapped)
    }

    func testATapSelectsTheNodeUnderItAndHighlightsIt() throws {
        let (r, d) = try replay()
        let b = d.view.pixel(SIMD2(300, 100))
        var found: [Tap] = []
        try touch(r, "began", 1, b, t: 0.1)
        try touch(r, "ended", 1, b + SIMD2(2, 1), t: 0.2, taps: 1) { found.append($0) }
        XCTAssertEqual(found.count, 1)
        XCTAssertEqual(found.first?.node?.id, "b")
        XCTAssertEqual(found.first?.node?.kind, "metabolite")
        XCTAssertEqual(d.selected, "b")
        var frames: [RGBAImage] = []
        try r.finish { frame, _ in frames.append(try frame.finished()) }
        // The selected node is ringed in the highlight color, and so is its neighbour a; c is not.
        let image = try XCTUnwrap(frames.last)
        func orange(near p: SIMD2<Double>, radius: Int) -> Int {
            var n = 0
            for dy in -radius...radius { for dx in -radius...radius {
                let x = Int(p.x) + dx, y = Int(p.y) + dy
                guard x >= 0, y >= 0, x < image.width, y < image.height else { continue }
                let q = image.pixel(x, y)
                if q.r > 200 && q.g > 100 && q.g < 180 && q.b < 80 { n += 1 }
            } }
            return n
        }
        XCTAssertGreaterThan(orange(near: b, radius: Int(25 * d.view.scale)), 10)
        XCTAssertGreaterThan(orange(near: d.view.pixel(SIMD2(100, 100)), radius: Int(35 * d.view.scale)), 10)
        XCTAssertEqual(orange(near: d.view.pixel(SIMD2(300, 300)), radius: Int(25 * d.view.scale)), 0)
        // A tap on empty map clears the selection.
        let (empty, _) = try replay()
        var none: [Tap] = []
        try touch(empty, "began", 1, SIMD2(5, 395), t: 0.1)
        try touch(empty, "ended", 1, SIMD2(5, 395), t: 0.2, taps: 1) { none.append($0) }
        XCTAssertEqual(none.count, 1)
        XCTAssertNil(none.first?.node)
    }

    func testFingersPanPinchZoomsAboutTheirMidpointDoubleTapZoomsIn() throws {
        let (r, d) = try replay()
        let start = d.view
        try touch(r, "began", 1, SIMD2(200, 200), t: 0)
        for k in 1...5 { try touch(r, "moved", 1, SIMD2(200 + 10 * Double(k), 200), t: 0.1 * Double(k)) }
        try touch(r, "ended", 1, SIMD2(250, 200), t: 0.6)
        let p = SIMD2(300.0, 100.0)
        XCTAssertEqual(d.view.pixel(p).x - start.pixel(p).x, 50, accuracy: 0.5, "the map follows the finger")
        XCTAssertEqual(d.view.scale, start.scale, accuracy: 1e-12)
        // Two fingers apart about (100, 100): the map point there stays put, the scale grows.
        let before = d.view.point(atPixel: SIMD2(100, 100))
        try touch(r, "began", 1, SIMD2(80, 100), t: 1)
        try touch(r, "began", 2, SIMD2(120, 100), t: 1)
        for k in 1...5 {
            try touch(r, "moved", 1, SIMD2(80 - 8 * Double(k), 100), t: 1 + 0.1 * Double(k))
            try touch(r, "moved", 2, SIMD2(120 + 8 * Double(k), 100), t: 1 + 0.1 * Double(k))
        }
        try touch(r, "ended", 1, SIMD2(40, 100), t: 2)
        try touch(r, "ended", 2, SIMD2(160, 100), t: 2)
        XCTAssertGreaterThan(d.view.scale, start.scale * 2)
        let after = d.view.point(atPixel: SIMD2(100, 100))
        XCTAssertLessThan(((after - before) * (after - before)).sum().squareRoot() * d.view.scale, 3)
        let zoomed = d.view.scale
        try touch(r, "began", 1, SIMD2(300, 300), t: 3)
        try touch(r, "ended", 1, SIMD2(300, 300), t: 3.05, taps: 1)
        try touch(r, "began", 1, SIMD2(300, 300), t: 3.2)
        try touch(r, "ended", 1, SIMD2(300, 300), t: 3.25, taps: 2)
        XCTAssertEqual(d.view.scale, zoomed * 2, accuracy: 1e-9)
    }
}

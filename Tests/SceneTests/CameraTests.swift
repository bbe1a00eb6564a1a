import Scene
import XCTest

/// The camera is plain math: these need no GL.
final class CameraTests: XCTestCase {
    func testTheFittedSphereFitsTheShorterSide() {
        let camera = Camera(center: SIMD3(1, 2, 3), radius: 10)
        let c = camera.project(SIMD3(1, 2, 3), width: 200, height: 100)
        XCTAssertEqual(c.x, 100, accuracy: 1e-3)
        XCTAssertEqual(c.y, 50, accuracy: 1e-3)
        // The sphere's top touches the top less the margin, at any aspect ratio.
        let top = camera.project(SIMD3(1, 12, 3), width: 200, height: 100)
        XCTAssertEqual(top.y, 50 - 50 / (1 + camera.margin), accuracy: 1e-2)
        let tall = camera.project(SIMD3(11, 2, 3), width: 100, height: 300)
        XCTAssertEqual(tall.x, 50 + 50 / (1 + camera.margin), accuracy: 1e-2)
    }

    func testZoomScalesAboutTheCenterAndPanShiftsByPixels() {
        var camera = Camera(center: .zero, radius: 5)
        let before = camera.project(SIMD3(2, 1, 0), width: 128, height: 128)
        camera.zoom = 2
        let zoomed = camera.project(SIMD3(2, 1, 0), width: 128, height: 128)
        XCTAssertEqual(zoomed.x - 64, 2 * (before.x - 64), accuracy: 1e-3)
        XCTAssertEqual(zoomed.y - 64, 2 * (before.y - 64), accuracy: 1e-3)
        camera.pan = SIMD2(10, -4)
        let panned = camera.project(SIMD3(2, 1, 0), width: 128, height: 128)
        XCTAssertEqual(panned.x - zoomed.x, 10, accuracy: 1e-3)
        XCTAssertEqual(panned.y - zoomed.y, -4, accuracy: 1e-3)
    }

    func testRotationsTurnAboutTheScreenAxes() {
        var camera = Camera(center: .zero, radius: 5)
        camera.rotate(degreesX: 0, degreesY: 90, degreesZ: 0)
        // +x turned 90 degrees about the vertical axis points toward -z: it lands on the center.
        let p = camera.project(SIMD3(3, 0, 0), width: 100, height: 100)
        XCTAssertEqual(p.x, 50, accuracy: 1e-3)
        camera = Camera(center: .zero, radius: 5)
        camera.rotate(degreesX: 0, degreesY: 0, degreesZ: 90)
        // About the view axis, counterclockwise: +x goes up the screen.
        let q = camera.project(SIMD3(3, 0, 0), width: 100, height: 100)
        XCTAssertEqual(q.x, 50, accuracy: 1e-3)
        XCTAssertLessThan(q.y, 50)
    }

    func testPerspectiveKeepsTheCenterAndShrinksFarPoints() {
        var camera = Camera(center: .zero, radius: 5)
        camera.projection = .perspective(fieldOfView: 30)
        XCTAssertFalse(camera.isOrthographic)
        let near = camera.project(SIMD3(2, 0, 3), width: 100, height: 100)
        let far = camera.project(SIMD3(2, 0, -3), width: 100, height: 100)
        XCTAssertGreaterThan(near.x - 50, far.x - 50)
        XCTAssertEqual(camera.project(.zero, width: 100, height: 100).x, 50, accuracy: 1e-3)
    }
}

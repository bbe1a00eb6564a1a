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

final class TurningCameraTests: XCTestCase {
    /// Two spheres far apart along z: turned 90 degrees about y they span the screen's width.
    func testATurnIsFittedOnceForEveryFrame() {
        let spheres: [Float] = [0, 0, -10, 1, 0, 0, 10, 1, 2, 0, 0, 1]
        let start = Camera.fitted(spheres: spheres, rotation: .identity)
        let cameras = start.turning([0, 45, 90, 135], axis: 1, spheres: spheres)
        XCTAssertEqual(cameras.count, 4)
        // One scale for all: the widest reach (11 world units across at 90 degrees), not frame 0's 2.
        for c in cameras {
            XCTAssertEqual(c.fit, cameras[0].fit)
            XCTAssertEqual(c.center, start.center)
        }
        XCTAssertEqual(cameras[0].fit!.x, 11, accuracy: 0.01)
        XCTAssertEqual(cameras[0].fit!.y, 1, accuracy: 0.01)
        // Every sphere stays in the picture in every frame.
        for c in cameras {
            for i in 0..<3 {
                let p = c.project(SIMD3(spheres[4 * i], spheres[4 * i + 1], spheres[4 * i + 2]), width: 200, height: 100)
                XCTAssertTrue((0...200).contains(p.x) && (0...100).contains(p.y), "\(p)")
            }
        }
        // Frame 2 is frame 0 turned 90 degrees about the screen's y axis.
        var turned = start
        turned.rotate(degreesX: 0, degreesY: 90, degreesZ: 0)
        XCTAssertEqual(cameras[2].rotation, turned.rotation)
        // Without spheres (a focused view) the fit stays.
        XCTAssertEqual(start.turning([0, 90], axis: 1, spheres: nil)[1].fit, start.fit)
    }
}

import Gestures
import XCTest

/// Recorded-style touch sequences: fingers land and lift at different times and jitter.
final class TouchRecognizerTests: XCTestCase {
    var recognizer = TouchRecognizer()
    var commands: [CameraCommand] = []

    func touch(_ phase: GestureEvent.Phase, _ id: Int, _ x: Double, _ y: Double, at t: Double, taps: Int = 0) {
        commands += recognizer.touch(phase, id: id, at: SIMD2(x, y), tapCount: taps, time: t)
    }

    func finish() { commands += recognizer.flush() }

    func testOneFingerRotatesByThePointsMoved() {
        touch(.began, 1, 100, 100, at: 0)
        touch(.moved, 1, 110, 95, at: 0.1)
        touch(.moved, 1, 130, 95, at: 0.2)
        touch(.ended, 1, 130, 95, at: 0.3)
        XCTAssertEqual(commands, [.rotate(dx: 10, dy: -5), .rotate(dx: 20, dy: 0)])
    }

    func testTwoFingersMovingTogetherPanByTheirAverage() {
        touch(.began, 1, 100, 100, at: 0)
        touch(.began, 2, 200, 100, at: 0.01)
        touch(.moved, 1, 110, 120, at: 0.1)
        touch(.moved, 2, 212, 118, at: 0.1)
        touch(.moved, 1, 120, 140, at: 0.2)
        touch(.moved, 2, 222, 138, at: 0.2)
        finish()
        XCTAssertEqual(commands, [.pan(dx: 11, dy: 19), .pan(dx: 10, dy: 20)])
    }

    func testFingersSpreadingPinchByTheRatioOfDistances() {
        touch(.began, 1, 100, 100, at: 0)
        touch(.began, 2, 200, 100, at: 0.02)
        touch(.moved, 1, 90, 100, at: 0.1)
        touch(.moved, 2, 210, 100, at: 0.1)
        finish()
        XCTAssertEqual(commands, [.pinch(scale: 1.2)])
    }

    func testAPanStaysAPanUntilAFingerLiftsThenPinchIsPossible() {
        touch(.began, 1, 100, 100, at: 0)
        touch(.began, 2, 200, 100, at: 0)
        touch(.moved, 1, 100, 110, at: 0.1)
        touch(.moved, 2, 200, 110, at: 0.1)
        // The fingers now spread, but the gesture is locked as a pan.
        touch(.moved, 1, 90, 120, at: 0.2)
        touch(.moved, 2, 210, 120, at: 0.2)
        finish()
        XCTAssertEqual(commands, [.pan(dx: 0, dy: 10), .pan(dx: 0, dy: 10)])
        commands = []
        touch(.ended, 2, 210, 120, at: 0.3)
        touch(.began, 2, 210, 120, at: 0.4)
        touch(.moved, 1, 80, 120, at: 0.5)
        touch(.moved, 2, 220, 120, at: 0.5)
        finish()
        XCTAssertEqual(commands.count, 1)
        guard case .pinch(let scale) = commands[0] else { return XCTFail("\(commands)") }
        XCTAssertEqual(scale, 140.0 / 120.0, accuracy: 1e-12)
    }

    func testASecondFingerDuringARotationAndOneLiftingNeverJump() {
        touch(.began, 1, 100, 100, at: 0)
        touch(.moved, 1, 105, 100, at: 0.1)
        // A second finger lands far away: no rotation toward it, no pan, no pinch yet.
        touch(.began, 2, 300, 400, at: 0.15)
        touch(.moved, 1, 106, 100, at: 0.2)
        finish()
        XCTAssertEqual(commands, [.rotate(dx: 5, dy: 0)], "a one-point jitter decides nothing")
        // One of the two lifts; the other goes on rotating from where it is.
        touch(.ended, 1, 106, 100, at: 0.3)
        touch(.moved, 2, 303, 401, at: 0.4)
        touch(.ended, 2, 303, 401, at: 0.5)
        XCTAssertEqual(commands, [.rotate(dx: 5, dy: 0), .rotate(dx: 3, dy: 1)])
    }

    func testTwistAboutTheViewAxis() {
        touch(.began, 1, 100, 100, at: 0)
        touch(.began, 2, 200, 100, at: 0)
        // Finger 2 swings up on the screen (y down): counterclockwise as seen.
        touch(.moved, 2, 200, 90, at: 0.1)
        finish()
        XCTAssertEqual(commands.count, 2)
        guard case .twist(let radians) = commands[1] else { return XCTFail("\(commands)") }
        XCTAssertEqual(radians, atan2(10.0, 100.0), accuracy: 1e-12)
    }

    func testDoubleTapAsksForTheNextMode() {
        touch(.began, 1, 50, 50, at: 0)
        touch(.ended, 1, 50, 50, at: 0.05, taps: 1)
        touch(.began, 1, 50, 50, at: 0.2)
        touch(.ended, 1, 50, 50, at: 0.25, taps: 2)
        XCTAssertEqual(commands, [.nextMode])
    }
}

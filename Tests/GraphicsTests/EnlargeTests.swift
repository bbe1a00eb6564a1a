import Imaging
import XCTest

/// `RGBAImage.enlarged`, what a live frame drawn at less detail is shown through.
final class EnlargeTests: XCTestCase {
    func testEnlargingKeepsCornersAndBlendsBetweenInPremultipliedAlpha() {
        // Red and blue on the top row, green and transparent below.
        let small = RGBAImage(width: 2, height: 2, pixels: [255, 0, 0, 255, 0, 0, 255, 255, 0, 255, 0, 255, 0, 0, 0, 0])
        let big = small.enlarged(width: 4, height: 4)
        XCTAssertEqual(big.width, 4)
        XCTAssertEqual(big.height, 4)
        XCTAssertTrue(big.pixel(0, 0) == (255, 0, 0, 255), "corners keep their colour")
        XCTAssertTrue(big.pixel(3, 0) == (0, 0, 255, 255))
        XCTAssertTrue(big.pixel(0, 3) == (0, 255, 0, 255))
        XCTAssertTrue(big.pixel(3, 3) == (0, 0, 0, 0))
        // Between red and blue: a quarter of the way, three parts red to one blue.
        let p = big.pixel(1, 0)
        XCTAssertEqual(Int(p.0), 191, accuracy: 1)
        XCTAssertEqual(Int(p.2), 64, accuracy: 1)
        // Next to the transparent pixel, green stays green (a transparent black does not darken it), only fainter.
        let q = big.pixel(1, 3)
        XCTAssertEqual(q.1, 255)
        XCTAssertEqual(Int(q.3), 191, accuracy: 1)
        // A size no larger is left as it is.
        XCTAssertTrue(small.enlarged(width: 2, height: 2) == small)
    }
}

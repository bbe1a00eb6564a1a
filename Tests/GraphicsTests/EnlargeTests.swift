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

    /// Opaque pictures (a live frame over its background) take the integer paths: twice the size,
    /// and any other factor; the same blend as the general one, to a level.
    func testOpaquePicturesEnlargeAsTheGeneralBlendDoes() {
        let small = RGBAImage(width: 2, height: 2, pixels: [255, 0, 0, 255, 0, 0, 255, 255, 0, 255, 0, 255, 255, 255, 255, 255])
        // The general path's answer: the same picture with one alpha a hair under opaque.
        var nearly = small
        nearly.pixels[3] = 254
        for (w, h) in [(4, 4), (6, 6), (5, 3)] {
            let big = small.enlarged(width: w, height: h), general = nearly.enlarged(width: w, height: h)
            XCTAssertEqual(big.width, w)
            XCTAssertTrue(big.pixel(0, 0) == (255, 0, 0, 255), "corners keep their colour (\(w)x\(h))")
            XCTAssertTrue(big.pixel(w - 1, h - 1) == (255, 255, 255, 255))
            for y in 0..<h {
                for x in 0..<w {
                    let p = big.pixel(x, y), q = general.pixel(x, y)
                    XCTAssertEqual(p.3, 255)
                    for (a, b) in [(p.0, q.0), (p.1, q.1), (p.2, q.2)] {
                        XCTAssertEqual(Int(a), Int(b), accuracy: 2, "(\(x), \(y)) of \(w)x\(h)")
                    }
                }
            }
        }
        // Twice the size: a quarter of the way from red to blue.
        let p = small.enlarged(width: 4, height: 4).pixel(1, 0)
        XCTAssertEqual(Int(p.0), 191, accuracy: 1)
        XCTAssertEqual(Int(p.2), 64, accuracy: 1)
    }
}

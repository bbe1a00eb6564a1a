import Graphics
import Imaging
import Text
import XCTest

/// Labels are set once as stamps (letters and their halo as one premultiplied layer) and laid over
/// pictures with one blend a pixel.
final class TextStampTests: XCTestCase {
    private func pixel(_ image: RGBAImage, _ x: Int, _ y: Int) -> [UInt8] {
        let i = (y * image.width + x) * 4
        return Array(image.pixels[i..<i + 4])
    }

    func testLettersInTheirColorWithAHaloBetweenThemAndALine() throws {
        let font = try Font.standard(pixelSize: 24)
        var image = RGBAImage(width: 120, height: 40, fill: (255, 255, 255, 255))
        // A black line through the middle of where the text goes.
        for x in 0..<120 { for y in 18...21 { image.pixels.replaceSubrange((y * 120 + x) * 4..<(y * 120 + x) * 4 + 3, with: [0, 0, 0]) } }
        font.draw("HIH", into: &image, x: 10, baseline: 30, color: 0xFF0000, halo: 0xFFFFFF)
        var red = 0, whiteOnLine = 0
        for x in 0..<120 {
            for y in 0..<40 {
                let p = pixel(image, x, y)
                if p[0] > 240 && p[1] < 20 && p[2] < 20 { red += 1 }
                if (18...21).contains(y) && p[0] > 200 && p[1] > 200 && p[2] > 200 { whiteOnLine += 1 }
            }
        }
        XCTAssertGreaterThan(red, 60, "the letters are drawn in their color")
        XCTAssertGreaterThan(whiteOnLine, 6, "the halo clears the line beside the letters")
        XCTAssertEqual(pixel(image, 110, 20), [0, 0, 0, 255], "the line goes on past the text")
        XCTAssertEqual(pixel(image, 110, 5), [255, 255, 255, 255])
    }

    func testAStampDrawsTheSameAnywhereAndClipsAtTheEdges() throws {
        let stamp = try Font.standard(pixelSize: 18).stamp("atp_c", color: 0x334E75, halo: 0xFFFFFF)
        XCTAssertGreaterThan(stamp.width, 30)
        var whole = RGBAImage(width: 200, height: 60, fill: (200, 220, 240, 255))
        stamp.draw(into: &whole, x: 100, baseline: 40)
        var clipped = RGBAImage(width: 200, height: 60, fill: (200, 220, 240, 255))
        stamp.draw(into: &clipped, x: -20, baseline: 10)  // off the left and the top
        stamp.draw(into: &clipped, x: 190, baseline: 70)  // off the right and the bottom
        stamp.draw(into: &clipped, x: 5000, baseline: -5000)  // nowhere
        for y in 0..<60 {
            for x in 0..<200 {
                // Where the clipped stamp's visible part lies, it matches the whole stamp shifted.
                let (sx, sy) = (x + 120, y + 30)
                if x < 80 && y < 30, sx < 200, sy < 60 {
                    XCTAssertEqual(pixel(clipped, x, y), pixel(whole, sx, sy), "\(x),\(y)")
                }
            }
        }
    }

    func testOverATransparentPictureTheTextBringsItsOwnAlpha() throws {
        var image = RGBAImage(width: 80, height: 30)
        try Font.standard(pixelSize: 20).draw("Pi", into: &image, x: 4, baseline: 22, color: 0x000000)
        let alphas = stride(from: 3, to: image.pixels.count, by: 4).map { image.pixels[$0] }
        XCTAssertEqual(alphas.max(), 255)
        XCTAssertEqual(alphas.filter { $0 == 0 }.count > 1000, true, "around the letters it stays transparent")
    }
}

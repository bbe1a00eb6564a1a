import Foundation
import Graphics
import XCTest

final class PNGTests: XCTestCase {
    func testOpaquePicturesAreWrittenAsRGBAndReadBackTheSame() throws {
        var opaque = RGBAImage(width: 37, height: 21, fill: (250, 250, 250, 255))
        for i in stride(from: 0, to: opaque.pixels.count, by: 44) { opaque.pixels[i] = UInt8(i % 251) }
        var clear = opaque
        clear.pixels[3] = 0
        clear.pixels[0] = 0; clear.pixels[1] = 0; clear.pixels[2] = 0
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("molshot-png-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var keepAlpha = PNGEncoder.fast
        keepAlpha.dropsOpaqueAlpha = false
        for (name, image, encoder, colorType) in [("rgb", opaque, PNGEncoder.fast, 2), ("rgba", clear, PNGEncoder.fast, 6),
                                                  ("kept", opaque, keepAlpha, 6)] {
            let bytes = try encoder.encode(image)
            XCTAssertEqual(Int(bytes[25]), colorType, "\(name): IHDR color type")
            let path = dir.appendingPathComponent("\(name).png").path
            try encoder.write(image, to: path)
            XCTAssertTrue(try PNGDecoder.read(path) == image, "\(name) reads back pixel for pixel")
        }
    }
}

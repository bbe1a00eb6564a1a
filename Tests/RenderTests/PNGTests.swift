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

    /// Pictures large enough to be deflated in strips on several threads read back the same with
    /// every filter, RGB and RGBA, and the strips join into one valid zlib stream.
    func testLargePicturesEncodedInStripsReadBackTheSame() throws {
        var image = RGBAImage(width: 701, height: 433, fill: (255, 255, 255, 255))
        var seed: UInt32 = 12345
        for i in 0..<image.pixels.count where i % 4 != 3 {
            seed = seed &* 1_103_515_245 &+ 12345
            // Smooth gradients with noise: every filter has something to choose between.
            image.pixels[i] = UInt8(truncatingIfNeeded: (i / 4 % 701) / 3 + (i / 4 / 701) / 2 + Int(seed >> 28))
        }
        var clear = image
        for i in stride(from: 3, to: clear.pixels.count, by: 36) { clear.pixels[i] = UInt8(i % 256) }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("molshot-png-strips-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        for filter in [PNGEncoder.Filter.none, .sub, .up, .adaptive] {
            for level in [0, 1, 9] {
                for (name, picture) in [("rgb", image), ("rgba", clear)] {
                    let path = dir.appendingPathComponent("\(name)-\(level).png").path
                    try PNGEncoder(level: level, filter: filter).write(picture, to: path)
                    XCTAssertTrue(try PNGDecoder.read(path) == picture, "\(name), \(filter), level \(level) reads back pixel for pixel")
                }
            }
        }
    }
}

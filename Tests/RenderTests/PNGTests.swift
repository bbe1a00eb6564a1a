import Foundation
import Graphics
import Imaging
import TestSupport
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
                for deflate in [PNGEncoder.Deflate.zlib, .runsAndRows] {
                    for (name, picture) in [("rgb", image), ("rgba", clear)] {
                        let path = dir.appendingPathComponent("\(name)-\(level).png").path
                        try PNGEncoder(level: level, filter: filter, deflate: deflate).write(picture, to: path)
                        XCTAssertTrue(try PNGDecoder.read(path) == picture,
                                      "\(name), \(filter), level \(level), \(deflate) reads back pixel for pixel")
                    }
                }
            }
        }
    }

    /// Pictures that exercise each kind of match: noise (literals only), flat runs, rows like the
    /// ones above, gradients, a few specks on white, and sizes down to one pixel.
    private func pictures() -> [RGBAImage] {
        var generator = SystemRandomNumberGenerator()
        var out: [RGBAImage] = []
        for (w, h, kind) in [(1, 1, 0), (2, 3, 1), (7, 5, 2), (300, 200, 0), (640, 120, 1), (513, 77, 2), (256, 256, 3), (1999, 40, 3)] {
            var image = RGBAImage(width: w, height: h)
            for y in 0..<h {
                for x in 0..<w {
                    let i = (y * w + x) * 4
                    let rgba: [UInt8]
                    switch kind {
                    case 0: rgba = (0..<4).map { _ in UInt8.random(in: 0...255, using: &generator) }
                    case 1: rgba = (x / 13 + y / 7) % 2 == 0 ? [255, 255, 255, 255] : [51, 78, 117, 255]
                    case 2: rgba = [UInt8(x & 255), UInt8(y & 255), UInt8((x * y) >> 4 & 255), UInt8(128 + (x & 127))]
                    default: rgba = Int.random(in: 0..<40, using: &generator) == 0 ? [224, 134, 91, 255] : [255, 255, 255, 255]
                    }
                    image.pixels.replaceSubrange(i..<i + 4, with: rgba)
                }
            }
            out.append(image)
        }
        return out
    }

    /// Every encoder, zlib's and the deflate of runs and rows, on every kind of picture: read back
    /// through libpng, and through a zlib of another make (Python's), whose checks of the stream's
    /// Adler-32 and the chunks' CRCs are its own.
    func testEveryKindOfPictureReadsBackTheSameThroughLibpngAndPythonsZlib() throws {
        let encoders: [PNGEncoder] = [.fast, .flat, .small, PNGEncoder(level: 0, filter: .sub),
                                      PNGEncoder(level: 1, filter: .up, deflate: .runsAndRows),
                                      PNGEncoder(level: 1, filter: .sub, deflate: .runsAndRows)]
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("molshot-png-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var written: [String] = []
        for (k, image) in pictures().enumerated() {
            for (e, encoder) in encoders.enumerated() {
                let path = folder.appendingPathComponent("\(k)-\(e).png").path
                try encoder.write(image, to: path)
                let back = try PNGDecoder.read(path)
                XCTAssertEqual(back.width, image.width)
                XCTAssertEqual(back.height, image.height)
                XCTAssertTrue(back.pixels == image.pixels, "picture \(k) (\(image.width)x\(image.height)) through encoder \(e)")
                written.append(path)
            }
        }
        // Python's zlib checks every stream's Adler-32 and the chunks' CRCs in its own code.
        let script = """
        import struct, sys, zlib
        for path in sys.argv[1:]:
            d = open(path, 'rb').read(); pos = 8; idat = b''
            while pos < len(d):
                n, = struct.unpack('>I', d[pos:pos + 4]); kind = d[pos + 4:pos + 8]; body = d[pos + 8:pos + 8 + n]
                assert zlib.crc32(kind + body) == struct.unpack('>I', d[pos + 8 + n:pos + 12 + n])[0], path
                if kind == b'IDAT': idat += body
                pos += 12 + n
            zlib.decompress(idat)
        print('ok', len(sys.argv) - 1)
        """
        let checked = try Python.run(script, written)
        XCTAssertEqual(checked.status, 0)
        XCTAssertEqual(checked.output, "ok \(written.count)\n")
    }

    func testFlatPicturesComeOutSmallWithTheDeflateOfRunsAndRows() throws {
        // A map-like picture: white with lines. The runs-and-rows deflate trades size for speed: within
        // twice the general deflate's size (zlib, and libdeflate for the last strip, which finds the
        // long repeats this picture is made of: 5.3 KB, where zlib alone gave over 7.6), and under a
        // hundredth of the raw pixels.
        var image = RGBAImage(width: 800, height: 600, fill: (255, 255, 255, 255))
        for y in stride(from: 20, to: 600, by: 45) { for x in 0..<800 { image.pixels.replaceSubrange((y * 800 + x) * 4..<(y * 800 + x) * 4 + 3, with: [51, 78, 117]) } }
        let ours = try PNGEncoder.flat.encode(image).count
        let general = try PNGEncoder(level: 1, filter: .none).encode(image).count
        XCTAssertLessThan(Double(ours), Double(general) * 2, "\(ours) bytes against the general deflate's \(general)")
        XCTAssertLessThan(ours, 800 * 600 * 3 / 100)
    }

    /// The same picture encodes to the same bytes whatever the stack held before: ISA-L's init
    /// leaves fields unset (the window's size among them), and before its state was zeroed a
    /// stack of small old words (12 here) gave other bytes for the same pixels.
    func testTheSamePictureEncodesToTheSameBytesWhateverTheStackHeld() throws {
        var image = RGBAImage(width: 301, height: 203, fill: (255, 255, 255, 255))
        for i in 0..<image.pixels.count where i % 4 != 3 { image.pixels[i] = UInt8(truncatingIfNeeded: (i / 4 % 301) / 5 + (i / 4 / 301) / 7) }
        let clean = try PNGEncoder.fast.encode(image)
        // Small 16-bit words: where one lands on the window's size it is a short window (9 bits
        // here gave a stream twelve times the size); 0xFFFF stands for the default.
        for fill: UInt16 in [9, 12, 0xFFFF] {
            Self.scribble(fill, depth: 512)
            let again = try PNGEncoder.fast.encode(image)
            XCTAssertTrue(again == clean, "encoded after a stack of \(fill): \(again.count) bytes, \(clean.count) on a clean stack")
        }
    }

    /// Leaves `fill` in the stack below this frame, half a kilobyte a level (a tuple, which lives
    /// in the frame in every build, where a temporary allocation may go to the heap).
    @inline(never) static func scribble(_ fill: UInt16, depth: Int) {
        var block: (SIMD32<UInt16>, SIMD32<UInt16>, SIMD32<UInt16>, SIMD32<UInt16>, SIMD32<UInt16>, SIMD32<UInt16>, SIMD32<UInt16>, SIMD32<UInt16>)
        let row = SIMD32<UInt16>(repeating: fill)
        block = (row, row, row, row, row, row, row, row)
        withUnsafeMutableBytes(of: &block) { blackHole($0.baseAddress) }
        if depth > 0 { scribble(fill, depth: depth - 1) }
    }

    @inline(never) static func blackHole(_ pointer: UnsafeMutableRawPointer?) { _ = pointer }
}

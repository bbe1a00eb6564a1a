import Foundation
import Graphics
@testable import Imaging
import MoleculeView
import Structure
import XCTest

final class EdgeSmoothingTests: XCTestCase {
    /// A disk of radius `r` about (cx, cy) over transparency: hard-edged (a pixel is in when its
    /// center is), or with each pixel's exact covered fraction as its alpha (16 x 16 samples).
    func disk(size: Int, cx: Float, cy: Float, r: Float, exact: Bool) -> RGBAImage {
        var image = RGBAImage(width: size, height: size)
        for y in 0..<size {
            for x in 0..<size {
                var inside: Float = 0
                if exact {
                    for sy in 0..<16 {
                        for sx in 0..<16 {
                            let dx = Float(x) + (Float(sx) + 0.5) / 16 - cx, dy = Float(y) + (Float(sy) + 0.5) / 16 - cy
                            if dx * dx + dy * dy <= r * r { inside += 1 / 256 }
                        }
                    }
                } else {
                    let dx = Float(x) + 0.5 - cx, dy = Float(y) + 0.5 - cy
                    inside = dx * dx + dy * dy <= r * r ? 1 : 0
                }
                let i = (y * size + x) * 4
                image.pixels[i] = 200; image.pixels[i + 1] = 60; image.pixels[i + 2] = 40
                image.pixels[i + 3] = UInt8((inside * 255).rounded())
                if inside == 0 { image.pixels[i] = 0; image.pixels[i + 1] = 0; image.pixels[i + 2] = 0 }
            }
        }
        return image
    }

    func alphaError(_ a: RGBAImage, _ b: RGBAImage) -> Float {
        var sum: Float = 0
        for i in stride(from: 3, to: a.pixels.count, by: 4) { sum += abs(Float(a.pixels[i]) - Float(b.pixels[i])) / 255 }
        return sum
    }

    func testSmoothingBringsAHardDiskCloseToItsExactCoverage() {
        let hard = disk(size: 64, cx: 31.3, cy: 32.6, r: 19.4, exact: false)
        let exact = disk(size: 64, cx: 31.3, cy: 32.6, r: 19.4, exact: true)
        let smoothed = EdgeSmoothing.smoothed(hard)
        let before = alphaError(hard, exact), after = alphaError(smoothed, exact)
        XCTAssertLessThan(after, before * 0.6, "edge pixels move toward their covered fraction (\(before) -> \(after))")
        // The area stays that of the disk.
        let area = smoothed.pixels.enumerated().filter { $0.offset % 4 == 3 }.reduce(Float(0)) { $0 + Float($1.element) / 255 }
        XCTAssertEqual(area, .pi * 19.4 * 19.4, accuracy: .pi * 19.4 * 19.4 * 0.02)
        // Inside and far outside nothing changes; colors at the edge are the disk's, not darkened.
        XCTAssertTrue(smoothed.pixel(31, 32) == hard.pixel(31, 32))
        XCTAssertTrue(smoothed.pixel(2, 2) == hard.pixel(2, 2))
        for i in stride(from: 0, to: smoothed.pixels.count, by: 4) where smoothed.pixels[i + 3] > 0 {
            XCTAssertEqual(smoothed.pixels[i], 200, "straight color of a partly covered pixel")
        }
    }

    func testAFlatOrSmoothPictureIsLeftAlone() {
        var gradient = RGBAImage(width: 40, height: 30, fill: (255, 255, 255, 255))
        for y in 0..<30 {
            for x in 0..<40 {
                let i = (y * 40 + x) * 4
                gradient.pixels[i] = UInt8(60 + x * 2); gradient.pixels[i + 1] = UInt8(80 + y)
            }
        }
        XCTAssertTrue(EdgeSmoothing.smoothed(gradient) == gradient)
    }

    func testRenderedEdgesComeCloseToSupersampling() throws {
        let p = try Rendering.prepared(try Rendering.structure(xyz: ["C 0 0 0"]), .spacefill)
        var style = RenderStyle.transparent
        style.antialias = 0
        let hard = try Rendering.draw(p, style: style)
        style.antialias = 1
        let smooth = try Rendering.draw(p, style: style)
        style.antialias = 4
        let reference = try Rendering.draw(p, style: style)
        let before = alphaError(hard, reference), after = alphaError(smooth, reference)
        XCTAssertGreaterThan(before, 20, "a hard edge differs from the supersampled one")
        XCTAssertLessThan(after, before * 0.6, "edge smoothing comes close to 4x4 supersampling (\(before) -> \(after))")
        // Drawing and finishing separately (as a pipeline does) gives the same picture.
        let r = try Rendering.renderer()
        style.antialias = 1
        let drawn = try r.draw(r.makeScene(p.geometry, atomColors: p.atomColors), camera: p.fittedCamera, width: 200, height: 200,
                               style: style)
        XCTAssertTrue(drawn.image == hard)
        XCTAssertTrue(drawn.finished() == smooth)
        // In bands of rows at once (a live session's frames): the same bytes.
        for bands in [2, 3, 7] { XCTAssertTrue(drawn.finished(bands: bands) == smooth, "\(bands) bands") }
        var white = RenderStyle.transparent
        white.antialias = 0
        white.background = .white
        let opaque = try Rendering.draw(p, size: 123, style: white)
        XCTAssertTrue(opaque.isOpaque)
        XCTAssertTrue(EdgeSmoothing.smoothed(opaque, bands: 4) == EdgeSmoothing.smoothed(opaque), "an opaque picture in 4 bands")
    }

    func testAtomsSmallerThanAPixelAreSupersampledInstead() throws {
        let far = try Rendering.prepared(try Rendering.structure(xyz: ["C -400 0 0", "C 400 0 0", "O 0 300 0"]), .spacefill)
        let r = try Rendering.renderer()
        let scene = r.makeScene(far.geometry, atomColors: far.atomColors)
        var style = RenderStyle.transparent
        let automatic = try r.draw(scene, camera: far.fittedCamera, width: 200, height: 200, style: style)
        XCTAssertFalse(automatic.smoothEdges)
        style.antialias = 2
        XCTAssertTrue(automatic.image == (try r.render(scene, camera: far.fittedCamera, width: 200, height: 200, style: style)))
        XCTAssertTrue(automatic.image.pixels.contains { $0 > 0 }, "the atoms are there")
    }

    /// Four pixels at a time (opaque pictures) give the same bytes as one at a time: on real
    /// pictures (1crn and 1hpv cast at 256 px in both thumbnail modes, where nearly every pixel of
    /// the molecule is on an edge; 1hpv at 600 px) and on noise, blocks and stripes that reach
    /// the searches' ends and the picture's sides.
    func testFourAtOnceEqualsOneAtATime() throws {
        var pictures: [(String, RGBAImage)] = []
        for (file, size) in [("1crn.pdb", 256), ("1hpv.pdb", 256), ("1hpv.pdb", 600)] {
            let s = try StructureFile.decode(try Data(contentsOf: Rendering.fixtures.appendingPathComponent(file)).map { $0 }, source: file)
            for mode in [DrawMode.spacefill, .ballAndStick] {
                var request = RenderRequest()
                request.width = size
                request.height = size
                request.assembly = .model
                let picture = try MoleculePicture(try request.molecule(s, source: file), mode: mode, request: request,
                                                  perception: try BondPerception.standard())
                let drawn = try XCTUnwrap(picture.cast(), "\(file) at \(size) px is cast")
                XCTAssertTrue(drawn.smoothEdges)
                pictures.append(("\(file) \(mode) \(size)", drawn.image))
            }
        }
        var random = SystemRandomNumberGenerator()
        for (w, h) in [(10, 3), (17, 9), (64, 64), (333, 41)] {
            for pattern in 0..<3 {
                var image = RGBAImage(width: w, height: h, fill: (255, 255, 255, 255))
                for y in 0..<h {
                    for x in 0..<w {
                        let i = (y * w + x) * 4
                        let v: UInt8
                        switch pattern {
                        case 0: v = UInt8.random(in: 0...255, using: &random)
                        case 1: v = (x / 5 + y / 3) % 2 == 0 ? 30 : 220
                        default: v = x * 3 > y * 7 + w / 2 ? 250 : (x % 40 < 20 ? 10 : 128)
                        }
                        image.pixels[i] = v; image.pixels[i + 1] = v &+ 17; image.pixels[i + 2] = 255 - v
                    }
                }
                pictures.append(("pattern \(pattern) \(w)x\(h)", image))
            }
        }
        for (name, image) in pictures {
            XCTAssertTrue(image.isOpaque, name)
            let one = EdgeSmoothing.smoothed(image, bands: 1, fourAtOnce: false)
            XCTAssertFalse(one == image, "\(name) has edges to smooth")
            XCTAssertTrue(EdgeSmoothing.smoothed(image, bands: 1, fourAtOnce: true) == one, name)
            XCTAssertTrue(EdgeSmoothing.smoothed(image, bands: 3, fourAtOnce: true) == one, "\(name) in bands")
        }
    }
}

import Core
import Graphics
import TestSupport
import XCTest

/// The offscreen pass and the 2D primitives pathway drawing builds on, on real OSMesa.
final class OffscreenPassTests: XCTestCase {
    nonisolated(unsafe) static var shared: Result<GraphicsDevice, Error>?

    func device() throws -> GraphicsDevice {
        if Self.shared == nil { Self.shared = Result { try GraphicsDevice() } }
        switch Self.shared! {
        case .success(let d): return d
        case .failure(let e):
            throw GLPolicy.refusal(e)
        }
    }

    /// x, y (pixels), r, g, b, a, u, v per vertex.
    func vertices(_ device: GraphicsDevice, _ values: [Float]) -> VertexArray {
        let buffer = GPUBuffer(device: device, values)
        return VertexArray(device: device, attributes: [
            .init(location: 0, buffer: buffer, components: 2, stride: 32, offset: 0, perInstance: false),
            .init(location: 1, buffer: buffer, components: 4, stride: 32, offset: 8, perInstance: false),
            .init(location: 2, buffer: buffer, components: 2, stride: 32, offset: 24, perInstance: false),
        ])
    }

    func program(_ device: GraphicsDevice, coverage: Bool = false) throws -> ShaderProgram {
        try device.program(vertex: "flat2d.vert", fragment: "flat2d.frag", defines: coverage ? ["COVERAGE"] : [])
    }

    func testClearAndReadBackTheBackgroundTopRowFirst() throws {
        let pass = OffscreenPass(device: try device())
        let red = Color(rgb: 0xFF0000)
        let picture = try pass.run(width: 7, height: 5, samples: 1, background: red, finishing: .none) { _ in }
        XCTAssertEqual(picture.image.width, 7)
        XCTAssertTrue(picture.image.pixel(6, 4) == (255, 0, 0, 255))
        XCTAssertFalse(picture.smoothEdges)
    }

    func testSizesOutsideTheLimitAreARequestError() throws {
        let pass = OffscreenPass(device: try device())
        XCTAssertThrowsError(try pass.run(width: 0, height: 5, samples: 1, background: .white, finishing: .none) { _ in }) {
            XCTAssertEqual(($0 as? RequestError)?.field, "size")
        }
        XCTAssertThrowsError(try pass.run(width: 8193, height: 5, samples: 1, background: .white, finishing: .none) { _ in })
    }

    func testSmoothingIsHandedBackOnlyWhereOneSampleWasDrawn() throws {
        let pass = OffscreenPass(device: try device())
        let one = try pass.run(width: 8, height: 8, samples: 1, background: .white, finishing: .smoothEdges) { XCTAssertEqual($0.samples, 1) }
        XCTAssertTrue(one.smoothEdges)
        let four = try pass.run(width: 8, height: 8, samples: 2, background: .white, finishing: .smoothEdges) { XCTAssertEqual($0.samples, 2) }
        XCTAssertFalse(four.smoothEdges)
        XCTAssertEqual(pass.samples(4, width: 8192, height: 8192), 1, "a picture too large to supersample draws one sample")
    }

    func testAnIndexedQuadFillsItsPixelsTopDown() throws {
        let device = try device()
        let pass = OffscreenPass(device: device)
        // A green square from (2,1) to (6,4) in pixels, y down: two triangles over four shared vertices.
        let quad = vertices(device, [2, 1, 0, 1, 0, 1, 0, 0, 6, 1, 0, 1, 0, 1, 0, 0, 6, 4, 0, 1, 0, 1, 0, 0, 2, 4, 0, 1, 0, 1, 0, 0])
        let indices = IndexBuffer(device: device, [0, 1, 2, 0, 2, 3])
        let p = try program(device)
        let picture = try pass.run(width: 8, height: 6, samples: 1, background: .black, finishing: .none) { target in
            device.setEnabled(.depthTest, false)
            p.set("viewport", SIMD2<Float>(8, 6))
            device.drawIndexed(p, quad, indices: indices, into: target.framebuffer, primitive: .triangles)
        }
        for y in 0..<6 {
            for x in 0..<8 {
                let inside = (2..<6).contains(x) && (1..<4).contains(y)
                XCTAssertEqual(picture.image.pixel(x, y).g, inside ? 255 : 0, "pixel \(x),\(y)")
            }
        }
    }

    func testLinesAndAlphaBlending() throws {
        let device = try device()
        let pass = OffscreenPass(device: device)
        // A horizontal line along row 2, and a half-transparent white square over the left half.
        let line = vertices(device, [0, 2.5, 1, 0, 0, 1, 0, 0, 10, 2.5, 1, 0, 0, 1, 0, 0])
        let veil = vertices(device, [0, 0, 1, 1, 1, 0.5, 0, 0, 5, 0, 1, 1, 1, 0.5, 0, 0, 0, 5, 1, 1, 1, 0.5, 0, 0,
                                     5, 5, 1, 1, 1, 0.5, 0, 0])
        let p = try program(device)
        let picture = try pass.run(width: 10, height: 5, samples: 1, background: .black, finishing: .none) { target in
            device.setEnabled(.depthTest, false)
            p.set("viewport", SIMD2<Float>(10, 5))
            device.draw(p, line, into: target.framebuffer, primitive: .lines, vertexCount: 2)
            device.setEnabled(.blend, true)
            device.setBlend(.alpha)
            device.draw(p, veil, into: target.framebuffer, primitive: .triangleStrip, vertexCount: 4)
            device.setEnabled(.blend, false)
        }
        XCTAssertTrue(picture.image.pixel(8, 2) == (255, 0, 0, 255), "the line, unveiled")
        XCTAssertTrue(picture.image.pixel(8, 0) == (0, 0, 0, 255), "nothing above it")
        let veiledLine = picture.image.pixel(2, 2), veiledBlack = picture.image.pixel(2, 0)
        XCTAssertEqual(Int(veiledLine.r), 255)
        XCTAssertEqual(Int(veiledLine.g), 128, accuracy: 1)
        XCTAssertEqual(Int(veiledBlack.r), 128, accuracy: 1)
    }

    func testACoverageTextureTintsItsQuad() throws {
        let device = try device()
        let pass = OffscreenPass(device: device)
        // A 4x1 coverage texture, two texels full and two empty, drawn texel for pixel over 4x2 pixels in blue.
        let atlas = try Texture(device: device, width: 4, height: 1, format: .coverage, pixels: [255, 255, 0, 0])
        let quad = vertices(device, [0, 0, 0, 0, 1, 1, 0, 0.5, 4, 0, 0, 0, 1, 1, 1, 0.5,
                                     0, 2, 0, 0, 1, 1, 0, 0.5, 4, 2, 0, 0, 1, 1, 1, 0.5])
        let p = try program(device, coverage: true)
        let picture = try pass.run(width: 4, height: 2, samples: 1, background: .white, finishing: .none) { target in
            device.setEnabled(.depthTest, false)
            device.setEnabled(.blend, true)
            device.setBlend(.alpha)
            p.set("viewport", SIMD2<Float>(4, 2))
            p.set("coverage", Int32(0))
            device.draw(p, quad, into: target.framebuffer, primitive: .triangleStrip, vertexCount: 4, textures: [atlas])
            device.setEnabled(.blend, false)
        }
        XCTAssertTrue(picture.image.pixel(0, 0) == (0, 0, 255, 255), "full coverage: blue \(picture.image.pixel(0, 0))")
        XCTAssertTrue(picture.image.pixel(3, 1) == (255, 255, 255, 255), "no coverage: the background \(picture.image.pixel(3, 1))")
        XCTAssertThrowsError(try Texture(device: device, width: 2, height: 2, format: .rgba, pixels: [0]))
        XCTAssertEqual(device.liveObjects["texture"], 1)
    }
}

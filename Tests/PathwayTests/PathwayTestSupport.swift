import Core
import Foundation
import Graphics
import Imaging
@testable import PathwayModel
@testable import Pathways
import TestSupport
import XCTest

/// Shared by the pathway tests: one renderer (one GL context) for the process, fixture paths,
/// and pixel helpers.
enum PathwayTestSupport {
    nonisolated(unsafe) static var shared: PathwayRenderer?

    static func renderer() throws -> PathwayRenderer {
        if let r = shared { return r }
        let r = try GLPolicy.need { try PathwayRenderer() }
        shared = r
        return r
    }

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static func fixture(_ name: String) -> String { root.appendingPathComponent("Tests/Fixtures/pathways/\(name)").path }
    static let corpus = root.deletingLastPathComponent().appendingPathComponent("shared/corpus/pathways")

    static func map(_ json: String, file: String = "test.json") throws -> PathwayMap {
        try PathwayFile.parse(Data(json.utf8), file: file)
    }

    /// Whether the pixel is close to `rgb` (0xRRGGBB).
    static func near(_ image: RGBAImage, _ x: Int, _ y: Int, _ rgb: UInt32, tolerance: Int = 40) -> Bool {
        let p = image.pixel(x, y)
        return abs(Int(p.r) - Int(rgb >> 16 & 0xFF)) <= tolerance && abs(Int(p.g) - Int(rgb >> 8 & 0xFF)) <= tolerance
            && abs(Int(p.b) - Int(rgb & 0xFF)) <= tolerance
    }

    /// Pixels in a rectangle that are not near white.
    static func inked(_ image: RGBAImage, x: Range<Int>, y: Range<Int>) -> Int {
        var n = 0
        for j in y { for i in x where !near(image, i, j, 0xFFFFFF, tolerance: 60) { n += 1 } }
        return n
    }
}

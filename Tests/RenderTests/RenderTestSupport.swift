import Core
import Foundation
import Graphics
import Imaging
import MoleculeView
import Scene
import Structure
import TestSupport
import XCTest

/// One renderer for the whole suite (a context and compiled shaders cost tens of milliseconds);
/// where no OpenGL context can be made, `GLPolicy` says what a test does.
enum Rendering {
    nonisolated(unsafe) static var shared: Result<MoleculeRenderer, Error>?

    static func renderer() throws -> MoleculeRenderer {
        if shared == nil { shared = Result { try MoleculeRenderer() } }
        switch shared! {
        case .success(let r): return r
        case .failure(let e):
            throw GLPolicy.refusal(e)
        }
    }

    static func structure(xyz lines: [String]) throws -> Structure {
        try StructureFile.parse(Array("\(lines.count)\ntest\n\(lines.joined(separator: "\n"))\n".utf8), source: "test.xyz")
    }

    static func prepared(_ s: Structure, _ mode: DrawMode, color: ColorTheme = .element, hydrogens: Bool = false) throws -> PreparedMolecule {
        try PreparedMolecule(s, mode: mode, color: .theme(color), filter: AtomFilter(hydrogens: hydrogens), perception: try BondPerception.standard())
    }

    static func draw(_ p: PreparedMolecule, size: Int = 200, style: RenderStyle = .transparent, _ adjust: (inout Camera) -> Void = { _ in }) throws -> RGBAImage {
        let r = try renderer()
        var camera = p.fittedCamera
        adjust(&camera)
        return try r.render(r.makeScene(p.geometry, atomColors: p.atomColors), camera: camera, width: size, height: size, style: style)
    }

    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")
}

extension RenderStyle {
    static var transparent: RenderStyle {
        var s = RenderStyle()
        s.background = .transparent
        return s
    }
}

extension RGBAImage {
    /// Pixels the molecule covers (alpha above half) and their centroid.
    func coverage(where keep: ((UInt8, UInt8, UInt8) -> Bool)? = nil) -> (count: Int, centroid: SIMD2<Float>) {
        var n = 0
        var sum = SIMD2<Float>(0, 0)
        for y in 0..<height {
            for x in 0..<width {
                let p = pixel(x, y)
                if p.a > 127 && (keep?(p.r, p.g, p.b) ?? true) {
                    n += 1
                    sum += SIMD2(Float(x) + 0.5, Float(y) + 0.5)
                }
            }
        }
        return (n, n > 0 ? sum / Float(n) : SIMD2(-1, -1))
    }

    /// True when the outermost rows and columns are all background (alpha 0): nothing is cropped.
    var borderIsEmpty: Bool {
        for x in 0..<width where pixel(x, 0).a != 0 || pixel(x, height - 1).a != 0 { return false }
        for y in 0..<height where pixel(0, y).a != 0 || pixel(width - 1, y).a != 0 { return false }
        return true
    }
}

extension RGBAImage {
    /// Opaque pixels within `tolerance` of a colour in each channel (shading darkens a sphere's
    /// or a stick's sides: a wide tolerance takes them).
    func count(near rgb: UInt32, tolerance: Int = 40) -> Int {
        let r = Int(rgb >> 16 & 0xFF), g = Int(rgb >> 8 & 0xFF), b = Int(rgb & 0xFF)
        var n = 0
        for y in 0..<height {
            for x in 0..<width {
                let p = pixel(x, y)
                if abs(Int(p.r) - r) <= tolerance && abs(Int(p.g) - g) <= tolerance && abs(Int(p.b) - b) <= tolerance && p.a > 200 { n += 1 }
            }
        }
        return n
    }
}

import MoleculeView
import Scene

/// Everything that decides how a thumbnail looks. Its canonical text is hashed into the output
/// names, so changing any setting makes new files instead of overwriting old ones.
public struct ThumbnailSettings: Codable, Sendable, Equatable {
    public var width = 256
    public var height = 256
    public var modes = ["ball-and-stick", "spacefill"]
    public var color = ColorTheme.element.rawValue
    /// Straight RGBA, 0...1.
    public var background: [Float] = [1, 1, 1, 1]
    public var hydrogens = false
    public var waters = false
    public var antialias = 1
    /// Degrees about the screen's x, y and z axes.
    public var rotate: [Float] = [0, 0, 0]
    public var zoom: Float = 1
    public var perspective = false
    public var depthCue = false

    public init() {}

    /// The settings as one line of text, fields in a fixed order, for hashing and for the index.
    public var canonical: String {
        let b = background.map { String($0) }.joined(separator: ",")
        let r = rotate.map { String($0) }.joined(separator: ",")
        return "v1 size=\(width)x\(height) modes=\(modes.joined(separator: ",")) color=\(color) background=\(b) "
            + "hydrogens=\(hydrogens) waters=\(waters) antialias=\(antialias) rotate=\(r) zoom=\(zoom) "
            + "perspective=\(perspective) depthcue=\(depthCue)"
    }

    /// Eight hex digits naming these settings in file names.
    public var key: String { String(ContentChecksum.hash(Array(canonical.utf8)) >> 32, radix: 16).leftPadded(8) }

    public var style: RenderStyle {
        var s = RenderStyle()
        s.background = SIMD4(background[0], background[1], background[2], background[3])
        s.antialias = antialias
        s.depthCue = depthCue
        return s
    }

    public func camera(fittedTo prepared: PreparedMolecule) -> Camera {
        var camera = prepared.fittedCamera
        if perspective { camera.projection = .perspective(fieldOfView: 30) }
        camera.zoom = zoom
        camera.rotate(degreesX: rotate[0], degreesY: rotate[1], degreesZ: rotate[2])
        return camera
    }

    /// The PNG file name for a source of content checksum `checksum` in `mode`.
    public func outputName(checksum: UInt64, mode: String) -> String {
        "\(String(checksum, radix: 16).leftPadded(16))-\(key)-\(mode).png"
    }
}

/// A 64-bit FNV-1a hash: stable across runs, processes and machines (Swift's Hasher is seeded per process).
public enum ContentChecksum {
    public static func hash(_ bytes: [UInt8]) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        bytes.withUnsafeBufferPointer { b in
            for byte in b {
                h ^= UInt64(byte)
                h = h &* 0x0000_0100_0000_01B3
            }
        }
        return h
    }
}

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

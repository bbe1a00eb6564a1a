import PathwayModel
import Core
import Dispatch
import Foundation
import Graphics
import Imaging

/// A z/x/y pyramid of square PNG tiles for a viewer that pans maps larger than any one picture.
/// At level z the map's longer side (with a small margin) spans `tileSize * 2^z` pixels; a level
/// holds every tile that the map reaches into, `columns` x `rows`. Each level is drawn in blocks of
/// whole tiles on one pixel grid, labels placed once for the level, so that tiles join without seams.
public struct TilePyramid: Sendable {
    public var tileSize = 256
    public var levels: Int
    /// Side of the blocks drawn at once, in tiles.
    public var blockTiles = 8
    public let bounds: (min: SIMD2<Double>, max: SIMD2<Double>)

    /// `levels` nil: enough that the deepest shows the map at about one pixel per map unit.
    public init(map: PathwayMap, tileSize: Int, levels: Int? = nil) {
        self.tileSize = tileSize
        let b = map.bounds
        let margin = max(b.max.x - b.min.x, b.max.y - b.min.y) * 0.02
        bounds = (b.min - margin, b.max + margin)
        let side = max(bounds.max.x - bounds.min.x, bounds.max.y - bounds.min.y)
        // (At most 11 before the + 1: a side of infinity would make Int.max + 1.)
        self.levels = levels ?? max(1, min(11, Int(saturating: log2(max(1, side / Double(tileSize))).rounded(.up))) + 1)
    }

    var side: Double { max(bounds.max.x - bounds.min.x, bounds.max.y - bounds.min.y) }

    /// Pixels per map unit at level `z`.
    public func scale(level z: Int) -> Double { Double(tileSize << z) / side }

    /// Tiles across and down at level `z`.
    public func grid(level z: Int) -> (columns: Int, rows: Int) {
        let s = scale(level: z), e = (bounds.max - bounds.min) * s
        let n = 1 << z
        return (min(n, max(1, Int(saturating: (e.x / Double(tileSize)).rounded(.up)))), min(n, max(1, Int(saturating: (e.y / Double(tileSize)).rounded(.up)))))
    }

    public var tileCount: Int { (0..<levels).reduce(0) { let g = grid(level: $1); return $0 + g.columns * g.rows } }

    /// Draws every tile and writes `DIR/z/x/y.png` (each whole or not at all) and `DIR/tiles.json`.
    /// `progress` hears of each level done.
    public func write(_ map: PathwayMap, to directory: String, renderer: PathwayRenderer, theme: PathwayTheme,
                      encoder: PNGEncoder = .flat, progress: (Int) -> Void = { _ in }) throws {
        let encodeQueue = DispatchQueue(label: "molshot.tiles.encode", attributes: .concurrent)
        let pending = DispatchGroup()
        let failure = Locked<Error?>(nil)
        for z in 0..<levels {
            let scale = scale(level: z)
            let scene = try renderer.scene(map, scale: scale, theme: theme)
            let (columns, rows) = grid(level: z)
            // Whole-map pixel of the pyramid's corner at this level.
            let corner = bounds.min * scale
            let perBlock = max(1, min(blockTiles, 4096 / tileSize))
            for by in stride(from: 0, to: rows, by: perBlock) {
                for bx in stride(from: 0, to: columns, by: perBlock) {
                    let nx = min(perBlock, columns - bx), ny = min(perBlock, rows - by)
                    let block = try renderer.draw(scene, corner: corner + SIMD2(Double(bx * tileSize), Double(by * tileSize)),
                                                  width: nx * tileSize, height: ny * tileSize, theme: theme)
                    // The previous block's tiles were encoded while this one was drawn; at most two blocks are held.
                    pending.wait()
                    if let e = failure.withLock({ $0 }) { throw e }
                    for ty in 0..<ny {
                        for tx in 0..<nx {
                            let folder = "\(directory)/\(z)/\(bx + tx)"
                            let path = "\(folder)/\(by + ty).png"
                            let tileSize = tileSize
                            pending.enter()
                            encodeQueue.async {
                                defer { pending.leave() }
                                do {
                                    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                                    try encoder.write(block.cropped(x: tx * tileSize, y: ty * tileSize, width: tileSize, height: tileSize), to: path)
                                } catch { failure.withLock { if $0 == nil { $0 = error } } }
                            }
                        }
                    }
                }
            }
            progress(z)
        }
        pending.wait()
        if let e = failure.withLock({ $0 }) { throw e }
        let info: [String: Any] = [
            "tileSize": tileSize, "levels": levels,
            "bounds": [bounds.min.x, bounds.min.y, bounds.max.x - bounds.min.x, bounds.max.y - bounds.min.y],
            "grid": (0..<levels).map { let g = grid(level: $0); return ["columns": g.columns, "rows": g.rows, "scale": scale(level: $0)] as [String: Any] },
            "path": "{z}/{x}/{y}.png",
        ]
        try AtomicFile.write(Array(try JSONSerialization.data(withJSONObject: info, options: [.prettyPrinted, .sortedKeys])),
                             to: "\(directory)/tiles.json")
    }
}

extension RGBAImage {
    /// A rectangle of the image.
    public func cropped(x: Int, y: Int, width w: Int, height h: Int) -> RGBAImage {
        var out = [UInt8](repeating: 0, count: w * h * 4)
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for row in 0..<h {
                    let s = ((y + row) * width + x) * 4
                    dst.baseAddress!.advanced(by: row * w * 4).update(from: src.baseAddress!.advanced(by: s), count: w * 4)
                }
            }
        }
        return RGBAImage(width: w, height: h, pixels: out)
    }
}

import Core

/// What part of a map a picture shows: the map point at its top left corner and the pixels per
/// map unit. A point `p` lands on pixel `(p - origin) * scale`; x right, y down, as in the files.
public struct MapView: Sendable, Equatable {
    public var origin: SIMD2<Double>
    public var scale: Double

    public init(origin: SIMD2<Double>, scale: Double) {
        self.origin = origin
        self.scale = scale
    }

    /// The whole of `bounds` in `width` x `height` pixels, centered, nothing cropped, with a
    /// margin of `margin` of the smaller side on each side.
    public static func fitting(_ bounds: (min: SIMD2<Double>, max: SIMD2<Double>), width: Int, height: Int,
                               margin: Double = 0.02) -> MapView {
        let extent = pointwiseMax(bounds.max - bounds.min, SIMD2(1e-6, 1e-6))
        let pad = Double(min(width, height)) * margin
        let room = SIMD2(max(1, Double(width) - 2 * pad), max(1, Double(height) - 2 * pad))
        let scale = min(room.x / extent.x, room.y / extent.y)
        let center = (bounds.min + bounds.max) / 2
        return MapView(origin: center - SIMD2(Double(width), Double(height)) / 2 / scale, scale: scale)
    }

    /// The size in pixels that shows `bounds` whole at `scale` pixels per unit, with `margin` units around.
    public static func size(of bounds: (min: SIMD2<Double>, max: SIMD2<Double>), scale: Double, margin: Double) -> (width: Int, height: Int) {
        let e = (bounds.max - bounds.min + 2 * margin) * scale
        return (max(1, Int(saturating: e.x.rounded(.up))), max(1, Int(saturating: e.y.rounded(.up))))
    }

    public func pixel(_ p: SIMD2<Double>) -> SIMD2<Double> { (p - origin) * scale }
    public func point(atPixel q: SIMD2<Double>) -> SIMD2<Double> { origin + q / scale }

    /// Zoomed by `factor` keeping the map point under pixel `q` in place.
    public func zoomed(by factor: Double, about q: SIMD2<Double>) -> MapView {
        let p = point(atPixel: q)
        let s = scale * factor
        return MapView(origin: p - q / s, scale: s)
    }

    /// Moved so that the picture shifts by `d` pixels (the map follows a dragging finger).
    public func panned(byPixels d: SIMD2<Double>) -> MapView { MapView(origin: origin - d / scale, scale: scale) }
}

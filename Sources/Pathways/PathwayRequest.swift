import PathwayModel
import Foundation
import Core
import Imaging

/// One picture of a pathway map as the CLI and the service ask for it: what part of the map, how
/// large, in which theme. Every field has the same text form in both (`ValueText`).
public struct PathwayRequest: Sendable {
    /// Longer side of a picture when neither a size nor a scale is given.
    public static let defaultSide = 1600

    /// `WxH`, or `N` for the longer side with the other from the map's shape.
    public var size: String?
    /// Pixels per map unit; the picture's size follows from the map (or region) unless a size is given.
    public var scale: Double?
    /// `X,Y,W,H` in map units; the whole map when nil.
    public var region: String?
    public var theme: PathwayTheme = PathwayTheme(.standard)
    public var samples = 1
    /// Draw the relations a file states but its tool leaves out (KGML's).
    public var relations = false

    public init() {}

    public static let help: [String: String] = [
        "size": "Picture size, WxH, N for the longer side (the other follows the map's shape), or auto: as large as the map's labels need to be read (up to \(PictureBounds.maximumSide) a side). Default \(defaultSide) on the longer side.",
        "scale": "Pixels per map unit (a map's own unit is about a pixel at 1); the size follows from the map unless --size is given.",
        "region": "Only this part of the map, X,Y,W,H in map units (the file's coordinates, y down).",
        "theme": "standard (the file's colors on white), dark, or print (black lines, light fills).",
        "samples": "Samples per pixel side, 1 to 4: lines are smooth at 1; 2 or more also smooth the edges of filled shapes, at a cost.",
        "relations": "Also draw the KGML relations of metabolic maps (activation, inhibition, expression, maplinks), which KEGG's pictures of them leave out; signalling and other maps draw theirs anyway.",
    ]

    /// Largest map coordinate or extent a region may name: far past any real map, and small enough
    /// that sums and sizes worked out from it stay finite.
    public static let maximumCoordinate = 1e9
    /// Scales past these draw nothing a person could see (a map unit is about a pixel at 1).
    public static let scales: ClosedRange<Double> = 1e-6...1e4

    /// The part of the map shown, in map units.
    public func area(of map: PathwayMap) throws(RequestError) -> (min: SIMD2<Double>, max: SIMD2<Double>) {
        guard let region else { return map.bounds }
        let v = region.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard v.count == 4, let x = v[0], let y = v[1], let w = v[2], let h = v[3], [x, y, w, h].allSatisfy(\.isFinite) else {
            throw RequestError(field: "region", "must be X,Y,W,H in map units (got \(region))")
        }
        guard w > 0, h > 0 else { throw RequestError(field: "region", "needs a positive width and height (got \(region))") }
        guard [x, y, w, h].allSatisfy({ abs($0) <= Self.maximumCoordinate }) else {
            throw RequestError(field: "region", "must stay within \(Int(Self.maximumCoordinate)) map units (got \(region))")
        }
        // A region that misses the map would be a blank picture: say where the map is instead.
        let b = map.bounds
        guard x < b.max.x, y < b.max.y, x + w > b.min.x, y + h > b.min.y else {
            throw RequestError(field: "region", "\(region) is outside the map, which spans X \(Self.number(b.min.x)) to \(Self.number(b.max.x)) "
                               + "and Y \(Self.number(b.min.y)) to \(Self.number(b.max.y))")
        }
        return (SIMD2(x, y), SIMD2(x + w, y + h))
    }

    static func number(_ v: Double) -> String { v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(format: "%.1f", v) }

    /// `scale` checked: a finite number in `scales`.
    static func checked(scale: Double) throws(RequestError) -> Double {
        guard scale.isFinite, Self.scales.contains(scale) else {
            throw RequestError(field: "scale", "must be a number from \(Self.scales.lowerBound) to \(Int(Self.scales.upperBound)) (got \(String(format: "%g", scale)))")
        }
        return scale
    }

    /// Height in pixels at which a label counts as readable (`--size auto` aims at it).
    public static let readableLabel = 9.0

    /// Pixels per map unit at which the map's median node label is `readableLabel` pixels tall
    /// in `theme`; nil for a map without labelled nodes.
    public static func readableScale(_ map: PathwayMap, theme: PathwayTheme) -> Double? {
        let sizes = map.nodes.filter { !$0.label.isEmpty && $0.fontSize > 0 && $0.fontSize.isFinite }.map(\.fontSize).sorted()
        guard !sizes.isEmpty else { return nil }
        return readableLabel / (sizes[sizes.count / 2] * theme.labelScale)
    }

    /// Whether every node label of `map` would be drawn under the theme's smallest legible
    /// size at `scale` (and so left out): the picture would show no names.
    public static func labelsUnreadable(_ map: PathwayMap, theme: PathwayTheme, scale: Double) -> Bool {
        let labelled = map.nodes.filter { !$0.label.isEmpty }
        guard !labelled.isEmpty, theme.raisedLabels == nil else { return false }
        return labelled.allSatisfy { $0.fontSize * theme.labelScale * scale < theme.smallestLabel }
    }

    /// The view and the picture size for `map`.
    public func frame(for map: PathwayMap) throws(RequestError) -> (view: MapView, width: Int, height: Int) {
        let area = try self.area(of: map)
        let extent = pointwiseMax(area.max - area.min, SIMD2(1, 1))
        // A map file's own coordinates may be anything JSON or XML can say.
        guard extent.x.isFinite, extent.y.isFinite else { throw RequestError(field: "region", "the map's extent is not a finite number: give a --region") }
        let scale = try self.scale.map { s throws(RequestError) in try Self.checked(scale: s) }
        let margin = region == nil ? 0.02 : 0
        var width: Int, height: Int
        if size?.lowercased() == "auto" {
            // The longer side at which the typical label is readable (never below the default).
            let longer = max(extent.x, extent.y)
            let wanted = (Self.readableScale(map, theme: theme) ?? 0) * longer * (1 + 2 * margin)
            let n = Int(min(Double(PictureBounds.maximumSide), max(Double(Self.defaultSide), wanted.rounded(.up))))
            width = max(1, Int((extent.x / longer * Double(n)).rounded()))
            height = max(1, Int((extent.y / longer * Double(n)).rounded()))
        } else if let size {
            let parts = size.lowercased().split(separator: "x")
            if parts.count == 1 {
                let n = try ValueText.integer(size, field: "size", in: 1...PictureBounds.maximumSide)
                let longer = max(extent.x, extent.y)
                // The ratio first: the extent may be near the largest Double, its product with n not.
                width = max(1, Int((extent.x / longer * Double(n)).rounded()))
                height = max(1, Int((extent.y / longer * Double(n)).rounded()))
            } else {
                (width, height) = try ValueText.size(size, field: "size", maximumSide: PictureBounds.maximumSide)
            }
        } else if let scale {
            let e = extent * (1 + 2 * margin) * scale
            guard e.x <= Double(PictureBounds.maximumSide), e.y <= Double(PictureBounds.maximumSide) else {
                throw RequestError(field: "scale", "\(scale) makes a picture of \(Int(saturating: e.x))x\(Int(saturating: e.y)) pixels, over \(PictureBounds.maximumSide) a side: give a smaller scale, a --region, or write --tiles")
            }
            width = max(1, Int(e.x.rounded(.up)))
            height = max(1, Int(e.y.rounded(.up)))
        } else {
            let longer = max(extent.x, extent.y)
            width = max(1, Int((extent.x / longer * Double(PathwayRequest.defaultSide)).rounded()))
            height = max(1, Int((extent.y / longer * Double(PathwayRequest.defaultSide)).rounded()))
        }
        var view = MapView.fitting(area, width: width, height: height, margin: margin)
        if let scale {
            let center = (area.min + area.max) / 2
            view = MapView(origin: center - SIMD2(Double(width), Double(height)) / 2 / scale, scale: scale)
        }
        return (view, width, height)
    }
}

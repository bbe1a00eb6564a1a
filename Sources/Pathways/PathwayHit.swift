import PathwayModel
import Core

extension PathwayMap.Node {
    /// What a tap reports of a node.
    public struct Summary: Sendable, Equatable, Codable {
        public var id: String
        public var name: String
        public var kind: String
        public var label: String
    }

    public var summary: Summary { Summary(id: id, name: name, kind: kind.rawValue, label: label) }

    /// The area a tap finds the node in: its shape's frame, or for a node drawn only as its label,
    /// the label's estimated box.
    var hitBox: (min: SIMD2<Double>, max: SIMD2<Double>)? {
        if shape != .none && size.x > 0 && size.y > 0 { return frame }
        return PathwayMap.estimatedBox(of: label, size: fontSize, at: labelPosition ?? center, fromStart: labelFromStart)
    }
}

/// Finds what a tap hits.
public enum PathwayHit {
    /// The node whose shape (or label, for label-only nodes) holds `point`, within `tolerance` map
    /// units; the smallest one where several overlap (a metabolite over its compartment), markers never.
    public static func node(at point: SIMD2<Double>, in map: PathwayMap, tolerance: Double) -> PathwayMap.Node? {
        var best: (area: Double, node: PathwayMap.Node)?
        for n in map.nodes where n.kind != .marker {
            guard let box = n.hitBox else { continue }
            let lo = box.min - tolerance, hi = box.max + tolerance
            guard point.x >= lo.x, point.x <= hi.x, point.y >= lo.y, point.y <= hi.y else { continue }
            if n.shape == .ellipse {
                let d = (point - n.center) / (n.size / 2 + tolerance)
                guard (d * d).sum() <= 1 else { continue }
            }
            let area = (box.max.x - box.min.x) * (box.max.y - box.min.y)
            if best == nil || area < best!.area { best = (area, n) }
        }
        return best?.node
    }
}

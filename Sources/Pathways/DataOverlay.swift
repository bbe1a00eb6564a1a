import PathwayModel
import Core
import Foundation
import Graphics

/// Numbers per reaction or metabolite (fluxes, expression, concentrations) shown on a map, as
/// Escher's users do: each matched reaction's edges are colored and widened on a scale from the
/// smallest value to the largest, each matched metabolite filled and sized; a legend says which
/// color is which number. Ids match a node's id, label or name (any of a name's words, for KEGG's
/// `ko:K00844 ko:K12407`), ignoring case.
public struct DataOverlay: Sendable {
    public enum Target: String, Sendable { case reactions, metabolites }

    public let target: Target
    public let values: [String: Double]
    public let file: String

    /// The scale's colors from the smallest value to the largest (blue, pale yellow, red: told apart with most color blindness).
    public static let colors = [Color(rgb: 0x4575B4), Color(rgb: 0xFFFFBF), Color(rgb: 0xD73027)]

    public init(target: Target, values: [String: Double], file: String) {
        self.target = target
        self.values = Dictionary(values.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { a, _ in a })
        self.file = file
    }

    /// Reads `id,value` lines (CSV; a first line whose value is not a number is a header; `#` starts
    /// a comment) or a JSON object of id to number.
    public static func load(path: String, target: Target) throws -> DataOverlay {
        let bytes = try FileInput.read(path: path, limit: 64 << 20)
        let data = Data(bytes)
        func fail(_ at: String?, _ message: String) -> PathwayError { PathwayError(file: path, at: at, message) }
        let first = bytes.first { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }
        var values: [String: Double] = [:]
        if first == UInt8(ascii: "{") {
            let json: Any
            do { json = try JSONText.parse(bytes) } catch { throw fail(nil, "not valid JSON (\(error))") }
            guard let object = json as? [String: Any] else { throw fail(nil, "must be a JSON object of id to number") }
            for (key, value) in object {
                guard let n = JSONText.number(value), n.isFinite else {
                    throw fail(key, "must be a number")
                }
                values[key] = n
            }
        } else {
            guard let text = String(data: data, encoding: .utf8) else { throw fail(nil, "is not UTF-8 text") }
            for (i, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
                let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
                let fields = line.split(whereSeparator: { $0 == "," || $0 == "\t" || $0 == ";" }).map { $0.trimmingCharacters(in: .whitespaces) }
                if fields.isEmpty || fields.allSatisfy(\.isEmpty) { continue }
                guard fields.count >= 2 else { throw fail("line \(i + 1)", "expected id,value (got \(line))") }
                guard let v = Double(fields[1]), v.isFinite else {
                    if i == 0 || values.isEmpty && i < 3 { continue }  // a header
                    throw fail("line \(i + 1)", "\(fields[1]) is not a number")
                }
                values[fields[0].trimmingCharacters(in: CharacterSet(charactersIn: "\""))] = v
            }
        }
        guard !values.isEmpty else { throw fail(nil, "holds no values") }
        return DataOverlay(target: target, values: values, file: path)
    }

    public var range: ClosedRange<Double> {
        let lo = values.values.min() ?? 0, hi = values.values.max() ?? 0
        return lo...max(hi, lo)
    }

    /// Where `v` falls on the scale, 0 to 1.
    func position(_ v: Double) -> Double {
        let r = range
        return r.upperBound > r.lowerBound ? (v - r.lowerBound) / (r.upperBound - r.lowerBound) : 1
    }

    public static func color(at t: Double) -> Color {
        let t = max(0, min(1, t)) * Double(colors.count - 1)
        let i = min(Int(t), colors.count - 2)
        return colors[i].mixed(with: colors[i + 1], Float(t - Double(i)))
    }

    /// The value for a node, by id, label, name or a word of its name.
    func value(for n: PathwayMap.Node) -> Double? {
        for key in [n.id, n.label, n.name] where !key.isEmpty {
            if let v = values[key.lowercased()] { return v }
        }
        for word in n.name.split(separator: " ") {
            let w = word.lowercased()
            if let v = values[w] ?? values[String(w.split(separator: ":").last ?? "")] { return v }
        }
        return nil
    }

    /// How many of the map's reactions or metabolites have a value.
    public func matches(in map: PathwayMap) -> Int {
        map.nodes.filter { isTarget($0) && value(for: $0) != nil }.count
    }

    func isTarget(_ n: PathwayMap.Node) -> Bool {
        switch target {
        case .reactions: return n.kind == .reaction || n.kind == .geneProduct
        case .metabolites: return n.kind == .metabolite
        }
    }

    /// The map with the values shown.
    public func applied(to map: PathwayMap) -> PathwayMap {
        var out = map
        var byNode: [String: Double] = [:]
        for (i, n) in map.nodes.enumerated() where isTarget(n) {
            guard let v = value(for: n) else { continue }
            byNode[n.id] = v
            let t = position(v), c = DataOverlay.color(at: t)
            switch target {
            case .reactions:
                if n.shape != .none { out.nodes[i].fill = c }
            case .metabolites:
                out.nodes[i].fill = c
                out.nodes[i].size = n.size * (0.8 + 0.8 * t)
            }
        }
        guard target == .reactions else { return out }
        for (i, e) in map.edges.enumerated() {
            // An edge belongs to its reaction, or (without one) to a reaction node it touches.
            let owner = e.reaction ?? [e.from, e.to].compactMap { $0 }.first { byNode[$0] != nil }
            guard let owner, let v = byNode[owner] else { continue }
            let t = position(v)
            out.edges[i].color = DataOverlay.color(at: t).mixed(with: .black, 0.15)
            out.edges[i].width = e.width * (1 + 1.5 * t)
        }
        return out
    }
}

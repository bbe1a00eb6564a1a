/// The small text formats that the CLI's options and the service's query strings share:
/// `512x384`, `X,Y,Z`, `DX,DY`, numbers in a range, `true`/`false`. Each failure is a
/// `RequestError` naming the field and the value.
public enum ValueText {
    /// `WxH` or `N` for a square; both sides 1...`maximumSide`.
    public static func size(_ text: String, field: String, maximumSide: Int) throws(RequestError) -> (width: Int, height: Int) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        let values = parts.map { Int($0.trimmingCharacters(in: " ")) }
        let pair: [Int?] = values.count == 1 ? [values[0], values[0]] : values
        guard pair.count == 2, let w = pair[0], let h = pair[1] else {
            throw RequestError(field: field, "must be WxH or N, like 512x384 or 256 (got \(text))")
        }
        guard w >= 1, h >= 1 else { throw RequestError(field: field, "must be at least 1x1 (got \(text))") }
        guard w <= maximumSide, h <= maximumSide else {
            throw RequestError(field: field, "is too large: at most \(maximumSide) pixels per side (got \(text))")
        }
        return (w, h)
    }

    /// `X,Y,Z`, finite numbers.
    public static func triple(_ text: String, field: String, meaning: String = "X,Y,Z in degrees") throws(RequestError) -> SIMD3<Float> {
        let v = numbers(text)
        guard v.count == 3, let x = v[0], let y = v[1], let z = v[2] else {
            throw RequestError(field: field, "must be \(meaning) (got \(text))")
        }
        return SIMD3(x, y, z)
    }

    /// `DX,DY`, finite numbers.
    public static func pair(_ text: String, field: String, meaning: String = "DX,DY") throws(RequestError) -> SIMD2<Float> {
        let v = numbers(text)
        guard v.count == 2, let x = v[0], let y = v[1] else { throw RequestError(field: field, "must be \(meaning) (got \(text))") }
        return SIMD2(x, y)
    }

    /// A finite number; `positive` refuses zero and below.
    public static func number(_ text: String, field: String, positive: Bool = false) throws(RequestError) -> Float {
        guard let v = Float(text.trimmingCharacters(in: " ")), v.isFinite else {
            throw RequestError(field: field, "must be a number (got \(text))")
        }
        if positive && !(v > 0) { throw RequestError(field: field, "must be a positive number (got \(text))") }
        return v
    }

    /// A whole number in `range`.
    public static func integer(_ text: String, field: String, in range: ClosedRange<Int>) throws(RequestError) -> Int {
        guard let v = Int(text.trimmingCharacters(in: " ")), range.contains(v) else {
            if range.upperBound == Int.max {
                throw RequestError(field: field, "must be positive, a whole number from \(range.lowerBound) (got \(text))")
            }
            throw RequestError(field: field, "must be a whole number from \(range.lowerBound) to \(range.upperBound) (got \(text))")
        }
        return v
    }

    /// `true`/`false`, `1`/`0`, `yes`/`no`, `on`/`off`; empty means true (a flag given without a value).
    public static func flag(_ text: String, field: String) throws(RequestError) -> Bool {
        switch text.lowercased() {
        case "", "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default: throw RequestError(field: field, "must be true or false (got \(text))")
        }
    }

    private static func numbers(_ text: String) -> [Float?] {
        text.split(separator: ",", omittingEmptySubsequences: false).map { part in
            Float(part.trimmingCharacters(in: " ")).flatMap { $0.isFinite ? $0 : nil }
        }
    }
}

extension StringProtocol {
    func trimmingCharacters(in set: Character) -> String {
        var s = Substring(self)
        while s.first == set { s.removeFirst() }
        while s.last == set { s.removeLast() }
        return String(s)
    }
}

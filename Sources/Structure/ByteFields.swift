import Core
#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// Number parsing straight from bytes, without building strings: the readers' hot path.
enum ByteFields {
    @inline(__always)
    static func isBlank(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0D }

    @inline(__always)
    static func isDigit(_ c: UInt8) -> Bool { c &- 0x30 < 10 }

    /// `start..<end` without leading blanks and trailing blanks or carriage returns.
    @inline(__always)
    static func trimmed(_ b: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> (Int, Int) {
        var i = start, e = end
        while i < e && b[i] == 0x20 { i += 1 }
        while e > i && isBlank(b[e - 1]) { e -= 1 }
        return (i, e)
    }

    static let powersOfTen: [Double] = (0...22).map { pow10($0) }

    /// 10^n for 0 <= n <= 15, exact, without touching a lazily initialized table in the common cases.
    @inline(__always)
    static func exactPowerOfTen(_ n: Int) -> Double {
        switch n {
        case 0: return 1
        case 1: return 10
        case 2: return 100
        case 3: return 1000
        case 4: return 10000
        case 5: return 100_000
        case 6: return 1_000_000
        default: return powersOfTen[n]
        }
    }

    private static func pow10(_ n: Int) -> Double {
        var v = 1.0
        for _ in 0..<n { v *= 10 }
        return v
    }

    /// A decimal number in bytes `start..<end`, surrounding blanks allowed; nil if not one.
    /// Digits past the 18th are read as zeros' worth of scale only, which no coordinate needs.
    @inline(__always)
    static func float(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Float? {
        double(b, start, end).map { Float($0) }
    }

    /// `float`, kept out of line: where it was inlined into `fixedPoint8`'s three ways out, that
    /// function grew past what the optimizer inlines, and each PDB coordinate was a call whose width
    /// and decimals (and so every mask) were worked out at run time.
    @inline(never)
    static func slowFloat(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Float? {
        float(b, start, end)
    }

    /// A fixed-point field as PDB writes them (`%8.3f` coordinates, `%6.2f` occupancy and
    /// B-factor), at most 8 bytes ending at `end`: the point `decimals` places from the end,
    /// blanks then an optional minus before the digits. The 8 bytes ending there (at least 8
    /// must be in the buffer) are read as one 64-bit word and every place is tested at once, so a
    /// field costs a few dozen instructions and no branch but the one that sends anything else
    /// to `float`, which gives the same value.
    @inline(__always)
    static func fixedPoint8(_ buffer: UnsafeBufferPointer<UInt8>, end: Int, width: Int, decimals: Int) -> Float? {
        let start = end - width
        guard width <= 8, end >= 8, end <= buffer.count, decimals > 0, decimals < width - 1, let base = buffer.baseAddress else {
            return slowFloat(buffer, start, end)
        }
        // Byte k of the word is place k of the 8 bytes (little-endian); the field is places 8-width..<8.
        let w = UInt64(littleEndian: UnsafeRawPointer(base + end - 8).loadUnaligned(as: UInt64.self))
        let high: UInt64 = 0x8080_8080_8080_8080, low: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        /// Bit 7 of each byte of `y` that is zero.
        func zeros(_ y: UInt64) -> UInt64 { ~(((y & low) &+ low) | y) & high }
        let x = w ^ 0x3030_3030_3030_3030
        // A byte of x is a digit's value when under 10; adding 0x76 to its low 7 bits sets bit 7 otherwise.
        let digits = ~(((x & low) &+ 0x7676_7676_7676_7676) | x) & high
        let blanks = zeros(w ^ 0x2020_2020_2020_2020), minus = zeros(w ^ 0x2D2D_2D2D_2D2D_2D2D)
        let point = 7 - decimals
        let field: UInt64 = width == 8 ? high : high & ~((1 << (8 * (8 - width))) - 1)
        let whole = field & ((1 << (8 * point)) - 1)
        let fraction = high & ~((1 << (8 * (point + 1))) - 1)
        let d = digits & whole, lowest = d & (~d &+ 1)
        let m = minus & whole
        guard (w >> (8 * point)) & 0xFF == 0x2E, digits & fraction == fraction, d != 0,
              d == whole & ~(lowest &- 1), d | (blanks & whole) | m == whole, m == 0 || m == lowest >> 8 else {
            return slowFloat(buffer, start, end)
        }
        // The digits' values, all else zero; the whole part moved one place along, onto the point
        // (place 0 becomes a zero digit), so the eight places read whole x 10^decimals + fraction
        // with no division; then eight digits to one number in three steps.
        let values = x & (((digits & field) >> 7) &* 0xFF)
        let before: UInt64 = (1 << (8 * point)) - 1
        var v = ((values & before) << 8) | (values & ~before) // the point's byte is zero in `values`
        v = (v &* 10 &+ (v >> 8)) & 0x00FF_00FF_00FF_00FF
        v = (v &* 100 &+ (v >> 16)) & 0x0000_FFFF_0000_FFFF
        let n = (v &* 10000 &+ (v >> 32)) & 0xFFFF_FFFF
        // Below 2^24 the integer and the power of ten are exact in single precision, and one
        // correctly rounded single division is the value `float` gives (a double division rounded
        // to single: 53 >= 2 x 24 + 2 bits, so rounding twice changes nothing). The product by the
        // double nearest 10^-decimals, rounded to single, is that same float for every integer
        // below 2^24 and every `decimals` from 1 to 7 (checked exhaustively in C), and takes a
        // third of a division's time; where `decimals` is a constant (`coordinate`,
        // `fixedPoint6x2`) the reciprocal is one.
        guard n < 1 << 24 else { return slowFloat(buffer, start, end) }
        let value = Float(Double(n) * (1 / exactPowerOfTen(decimals)))
        return m != 0 ? -value : value
    }

    /// `fixedPoint8` of a `%8.3f` coordinate and of a `%6.2f` occupancy or B-factor, each its own
    /// function so that the widths are constants in it and every mask folds to one: the reader
    /// calls `fixedPoint8` rather than inlining it, and with the width and decimals as arguments
    /// it worked each mask out with variable shifts at every field.
    @inline(never)
    static func coordinate(_ buffer: UnsafeBufferPointer<UInt8>, end: Int) -> Float? {
        fixedPoint8(buffer, end: end, width: 8, decimals: 3)
    }

    @inline(never)
    static func fixedPoint6x2(_ buffer: UnsafeBufferPointer<UInt8>, end: Int) -> Float? {
        fixedPoint8(buffer, end: end, width: 6, decimals: 2)
    }

    static func double(_ buffer: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Double? {
        guard let b = buffer.baseAddress else { return nil }
        let (first, last) = trimmed(b, start, min(end, buffer.count))
        // Fast path for what PDB and mmCIF files hold: an optional minus, at most 15 digits with
        // one point. Anything else goes the general way below.
        do {
            var i = first
            var negative = false
            if i < last && b[i] == 0x2D { negative = true; i += 1 }
            var mantissa = 0
            var decimals = -1
            var digits = 0
            while i < last {
                let d = b[i] &- 0x30
                if d < 10 {
                    mantissa = mantissa &* 10 &+ Int(d)
                    digits += 1
                    if decimals >= 0 { decimals += 1 }
                } else if b[i] == 0x2E && decimals < 0 {
                    decimals = 0
                } else {
                    break
                }
                i += 1
            }
            if i == last && digits > 0 && digits <= 15 {
                let value = Double(mantissa) / exactPowerOfTen(max(decimals, 0))
                return negative ? -value : value
            }
        }
        var i = first, e = last
        guard i < e else { return nil }
        var negative = false
        if b[i] == 0x2D { negative = true; i += 1 } else if b[i] == 0x2B { i += 1 }
        var mantissa: Int64 = 0
        var digits = 0
        var scale = 0
        var sawDigit = false
        var sawPoint = false
        // Digits and at most one point in one pass: the common case, "  -12.345".
        while i < e {
            let c = b[i]
            let d = c &- 0x30
            if d < 10 {
                if digits < 18 {
                    mantissa = mantissa &* 10 &+ Int64(d)
                    digits += 1
                    if sawPoint { scale += 1 }
                } else if !sawPoint {
                    scale -= 1
                }
                sawDigit = true
            } else if c == 0x2E && !sawPoint {
                sawPoint = true
            } else {
                break
            }
            i += 1
        }
        guard sawDigit else { return nil }
        var exponent = 0
        if i < e && (b[i] | 0x20) == 0x65 {
            i += 1
            var expNegative = false
            if i < e && b[i] == 0x2D { expNegative = true; i += 1 } else if i < e && b[i] == 0x2B { i += 1 }
            guard i < e else { return nil }
            while i < e, isDigit(b[i]) {
                if exponent < 10000 { exponent = exponent * 10 + Int(b[i] &- 0x30) }
                i += 1
            }
            if expNegative { exponent = -exponent }
        }
        // Uncertainties in parentheses, as mmCIF writes them: 1.234(5).
        if i < e && b[i] == 0x28 {
            while i < e && b[i] != 0x29 { i += 1 }
            i += 1
        }
        guard i >= e else { return nil }
        let power = exponent - scale
        var value = Double(mantissa)
        // Exact operands, so one correctly rounded multiply or divide: the same text always gives the same value.
        if power >= 0 {
            if power > 0 { value = power <= 22 ? value * powersOfTen[power] : value * pow10Slow(power) }
        } else {
            value = -power <= 22 ? value / powersOfTen[-power] : value / pow10Slow(-power)
        }
        return negative ? -value : value
    }

    private static func pow10Slow(_ n: Int) -> Double {
        var v = 1.0
        for _ in 0..<min(n, 400) { v *= 10 }
        return v
    }

    /// A decimal integer in bytes `start..<end`, surrounding blanks allowed; nil if not one.
    @inline(__always)
    static func int(_ buffer: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Int? {
        guard let b = buffer.baseAddress else { return nil }
        var (i, e) = trimmed(b, start, min(end, buffer.count))
        guard i < e, e - i <= 18 else { return nil }
        var negative = false
        if b[i] == 0x2D { negative = true; i += 1 } else if b[i] == 0x2B { i += 1 }
        guard i < e else { return nil }
        var value = 0
        while i < e {
            let d = b[i] &- 0x30
            guard d < 10 else { return nil }
            value = value &* 10 &+ Int(d)
            i += 1
        }
        return negative ? -value : value
    }

    /// Hybrid-36, the PDB convention for serials past 99999 and residue numbers past 9999:
    /// a plain decimal, or base-36 digits starting with a letter.
    static func hybrid36(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Int? {
        if let v = int(b, start, end) { return v }
        var i = start
        var e = min(end, b.count)
        while i < e && isBlank(b[i]) { i += 1 }
        while e > i && isBlank(b[e - 1]) { e -= 1 }
        let width = e - i
        guard width > 0, width <= 6 else { return nil }
        let first = b[i]
        let upper = first >= 0x41 && first <= 0x5A
        let lower = first >= 0x61 && first <= 0x7A
        guard upper || lower else { return nil }
        var value = 0
        while i < e {
            let c = b[i]
            let d: Int
            if isDigit(c) { d = Int(c - 0x30) }
            else if upper && c >= 0x41 && c <= 0x5A { d = Int(c - 0x41) + 10 }
            else if lower && c >= 0x61 && c <= 0x7A { d = Int(c - 0x61) + 10 }
            else { return nil }
            value = value * 36 + d
            i += 1
        }
        var p36 = 1, p10 = 1
        for _ in 0..<(width - 1) { p36 *= 36 }
        for _ in 0..<width { p10 *= 10 }
        value = value - 10 * p36 + p10
        if lower { value += 26 * p36 }
        return value
    }

    /// The blank-separated words of bytes `start..<end`.
    static func words(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> [String] {
        var out: [String] = []
        var i = start
        let e = min(end, b.count)
        while i < e {
            while i < e && isBlank(b[i]) { i += 1 }
            let w = i
            while i < e && !isBlank(b[i]) { i += 1 }
            if i > w { out.append(String(decoding: UnsafeBufferPointer(rebasing: b[w..<i]), as: UTF8.self)) }
        }
        return out
    }

    /// The text of bytes `start..<end` for messages, trimmed and shortened.
    static func text(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> String {
        var s = start, e = min(end, b.count, start + 80)
        // Trimmed as bytes (blanks, tabs and carriage returns are single bytes in UTF-8), then decoded once.
        while s < e && isBlank(b[s]) { s += 1 }
        while e > s && isBlank(b[e - 1]) { e -= 1 }
        guard s < e else { return "" }
        return String(decoding: UnsafeBufferPointer(rebasing: b[s..<e]), as: UTF8.self)
    }
}

extension Substring {
    /// Without leading and trailing blanks and tabs, looked at as UTF-8 bytes (Foundation's
    /// `trimmingCharacters(in: .whitespaces)` builds an NSString a call: a tenth of a PDB header's parse).
    var trimmedBlanks: Substring {
        let u = utf8
        var s = u.startIndex, e = u.endIndex
        while s < e, u[s] == 0x20 || u[s] == 0x09 { s = u.index(after: s) }
        while e > s, u[u.index(before: e)] == 0x20 || u[u.index(before: e)] == 0x09 { e = u.index(before: e) }
        return self[s..<e]
    }
}

extension String {
    func trimmingCharacters(in set: String) -> String {
        let chars = Set(set)
        var s = Substring(self)
        while let f = s.first, chars.contains(f) { s.removeFirst() }
        while let l = s.last, chars.contains(l) { s.removeLast() }
        return String(s)
    }
}

/// Walks the lines of a buffer; `\n` and `\r\n` end a line, and so does a lone `\r` in a
/// file that has no `\n` in its first 64 KiB (old Mac text). Over a buffer still being inflated
/// (`filling`), it waits for the bytes it needs and reads none past those inflated.
struct LineCursor {
    let bytes: UnsafeBufferPointer<UInt8>
    var position = 0
    private(set) var lineNumber = 0
    private let separator: Int32
    /// Bytes that may be read: all of them, or those of `filling` inflated so far.
    private var ready: Int
    private let filling: InflatingBytes?
    /// The byte that ends lines here (`\n`, or `\r` in old Mac text).
    var separatorByte: UInt8 { UInt8(separator) }

    /// Lines of a part of a buffer whose line ends are known (`separatorByte` of a cursor over the whole).
    init(_ bytes: UnsafeBufferPointer<UInt8>, separator: UInt8, filling: InflatingBytes? = nil) {
        self.bytes = bytes
        self.separator = Int32(separator)
        self.filling = filling
        ready = filling == nil ? bytes.count : 0
    }

    init(_ bytes: UnsafeBufferPointer<UInt8>, filling: InflatingBytes? = nil) {
        self.bytes = bytes
        self.filling = filling
        ready = filling?.wait(atLeast: min(bytes.count, 1 << 16)) ?? bytes.count
        let probe = min(ready, 1 << 16)
        if let base = bytes.baseAddress, probe > 0, memchr(base, 0x0A, probe) == nil, memchr(base, 0x0D, probe) != nil {
            separator = 0x0D
        } else {
            separator = 0x0A
        }
    }

    /// The next line as `start..<end` without its terminator, or nil at the end.
    @inline(__always)
    mutating func next() -> Range<Int>? {
        guard let base = bytes.baseAddress else { return nil }
        // (A window's reader may start past what has come.)
        while position >= ready { guard fill() else { return nil } }
        let start = position
        var searched = position
        var end: Int
        while true {
            if let hit = memchr(base + searched, separator, ready - searched) {
                end = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                position = end + 1
                break
            }
            searched = ready
            if !fill() {
                end = ready
                position = ready
                break
            }
        }
        if end > start && bytes[end - 1] == 0x0D { end -= 1 }
        lineNumber += 1
        return start..<end
    }

    /// Waits for more of a buffer being inflated; false where no more will come (or none is).
    @inline(never)
    private mutating func fill() -> Bool {
        guard let filling, ready < bytes.count else { return false }
        let now = filling.wait(beyond: ready)
        defer { ready = now }
        return now > ready
    }
}

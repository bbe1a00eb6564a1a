/// A name of up to eight ASCII bytes held in one integer: atom names, residue names and
/// chain ids compare and hash as numbers, and reading one allocates nothing.
/// Longer names keep their first eight bytes.
public struct ShortName: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let raw: UInt64

    public static let empty = ShortName(raw: 0)

    public init(raw: UInt64) { self.raw = raw }

    /// Bytes `start..<end` of `bytes` without surrounding blanks.
    @inlinable
    public init(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) {
        var s = start, e = min(end, bytes.count)
        while s < e && (bytes[s] == 0x20 || bytes[s] == 0x09) { s += 1 }
        while e > s && (bytes[e - 1] == 0x20 || bytes[e - 1] == 0x09) { e -= 1 }
        var value: UInt64 = 0
        var shift: UInt64 = 0
        var i = s
        while i < e && shift < 64 {
            value |= UInt64(bytes[i]) << shift
            shift += 8
            i += 1
        }
        raw = value
    }

    public init(_ string: some StringProtocol) {
        var copy = String(string)
        self = copy.withUTF8 { ShortName($0, 0, $0.count) }
    }

    public var isEmpty: Bool { raw == 0 }

    /// The name with ASCII a-z made A-Z, on the integer (no string made).
    public var uppercased: ShortName {
        var v = raw, out: UInt64 = 0, shift: UInt64 = 0
        while v != 0 {
            var b = UInt8(truncatingIfNeeded: v)
            if b >= 0x61 && b <= 0x7A { b -= 0x20 }
            out |= UInt64(b) << shift
            shift += 8
            v >>= 8
        }
        return ShortName(raw: out)
    }

    /// Whether the name starts with `prefix`'s bytes.
    public func hasPrefix(_ prefix: ShortName) -> Bool {
        let n = prefix.length
        guard n <= length else { return false }
        let mask: UInt64 = n >= 8 ? ~0 : (1 << (UInt64(n) * 8)) - 1
        return raw & mask == prefix.raw
    }

    public var length: Int { raw == 0 ? 0 : (64 - raw.leadingZeroBitCount + 7) / 8 }

    public func byte(_ i: Int) -> UInt8 { UInt8(truncatingIfNeeded: raw >> (UInt64(i) * 8)) }

    public var description: String {
        var bytes: [UInt8] = []
        var v = raw
        while v != 0 {
            bytes.append(UInt8(truncatingIfNeeded: v))
            v >>= 8
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    public static func < (a: ShortName, b: ShortName) -> Bool { a.description < b.description }
}

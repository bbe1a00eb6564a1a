/// The 64-bit FNV-1a hash: stable across runs, processes and machines (Swift's `Hasher` is
/// seeded per process), for content checksums and settings keys that name files.
public enum FNV1a {
    public static func hash<Bytes: Sequence>(_ bytes: Bytes) -> UInt64 where Bytes.Element == UInt8 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            h ^= UInt64(byte)
            h = h &* 0x0000_0100_0000_01B3
        }
        return h
    }

    /// `value` as `digits` lowercase hex digits, zero-padded.
    public static func hex(_ value: UInt64, digits: Int) -> String {
        let text = String(value, radix: 16)
        return text.count >= digits ? text : String(repeating: "0", count: digits - text.count) + text
    }
}

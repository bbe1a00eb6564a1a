import CDigest

/// SHA-256 (FIPS 180-4), for the service's token hashes (only hashes of tokens are kept on disk)
/// and the library's file identities. Whole blocks go through the CPU's SHA instructions where
/// it has them (`CDigest`), else through the loop below.
public enum SHA256 {
    public static func hash<S: Sequence>(_ input: S) -> [UInt8] where S.Element == UInt8 {
        if let digest = input.withContiguousStorageIfAvailable({ hash(bytes: $0) }) { return digest }
        return Array(input).withUnsafeBufferPointer { hash(bytes: $0) }
    }

    /// The whole blocks straight from the input, then the last with its padding and length; the
    /// schedule on the stack (a library import hashes every file it keeps).
    public static func hash(bytes input: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        hash(bytes: input, instructions: true)
    }

    /// `instructions` false keeps to the portable loop (the tests check both ways).
    static func hash(bytes input: UnsafeBufferPointer<UInt8>, instructions: Bool) -> [UInt8] {
        var h: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) =
            (0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19)
        @inline(__always) func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { x >> n | x << (32 - n) }
        // The round constants: CDigest's table, the one copy.
        let k = UnsafeBufferPointer(start: molshot_sha256_constants(), count: 64)
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
            func block(_ p: UnsafePointer<UInt8>) {
                for t in 0..<16 {
                    w[t] = UInt32(p[t * 4]) << 24 | UInt32(p[t * 4 + 1]) << 16 | UInt32(p[t * 4 + 2]) << 8 | UInt32(p[t * 4 + 3])
                }
                for t in 16..<64 {
                    let s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3)
                    let s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10)
                    w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
                }
                var (a, b, c, d, e, f, g, hh) = h
                for t in 0..<64 {
                    let t1 = hh &+ (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) &+ ((e & f) ^ (~e & g)) &+ k[t] &+ w[t]
                    let t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) &+ ((a & b) ^ (a & c) ^ (b & c))
                    (hh, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
                }
                h = (h.0 &+ a, h.1 &+ b, h.2 &+ c, h.3 &+ d, h.4 &+ e, h.5 &+ f, h.6 &+ g, h.7 &+ hh)
            }
            let whole = input.count / 64 * 64
            if let base = input.baseAddress, whole > 0, !(instructions && compressInstructions(&h, base, whole / 64)) {
                for chunk in stride(from: 0, to: whole, by: 64) { block(base + chunk) }
            }
            // The rest, 0x80, zeros, and the length in bits: one block or two.
            var tail = [UInt8](input[whole...])
            let bits = UInt64(input.count) * 8
            tail.append(0x80)
            while tail.count % 64 != 56 { tail.append(0) }
            for i in (0..<8).reversed() { tail.append(UInt8(truncatingIfNeeded: bits >> (UInt64(i) * 8))) }
            tail.withUnsafeBufferPointer { t in
                if !(instructions && compressInstructions(&h, t.baseAddress!, t.count / 64)) {
                    for chunk in stride(from: 0, to: t.count, by: 64) { block(t.baseAddress! + chunk) }
                }
            }
        }
        return [h.0, h.1, h.2, h.3, h.4, h.5, h.6, h.7].flatMap { v in (0..<4).map { UInt8(truncatingIfNeeded: v >> (24 - 8 * UInt32($0))) } }
    }

    /// Whether the CPU's SHA instructions compressed `blocks` blocks into `h` (else untouched).
    private static func compressInstructions(_ h: inout (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32),
                                             _ data: UnsafePointer<UInt8>, _ blocks: Int) -> Bool {
        return withUnsafeMutableBytes(of: &h) { state in
            molshot_sha256_blocks(state.baseAddress!.assumingMemoryBound(to: UInt32.self), data, blocks) == 1
        }
    }

    public static func hex<S: Sequence>(_ input: S) -> String where S.Element == UInt8 {
        // A megabyte takes milliseconds: no work for a thread that answers requests.
        if input.underestimatedCount > 1 << 20 { BlockingCheck.blocking("SHA256.hex of \(input.underestimatedCount) bytes") }
        return hash(input).map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }
}

import XCTest
@testable import Structure

/// The CIF tokenizer splits any text (blank space, comments, quotes, text fields, bytes outside
/// ASCII, the end of the text) as a plain byte-at-a-time reading of CIF's grammar does. (A scan
/// of eight bytes at a time was tried against this and measured slower on mmCIF's short tokens.)
final class CIFTokenizerTests: XCTestCase {
    /// A byte-at-a-time scan of the same grammar: where each token starts and ends, or nil at an
    /// error (an unclosed quote or text field).
    func reference(_ b: [UInt8]) -> [[Int]]? {
        func blank(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 }
        var out: [[Int]] = []
        var i = 0
        let n = b.count
        while true {
            while i < n {
                if blank(b[i]) { i += 1; continue }
                if b[i] == 0x23 { while i < n && b[i] != 0x0A { i += 1 }; continue }
                break
            }
            if i >= n { return out }
            let c = b[i]
            if c == 0x3B && (i == 0 || b[i - 1] == 0x0A || b[i - 1] == 0x0D) {
                var j = i + 1
                while true {
                    while j < n && b[j] != 0x0A { j += 1 }
                    if j >= n { return nil }
                    if j + 1 < n && b[j + 1] == 0x3B {
                        var end = j
                        if end > i + 1 && b[end - 1] == 0x0D { end -= 1 }
                        out.append([i + 1, end, 1]); i = j + 2; break
                    }
                    j += 1
                }
                continue
            }
            if c == 0x27 || c == 0x22 {
                var j = i + 1
                while j < n {
                    if b[j] == c && (j + 1 == n || blank(b[j + 1])) { break }
                    if b[j] == 0x0A { return nil }
                    j += 1
                }
                if j >= n { return nil }
                out.append([i + 1, j, 1]); i = j + 1
                continue
            }
            var j = i + 1
            while j < n && !blank(b[j]) { j += 1 }
            out.append([i, j, 0]); i = j
        }
    }

    func tokens(_ b: [UInt8]) -> [[Int]]? {
        b.withUnsafeBufferPointer { p -> [[Int]]? in
            var t = CIFTokenizer(p, source: "test.cif")
            var out: [[Int]] = []
            do {
                while let token = try t.next() { out.append([token.start, token.end, token.quoted ? 1 : 0]) }
            } catch { return nil }
            return out
        }
    }

    func testTokensAreWhereTheGrammarPutsThem() {
        let alphabet: [UInt8] = Array(" \t\n\r#_.?1aZ';\"".utf8) + [0x0B, 0x0C, 0x00, 0xC3, 0xA9, 0x80]
        var random = SystemRandomNumberGenerator()
        for round in 0..<3_000 {
            let length = round < 200 ? round % 40 : Int.random(in: 0...300, using: &random)
            // Runs of one byte (padded columns, long values) as well as single bytes.
            var text: [UInt8] = []
            while text.count < length {
                let c = alphabet.randomElement(using: &random)!
                text += [UInt8](repeating: c, count: Bool.random(using: &random) ? 1 : Int.random(in: 1...12, using: &random))
            }
            text = Array(text.prefix(length))
            XCTAssertEqual(tokens(text).map { $0.map { $0 } }, reference(text).map { $0.map { $0 } }, "text \(text)")
        }
        let row = Array("ATOM   1      N  N   . MET A 1 1   ? 25.393  -4.277  26.012 1.00 47.82 ? 1   MET A N   1 \n".utf8)
        XCTAssertEqual(tokens(row)?.count, 21)
        XCTAssertEqual(tokens(row).map { $0.map { $0 } }, reference(row).map { $0.map { $0 } })
    }
}

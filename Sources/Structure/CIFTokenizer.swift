/// Splits CIF text into tokens in place: each token is a byte range, quotes already removed.
/// Handles comments, 'single' and "double" quoted values (a quote closes only before blank
/// space), and ;-delimited multi-line text fields.
struct CIFTokenizer {
    enum Kind { case tag, value, loop, dataBlock, saveFrame, stop }

    struct Token {
        var kind: Kind
        var start: Int
        var end: Int
        /// The value was quoted or a text field, so `.` and `?` are literal.
        var quoted: Bool
    }

    let bytes: UnsafeBufferPointer<UInt8>
    let source: String
    private(set) var position = 0
    /// Line number of `position`, counted lazily by `line(at:)`.
    private var countedTo = 0
    private var countedLines = 1

    init(_ bytes: UnsafeBufferPointer<UInt8>, source: String) {
        self.bytes = bytes
        self.source = source
    }

    /// The 1-based line of byte offset `offset`; cheap when asked in increasing order.
    mutating func line(at offset: Int) -> Int {
        if offset < countedTo { countedTo = 0; countedLines = 1 }
        var i = countedTo
        while i < offset && i < bytes.count {
            if bytes[i] == 0x0A { countedLines += 1 }
            i += 1
        }
        countedTo = i
        return countedLines
    }

    @inline(__always)
    private static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 }

    @inline(__always)
    mutating func next() throws -> Token? {
        let b = bytes
        let n = b.count
        var i = position
        // Skip blank space and comments.
        while i < n {
            let c = b[i]
            if CIFTokenizer.isSpace(c) { i += 1; continue }
            if c == 0x23 {  // #
                while i < n && b[i] != 0x0A { i += 1 }
                continue
            }
            break
        }
        guard i < n else { position = n; return nil }
        let c = b[i]
        if c == 0x3B && (i == 0 || b[i - 1] == 0x0A || b[i - 1] == 0x0D) {  // ; at line start
            let start = i + 1
            var j = start
            while true {
                while j < n && b[j] != 0x0A { j += 1 }
                guard j < n else {
                    throw StructureError(file: source, line: line(at: i), message: "text field opened with ';' is never closed")
                }
                if j + 1 < n && b[j + 1] == 0x3B {
                    var end = j
                    if end > start && b[end - 1] == 0x0D { end -= 1 }
                    position = j + 2
                    return Token(kind: .value, start: start, end: end, quoted: true)
                }
                j += 1
            }
        }
        if c == 0x27 || c == 0x22 {  // ' or "
            var j = i + 1
            while j < n {
                if b[j] == c && (j + 1 == n || CIFTokenizer.isSpace(b[j + 1])) { break }
                if b[j] == 0x0A {
                    throw StructureError(file: source, line: line(at: i), message: "quoted value is not closed on its line")
                }
                j += 1
            }
            guard j < n else {
                throw StructureError(file: source, line: line(at: i), message: "quoted value is not closed")
            }
            position = j + 1
            return Token(kind: .value, start: i + 1, end: j, quoted: true)
        }
        var j = i + 1
        while j < n && !CIFTokenizer.isSpace(b[j]) { j += 1 }
        position = j
        if c == 0x5F { return Token(kind: .tag, start: i, end: j, quoted: false) }  // _
        let length = j - i
        if length >= 5 {
            let l0 = b[i] | 0x20, l1 = b[i + 1] | 0x20, l2 = b[i + 2] | 0x20, l3 = b[i + 3] | 0x20, l4 = b[i + 4]
            if l0 == 0x6C && l1 == 0x6F && l2 == 0x6F && l3 == 0x70 && l4 == 0x5F && length == 5 { return Token(kind: .loop, start: i, end: j, quoted: false) }
            if l0 == 0x64 && l1 == 0x61 && l2 == 0x74 && l3 == 0x61 && l4 == 0x5F { return Token(kind: .dataBlock, start: i, end: j, quoted: false) }
            if l0 == 0x73 && l1 == 0x61 && l2 == 0x76 && l3 == 0x65 && l4 == 0x5F { return Token(kind: .saveFrame, start: i, end: j, quoted: false) }
            if l0 == 0x73 && l1 == 0x74 && l2 == 0x6F && l3 == 0x70 && l4 == 0x5F && length == 5 { return Token(kind: .stop, start: i, end: j, quoted: false) }
        }
        return Token(kind: .value, start: i, end: j, quoted: false)
    }

    /// The token's text, lower-cased when it is a tag (CIF tags are case-insensitive).
    func text(_ t: Token) -> String {
        let s = String(decoding: UnsafeBufferPointer(rebasing: bytes[t.start..<t.end]), as: UTF8.self)
        return t.kind == .tag ? s.lowercased() : s
    }

    /// True for `.` (inapplicable) and `?` (unknown) written bare.
    @inline(__always)
    func isNull(_ t: Token) -> Bool {
        !t.quoted && t.end - t.start == 1 && (bytes[t.start] == 0x2E || bytes[t.start] == 0x3F)
    }
}

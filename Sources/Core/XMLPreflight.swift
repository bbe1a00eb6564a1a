/// What an XML document must not hold before Foundation's parser reads it. On Linux that parser
/// reads as C strings what libxml2 hands it as NULL and ends the process (found by fuzzing the
/// EMDB header reader, then confirmed on every XML reader): a processing instruction with no data
/// (`<?x?>`), and among a DOCTYPE's own declarations an attribute list without a default
/// (`#IMPLIED`, `#REQUIRED`), a notation without a public id, an unparsed entity (`NDATA`), each
/// also reachable through an entity. libxml2 runs there in recovery mode, reading on past what is
/// broken, so the check assumes no structure: every `<?` whose target ends at `?>` is given a space
/// (libxml2 then hands over empty data; no line moves), and a document that writes `<!ATTLIST`,
/// `<!NOTATION` or `<!ENTITY` anywhere is refused at its first (without a declared entity nothing
/// can expand into one). No map format or EMDB header declares any of them.
///
/// A start tag with more than `maxAttributes` attributes is refused too: libxml2 looks for a
/// repeated name among an element's attributes by comparing each with those before it, so
/// 250,000 attributes on one element took minutes (80,000, 4.7 s; 160,000, 17 s). The count is
/// made here in one pass, each byte looked at by one tag's count at most.
public enum XMLPreflight {
    /// Attributes one element may have: real maps and headers have a few dozen at most.
    public static let maxAttributes = 1024

    public struct Refusal: Error, Sendable, Equatable {
        /// The 1-based line of the declaration.
        public var line: Int
        public var message: String
    }

    public enum Outcome: Sendable, Equatable {
        /// Safe as it is.
        case unchanged
        /// Safe once given these bytes instead (the same lines).
        case changed([UInt8])
        case refused(Refusal)
    }

    public static func check(_ bytes: UnsafeRawBufferPointer) -> Outcome {
        let b = bytes.bindMemory(to: UInt8.self)
        let n = b.count
        @inline(__always) func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }
        @inline(__always) func opens(_ text: StaticString, at i: Int) -> Bool {
            let count = text.utf8CodeUnitCount
            guard n - i >= count else { return false }
            let p = text.utf8Start
            for k in 0..<count where b[i + k] != p[k] { return false }
            return true
        }
        func line(at end: Int) -> Int {
            var line = 1
            for k in 0..<end where b[k] == 0x0A { line += 1 }
            return line
        }
        var spaces: [Int] = []
        var i = 0
        while i + 1 < n {
            guard b[i] == 0x3C else { i += 1; continue }  // <
            let next = b[i + 1]
            if next != 0x3F && next != 0x21 && next != 0x2F {  // not ? ! /: a start tag
                // Its attributes: each `=` outside quoted values, up to the tag's end or the next
                // `<` (which no attribute value holds), so that each byte is looked at by one
                // tag's count at most; the loop then goes on from the next byte as before, and
                // sees every `<` (a tag inside a comment counts too, harmlessly).
                var j = i + 1, attributes = 0, quote: UInt8 = 0
                while j < n {
                    let c = b[j]
                    if c == 0x3C { break }  // <
                    if quote != 0 {
                        if c == quote { quote = 0 }
                    } else if c == 0x22 || c == 0x27 {  // " '
                        quote = c
                    } else if c == 0x3D {  // =
                        attributes += 1
                    } else if c == 0x3E {  // >
                        break
                    }
                    j += 1
                }
                if attributes > maxAttributes {
                    return .refused(Refusal(line: line(at: i), message: "an element has more than \(maxAttributes) attributes (XML attributes), "
                        + "which no map format or EMDB header has"))
                }
            }
            if next == 0x3F {  // ?
                var j = i + 2
                while j < n && !isSpace(b[j]) && b[j] != 0x3F && b[j] != 0x3C && b[j] != 0x3E { j += 1 }  // ? < >
                if j > i + 2 && opens("?>", at: j) { spaces.append(j) }
            } else if next == 0x21 {  // !
                for keyword: StaticString in ["<!ATTLIST", "<!NOTATION", "<!ENTITY"] where opens(keyword, at: i) {
                    let line = line(at: i)
                    let name = String(decoding: UnsafeRawBufferPointer(start: keyword.utf8Start + 2, count: keyword.utf8CodeUnitCount - 2), as: UTF8.self)
                    return .refused(Refusal(line: line, message: "it declares an \(name) (a DOCTYPE's own declaration), which is not read: "
                        + "no map format or EMDB header needs one, and Foundation's XML parser ends the process on some"))
                }
            }
            i += 1
        }
        guard !spaces.isEmpty else { return .unchanged }
        var out: [UInt8] = []
        out.reserveCapacity(n + spaces.count)
        var from = 0
        for at in spaces {
            out.append(contentsOf: UnsafeBufferPointer(rebasing: b[from..<at]))
            out.append(0x20)
            from = at
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: b[from..<n]))
        return .changed(out)
    }
}

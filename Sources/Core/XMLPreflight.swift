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
public enum XMLPreflight {
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
        var spaces: [Int] = []
        var i = 0
        while i + 1 < n {
            guard b[i] == 0x3C else { i += 1; continue }  // <
            if b[i + 1] == 0x3F {  // ?
                var j = i + 2
                while j < n && !isSpace(b[j]) && b[j] != 0x3F && b[j] != 0x3C && b[j] != 0x3E { j += 1 }  // ? < >
                if j > i + 2 && opens("?>", at: j) { spaces.append(j) }
            } else if b[i + 1] == 0x21 {  // !
                for keyword: StaticString in ["<!ATTLIST", "<!NOTATION", "<!ENTITY"] where opens(keyword, at: i) {
                    var line = 1
                    for k in 0..<i where b[k] == 0x0A { line += 1 }
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

/// What an XML document must not hold before Foundation's parser reads it. On Linux that parser
/// reads as C strings what libxml2 hands it as NULL and ends the process (found by fuzzing the
/// EMDB header reader, then confirmed on every XML reader): a processing instruction with no data
/// (`<?x?>`), and in a DOCTYPE's own declarations an attribute list without a default (`#IMPLIED`,
/// `#REQUIRED`), a notation without a public id, an unparsed entity (`NDATA`), each also reachable
/// through entities the subset declares. So a processing instruction that ends at its target is
/// given a space (libxml2 then hands over empty data; no line moves), and a DOCTYPE with an
/// internal subset (`[...]`) is refused: no map format or EMDB header needs one, and it is also
/// where entity expansion is.
public enum XMLPreflight {
    public struct Refusal: Error, Sendable, Equatable {
        /// The 1-based line of the DOCTYPE.
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
        /// The index just past the first `end` at or after `from`, or `n`.
        func past(_ end: StaticString, from: Int) -> Int {
            var j = from
            while j < n {
                if b[j] == end.utf8Start[0] && opens(end, at: j) { return j + end.utf8CodeUnitCount }
                j += 1
            }
            return n
        }
        var spaces: [Int] = []
        var i = 0
        while i < n {
            guard b[i] == 0x3C else { i += 1; continue }  // <
            if opens("<!--", at: i) {
                i = past("-->", from: i + 4)
            } else if opens("<![CDATA[", at: i) {
                i = past("]]>", from: i + 9)
            } else if opens("<?", at: i) {
                var j = i + 2
                while j < n && !isSpace(b[j]) && b[j] != 0x3F { j += 1 }  // ?
                if j > i + 2 && opens("?>", at: j) { spaces.append(j) }
                i = past("?>", from: j)
            } else if opens("<!DOCTYPE", at: i) {
                var j = i + 9
                var quote: UInt8 = 0
                while j < n {
                    let c = b[j]
                    if quote != 0 {
                        if c == quote { quote = 0 }
                    } else if c == 0x22 || c == 0x27 {
                        quote = c
                    } else if c == 0x5B {  // [
                        var line = 1
                        for k in 0..<i where b[k] == 0x0A { line += 1 }
                        return .refused(Refusal(line: line, message: "its DOCTYPE declares things of its own ([...]), which is not read: "
                            + "no map format or EMDB header needs that, and Foundation's XML parser ends the process on some of them"))
                    } else if c == 0x3E {  // >
                        break
                    }
                    j += 1
                }
                i = j + 1
            } else {
                i += 1
            }
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

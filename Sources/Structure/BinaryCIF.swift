import Core
import Foundation

/// Reads BinaryCIF (the format the RCSB's and PDBe's model servers serve): a MessagePack
/// document of data blocks, categories and columns, each column's bytes undone through its
/// encodings in reverse (ByteArray, FixedPoint, IntervalQuantization, RunLength, Delta,
/// IntegerPacking, StringArray). The first data block is read straight into the model
/// (`BinaryCIFReader.swift`), assembled by `MMCIFReader`'s code as a text file's is.
///
/// Nothing a file states is taken on its word: the MessagePack document is walked in place by
/// a cursor (no tree of boxed values, so a document of millions of tiny values costs no memory),
/// every length is checked against the bytes left, and every value decoded, at every step of
/// every column, is counted against a budget set by the file's size (`valueBudget`) before the
/// step allocates. Arithmetic on the file's numbers wraps or is checked; it never traps.
public enum BinaryCIF {
    /// Whether `bytes` start as a BinaryCIF document: a MessagePack map naming `dataBlocks` near its start.
    public static func looksLike(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = b.first, (0x80...0x8F).contains(first) || first == 0xDE || first == 0xDF else { return false }
        let key = Array("dataBlocks".utf8)
        let n = min(b.count, 512)
        guard n >= key.count else { return false }
        for i in 0...(n - key.count) where b[i] == key[0] {
            var k = 1
            while k < key.count && b[i + k] == key[k] { k += 1 }
            if k == key.count { return true }
        }
        return false
    }

    /// Values a document of `bytes` bytes may decode in all, counting every encoding step of
    /// every column: 16 a byte, and 8 million at least. Real files decode one or two values a
    /// byte (Mol*'s encoder, biotite, python-mmcif); run-length columns are what may go past.
    public static func valueBudget(bytes: Int) -> Int {
        let (scaled, over) = bytes.multipliedReportingOverflow(by: 16)
        return over ? Int.max : max(1 << 23, scaled)
    }

    static func fail(_ source: String, _ message: String) -> StructureError {
        StructureError(file: source, line: nil, message: "BinaryCIF: " + message)
    }

    /// A category's name, with its leading `_` (its first key, as encoders write it: found without
    /// walking its columns).
    static func categoryName(_ category: MessagePack.Item, _ doc: MessagePack) throws -> String {
        guard category.kind == .map, let nameItem = try doc.lookup(category, "name"), nameItem.kind == .string else {
            throw fail(doc.source, "a category without name or columns")
        }
        let name = doc.string(nameItem)
        return name.hasPrefix("_") ? name : "_" + name
    }

    /// A category's name, row count and columns, in one walk of its map.
    static func categoryHead(_ category: MessagePack.Item, _ doc: MessagePack) throws -> (name: String, rows: Int, columns: MessagePack.Item) {
        let source = doc.source
        var name: String?, rows: Int?, columns: MessagePack.Item?
        try doc.forEachPair(category) { key, value in
            switch key {
            case "name" where value.kind == .string: name = doc.string(value)
            case "rowCount": rows = value.int
            case "columns" where value.kind == .array: columns = value
            default: break
            }
        }
        guard category.kind == .map, var name, let columns else { throw fail(source, "a category without name or columns") }
        guard let rows, rows >= 0 else { throw fail(source, "category \(Excerpt.of(name, length: 40)) has no rowCount") }
        if !name.hasPrefix("_") { name = "_" + name }
        return (name, rows, columns)
    }

    /// A category's columns decoded (those `wanted` names, lower case, or all), each checked to
    /// hold a value a row; nil for a category of no rows or columns.
    static func decodeCategory(_ category: MessagePack.Item, _ doc: MessagePack, _ budget: inout Budget,
                               wanted: Set<String>?) throws -> (name: String, rows: Int, columns: [(String, Column)])? {
        let source = doc.source
        let (name, rows, columns) = try categoryHead(category, doc)
        guard rows > 0, columns.count > 0 else { return nil }
        // Every column decodes `rows` values at least: refused before any is decoded when that passes the budget.
        let (cells, over) = rows.multipliedReportingOverflow(by: columns.count)
        guard !over, cells <= budget.left else {
            throw fail(source, "category \(Excerpt.of(name, length: 40)) declares \(rows) rows of \(columns.count) columns, more than the \(budget.total) values allowed for a file of \(doc.b.count) bytes")
        }
        var decoded: [(String, Column)] = []
        try doc.forEach(columns) { column in
            guard column.kind == .map, let colNameItem = try doc.lookup(column, "name"), colNameItem.kind == .string,
                  let data = try doc.lookup(column, "data") else {
                throw fail(source, "a column of \(Excerpt.of(name, length: 40)) without name or data")
            }
            let colName = doc.string(colNameItem)
            if let wanted, !wanted.contains(colName.lowercased()) { return }
            let context = "\(name).\(colName)"
            let values = try Decoder(doc: doc, count: rows, context: context).decode(data, &budget)
            var mask: [Int]? = nil
            if let m = try doc.lookup(column, "mask"), m.kind != .null {
                guard case .ints(let ints) = try Decoder(doc: doc, count: rows, context: context + " mask").decode(m, &budget) else {
                    throw fail(source, "\(Excerpt.of(context, length: 60)): mask is not integers")
                }
                mask = ints
            }
            guard values.count == rows, mask.map({ $0.count == rows }) ?? true else {
                throw fail(source, "\(Excerpt.of(context, length: 60)) holds \(values.count) values for \(rows) rows")
            }
            decoded.append((colName, Column(values: values, mask: mask)))
        }
        return (name, rows, decoded)
    }

    /// Values still to be decoded from this file; each step takes its output's count before it allocates.
    struct Budget {
        var left: Int
        let total: Int
        let source: String
        init(left: Int, source: String) {
            self.left = left
            total = left
            self.source = source
        }
        mutating func take(_ n: Int, _ context: String) throws {
            guard n >= 0, n <= left else {
                throw BinaryCIF.fail(source, "\(Excerpt.of(context, length: 60)): decoding \(n) more values passes the \(total) allowed for a file of this size")
            }
            left -= n
        }
    }

    enum Values {
        /// A binary's bytes in the document, not yet decoded.
        case raw(UnsafeBufferPointer<UInt8>)
        case ints([Int])
        case doubles([Double])
        /// A string array as stored: each row an index into the distinct strings (below 0: empty).
        case indexed([String], [Int])
        var count: Int {
            switch self {
            case .raw(let v): return v.count
            case .ints(let v): return v.count
            case .doubles(let v): return v.count
            case .indexed(_, let v): return v.count
            }
        }
    }

    struct Column {
        var values: Values
        var mask: [Int]?
        /// A number as CIF writes it: a whole one without its decimal point.
        static func text(of d: Double) -> String {
            d == d.rounded() && abs(d) < 1e15 ? String(Int(d)) : d.description
        }

        /// Row `r` as CIF writes it (`.` and `?` where masked), strings unquoted.
        func text(_ r: Int) -> String {
            if let mask, mask[r] != 0 { return mask[r] == 1 ? "." : "?" }
            switch values {
            case .ints(let v): return String(v[r])
            case .doubles(let v): return Column.text(of: v[r])
            case .indexed(let strings, let v): return v[r] < 0 ? "" : strings[v[r]]
            case .raw(let v): return String(v[r])
            }
        }
    }

    /// One encoding step as the file states it (a map of `kind` and its parameters).
    struct Encoding {
        var kind = ""
        var type: Int?, srcSize: Int?, origin: Int?, byteCount: Int?, numSteps: Int?
        var isUnsigned = false
        var factor: Double?, min: Double?, max: Double?
        var stringData: MessagePack.Item?, offsets: MessagePack.Item?, dataEncoding: MessagePack.Item?, offsetEncoding: MessagePack.Item?

        init(_ map: MessagePack.Item, _ doc: MessagePack) throws {
            try doc.forEachPair(map) { key, value in
                switch key {
                case "kind": if value.kind == .string { kind = doc.string(value) }
                case "type": type = value.int
                case "srcSize": srcSize = value.int
                // ModelServer 0.9.9 writes some origins as text ("259").
                case "origin": origin = value.int ?? (value.kind == .string ? Int(doc.string(value)) : nil)
                case "byteCount": byteCount = value.int
                case "numSteps": numSteps = value.int
                case "isUnsigned": isUnsigned = value.kind == .bool && value.bool
                case "factor": factor = value.double
                case "min": min = value.double
                case "max": max = value.double
                case "stringData": stringData = value
                case "offsets": offsets = value
                case "dataEncoding": dataEncoding = value
                case "offsetEncoding": offsetEncoding = value
                default: break
                }
            }
        }
    }

    /// Undoes a column's encodings, last first, checking each declared size against `count` and
    /// each step's output against the file's budget before allocating it.
    struct Decoder {
        let doc: MessagePack
        let count: Int
        let context: String

        func fail(_ message: String) -> StructureError { BinaryCIF.fail(doc.source, "\(Excerpt.of(context, length: 60)): \(message)") }

        func decode(_ data: MessagePack.Item, _ budget: inout Budget) throws -> Values {
            guard data.kind == .map, let bytes = try doc.lookup(data, "data"), bytes.kind == .binary,
                  let encodings = try doc.lookup(data, "encoding"), encodings.kind == .array else {
                throw fail("data is not {data, encoding}")
            }
            return try undo(.raw(doc.bytes(bytes)), encodings, &budget, depth: 0)
        }

        func undo(_ start: Values, _ encodings: MessagePack.Item, _ budget: inout Budget, depth: Int) throws -> Values {
            guard encodings.kind == .array else { throw fail("an encoding list that is not a list") }
            guard encodings.count <= 16 else { throw fail("more than 16 encodings") }
            // A StringArray's indices and offsets have encodings of their own, which could hold another: two levels at most.
            guard depth <= 2 else { throw fail("string arrays nested more than twice") }
            var steps: [Encoding] = []
            try doc.forEach(encodings) { e in
                guard e.kind == .map else { throw fail("an encoding that is not a map") }
                let step = try Encoding(e, doc)
                guard !step.kind.isEmpty else { throw fail("an encoding without kind") }
                steps.append(step)
            }
            var v = start
            let order = Array(steps.reversed())
            for (k, step) in order.enumerated() {
                // ModelServer 0.9.9 ends a column with an extra ByteArray of unsigned bytes (type 4)
                // after the real one; Mol*'s decoder reads the same bytes through both, so the
                // extra one is passed over.
                if step.kind == "ByteArray", step.type == 4, k + 1 < order.count, order[k + 1].kind == "ByteArray" { continue }
                v = try apply(step, v, &budget, depth: depth)
            }
            // Bytes never decoded (no ByteArray step) are read as unsigned integers.
            if case .raw(let bytes) = v {
                try budget.take(bytes.count, context)
                v = .ints(bytes.map { Int($0) })
            }
            return v
        }

        /// Most values a run-length or packed step may produce: the rows, or for a string array's offsets one more (and slack).
        func checkSize(_ n: Int) throws {
            let bound = count <= (Int.max - 16) / 2 ? count * 2 + 16 : Int.max
            guard n >= 0, n <= bound else { throw fail("declares \(n) values for \(count) rows") }
        }

        func apply(_ e: Encoding, _ v: Values, _ budget: inout Budget, depth: Int) throws -> Values {
            switch e.kind {
            case "ByteArray":
                guard case .raw(let b) = v, let type = e.type else { throw fail("ByteArray of what is not bytes") }
                return try byteArray(b, type: type, &budget)
            case "FixedPoint":
                guard case .ints(let ints) = v, let factor = e.factor, factor != 0, factor.isFinite else { throw fail("FixedPoint without integers or factor") }
                try budget.take(ints.count, context)
                return .doubles(ints.map { Double($0) / factor })
            case "IntervalQuantization":
                guard case .ints(let ints) = v, let lo = e.min, let hi = e.max, let steps = e.numSteps, steps >= 2,
                      lo.isFinite, hi.isFinite else { throw fail("IntervalQuantization without min, max, numSteps") }
                try budget.take(ints.count, context)
                let delta = (hi - lo) / Double(steps - 1)
                return .doubles(ints.map { lo + Double($0) * delta })
            case "RunLength":
                guard case .ints(let ints) = v, ints.count % 2 == 0, let size = e.srcSize else { throw fail("RunLength of an odd list or without srcSize") }
                try checkSize(size)
                try budget.take(size, context)
                var out: [Int] = []
                out.reserveCapacity(size)
                var i = 0
                while i < ints.count {
                    let n = ints[i + 1]
                    guard n >= 0, n <= size - out.count else { throw fail("RunLength runs past srcSize \(size)") }
                    out.append(contentsOf: repeatElement(ints[i], count: n))
                    i += 2
                }
                guard out.count == size else { throw fail("RunLength gives \(out.count) values, srcSize says \(size)") }
                return .ints(out)
            case "Delta":
                guard case .ints(let ints) = v, let origin = e.origin else { throw fail("Delta without integers or origin") }
                try budget.take(ints.count, context)
                var out = [Int](repeating: 0, count: ints.count)
                var acc = origin
                for (i, d) in ints.enumerated() {
                    acc = i == 0 ? origin &+ d : acc &+ d
                    out[i] = acc
                }
                return .ints(out)
            case "IntegerPacking":
                guard case .ints(let ints) = v, let byteCount = e.byteCount, [1, 2].contains(byteCount), let size = e.srcSize else {
                    throw fail("IntegerPacking without byteCount 1 or 2 and srcSize")
                }
                try checkSize(size)
                try budget.take(size, context)
                let upper = e.isUnsigned ? (byteCount == 1 ? 0xFF : 0xFFFF) : (byteCount == 1 ? 0x7F : 0x7FFF)
                let lower = e.isUnsigned ? Int.min : (byteCount == 1 ? -0x80 : -0x8000)
                var out: [Int] = []
                out.reserveCapacity(size)
                var i = 0
                while i < ints.count {
                    var value = 0
                    var t = ints[i]
                    while t == upper || t == lower {
                        value &+= t
                        i += 1
                        guard i < ints.count else { throw fail("IntegerPacking ends inside a value") }
                        t = ints[i]
                    }
                    value &+= t
                    i += 1
                    guard out.count < size else { throw fail("IntegerPacking gives more than srcSize \(size)") }
                    out.append(value)
                }
                guard out.count == size else { throw fail("IntegerPacking gives \(out.count) values, srcSize says \(size)") }
                return .ints(out)
            case "StringArray":
                guard let textItem = e.stringData, textItem.kind == .string, let dataEncoding = e.dataEncoding, let offsetEncoding = e.offsetEncoding,
                      let offsetItem = e.offsets, offsetItem.kind == .binary, case .raw(let b) = v else {
                    throw fail("StringArray without stringData, offsets and their encodings")
                }
                guard case .ints(let offsets) = try undo(.raw(doc.bytes(offsetItem)), offsetEncoding, &budget, depth: depth + 1),
                      case .ints(let indices) = try undo(.raw(b), dataEncoding, &budget, depth: depth + 1) else {
                    throw fail("StringArray offsets or indices are not integers")
                }
                let text = doc.bytes(textItem)
                // Offsets [0, 0] over an empty text are one empty string: Mol*'s encoder writes a column of
                // `?` that way (index 0, masked), so the strings may outnumber the text's bytes.
                guard let first = offsets.first, let last = offsets.last, first >= 0, last <= text.count,
                      zip(offsets, offsets.dropFirst()).allSatisfy({ $0 <= $1 }) else { throw fail("StringArray offsets out of order or past the text") }
                try budget.take(offsets.count - 1 + indices.count, context)
                var strings: [String] = []
                strings.reserveCapacity(offsets.count - 1)
                for k in 0..<(offsets.count - 1) {
                    strings.append(String(decoding: UnsafeBufferPointer(rebasing: text[offsets[k]..<offsets[k + 1]]), as: UTF8.self))
                }
                if let bad = indices.first(where: { $0 >= strings.count }) {
                    throw fail("StringArray index \(bad) past its \(strings.count) strings")
                }
                return .indexed(strings, indices)
            default:
                throw fail("unknown encoding \(Excerpt.of(e.kind, length: 40))")
            }
        }

        func byteArray(_ b: UnsafeBufferPointer<UInt8>, type: Int, _ budget: inout Budget) throws -> Values {
            let size: Int
            switch type {
            case 1, 4: size = 1
            case 2, 5: size = 2
            case 3, 6, 32: size = 4
            case 33: size = 8
            default: throw fail("ByteArray of unknown type \(type)")
            }
            guard b.count % size == 0 else { throw fail("ByteArray of \(b.count) bytes is not whole values of \(size)") }
            let n = b.count / size
            try budget.take(n, context)
            func le(_ i: Int) -> UInt64 {
                var v: UInt64 = 0
                for k in 0..<size { v |= UInt64(b[i * size + k]) << (8 * UInt64(k)) }
                return v
            }
            switch type {
            case 1: return .ints((0..<n).map { Int(Int8(bitPattern: UInt8(truncatingIfNeeded: le($0)))) })
            case 2: return .ints((0..<n).map { Int(Int16(bitPattern: UInt16(truncatingIfNeeded: le($0)))) })
            case 3: return .ints((0..<n).map { Int(Int32(bitPattern: UInt32(truncatingIfNeeded: le($0)))) })
            case 4, 5, 6: return .ints((0..<n).map { Int(le($0)) })
            case 32: return .doubles((0..<n).map { Double(Float(bitPattern: UInt32(truncatingIfNeeded: le($0)))) })
            default: return .doubles((0..<n).map { Double(bitPattern: le($0)) })
            }
        }
    }
}

/// A MessagePack document read in place: `item(at:)` reads one value's head (its kind, and where
/// its payload lies), `skip` finds where a value ends without building it, maps are searched by
/// key and arrays walked element by element. Nothing is boxed, so memory does not grow with the
/// number of values, and nesting costs no stack (`skip` counts what is left, it does not recurse).
/// Every length is checked against the bytes left; extension types are refused.
struct MessagePack {
    enum Kind { case null, bool, int, double, string, binary, array, map }

    /// A value's head. For text and binary `start..<start+count` are its bytes; for an array
    /// or a map `start` is its first element and `count` its elements (pairs for a map).
    struct Item {
        var kind: Kind
        var start: Int
        var count = 0
        /// Where the value ends, for every kind but arrays and maps (see `skip`).
        var next: Int
        var integer = 0
        var real = 0.0
        var bool = false

        var int: Int? {
            switch kind {
            case .int: return integer
            case .double where real == real.rounded() && abs(real) < 1e15: return Int(real)
            default: return nil
            }
        }
        var double: Double? {
            switch kind {
            case .int: return Double(integer)
            case .double: return real
            default: return nil
            }
        }
    }

    let b: UnsafeBufferPointer<UInt8>
    let source: String

    init(_ b: UnsafeBufferPointer<UInt8>, source: String) {
        self.b = b
        self.source = source
    }

    func fail(_ at: Int, _ message: String) -> StructureError { BinaryCIF.fail(source, "at byte \(at): \(message)") }

    /// The `n`-byte big-endian number at `at`.
    func uint(_ at: Int, _ n: Int) throws -> UInt64 {
        guard at >= 0, n <= b.count - at else { throw fail(at, "declares \(n) bytes, \(max(0, b.count - at)) are left (truncated?)") }
        var v: UInt64 = 0
        for i in 0..<n { v = v << 8 | UInt64(b[at + i]) }
        return v
    }

    /// The head of the value at `at`.
    func item(at: Int) throws -> Item {
        let t = try uint(at, 1)
        let p = at + 1
        func number(_ n: Int, _ make: (UInt64) throws -> Item) throws -> Item { try make(try uint(p, n)) }
        func int(_ v: Int, _ width: Int) -> Item { Item(kind: .int, start: p, next: p + width, integer: v) }
        func sized(_ kind: Kind, lengthBytes: Int) throws -> Item {
            let n = Int(try uint(p, lengthBytes))
            let start = p + lengthBytes
            guard n <= b.count - start else { throw fail(at, "declares \(n) bytes, \(b.count - start) are left (truncated?)") }
            return Item(kind: kind, start: start, count: n, next: start + n)
        }
        func container(_ kind: Kind, _ n: Int, _ start: Int) throws -> Item {
            // Each element takes a byte at least: a count past the bytes left is a lie.
            let left = b.count - start
            guard kind == .array ? n <= left : n <= left / 2 else { throw fail(at, "\(kind == .array ? "an array" : "a map") of \(n) in \(left) bytes") }
            return Item(kind: kind, start: start, count: n, next: start)
        }
        switch t {
        case 0x00...0x7F: return int(Int(t), 0)
        case 0xE0...0xFF: return int(Int(Int8(bitPattern: UInt8(t))), 0)
        case 0x80...0x8F: return try container(.map, Int(t & 0x0F), p)
        case 0x90...0x9F: return try container(.array, Int(t & 0x0F), p)
        case 0xA0...0xBF:
            let n = Int(t & 0x1F)
            guard n <= b.count - p else { throw fail(at, "declares \(n) bytes, \(b.count - p) are left (truncated?)") }
            return Item(kind: .string, start: p, count: n, next: p + n)
        case 0xC0: return Item(kind: .null, start: p, next: p)
        case 0xC2: return Item(kind: .bool, start: p, next: p, bool: false)
        case 0xC3: return Item(kind: .bool, start: p, next: p, bool: true)
        case 0xC4: return try sized(.binary, lengthBytes: 1)
        case 0xC5: return try sized(.binary, lengthBytes: 2)
        case 0xC6: return try sized(.binary, lengthBytes: 4)
        case 0xCA: return try number(4) { Item(kind: .double, start: p, next: p + 4, real: Double(Float(bitPattern: UInt32($0)))) }
        case 0xCB: return try number(8) { Item(kind: .double, start: p, next: p + 8, real: Double(bitPattern: $0)) }
        case 0xCC: return try number(1) { int(Int($0), 1) }
        case 0xCD: return try number(2) { int(Int($0), 2) }
        case 0xCE: return try number(4) { int(Int($0), 4) }
        case 0xCF:
            return try number(8) { v in
                guard v <= UInt64(Int.max) else { throw fail(at, "an integer past 2^63") }
                return int(Int(v), 8)
            }
        case 0xD0: return try number(1) { int(Int(Int8(bitPattern: UInt8($0))), 1) }
        case 0xD1: return try number(2) { int(Int(Int16(bitPattern: UInt16($0))), 2) }
        case 0xD2: return try number(4) { int(Int(Int32(bitPattern: UInt32($0))), 4) }
        case 0xD3: return try number(8) { int(Int(Int64(bitPattern: $0)), 8) }
        case 0xD9: return try sized(.string, lengthBytes: 1)
        case 0xDA: return try sized(.string, lengthBytes: 2)
        case 0xDB: return try sized(.string, lengthBytes: 4)
        case 0xDC: return try container(.array, Int(try uint(p, 2)), p + 2)
        case 0xDD: return try container(.array, Int(try uint(p, 4)), p + 4)
        case 0xDE: return try container(.map, Int(try uint(p, 2)), p + 2)
        case 0xDF: return try container(.map, Int(try uint(p, 4)), p + 4)
        default: throw fail(at, String(format: "type 0x%02X is not used by BinaryCIF", Int(t)))
        }
    }

    /// Where the value at `at` ends. Counts the values still to pass instead of recursing, so
    /// neither nesting nor size costs more than time linear in the bytes; each value takes a
    /// byte at least, and each container's count was checked against the bytes left, so the
    /// count cannot overflow.
    func skip(_ at: Int) throws -> Int {
        var offset = at, pending = 1
        let end = b.count
        while pending > 0 {
            guard offset >= 0, offset < end else { throw fail(offset, "the document ends inside a value (truncated?)") }
            pending -= 1
            // The heads BinaryCIF is made of, passed by their size alone (most of a document's
            // values); a fixed container's 15 elements at most cannot make `pending` overflow.
            let t = b[offset]
            switch t {
            case 0x00...0x7F, 0xE0...0xFF, 0xC0, 0xC2, 0xC3: offset += 1
            case 0xA0...0xBF: offset += 1 + Int(t & 0x1F)
            case 0x90...0x9F: pending += Int(t & 0x0F); offset += 1
            case 0x80...0x8F: pending += 2 * Int(t & 0x0F); offset += 1
            case 0xCC, 0xD0: offset += 2
            case 0xCD, 0xD1: offset += 3
            case 0xCA, 0xCE, 0xD2: offset += 5
            case 0xCB, 0xCF, 0xD3: offset += 9
            default:
                let v = try item(at: offset)
                switch v.kind {
                case .array: pending += v.count
                case .map: pending += 2 * v.count
                default: break
                }
                offset = v.next
            }
            guard offset <= end else { throw fail(at, "the document ends inside a value (truncated?)") }
        }
        return offset
    }

    func bytes(_ v: Item) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: b[v.start..<v.start + v.count]) }

    func string(_ v: Item) -> String { String(decoding: bytes(v), as: UTF8.self) }

    /// Calls `body` with each element of an array.
    func forEach(_ array: Item, _ body: (Item) throws -> Void) throws {
        guard array.kind == .array else { return }
        var offset = array.start
        for _ in 0..<array.count {
            try body(try item(at: offset))
            offset = try skip(offset)
        }
    }

    /// Calls `body` with each key (text) and value of a map.
    func forEachPair(_ map: Item, _ body: (String, Item) throws -> Void) throws {
        guard map.kind == .map else { return }
        var offset = map.start
        for _ in 0..<map.count {
            let key = try item(at: offset)
            guard key.kind == .string else { throw fail(offset, "a map key that is not text") }
            try body(string(key), try item(at: key.next))
            offset = try skip(key.next)
        }
    }

    /// The value of `key` in a map (the first, if the key repeats); nil where it is not there or `map` is not a map.
    func lookup(_ map: Item, _ key: StaticString) throws -> Item? {
        guard map.kind == .map else { return nil }
        let want = UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount)
        var offset = map.start
        for _ in 0..<map.count {
            let k = try item(at: offset)
            guard k.kind == .string else { throw fail(offset, "a map key that is not text") }
            if k.count == want.count && memcmp(b.baseAddress! + k.start, want.baseAddress!, k.count) == 0 {
                return try item(at: k.next)
            }
            offset = try skip(k.next)
        }
        return nil
    }
}

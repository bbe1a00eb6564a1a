import Core
import Foundation

/// Reads BinaryCIF (the format the RCSB's and PDBe's model servers serve): a MessagePack
/// document of data blocks, categories and columns, each column's bytes undone through its
/// encodings in reverse (ByteArray, FixedPoint, IntervalQuantization, RunLength, Delta,
/// IntegerPacking, StringArray). The first data block is written back as mmCIF text and read
/// by `MMCIFReader`, so the model and metadata are the same as the text file's by construction.
/// Every length a file declares is checked against what it holds and against `limit` before
/// anything is allocated.
public enum BinaryCIF {
    /// Whether `bytes` start as a BinaryCIF document: a MessagePack map naming `dataBlocks` near its start.
    public static func looksLike(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = b.first, (0x80...0x8F).contains(first) || first == 0xDE || first == 0xDF else { return false }
        let head = Array(b.prefix(512))
        let key = Array("dataBlocks".utf8)
        guard head.count >= key.count else { return false }
        for i in 0...(head.count - key.count) where head[i] == key[0] && Array(head[i..<i + key.count]) == key { return true }
        return false
    }

    /// The first data block as mmCIF text, at most `limit` bytes.
    public static func mmCIFText(_ b: UnsafeBufferPointer<UInt8>, source: String, limit: Int) throws -> [UInt8] {
        var reader = MessagePack(b, source: source)
        let root = try reader.value(depth: 0)
        guard reader.offset == b.count else { throw fail(source, "\(b.count - reader.offset) bytes after the document") }
        guard case .map(let top) = root, let blocks = top["dataBlocks"], case .array(let list) = blocks, let block = list.first,
              case .map(let blockMap) = block else { throw fail(source, "no dataBlocks") }
        let header: String
        if case .string(let h) = blockMap["header"] ?? .null { header = h } else { header = "molshot" }
        guard case .array(let categories) = blockMap["categories"] ?? .null else { throw fail(source, "data block \(Excerpt.of(header, length: 40)) has no categories") }
        var out = TextOut(limit: limit, source: source)
        try out.append("data_" + (header.isEmpty ? "molshot" : header.filter { !$0.isWhitespace }) + "\n")
        for category in categories {
            try write(category, &out, source: source)
        }
        return out.bytes
    }

    static func fail(_ source: String, _ message: String) -> StructureError {
        StructureError(file: source, line: nil, message: "BinaryCIF: " + message)
    }

    static func write(_ category: MessagePack.Value, _ out: inout TextOut, source: String) throws {
        guard case .map(let c) = category, case .string(var name) = c["name"] ?? .null, case .array(let columns) = c["columns"] ?? .null else {
            throw fail(source, "a category without name or columns")
        }
        guard let rows = c["rowCount"]?.int, rows >= 0 else { throw fail(source, "category \(Excerpt.of(name, length: 40)) has no rowCount") }
        if !name.hasPrefix("_") { name = "_" + name }
        guard rows > 0, !columns.isEmpty else { return }
        var decoded: [(String, Column)] = []
        for column in columns {
            guard case .map(let col) = column, case .string(let colName) = col["name"] ?? .null, let data = col["data"] else {
                throw fail(source, "a column of \(Excerpt.of(name, length: 40)) without name or data")
            }
            let values = try Decoder(source: source, count: rows, context: "\(name).\(colName)").decode(data)
            var mask: [Int]? = nil
            if let m = col["mask"], m != .null {
                guard case .ints(let ints) = try Decoder(source: source, count: rows, context: "\(name).\(colName) mask").decode(m) else {
                    throw fail(source, "\(name).\(colName): mask is not integers")
                }
                mask = ints
            }
            guard values.count == rows, mask.map({ $0.count == rows }) ?? true else {
                throw fail(source, "\(Excerpt.of(name + "." + colName, length: 60)) holds \(values.count) values for \(rows) rows")
            }
            decoded.append((colName, Column(values: values, mask: mask)))
        }
        try out.append("loop_\n")
        for (colName, _) in decoded { try out.append(name + "." + colName + "\n") }
        for r in 0..<rows {
            var line = ""
            for (i, (_, column)) in decoded.enumerated() {
                if i > 0 { line += " " }
                line += column.text(r)
            }
            try out.append(line + "\n")
        }
        try out.append("#\n")
    }

    struct TextOut {
        var bytes: [UInt8] = []
        let limit: Int
        let source: String
        mutating func append(_ s: String) throws {
            bytes.append(contentsOf: s.utf8)
            guard bytes.count <= limit else { throw BinaryCIF.fail(source, "more than \(limit) bytes as text") }
        }
    }

    enum Values {
        case ints([Int])
        case doubles([Double])
        case strings([String])
        case bytes([UInt8])
        var count: Int {
            switch self {
            case .ints(let v): return v.count
            case .doubles(let v): return v.count
            case .strings(let v): return v.count
            case .bytes(let v): return v.count
            }
        }
    }

    struct Column {
        var values: Values
        var mask: [Int]?
        func text(_ r: Int) -> String {
            if let mask, mask[r] != 0 { return mask[r] == 1 ? "." : "?" }
            switch values {
            case .ints(let v): return String(v[r])
            case .doubles(let v):
                let d = v[r]
                if d == d.rounded(), abs(d) < 1e15 { return String(Int(d)) }
                return d.description
            case .strings(let v): return Column.quoted(v[r])
            case .bytes(let v): return String(v[r])
            }
        }

        static func quoted(_ s: String) -> String {
            if s.isEmpty { return "''" }
            let needs = s == "." || s == "?" || s.first == "_" || s.first == "#" || s.first == "$" || s.first == "'" || s.first == "\""
                || s.first == "[" || s.first == "]" || s.first == ";" || s.contains(where: { $0 == " " || $0 == "\t" || $0.isNewline })
                || s.lowercased().hasPrefix("data_") || s.lowercased().hasPrefix("loop_") || s.lowercased().hasPrefix("save_")
                || s.lowercased() == "stop_" || s.lowercased() == "global_"
            guard needs else { return s }
            if !s.contains(where: \.isNewline) {
                if !s.contains("' ") && !s.hasSuffix("'") && !s.contains("'\t") { return "'" + s + "'" }
                if !s.contains("\" ") && !s.hasSuffix("\"") && !s.contains("\"\t") { return "\"" + s + "\"" }
            }
            return "\n;" + s + "\n;\n"
        }
    }

    /// Undoes a column's encodings, last first, checking each declared size against `count`.
    struct Decoder {
        let source: String
        let count: Int
        let context: String

        func fail(_ message: String) -> StructureError { BinaryCIF.fail(source, "\(Excerpt.of(context, length: 60)): \(message)") }

        func decode(_ data: MessagePack.Value) throws -> Values {
            guard case .map(let d) = data, case .binary(let bytes) = d["data"] ?? .null, case .array(let encodings) = d["encoding"] ?? .null else {
                throw fail("data is not {data, encoding}")
            }
            return try undo(.bytes(bytes), encodings)
        }

        func undo(_ start: Values, _ encodings: [MessagePack.Value]) throws -> Values {
            guard encodings.count <= 16 else { throw fail("more than 16 encodings") }
            var v = start
            for e in encodings.reversed() {
                guard case .map(let enc) = e, case .string(let kind) = enc["kind"] ?? .null else { throw fail("an encoding without kind") }
                v = try apply(kind, enc, v)
            }
            return v
        }

        /// Most values one step may produce: the rows, or for packed and run-length data their declared size (checked).
        func checkSize(_ n: Int) throws {
            guard n >= 0, n <= max(count, 0) * 2 + 16 else { throw fail("declares \(n) values for \(count) rows") }
        }

        func apply(_ kind: String, _ enc: [String: MessagePack.Value], _ v: Values) throws -> Values {
            switch kind {
            case "ByteArray":
                guard case .bytes(let b) = v, let type = enc["type"]?.int else { throw fail("ByteArray of what is not bytes") }
                return try byteArray(b, type: type)
            case "FixedPoint":
                guard case .ints(let ints) = v, let factor = enc["factor"]?.double, factor != 0, factor.isFinite else { throw fail("FixedPoint without integers or factor") }
                return .doubles(ints.map { Double($0) / factor })
            case "IntervalQuantization":
                guard case .ints(let ints) = v, let lo = enc["min"]?.double, let hi = enc["max"]?.double, let steps = enc["numSteps"]?.int, steps >= 2,
                      lo.isFinite, hi.isFinite else { throw fail("IntervalQuantization without min, max, numSteps") }
                let delta = (hi - lo) / Double(steps - 1)
                return .doubles(ints.map { lo + Double($0) * delta })
            case "RunLength":
                guard case .ints(let ints) = v, ints.count % 2 == 0, let size = enc["srcSize"]?.int else { throw fail("RunLength of an odd list or without srcSize") }
                try checkSize(size)
                var out: [Int] = []
                out.reserveCapacity(size)
                var i = 0
                while i < ints.count {
                    let n = ints[i + 1]
                    guard n >= 0, out.count + n <= size else { throw fail("RunLength runs past srcSize \(size)") }
                    out.append(contentsOf: repeatElement(ints[i], count: n))
                    i += 2
                }
                guard out.count == size else { throw fail("RunLength gives \(out.count) values, srcSize says \(size)") }
                return .ints(out)
            case "Delta":
                guard case .ints(let ints) = v, let origin = enc["origin"]?.int else { throw fail("Delta without integers or origin") }
                var out = [Int](repeating: 0, count: ints.count)
                var acc = origin
                for (i, d) in ints.enumerated() {
                    acc = i == 0 ? origin &+ d : acc &+ d
                    out[i] = acc
                }
                return .ints(out)
            case "IntegerPacking":
                guard case .ints(let ints) = v, let byteCount = enc["byteCount"]?.int, [1, 2].contains(byteCount), let size = enc["srcSize"]?.int else {
                    throw fail("IntegerPacking without byteCount 1 or 2 and srcSize")
                }
                try checkSize(size)
                let unsigned = enc["isUnsigned"] == .bool(true)
                let upper = unsigned ? (byteCount == 1 ? 0xFF : 0xFFFF) : (byteCount == 1 ? 0x7F : 0x7FFF)
                let lower = unsigned ? Int.min : (byteCount == 1 ? -0x80 : -0x8000)
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
                guard case .string(let stringData) = enc["stringData"] ?? .null, case .array(let dataEncoding) = enc["dataEncoding"] ?? .null,
                      case .array(let offsetEncoding) = enc["offsetEncoding"] ?? .null, case .binary(let offsetBytes) = enc["offsets"] ?? .null,
                      case .bytes(let b) = v else { throw fail("StringArray without stringData, offsets and their encodings") }
                guard case .ints(let offsets) = try undo(.bytes(offsetBytes), offsetEncoding),
                      case .ints(let indices) = try undo(.bytes(b), dataEncoding) else { throw fail("StringArray offsets or indices are not integers") }
                let utf8 = Array(stringData.utf8)
                guard offsets.count >= 1, offsets.count <= utf8.count + 1, zip(offsets, offsets.dropFirst()).allSatisfy({ $0 <= $1 }),
                      offsets.first! >= 0, offsets.last! <= utf8.count else { throw fail("StringArray offsets out of order or past the text") }
                var strings: [String] = []
                strings.reserveCapacity(offsets.count - 1)
                for k in 0..<(offsets.count - 1) { strings.append(String(decoding: utf8[offsets[k]..<offsets[k + 1]], as: UTF8.self)) }
                var out: [String] = []
                out.reserveCapacity(indices.count)
                for i in indices {
                    if i < 0 { out.append(""); continue }
                    guard i < strings.count else { throw fail("StringArray index \(i) past its \(strings.count) strings") }
                    out.append(strings[i])
                }
                return .strings(out)
            default:
                throw fail("unknown encoding \(Excerpt.of(kind, length: 40))")
            }
        }

        func byteArray(_ b: [UInt8], type: Int) throws -> Values {
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
            func le(_ i: Int) -> UInt64 {
                var v: UInt64 = 0
                for k in 0..<size { v |= UInt64(b[i * size + k]) << (8 * UInt64(k)) }
                return v
            }
            switch type {
            case 1: return .ints((0..<n).map { Int(Int8(bitPattern: UInt8(le($0)))) })
            case 2: return .ints((0..<n).map { Int(Int16(bitPattern: UInt16(le($0)))) })
            case 3: return .ints((0..<n).map { Int(Int32(bitPattern: UInt32(le($0)))) })
            case 4, 5, 6: return .ints((0..<n).map { Int(le($0)) })
            case 32: return .doubles((0..<n).map { Double(Float(bitPattern: UInt32(le($0)))) })
            default: return .doubles((0..<n).map { Double(bitPattern: le($0)) })
            }
        }
    }
}

/// A MessagePack reader for BinaryCIF: every length checked against the bytes left, nesting
/// at most `maxDepth` deep, extension types refused.
struct MessagePack {
    indirect enum Value: Equatable {
        case null
        case bool(Bool)
        case int(Int)
        case double(Double)
        case string(String)
        case binary([UInt8])
        case array([Value])
        case map([String: Value])

        var int: Int? {
            switch self {
            case .int(let v): return v
            case .double(let d) where d == d.rounded() && abs(d) < 1e15: return Int(d)
            default: return nil
            }
        }
        var double: Double? {
            switch self {
            case .int(let v): return Double(v)
            case .double(let d): return d
            default: return nil
            }
        }
    }

    static let maxDepth = 32
    let b: UnsafeBufferPointer<UInt8>
    let source: String
    var offset = 0

    init(_ b: UnsafeBufferPointer<UInt8>, source: String) {
        self.b = b
        self.source = source
    }

    func fail(_ message: String) -> StructureError { BinaryCIF.fail(source, "at byte \(offset): \(message)") }

    mutating func take(_ n: Int) throws -> UnsafeBufferPointer<UInt8> {
        guard n >= 0, n <= b.count - offset else { throw fail("declares \(n) bytes, \(b.count - offset) are left (truncated?)") }
        defer { offset += n }
        return UnsafeBufferPointer(rebasing: b[offset..<offset + n])
    }

    mutating func uint(_ bytes: Int) throws -> UInt64 {
        let s = try take(bytes)
        return s.reduce(0) { $0 << 8 | UInt64($1) }
    }

    mutating func value(depth: Int) throws -> Value {
        guard depth <= MessagePack.maxDepth else { throw fail("nested deeper than \(MessagePack.maxDepth)") }
        let t = try uint(1)
        switch t {
        case 0x00...0x7F: return .int(Int(t))
        case 0xE0...0xFF: return .int(Int(Int8(bitPattern: UInt8(t))))
        case 0x80...0x8F: return try map(Int(t & 0x0F), depth)
        case 0x90...0x9F: return try array(Int(t & 0x0F), depth)
        case 0xA0...0xBF: return .string(String(decoding: try take(Int(t & 0x1F)), as: UTF8.self))
        case 0xC0: return .null
        case 0xC2: return .bool(false)
        case 0xC3: return .bool(true)
        case 0xC4: return .binary(Array(try take(Int(try uint(1)))))
        case 0xC5: return .binary(Array(try take(Int(try uint(2)))))
        case 0xC6: return .binary(Array(try take(Int(try uint(4)))))
        case 0xCA: return .double(Double(Float(bitPattern: UInt32(try uint(4)))))
        case 0xCB: return .double(Double(bitPattern: try uint(8)))
        case 0xCC: return .int(Int(try uint(1)))
        case 0xCD: return .int(Int(try uint(2)))
        case 0xCE: return .int(Int(try uint(4)))
        case 0xCF:
            let v = try uint(8)
            guard v <= UInt64(Int.max) else { throw fail("an integer past 2^63") }
            return .int(Int(v))
        case 0xD0: return .int(Int(Int8(bitPattern: UInt8(try uint(1)))))
        case 0xD1: return .int(Int(Int16(bitPattern: UInt16(try uint(2)))))
        case 0xD2: return .int(Int(Int32(bitPattern: UInt32(try uint(4)))))
        case 0xD3: return .int(Int(Int64(bitPattern: try uint(8))))
        case 0xD9: return .string(String(decoding: try take(Int(try uint(1))), as: UTF8.self))
        case 0xDA: return .string(String(decoding: try take(Int(try uint(2))), as: UTF8.self))
        case 0xDB: return .string(String(decoding: try take(Int(try uint(4))), as: UTF8.self))
        case 0xDC: return try array(Int(try uint(2)), depth)
        case 0xDD: return try array(Int(try uint(4)), depth)
        case 0xDE: return try map(Int(try uint(2)), depth)
        case 0xDF: return try map(Int(try uint(4)), depth)
        default: throw fail(String(format: "type 0x%02X is not used by BinaryCIF", Int(t)))
        }
    }

    mutating func array(_ n: Int, _ depth: Int) throws -> Value {
        // Each element takes a byte at least: a count past the bytes left is a lie.
        guard n <= b.count - offset else { throw fail("an array of \(n) in \(b.count - offset) bytes") }
        var out: [Value] = []
        out.reserveCapacity(n)
        for _ in 0..<n { out.append(try value(depth: depth + 1)) }
        return .array(out)
    }

    mutating func map(_ n: Int, _ depth: Int) throws -> Value {
        guard n <= (b.count - offset) / 2 else { throw fail("a map of \(n) in \(b.count - offset) bytes") }
        var out: [String: Value] = [:]
        for _ in 0..<n {
            guard case .string(let key) = try value(depth: depth + 1) else { throw fail("a map key that is not text") }
            out[key] = try value(depth: depth + 1)
        }
        return .map(out)
    }
}

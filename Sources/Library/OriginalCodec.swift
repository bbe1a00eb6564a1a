import CZstd
import Foundation
import Structure

/// How the library keeps an imported file's text small: zstd with the file's own atom records,
/// written again from the compact model, as a prefix (a dictionary made for this one file).
/// The atom records are most of a structure file and the compact model already holds what
/// they say, so the original costs little more than its header. The writing here is part of
/// the stored format: `version` names it, and a change makes a new version (the old one kept
/// to read what it wrote).
enum OriginalCodec {
    /// `zstd` plain; `zstd-model-1` with the prefix below.
    static let codec = "zstd-model-1"

    enum Kind: UInt8 { case none = 0, pdb = 1, mmcif = 2 }

    /// The text compressed against `model`, checked to decompress to the text again (with the
    /// same prefix the decoder writes from the same model); nil if it does not.
    static func encode(_ text: [UInt8], model: Model, format: Structure.Format, level: Int32) -> [UInt8]? {
        let kind: Kind = format == .pdb ? .pdb : format == .mmcif ? .mmcif : .none
        let tags = kind == .mmcif ? atomSiteTags(text) : []
        var out = ByteWriter(capacity: text.count / 4)
        out.put(kind.rawValue)
        out.put(tags.joined(separator: "\n"))
        let prefix = kind == .none ? [] : render(model, kind: kind, tags: tags)
        let frame = compress(text, prefix: prefix, level: level)
        guard let back = try? decompress(frame, prefix: prefix), same(back, text) else { return nil }
        out.bytes += frame
        return out.bytes
    }

    /// Whether two byte arrays are equal, by memcmp (Array's == compares element by element).
    static func same(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.count == b.count && a.withUnsafeBytes { x in b.withUnsafeBytes { y in a.isEmpty || memcmp(x.baseAddress!, y.baseAddress!, a.count) == 0 } }
    }

    static func decode(_ blob: [UInt8], model: () throws -> Model) throws -> [UInt8] {
        var r = ByteReader(blob)
        guard let kind = Kind(rawValue: try r.get(UInt8.self)) else { throw LibraryError(.machine, "a kept original is damaged") }
        let tagText = try r.getString()
        let tags = tagText.isEmpty ? [] : tagText.split(separator: "\n").map(String.init)
        let prefix = kind == .none ? [] : render(try model(), kind: kind, tags: tags)
        return try decompress(Array(blob[r.offset...]), prefix: prefix)
    }

    // MARK: zstd with a prefix

    static func compress(_ input: [UInt8], prefix: [UInt8], level: Int32) -> [UInt8] {
        guard let cctx = ZSTD_createCCtx() else { return Zstd.compress(input, level: level) }
        defer { ZSTD_freeCCtx(cctx) }
        ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level)
        // The window reaches back over the prefix (at most 128 MB, what any decoder allows).
        let span = max(1, prefix.count + input.count)
        let windowLog = min(27, max(10, Int32((64 - UInt64(span).leadingZeroBitCount))))
        ZSTD_CCtx_setParameter(cctx, ZSTD_c_windowLog, windowLog)
        ZSTD_CCtx_setPledgedSrcSize(cctx, UInt64(input.count))
        let bound = ZSTD_compressBound(input.count)
        var out = [UInt8](repeating: 0, count: bound)
        let n = prefix.withUnsafeBytes { p in
            out.withUnsafeMutableBytes { o in
                input.withUnsafeBytes { i in
                    if !prefix.isEmpty { ZSTD_CCtx_refPrefix(cctx, p.baseAddress, prefix.count) }
                    return ZSTD_compress2(cctx, o.baseAddress, bound, i.baseAddress, input.count)
                }
            }
        }
        precondition(ZSTD_isError(n) == 0, "zstd: \(String(cString: ZSTD_getErrorName(n)))")
        out.removeSubrange(n...)
        return out
    }

    static func decompress(_ input: [UInt8], prefix: [UInt8], limit: Int = 1 << 31) throws -> [UInt8] {
        let size = input.withUnsafeBytes { ZSTD_getFrameContentSize($0.baseAddress, input.count) }
        guard size != ZSTD_CONTENTSIZE_ERROR, size != ZSTD_CONTENTSIZE_UNKNOWN, size <= UInt64(limit) else {
            throw LibraryError(.machine, "a kept original is not a zstd frame of known size")
        }
        guard let dctx = ZSTD_createDCtx() else { throw LibraryError(.machine, "zstd: no memory") }
        defer { ZSTD_freeDCtx(dctx) }
        ZSTD_DCtx_setParameter(dctx, ZSTD_d_windowLogMax, 27)
        var out = [UInt8](repeating: 0, count: Int(size))
        let n = prefix.withUnsafeBytes { p in
            out.withUnsafeMutableBytes { o in
                input.withUnsafeBytes { i in
                    if !prefix.isEmpty { ZSTD_DCtx_refPrefix(dctx, p.baseAddress, prefix.count) }
                    return ZSTD_decompressDCtx(dctx, o.baseAddress, Int(size), i.baseAddress, input.count)
                }
            }
        }
        guard ZSTD_isError(n) == 0, n == Int(size) else {
            throw LibraryError(.machine, "a kept original does not decompress: \(String(cString: ZSTD_getErrorName(n)))")
        }
        return out
    }

    // MARK: The atom records, written again

    /// The `_atom_site.` tags of an mmCIF file's atom loop, in order.
    static func atomSiteTags(_ text: [UInt8]) -> [String] {
        var tags: [String] = []
        let key = Array("\n_atom_site.".utf8)
        var i = 0
        let n = text.count
        while i + key.count <= n {
            if text[i] == 0x0A && text[i + 1] == 0x5F && text[i + 1..<i + key.count].elementsEqual(key[1...]) {
                var e = i + 1
                while e < n && text[e] != 0x0A && text[e] != 0x20 && text[e] != 0x0D { e += 1 }
                tags.append(String(decoding: text[(i + 1)..<e], as: UTF8.self))
                i = e
            } else if !tags.isEmpty && text[i] == 0x0A && i + 1 < n && text[i + 1] != 0x5F {
                break
            } else {
                i += 1
            }
        }
        return tags
    }

    /// The columns of an mmCIF atom loop the model can write.
    enum Column {
        case group, id, symbol, atomName, altID, compID, asymID, entityID, seqID, insertion, x, y, z, occupancy, bFactor, charge, authSeqID, model, unknown

        init(_ tag: String) {
            switch tag {
            case "_atom_site.group_PDB": self = .group
            case "_atom_site.id": self = .id
            case "_atom_site.type_symbol": self = .symbol
            case "_atom_site.label_atom_id", "_atom_site.auth_atom_id": self = .atomName
            case "_atom_site.label_alt_id": self = .altID
            case "_atom_site.label_comp_id", "_atom_site.auth_comp_id": self = .compID
            case "_atom_site.label_asym_id", "_atom_site.auth_asym_id": self = .asymID
            case "_atom_site.label_entity_id": self = .entityID
            case "_atom_site.label_seq_id": self = .seqID
            case "_atom_site.pdbx_PDB_ins_code": self = .insertion
            case "_atom_site.Cartn_x": self = .x
            case "_atom_site.Cartn_y": self = .y
            case "_atom_site.Cartn_z": self = .z
            case "_atom_site.occupancy": self = .occupancy
            case "_atom_site.B_iso_or_equiv": self = .bFactor
            case "_atom_site.pdbx_formal_charge": self = .charge
            case "_atom_site.auth_seq_id": self = .authSeqID
            case "_atom_site.pdbx_PDB_model_num": self = .model
            default: self = .unknown
            }
        }
    }

    /// The most one atom's record takes in either form, per column (an integer of 20 digits and
    /// a sign, a float as Swift writes it, a name, with padding): each atom reserves this much
    /// of the sink before it is written, so the writes themselves check nothing.
    static let columnBound = 32

    static func render(_ model: Model, kind: Kind, tags: [String]) -> [UInt8] {
        var xyz: [Float] = []
        xyz.reserveCapacity(model.atoms.count * 3)
        var occupancies: [Float] = [], bFactors: [Float] = []
        occupancies.reserveCapacity(model.atoms.count)
        bFactors.reserveCapacity(model.atoms.count)
        for a in model.atoms {
            xyz.append(a.position.x); xyz.append(a.position.y); xyz.append(a.position.z)
            occupancies.append(a.occupancy); bFactors.append(a.bFactor)
        }
        let coordinates = decimals(xyz, least: 3), occupancy = decimals(occupancies, least: 2), bFactor = decimals(bFactors, least: 2)
        let symbols = (0..<Element.symbols.count).map { Array(Element.symbols[$0].uppercased().utf8) }
        let chainIDs = model.chains.map { Array($0.id.utf8) }
        switch kind {
        case .none: return []
        case .pdb:
            var out = Sink(capacity: model.atoms.count * 82)
            defer { out.free() }
            var field = Sink(capacity: columnBound * 2)
            defer { field.free() }
            for a in model.atoms {
                out.reserve(24 * columnBound)
                let r = model.residues[Int(a.residue)]
                let chain = chainIDs[Int(r.chain)]
                out.put(r.isHetero ? hetatm : atom)
                field.clear(); field.integer(Int64(a.serial)); out.right(field, 5)
                out.put(0x20)
                let symbol = symbols[Int(a.element.atomicNumber)]
                field.clear(); field.name(a.name)
                let twoLetter = symbol.count == 2 && field.count >= 2 && upper(field[0]) == symbol[0] && upper(field[1]) == symbol[1]
                if field.count >= 4 || twoLetter { out.left(field, 4) } else {
                    out.put(0x20)
                    out.left(field, 3)
                }
                out.put(a.altLoc == 0 ? 0x20 : a.altLoc)
                field.clear(); field.name(r.name); out.right(field, 3)
                out.put(0x20)
                out.put(chain.first ?? 0x20)
                field.clear(); field.integer(Int64(r.number)); out.right(field, 4)
                out.put(r.insertionCode == 0 ? 0x20 : r.insertionCode)
                out.blanks(3)
                field.clear(); field.fixed(a.position.x, coordinates); out.right(field, 8)
                field.clear(); field.fixed(a.position.y, coordinates); out.right(field, 8)
                field.clear(); field.fixed(a.position.z, coordinates); out.right(field, 8)
                field.clear(); field.fixed(a.occupancy, occupancy); out.right(field, 6)
                field.clear(); field.fixed(a.bFactor, bFactor); out.right(field, 6)
                out.blanks(10)
                if symbol.count < 2 { out.blanks(2 - symbol.count) }
                out.put(symbol)
                if a.charge == 0 { out.blanks(2) } else {
                    out.put(0x30 + UInt8(min(9, abs(Int(a.charge)))))
                    out.put(a.charge > 0 ? 0x2B : 0x2D)
                }
                out.put(0x0A)
            }
            return out.array()
        case .mmcif:
            let columns = tags.map(Column.init)
            func token(_ column: Column, _ a: Atom, _ out: inout Sink) {
                let r = model.residues[Int(a.residue)]
                switch column {
                case .group: out.put(r.isHetero ? hetatmCIF : atomCIF)
                case .id: out.integer(Int64(a.serial))
                case .symbol: out.put(symbols[Int(a.element.atomicNumber)])
                case .atomName:
                    var quote = false
                    for i in 0..<a.name.length where a.name.byte(i) == 0x27 { quote = true }
                    if quote { out.put(0x22) }
                    out.name(a.name)
                    if quote { out.put(0x22) }
                case .altID: out.put(a.altLoc == 0 ? 0x2E : a.altLoc)
                case .compID: out.name(r.name)
                case .asymID: out.put(chainIDs[Int(r.chain)])
                case .entityID: out.put(0x31)
                case .seqID: if r.isHetero { out.put(0x2E) } else { out.integer(Int64(r.number)) }
                case .insertion: out.put(r.insertionCode == 0 ? 0x3F : r.insertionCode)
                case .x: out.fixed(a.position.x, coordinates)
                case .y: out.fixed(a.position.y, coordinates)
                case .z: out.fixed(a.position.z, coordinates)
                case .occupancy: out.fixed(a.occupancy, occupancy)
                case .bFactor: out.fixed(a.bFactor, bFactor)
                case .charge: if a.charge == 0 { out.put(0x3F) } else { out.integer(Int64(a.charge)) }
                case .authSeqID: out.integer(Int64(r.number))
                case .model: out.integer(Int64(model.number))
                case .unknown: out.put(0x3F)
                }
            }
            // Columns padded to their widest value, as the PDB writes them: every token written
            // once into one buffer (with where each ends), then laid out with its padding.
            var widths = [Int](repeating: 0, count: columns.count)
            var tokens = Sink(capacity: model.atoms.count * 64)
            defer { tokens.free() }
            var ends: [Int] = []
            ends.reserveCapacity(model.atoms.count * columns.count)
            // A chain id is as long as its file made it: the bound grows with the longest.
            let longest = chainIDs.reduce(0) { max($0, $1.count) } + 2
            let perAtom = columns.count * max(columnBound, longest)
            for a in model.atoms {
                tokens.reserve(perAtom)
                for c in columns.indices {
                    let start = tokens.count
                    token(columns[c], a, &tokens)
                    widths[c] = max(widths[c], tokens.count - start)
                    ends.append(tokens.count)
                }
            }
            let line = widths.reduce(columns.count + 1, +)
            var out = Sink(capacity: model.atoms.count * line)
            defer { out.free() }
            var k = 0, start = 0
            for _ in model.atoms {
                out.reserve(line)
                for c in columns.indices {
                    let end = ends[k]
                    out.put(tokens, start, end)
                    out.blanks(widths[c] - (end - start) + 1)
                    start = end
                    k += 1
                }
                out.put(0x0A)
            }
            return out.array()
        }
    }

    static let atom = Array("ATOM  ".utf8), hetatm = Array("HETATM".utf8), atomCIF = Array("ATOM".utf8), hetatmCIF = Array("HETATM".utf8)

    @inline(__always) static func upper(_ c: UInt8) -> UInt8 { c >= 0x61 && c <= 0x7A ? c - 32 : c }

    /// Bytes written through a pointer: `reserve` before a record makes room for it, and the
    /// writes after it check nothing (an append an atom's field had been a third of an import).
    /// Owned by the one call that made it, which frees it.
    struct Sink {
        private(set) var base: UnsafeMutablePointer<UInt8>
        private(set) var count = 0
        private var capacity: Int

        init(capacity: Int) {
            self.capacity = max(64, capacity)
            base = .allocate(capacity: self.capacity)
        }

        func free() { base.deallocate() }

        mutating func clear() { count = 0 }

        subscript(i: Int) -> UInt8 { base[i] }

        /// Room for `n` more bytes.
        @inline(__always) mutating func reserve(_ n: Int) {
            guard count + n > capacity else { return }
            let grown = max(capacity * 2, count + n)
            let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
            bigger.update(from: base, count: count)
            base.deallocate()
            base = bigger
            capacity = grown
        }

        @inline(__always) mutating func put(_ c: UInt8) { base[count] = c; count += 1 }

        /// Fields are a few bytes long: copied by a loop below 16 bytes (a call to memmove a
        /// field had been a tenth of the writing).
        @inline(__always) mutating func copy(_ source: UnsafePointer<UInt8>, _ n: Int) {
            if n <= 16 {
                for i in 0..<n { base[count + i] = source[i] }
            } else {
                (base + count).update(from: source, count: n)
            }
            count += n
        }

        @inline(__always) mutating func put(_ bytes: [UInt8]) {
            bytes.withUnsafeBufferPointer { if let p = $0.baseAddress { copy(p, $0.count) } }
        }

        @inline(__always) mutating func put(_ other: Sink, _ from: Int, _ to: Int) {
            copy(other.base + from, to - from)
        }

        @inline(__always) mutating func blanks(_ n: Int) {
            guard n > 0 else { return }
            if n <= 16 {
                for i in 0..<n { base[count + i] = 0x20 }
            } else {
                (base + count).update(repeating: 0x20, count: n)
            }
            count += n
        }

        mutating func name(_ n: ShortName) {
            for i in 0..<n.length { put(n.byte(i)) }
        }

        /// `field` right-aligned in `width` columns (never cut).
        @inline(__always) mutating func right(_ field: Sink, _ width: Int) {
            blanks(width - field.count)
            put(field, 0, field.count)
        }

        @inline(__always) mutating func left(_ field: Sink, _ width: Int) {
            put(field, 0, field.count)
            blanks(width - field.count)
        }

        mutating func integer(_ v: Int64) {
            if v < 0 { put(0x2D) }
            var m = v.magnitude
            // Digits written backwards at the end of the space reserved, then moved into place.
            var n = 0
            let scratch = base + count + 24
            repeat {
                n += 1
                scratch[-n] = 0x30 + UInt8(m % 10)
                m /= 10
            } while m > 0
            (base + count).update(from: scratch - n, count: n)
            count += n
        }

        mutating func fixed(_ v: Float, _ decimals: Int) {
            let scale = CompactScale.powers[decimals]
            // A value no fixed-point column holds (past 9.2e18 scaled, or not a number): as Swift
            // writes it. Such a value never reached a stored library before (it trapped here), so
            // no stored original is read differently.
            guard let q = Int64(exactly: (Double(v) * scale).rounded()) else {
                put(Array(v.description.utf8))
                return
            }
            if q < 0 || (q == 0 && v.sign == .minus) { put(0x2D) }
            let m = q.magnitude, unit = UInt64(scale)
            integer(Int64(m / unit))
            if decimals > 0 {
                put(0x2E)
                var fraction = m % unit, d = unit / 10
                while d > 0 {
                    put(0x30 + UInt8(fraction / d))
                    fraction %= d
                    d /= 10
                }
            }
        }

        func array() -> [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }
    }

    /// The decimals the values were written with: the fewest that give each back, at least `least`.
    static func decimals(_ values: [Float], least: Int) -> Int {
        var d = least
        for v in values {
            while d < 5 && Float((Double(v) * CompactScale.powers[d]).rounded() / CompactScale.powers[d]) != v { d += 1 }
        }
        return d
    }
}

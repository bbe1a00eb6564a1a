import CZstd
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
        guard (try? decompress(frame, prefix: prefix)) == text else { return nil }
        out.bytes += frame
        return out.bytes
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

    static func render(_ model: Model, kind: Kind, tags: [String]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(model.atoms.count * 84)
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
        var scratch: [UInt8] = []
        scratch.reserveCapacity(32)
        switch kind {
        case .none: break
        case .pdb:
            for a in model.atoms {
                let r = model.residues[Int(a.residue)]
                let chain = chainIDs[Int(r.chain)]
                put(&out, r.isHetero ? hetatm : atom)
                scratch.removeAll(keepingCapacity: true); integer(&scratch, Int64(a.serial)); right(&out, scratch, 5)
                out.append(0x20)
                let symbol = symbols[Int(a.element.atomicNumber)]
                scratch.removeAll(keepingCapacity: true); name(&scratch, a.name)
                let twoLetter = symbol.count == 2 && scratch.count >= 2 && upper(scratch[0]) == symbol[0] && upper(scratch[1]) == symbol[1]
                if scratch.count >= 4 || twoLetter { left(&out, scratch, 4) } else {
                    out.append(0x20)
                    left(&out, scratch, 3)
                }
                out.append(a.altLoc == 0 ? 0x20 : a.altLoc)
                scratch.removeAll(keepingCapacity: true); name(&scratch, r.name); right(&out, scratch, 3)
                out.append(0x20)
                out.append(chain.first ?? 0x20)
                scratch.removeAll(keepingCapacity: true); integer(&scratch, Int64(r.number)); right(&out, scratch, 4)
                out.append(r.insertionCode == 0 ? 0x20 : r.insertionCode)
                out.append(0x20); out.append(0x20); out.append(0x20)
                // (Three calls, not a loop over an array literal: that was an allocation an atom.)
                scratch.removeAll(keepingCapacity: true); fixed(&scratch, a.position.x, coordinates); right(&out, scratch, 8)
                scratch.removeAll(keepingCapacity: true); fixed(&scratch, a.position.y, coordinates); right(&out, scratch, 8)
                scratch.removeAll(keepingCapacity: true); fixed(&scratch, a.position.z, coordinates); right(&out, scratch, 8)
                scratch.removeAll(keepingCapacity: true); fixed(&scratch, a.occupancy, occupancy); right(&out, scratch, 6)
                scratch.removeAll(keepingCapacity: true); fixed(&scratch, a.bFactor, bFactor); right(&out, scratch, 6)
                out.append(contentsOf: repeatElement(0x20, count: 10))
                right(&out, symbol, 2)
                if a.charge == 0 { out.append(0x20); out.append(0x20) } else {
                    out.append(0x30 + UInt8(min(9, abs(Int(a.charge)))))
                    out.append(a.charge > 0 ? 0x2B : 0x2D)
                }
                out.append(0x0A)
            }
        case .mmcif:
            let columns = tags.map(Column.init)
            func token(_ column: Column, _ a: Atom, _ out: inout [UInt8]) {
                let r = model.residues[Int(a.residue)]
                switch column {
                case .group: put(&out, r.isHetero ? hetatmCIF : atomCIF)
                case .id: integer(&out, Int64(a.serial))
                case .symbol: out.append(contentsOf: symbols[Int(a.element.atomicNumber)])
                case .atomName:
                    var quote = false
                    for i in 0..<a.name.length where a.name.byte(i) == 0x27 { quote = true }
                    if quote { out.append(0x22) }
                    name(&out, a.name)
                    if quote { out.append(0x22) }
                case .altID: out.append(a.altLoc == 0 ? 0x2E : a.altLoc)
                case .compID: name(&out, r.name)
                case .asymID: out.append(contentsOf: chainIDs[Int(r.chain)])
                case .entityID: out.append(0x31)
                case .seqID: if r.isHetero { out.append(0x2E) } else { integer(&out, Int64(r.number)) }
                case .insertion: out.append(r.insertionCode == 0 ? 0x3F : r.insertionCode)
                case .x: fixed(&out, a.position.x, coordinates)
                case .y: fixed(&out, a.position.y, coordinates)
                case .z: fixed(&out, a.position.z, coordinates)
                case .occupancy: fixed(&out, a.occupancy, occupancy)
                case .bFactor: fixed(&out, a.bFactor, bFactor)
                case .charge: if a.charge == 0 { out.append(0x3F) } else { integer(&out, Int64(a.charge)) }
                case .authSeqID: integer(&out, Int64(r.number))
                case .model: integer(&out, Int64(model.number))
                case .unknown: out.append(0x3F)
                }
            }
            // Columns padded to their widest value, as the PDB writes them: every token written
            // once into one buffer (with where each ends), then laid out with its padding.
            var widths = [Int](repeating: 0, count: columns.count)
            var tokens: [UInt8] = []
            tokens.reserveCapacity(model.atoms.count * 64)
            var ends: [Int] = []
            ends.reserveCapacity(model.atoms.count * columns.count)
            for a in model.atoms {
                for (c, column) in columns.enumerated() {
                    let start = tokens.count
                    token(column, a, &tokens)
                    widths[c] = max(widths[c], tokens.count - start)
                    ends.append(tokens.count)
                }
            }
            var k = 0, start = 0
            for _ in model.atoms {
                for c in columns.indices {
                    let end = ends[k]
                    out.append(contentsOf: tokens[start..<end])
                    out.append(contentsOf: repeatElement(0x20, count: widths[c] - (end - start) + 1))
                    start = end
                    k += 1
                }
                out.append(0x0A)
            }
        }
        return out
    }

    static let atom = Array("ATOM  ".utf8), hetatm = Array("HETATM".utf8), atomCIF = Array("ATOM".utf8), hetatmCIF = Array("HETATM".utf8)

    @inline(__always) static func upper(_ c: UInt8) -> UInt8 { c >= 0x61 && c <= 0x7A ? c - 32 : c }

    @inline(__always) static func put(_ out: inout [UInt8], _ bytes: [UInt8]) { out.append(contentsOf: bytes) }

    static func name(_ out: inout [UInt8], _ n: ShortName) {
        for i in 0..<n.length { out.append(n.byte(i)) }
    }

    static func integer(_ out: inout [UInt8], _ v: Int64) {
        if v < 0 { out.append(0x2D) }
        var m = v.magnitude
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var n = 0
        withUnsafeMutableBytes(of: &digits) { d in
            repeat {
                d[n] = 0x30 + UInt8(m % 10)
                m /= 10
                n += 1
            } while m > 0
            for i in stride(from: n - 1, through: 0, by: -1) { out.append(d[i]) }
        }
    }

    static func fixed(_ out: inout [UInt8], _ v: Float, _ decimals: Int) {
        let scale = CompactScale.powers[decimals]
        // A value no fixed-point column holds (past 9.2e18 scaled, or not a number): as Swift
        // writes it. Such a value never reached a stored library before (it trapped here), so
        // no stored original is read differently.
        guard let q = Int64(exactly: (Double(v) * scale).rounded()) else {
            out.append(contentsOf: Array(v.description.utf8))
            return
        }
        if q < 0 || (q == 0 && v.sign == .minus) { out.append(0x2D) }
        let m = q.magnitude, unit = UInt64(scale)
        integer(&out, Int64(m / unit))
        if decimals > 0 {
            out.append(0x2E)
            var fraction = m % unit, d = unit / 10
            while d > 0 {
                out.append(0x30 + UInt8(fraction / d))
                fraction %= d
                d /= 10
            }
        }
    }

    static func right(_ out: inout [UInt8], _ s: [UInt8], _ width: Int) {
        if s.count < width { out.append(contentsOf: repeatElement(0x20, count: width - s.count)) }
        out.append(contentsOf: s)
    }

    static func left(_ out: inout [UInt8], _ s: [UInt8], _ width: Int) {
        out.append(contentsOf: s)
        if s.count < width { out.append(contentsOf: repeatElement(0x20, count: width - s.count)) }
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

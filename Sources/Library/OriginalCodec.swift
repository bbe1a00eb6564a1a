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

    static func encode(_ text: [UInt8], model: Model, format: Structure.Format, level: Int32) -> [UInt8] {
        let kind: Kind = format == .pdb ? .pdb : format == .mmcif ? .mmcif : .none
        let tags = kind == .mmcif ? atomSiteTags(text) : []
        var out = ByteWriter(capacity: text.count / 4)
        out.put(kind.rawValue)
        out.put(tags.joined(separator: "\n"))
        let prefix = kind == .none ? [] : render(model, kind: kind, tags: tags)
        out.bytes += compress(text, prefix: prefix, level: level)
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

    static func render(_ model: Model, kind: Kind, tags: [String]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(model.atoms.count * 82)
        let coordinates = decimals(model.atoms.flatMap { [$0.position.x, $0.position.y, $0.position.z] }, least: 3)
        let occupancy = decimals(model.atoms.map(\.occupancy), least: 2), bFactor = decimals(model.atoms.map(\.bFactor), least: 2)
        switch kind {
        case .none: break
        case .pdb:
            for a in model.atoms {
                let r = model.residues[Int(a.residue)]
                let chain = model.chains[Int(r.chain)].id
                put(&out, r.isHetero ? "HETATM" : "ATOM  ")
                putRight(&out, String(a.serial), 5)
                out.append(0x20)
                let name = a.name.description, symbol = a.element.symbol.uppercased()
                if name.count >= 4 || (symbol.count == 2 && name.uppercased().hasPrefix(symbol)) { putLeft(&out, name, 4) } else {
                    out.append(0x20)
                    putLeft(&out, name, 3)
                }
                out.append(a.altLoc == 0 ? 0x20 : a.altLoc)
                putRight(&out, r.name.description, 3)
                out.append(0x20)
                putLeft(&out, String(chain.prefix(1)), 1)
                putRight(&out, String(r.number), 4)
                out.append(r.insertionCode == 0 ? 0x20 : r.insertionCode)
                put(&out, "   ")
                for v in [a.position.x, a.position.y, a.position.z] { putRight(&out, fixed(v, coordinates), 8) }
                putRight(&out, fixed(a.occupancy, occupancy), 6)
                putRight(&out, fixed(a.bFactor, bFactor), 6)
                put(&out, "          ")
                putRight(&out, symbol, 2)
                put(&out, a.charge == 0 ? "  " : "\(abs(Int(a.charge)))\(a.charge > 0 ? "+" : "-")")
                out.append(0x0A)
            }
        case .mmcif:
            var columns: [[String]] = tags.map { _ in [] }
            for a in model.atoms {
                let r = model.residues[Int(a.residue)]
                let chain = model.chains[Int(r.chain)].id
                for (c, tag) in tags.enumerated() {
                    let v: String
                    switch tag {
                    case "_atom_site.group_PDB": v = r.isHetero ? "HETATM" : "ATOM"
                    case "_atom_site.id": v = String(a.serial)
                    case "_atom_site.type_symbol": v = a.element.symbol.uppercased()
                    case "_atom_site.label_atom_id", "_atom_site.auth_atom_id": v = quoted(a.name.description)
                    case "_atom_site.label_alt_id": v = a.altLoc == 0 ? "." : String(UnicodeScalar(a.altLoc))
                    case "_atom_site.label_comp_id", "_atom_site.auth_comp_id": v = r.name.description
                    case "_atom_site.label_asym_id", "_atom_site.auth_asym_id": v = chain
                    case "_atom_site.label_entity_id": v = "1"
                    case "_atom_site.label_seq_id": v = r.isHetero ? "." : String(r.number)
                    case "_atom_site.pdbx_PDB_ins_code": v = r.insertionCode == 0 ? "?" : String(UnicodeScalar(r.insertionCode))
                    case "_atom_site.Cartn_x": v = fixed(a.position.x, coordinates)
                    case "_atom_site.Cartn_y": v = fixed(a.position.y, coordinates)
                    case "_atom_site.Cartn_z": v = fixed(a.position.z, coordinates)
                    case "_atom_site.occupancy": v = fixed(a.occupancy, occupancy)
                    case "_atom_site.B_iso_or_equiv": v = fixed(a.bFactor, bFactor)
                    case "_atom_site.pdbx_formal_charge": v = a.charge == 0 ? "?" : String(a.charge)
                    case "_atom_site.auth_seq_id": v = String(r.number)
                    case "_atom_site.pdbx_PDB_model_num": v = String(model.number)
                    default: v = "?"
                    }
                    columns[c].append(v)
                }
            }
            // Columns padded to their widest value, as the PDB writes them.
            let widths = columns.map { $0.reduce(0) { max($0, $1.utf8.count) } }
            for i in model.atoms.indices {
                for c in columns.indices {
                    putLeft(&out, columns[c][i], widths[c])
                    out.append(0x20)
                }
                out.append(0x0A)
            }
        }
        return out
    }

    /// The decimals the values were written with: the fewest that give each back, at least `least`.
    static func decimals(_ values: [Float], least: Int) -> Int {
        for d in least...5 {
            let scale = CompactScale.powers[d]
            if values.allSatisfy({ Float((Double($0) * scale).rounded() / scale) == $0 }) { return d }
        }
        return 5
    }

    static func fixed(_ v: Float, _ decimals: Int) -> String {
        let scale = CompactScale.powers[decimals]
        let q = Int64((Double(v) * scale).rounded())
        let negative = q < 0 || (q == 0 && v.sign == .minus)
        let m = q.magnitude, whole = m / UInt64(scale), fraction = m % UInt64(scale)
        var s = (negative ? "-" : "") + String(whole)
        if decimals > 0 {
            let f = String(fraction)
            s += "." + String(repeating: "0", count: decimals - f.count) + f
        }
        return s
    }

    static func quoted(_ name: String) -> String { name.contains("'") ? "\"" + name + "\"" : name }

    @inline(__always) static func put(_ out: inout [UInt8], _ s: String) { out.append(contentsOf: s.utf8) }

    static func putRight(_ out: inout [UInt8], _ s: String, _ width: Int) {
        let n = s.utf8.count
        if n < width { out.append(contentsOf: repeatElement(0x20, count: width - n)) }
        out.append(contentsOf: s.utf8)
    }

    static func putLeft(_ out: inout [UInt8], _ s: String, _ width: Int) {
        out.append(contentsOf: s.utf8)
        let n = s.utf8.count
        if n < width { out.append(contentsOf: repeatElement(0x20, count: width - n)) }
    }
}

import Structure

/// A model and its bonds as one blob, read back without parsing or perceiving anything: the
/// library stores this beside the rows a user queries, because decoding it is much faster than
/// reading the file again (see `bench/run library`). Little-endian fields, a format version first;
/// a new version is a schema migration that re-reads the kept originals (`library rescan`).
enum CompactModel {
    static let version: UInt32 = 1
    static let magic: UInt32 = 0x4D53_4D4C  // "LMSM"

    static func encode(_ model: Model, bonds: [Bond]) -> [UInt8] {
        var w = ByteWriter(capacity: 64 + model.atoms.count * 40 + model.residues.count * 24 + bonds.count * 11)
        w.put(magic)
        w.put(version)
        w.put(Int32(model.number))
        w.put(UInt8(model.bondsAreComplete ? 1 : 0))
        w.put(UInt32(model.atoms.count))
        for a in model.atoms {
            w.put(a.position.x); w.put(a.position.y); w.put(a.position.z)
            w.put(a.occupancy); w.put(a.bFactor)
            w.put(a.serial); w.put(a.residue)
            w.put(a.name.raw)
            w.put(a.element.atomicNumber); w.put(a.altLoc); w.put(UInt8(bitPattern: a.charge))
        }
        w.put(UInt32(model.residues.count))
        for r in model.residues {
            w.put(r.name.raw); w.put(r.number); w.put(r.insertionCode); w.put(UInt8(r.isHetero ? 1 : 0))
            w.put(r.chain); w.put(r.atoms.lowerBound); w.put(r.atoms.upperBound)
        }
        w.put(UInt32(model.chains.count))
        for c in model.chains {
            w.put(c.id)
            w.put(c.residues.lowerBound); w.put(c.residues.upperBound)
        }
        w.put(UInt32(bonds.count))
        for b in bonds {
            w.put(b.a); w.put(b.b); w.put(b.order); w.put(UInt8(b.aromatic ? 1 : 0))
            w.put(UInt8(Bond.Source.allCases.firstIndex(of: b.source)!))
        }
        if let radii = model.radii {
            w.put(UInt32(radii.count))
            for r in radii { w.put(r) }
        } else {
            w.put(UInt32(0))
        }
        return w.bytes
    }

    /// The model with every bond stored as an explicit one, marked complete, so that bond
    /// perception hands them back as they were (sources kept) without searching.
    static func decode(_ bytes: [UInt8]) throws -> Model {
        var r = ByteReader(bytes)
        guard try r.get(UInt32.self) == magic else { throw LibraryError(.machine, "a stored model is not in Molshot's format") }
        let v = try r.get(UInt32.self)
        guard v == version else { throw LibraryError(.machine, "a stored model has format \(v), this Molshot reads \(version): run `molshot library rescan`") }
        var model = Model(number: Int(try r.get(Int32.self)))
        _ = try r.get(UInt8.self)
        let atomCount = Int(try r.get(UInt32.self))
        try r.need(atomCount * 39)
        model.atoms.reserveCapacity(atomCount)
        for _ in 0..<atomCount {
            let x = try r.get(Float.self), y = try r.get(Float.self), z = try r.get(Float.self)
            let occupancy = try r.get(Float.self), bFactor = try r.get(Float.self)
            let serial = try r.get(Int32.self), residue = try r.get(Int32.self)
            let name = ShortName(raw: try r.get(UInt64.self))
            let element = Element(atomicNumber: try r.get(UInt8.self))
            let altLoc = try r.get(UInt8.self), charge = Int8(bitPattern: try r.get(UInt8.self))
            model.atoms.append(Atom(position: SIMD3(x, y, z), occupancy: occupancy, bFactor: bFactor, serial: serial, residue: residue,
                                    name: name, element: element, altLoc: altLoc, charge: charge))
        }
        let residueCount = Int(try r.get(UInt32.self))
        try r.need(residueCount * 26)
        model.residues.reserveCapacity(residueCount)
        for _ in 0..<residueCount {
            let name = ShortName(raw: try r.get(UInt64.self)), number = try r.get(Int32.self)
            let insertion = try r.get(UInt8.self), hetero = try r.get(UInt8.self) != 0
            let chain = try r.get(Int32.self), lo = try r.get(Int32.self), hi = try r.get(Int32.self)
            model.residues.append(Residue(name: name, number: number, insertionCode: insertion, isHetero: hetero, chain: chain,
                                          atoms: lo..<max(lo, hi)))
        }
        let chainCount = Int(try r.get(UInt32.self))
        for _ in 0..<chainCount {
            let id = try r.getString()
            let lo = try r.get(Int32.self), hi = try r.get(Int32.self)
            model.chains.append(Chain(id: id, residues: lo..<max(lo, hi)))
        }
        let bondCount = Int(try r.get(UInt32.self))
        try r.need(bondCount * 11)
        model.explicitBonds.reserveCapacity(bondCount)
        let sources = Bond.Source.allCases
        for _ in 0..<bondCount {
            let a = try r.get(Int32.self), b = try r.get(Int32.self), order = try r.get(UInt8.self)
            let aromatic = try r.get(UInt8.self) != 0, source = Int(try r.get(UInt8.self))
            model.explicitBonds.append(Bond(a, b, order: order, aromatic: aromatic, source: sources[min(source, sources.count - 1)]))
        }
        model.bondsAreComplete = true
        let radiusCount = Int(try r.get(UInt32.self))
        if radiusCount > 0 {
            try r.need(radiusCount * 4)
            model.radii = try (0..<radiusCount).map { _ in try r.get(Float.self) }
        }
        return model
    }
}

struct ByteWriter {
    var bytes: [UInt8] = []
    init(capacity: Int) { bytes.reserveCapacity(capacity) }

    mutating func put<T: FixedWidthInteger>(_ v: T) {
        withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func put(_ v: Float) { put(v.bitPattern) }

    mutating func put(_ s: String) {
        let utf8 = Array(s.utf8)
        put(UInt32(utf8.count))
        bytes.append(contentsOf: utf8)
    }
}

struct ByteReader {
    let bytes: [UInt8]
    var offset = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func need(_ count: Int) throws {
        guard count >= 0, offset + count <= bytes.count else { throw LibraryError(.machine, "a stored model is cut short") }
    }

    @inline(__always)
    mutating func get<T: FixedWidthInteger>(_: T.Type) throws -> T {
        let size = MemoryLayout<T>.size
        guard offset + size <= bytes.count else { throw LibraryError(.machine, "a stored model is cut short") }
        let v = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: T.self) }
        offset += size
        return T(littleEndian: v)
    }

    @inline(__always)
    mutating func get(_: Float.Type) throws -> Float { Float(bitPattern: try get(UInt32.self)) }

    mutating func getString() throws -> String {
        let n = Int(try get(UInt32.self))
        try need(n)
        defer { offset += n }
        return String(decoding: bytes[offset..<(offset + n)], as: UTF8.self)
    }
}

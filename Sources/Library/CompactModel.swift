import Structure

/// A model and its bonds as one blob, read back without parsing or perceiving anything: the
/// library stores this beside the rows a user queries, because decoding it is much faster than
/// reading the file again (see `bench/run library`). Little-endian fields, a format version first;
/// a new version is a schema migration that re-reads the kept originals (`library rescan`).
enum CompactModel {
    /// 1: fixed-width fields. 2: columns (coordinates, B-factors and occupancies as integers at
    /// the file's own decimal precision, delta-coded; names through a per-model dictionary),
    /// the whole zstd-compressed: a fifth of version 1's size, lossless.
    static let version: UInt32 = 2
    static let magic: UInt32 = 0x4D53_4D4C  // "LMSM"

    static func encode(_ model: Model, bonds: [Bond]) -> [UInt8] {
        var w = ByteWriter(capacity: 64 + model.atoms.count * 12 + model.residues.count * 6 + bonds.count * 4)
        w.putSigned(Int64(model.number))
        w.put(UInt8(model.bondsAreComplete ? 1 : 0))
        let atoms = model.atoms
        w.putVarint(UInt64(atoms.count))
        w.putFloats(atoms.map { $0.position.x }); w.putFloats(atoms.map { $0.position.y }); w.putFloats(atoms.map { $0.position.z })
        w.putFloats(atoms.map { $0.occupancy }); w.putFloats(atoms.map { $0.bFactor })
        w.putDeltas(atoms.map { Int64($0.serial) })
        w.putDeltas(atoms.map { Int64($0.residue) })
        w.putNames(atoms.map { $0.name.raw })
        for a in atoms { w.put(a.element.atomicNumber) }
        for a in atoms { w.put(a.altLoc) }
        for a in atoms { w.put(UInt8(bitPattern: a.charge)) }
        let residues = model.residues
        w.putVarint(UInt64(residues.count))
        w.putNames(residues.map(\.name.raw))
        w.putDeltas(residues.map { Int64($0.number) })
        for r in residues { w.put(r.insertionCode) }
        // The record type in bit 0, the kind (plus one: 0 is a model stored before kinds) above it.
        for r in residues { w.put(UInt8(r.isHetero ? 1 : 0) | ((r.kind.rawValue &+ 1) << 1)) }
        w.putDeltas(residues.map { Int64($0.chain) })
        w.putDeltas(residues.map { Int64($0.atoms.lowerBound) })
        w.putDeltas(residues.map { Int64($0.atoms.upperBound - $0.atoms.lowerBound) })
        w.putVarint(UInt64(model.chains.count))
        for c in model.chains {
            w.put(c.id)
            w.putSigned(Int64(c.residues.lowerBound)); w.putSigned(Int64(c.residues.upperBound))
        }
        w.putVarint(UInt64(bonds.count))
        w.putDeltas(bonds.map { Int64($0.a) })
        for b in bonds { w.putSigned(Int64(b.b) - Int64(b.a)) }
        for b in bonds { w.put(b.order) }
        for b in bonds { w.put(UInt8(b.aromatic ? 1 : 0)) }
        for b in bonds { w.put(UInt8(Bond.Source.allCases.firstIndex(of: b.source)!)) }
        w.putVarint(UInt64(model.radii?.count ?? 0))
        for r in model.radii ?? [] { w.put(r) }
        var out = ByteWriter(capacity: 16)
        out.put(magic)
        out.put(version)
        out.bytes += Zstd.compress(w.bytes, level: 6)
        return out.bytes
    }

    /// The model with every bond stored as an explicit one, marked complete, so that bond
    /// perception hands them back as they were (sources kept) without searching.
    static func decode(_ bytes: [UInt8]) throws -> Model {
        var head = ByteReader(bytes)
        guard try head.get(UInt32.self) == magic else { throw LibraryError(.machine, "a stored model is not in Molshot's format") }
        let v = try head.get(UInt32.self)
        if v == 1 { return try CompactModelVersion1.decode(&head) }
        guard v == version else { throw LibraryError(.machine, "a stored model has format \(v), this Molshot reads up to \(version)") }
        var r = ByteReader(try Zstd.decompress(Array(bytes[8...])))
        var model = Model(number: Int(try r.getSigned()))
        _ = try r.get(UInt8.self)
        let atomCount = try r.getCount()
        let x = try r.getFloats(atomCount), y = try r.getFloats(atomCount), z = try r.getFloats(atomCount)
        let occupancy = try r.getFloats(atomCount), bFactor = try r.getFloats(atomCount)
        let serial = try r.getDeltas(atomCount), residue = try r.getDeltas(atomCount)
        let names = try r.getNames(atomCount)
        let elements = try r.getBytes(atomCount), altLocs = try r.getBytes(atomCount), charges = try r.getBytes(atomCount)
        // Written in place (appending checked the array's uniqueness and capacity an atom), from
        // the columns through pointers: each holds atomCount values, as read above.
        guard [x.count, y.count, z.count, occupancy.count, bFactor.count, serial.count, residue.count, names.count,
               elements.count, altLocs.count, charges.count].allSatisfy({ $0 == atomCount }) else {
            throw LibraryError(.machine, "a stored model is damaged")
        }
        model.atoms = [Atom](unsafeUninitializedCapacity: atomCount) { out, initialized in
            x.withUnsafeBufferPointer { x in y.withUnsafeBufferPointer { y in z.withUnsafeBufferPointer { z in
            occupancy.withUnsafeBufferPointer { occupancy in bFactor.withUnsafeBufferPointer { bFactor in
            serial.withUnsafeBufferPointer { serial in residue.withUnsafeBufferPointer { residue in
            names.withUnsafeBufferPointer { names in elements.withUnsafeBufferPointer { elements in
            altLocs.withUnsafeBufferPointer { altLocs in charges.withUnsafeBufferPointer { charges in
                let x = x.baseAddress, y = y.baseAddress, z = z.baseAddress, occupancy = occupancy.baseAddress
                let bFactor = bFactor.baseAddress, serial = serial.baseAddress, residue = residue.baseAddress
                let names = names.baseAddress, elements = elements.baseAddress, altLocs = altLocs.baseAddress
                let charges = charges.baseAddress, out = out.baseAddress
                guard let x, let y, let z, let occupancy, let bFactor, let serial, let residue, let names, let elements,
                      let altLocs, let charges, let out else { return }
                for i in 0..<atomCount {
                    (out + i).initialize(to: Atom(
                        position: SIMD3(x[i], y[i], z[i]), occupancy: occupancy[i], bFactor: bFactor[i],
                        serial: Int32(truncatingIfNeeded: serial[i]), residue: Int32(truncatingIfNeeded: residue[i]),
                        name: ShortName(raw: names[i]), element: Element(atomicNumber: elements[i]), altLoc: altLocs[i],
                        charge: Int8(bitPattern: charges[i])))
                }
                initialized = atomCount
            } } } } } } } } } } }
        }
        let residueCount = try r.getCount()
        let residueNames = try r.getNames(residueCount), numbers = try r.getDeltas(residueCount)
        let insertions = try r.getBytes(residueCount), hetero = try r.getBytes(residueCount)
        let chains = try r.getDeltas(residueCount), lows = try r.getDeltas(residueCount), counts = try r.getDeltas(residueCount)
        model.residues.reserveCapacity(residueCount)
        // Residues whose byte holds no kind (stored before residues had kinds), classified once read.
        var unknown = [Bool](repeating: false, count: residueCount)
        for i in 0..<residueCount {
            let lo = Int32(truncatingIfNeeded: lows[i]), hi = Int32(truncatingIfNeeded: lows[i] &+ counts[i])
            model.residues.append(Residue(name: ShortName(raw: residueNames[i]), number: Int32(truncatingIfNeeded: numbers[i]),
                                          insertionCode: insertions[i], isHetero: hetero[i] & 1 != 0,
                                          chain: Int32(truncatingIfNeeded: chains[i]), atoms: lo..<max(lo, hi)))
            if let kind = ResidueKind(rawValue: (hetero[i] >> 1) &- 1) { model.residues[i].kind = kind } else { unknown[i] = true }
        }
        let chainCount = try r.getCount()
        for _ in 0..<chainCount {
            let id = try r.getString()
            let lo = Int32(truncatingIfNeeded: try r.getSigned()), hi = Int32(truncatingIfNeeded: try r.getSigned())
            model.chains.append(Chain(id: id, residues: lo..<max(lo, hi)))
        }
        let bondCount = try r.getCount()
        let a = try r.getDeltas(bondCount)
        let offsets = try r.getVarints(bondCount, summed: false, zigzag: true)
        let orders = try r.getBytes(bondCount), aromatic = try r.getBytes(bondCount), sourceIndexes = try r.getBytes(bondCount)
        let sources = Bond.Source.allCases
        guard [a.count, offsets.count, orders.count, aromatic.count, sourceIndexes.count].allSatisfy({ $0 == bondCount }) else {
            throw LibraryError(.machine, "a stored model is damaged")
        }
        model.explicitBonds = [Bond](unsafeUninitializedCapacity: bondCount) { out, initialized in
            a.withUnsafeBufferPointer { a in offsets.withUnsafeBufferPointer { offsets in orders.withUnsafeBufferPointer { orders in
            aromatic.withUnsafeBufferPointer { aromatic in sourceIndexes.withUnsafeBufferPointer { sourceIndexes in
                guard let a = a.baseAddress, let offsets = offsets.baseAddress, let orders = orders.baseAddress,
                      let aromatic = aromatic.baseAddress, let sourceIndexes = sourceIndexes.baseAddress, let out = out.baseAddress else { return }
                for i in 0..<bondCount {
                    (out + i).initialize(to: Bond(Int32(truncatingIfNeeded: a[i]), Int32(truncatingIfNeeded: a[i] &+ offsets[i]),
                                                  order: orders[i], aromatic: aromatic[i] != 0,
                                                  source: sources[min(Int(sourceIndexes[i]), sources.count - 1)]))
                }
                initialized = bondCount
            } } } } }
        }
        model.bondsAreComplete = true
        // Stored as perception left them (`encode` takes `BondPerception.bonds`' answer).
        model.bondsAreDistinct = true
        let radiusCount = try r.getCount()
        if radiusCount > 0 {
            model.radii = try (0..<radiusCount).map { _ in try r.get(Float.self) }
        }
        return try kinds(checked(model), unknown: unknown)
    }

    /// `model` with the residues `unknown` marks classified (stored before residues had kinds).
    static func kinds(_ model: Model, unknown: [Bool]) -> Model {
        var m = model
        m.classifyResidues(where: unknown)
        return m
    }

    /// `model` if its cross-references hold (each atom's residue, each residue's atoms and chain,
    /// each chain's residues, each bond's atoms, the radii's count): every reader of a model
    /// indexes with them. A model comes from the library's file or, for an import, from a
    /// render process that read a stranger's file; a damaged one is an error here, never an index
    /// out of range in the server.
    static func checked(_ model: Model) throws -> Model {
        if let problem = model.referenceProblem {
            throw LibraryError(.machine, "a stored model is damaged: \(problem)")
        }
        return model
    }
}

/// Version 1 of the compact model (fixed-width fields, uncompressed), still read from libraries
/// made before version 2 until `library rescan` rewrites them.
enum CompactModelVersion1 {
    static func decode(_ r: inout ByteReader) throws -> Model {
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
            let id = try r.getString32()
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
        return CompactModel.kinds(try CompactModel.checked(model), unknown: [Bool](repeating: true, count: model.residues.count))
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
        putVarint(UInt64(utf8.count))
        bytes.append(contentsOf: utf8)
    }

    mutating func putVarint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    /// Zigzag: small magnitudes of either sign in few bytes.
    mutating func putSigned(_ v: Int64) { putVarint(UInt64(bitPattern: (v << 1) ^ (v >> 63))) }

    mutating func putDeltas(_ values: [Int64]) {
        var previous: Int64 = 0
        for v in values {
            putSigned(v &- previous)
            previous = v
        }
    }

    /// Floats as integers at the fewest decimals (0-5) that give every value back bit for bit
    /// (what a file with 3 decimals was read into), delta-coded; else their bits.
    mutating func putFloats(_ values: [Float]) {
        for decimals in 0...5 {
            let scale = CompactScale.powers[decimals]
            var quantized: [Int64] = []
            quantized.reserveCapacity(values.count)
            var exact = true
            for v in values {
                let q = (Double(v) * scale).rounded()
                // (-0.0 compares equal to 0 and comes back as 0: the one thing not kept.)
                guard abs(q) < 1e15, Float(q / scale) == v else { exact = false; break }
                quantized.append(Int64(q))
            }
            if exact {
                put(UInt8(decimals))
                putDeltas(quantized)
                return
            }
        }
        put(UInt8(0xFF))
        for v in values { put(v) }
    }

    /// 8-byte names through a dictionary of the distinct ones.
    mutating func putNames(_ names: [UInt64]) {
        var index: [UInt64: Int] = [:]
        var distinct: [UInt64] = []
        var codes: [Int] = []
        codes.reserveCapacity(names.count)
        for n in names {
            if let i = index[n] { codes.append(i) } else {
                index[n] = distinct.count
                codes.append(distinct.count)
                distinct.append(n)
            }
        }
        putVarint(UInt64(distinct.count))
        for n in distinct { put(n) }
        for c in codes { putVarint(UInt64(c)) }
    }
}

enum CompactScale {
    static let powers: [Double] = [1, 10, 100, 1000, 10000, 100000]
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

    /// A version 1 string: a 32-bit length.
    mutating func getString32() throws -> String {
        let n = Int(try get(UInt32.self))
        try need(n)
        defer { offset += n }
        return String(decoding: bytes[offset..<(offset + n)], as: UTF8.self)
    }

    mutating func getString() throws -> String {
        let n = try getCount()
        try need(n)
        defer { offset += n }
        return String(decoding: bytes[offset..<(offset + n)], as: UTF8.self)
    }

    @inline(__always)
    mutating func getVarint() throws -> UInt64 {
        // Most values are one byte (deltas of serials, residue numbers, name codes).
        if offset < bytes.count, bytes[offset] < 0x80 {
            defer { offset += 1 }
            return UInt64(bytes[offset])
        }
        var v: UInt64 = 0, shift: UInt64 = 0
        while true {
            guard offset < bytes.count, shift < 64 else { throw LibraryError(.machine, "a stored model is cut short") }
            let b = bytes[offset]
            offset += 1
            v |= UInt64(b & 0x7F) << shift
            if b < 0x80 { return v }
            shift += 7
        }
    }

    /// A count no larger than the bytes left could hold (a damaged blob cannot ask for terabytes).
    mutating func getCount() throws -> Int {
        let n = try getVarint()
        guard n <= UInt64(bytes.count - offset) * 8 + 64 else { throw LibraryError(.machine, "a stored model is damaged") }
        return Int(n)
    }

    @inline(__always)
    mutating func getSigned() throws -> Int64 {
        let u = try getVarint()
        return Int64(bitPattern: (u >> 1) ^ (0 &- (u & 1)))
    }

    mutating func getDeltas(_ count: Int) throws -> [Int64] { try getVarints(count, summed: true, zigzag: true) }

    /// `count` varints, signed (zigzag) or not (their bits), each added to the one before where
    /// `summed` (deltas). While ten bytes (the longest varint) are left they are read through a
    /// pointer, a byte at a time without a bounds check, the offset kept in a register; the last
    /// few through `getSigned` and `getVarint`. Half a library load went to reading these a
    /// checked byte at a time.
    mutating func getVarints(_ count: Int, summed: Bool, zigzag: Bool) throws -> [Int64] {
        var previous: Int64 = 0
        var offset = self.offset
        let bytes = self.bytes
        let values = try [Int64](unsafeUninitializedCapacity: count) { out, initialized in
            var i = 0
            try bytes.withUnsafeBufferPointer { p in
                let base = p.baseAddress!, end = p.count
                while i < count && end - offset >= 10 {
                    var b = base[offset]
                    var u = UInt64(b & 0x7F)
                    offset += 1
                    var shift: UInt64 = 7
                    while b >= 0x80 {
                        // An eleventh byte: more than 64 bits, as `getVarint` refuses it.
                        guard shift < 64 else { throw LibraryError(.machine, "a stored model is cut short") }
                        b = base[offset]
                        offset += 1
                        u |= UInt64(b & 0x7F) << shift
                        shift += 7
                    }
                    let v = Int64(bitPattern: zigzag ? (u >> 1) ^ (0 &- (u & 1)) : u)
                    previous = summed ? previous &+ v : v
                    out[i] = previous
                    i += 1
                    initialized = i
                }
            }
            self.offset = offset
            while i < count {
                let v = zigzag ? try getSigned() : Int64(bitPattern: try getVarint())
                previous = summed ? previous &+ v : v
                out[i] = previous
                i += 1
                initialized = i
            }
        }
        return values
    }

    mutating func getFloats(_ count: Int) throws -> [Float] {
        let decimals = try get(UInt8.self)
        if decimals == 0xFF {
            try need(count * 4)
            return try (0..<count).map { _ in try get(Float.self) }
        }
        guard Int(decimals) < CompactScale.powers.count else { throw LibraryError(.machine, "a stored model is damaged") }
        let scale = CompactScale.powers[Int(decimals)]
        let quantized = try getDeltas(count)
        // A plain loop over the integers, which the compiler turns into vector divisions.
        return [Float](unsafeUninitializedCapacity: count) { out, initialized in
            quantized.withUnsafeBufferPointer { q in
                for i in 0..<count { out[i] = Float(Double(q[i]) / scale) }
            }
            initialized = count
        }
    }

    mutating func getBytes(_ count: Int) throws -> [UInt8] {
        try need(count)
        defer { offset += count }
        return Array(bytes[offset..<(offset + count)])
    }

    mutating func getNames(_ count: Int) throws -> [UInt64] {
        let distinct = try getCount()
        try need(distinct * 8)
        let names = try (0..<distinct).map { _ in try get(UInt64.self) }
        let codes = try getVarints(count, summed: false, zigzag: false)
        return try codes.map { code in
            // Unsigned codes as their bits: one past Int's range is negative, and refused.
            let i = Int(truncatingIfNeeded: code)
            guard i >= 0, i < names.count else { throw LibraryError(.machine, "a stored model is damaged") }
            return names[i]
        }
    }
}

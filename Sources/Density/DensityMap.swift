import Core
import Foundation

/// How large a map may be: checked against what the header claims before anything is allocated.
public struct DensityLimits: Sendable {
    /// Voxels of the stored block (4 bytes each once read).
    public var maxVoxels: Int
    /// Bytes of the file, inflated if it is gzip.
    public var maxBytes: Int
    /// Grid points along any one axis.
    public var maxSide: Int

    public init(maxVoxels: Int = 256 << 20, maxBytes: Int = 2 << 30, maxSide: Int = 16_384) {
        self.maxVoxels = maxVoxels
        self.maxBytes = maxBytes
        self.maxSide = maxSide
    }

    public static let standard = DensityLimits()
}

/// A density map read from a CCP4 or MRC file (cryo-EM maps, crystallographic 2Fo-Fc and Fo-Fc
/// maps): the stored block of values on its grid, where each grid point lies in space, and the
/// header as written.
///
/// The format (CCP4's and MRC2014's 1024-byte header, then `NSYMBT` bytes of symmetry records,
/// then the values, columns fastest): modes 0 (signed bytes), 1 (16-bit integers), 2 (32-bit
/// floats), 6 (unsigned 16-bit integers) and 12 (16-bit floats), either byte order (the machine
/// stamp at byte 212, else whichever order reads a sane header). The values are kept with X
/// fastest, then Y, then Z (the cell's axes), whatever the file's column, row and section axes
/// (`MAPC`, `MAPR`, `MAPS`).
public struct DensityMap: Sendable {
    public var header: Header
    /// Grid points of the stored block along X, Y and Z.
    public var size: SIMD3<Int>
    /// Values, X fastest: `values[(z * size.y + y) * size.x + x]`.
    public var values: [Float]
    /// The Cartesian position (Å) of the block's first grid point.
    public var origin: SIMD3<Double>
    /// The Cartesian step (Å) from one grid point to the next along X, Y and Z: the cell's
    /// edges over its sampling (skewed for a monoclinic or triclinic cell).
    public var steps: (x: SIMD3<Double>, y: SIMD3<Double>, z: SIMD3<Double>)
    public var statistics: Statistics

    /// The header's fields, as the file has them (numbered as the format's words).
    public struct Header: Sendable, Equatable {
        /// NC, NR, NS: columns, rows, sections.
        public var counts: SIMD3<Int>
        public var mode: Int
        /// NCSTART, NRSTART, NSSTART.
        public var starts: SIMD3<Int>
        /// NX, NY, NZ: grid intervals along the cell's edges.
        public var sampling: SIMD3<Int>
        /// a, b, c (Å) and alpha, beta, gamma (degrees).
        public var cell: (lengths: SIMD3<Double>, angles: SIMD3<Double>)
        /// MAPC, MAPR, MAPS: which axis (1 X, 2 Y, 3 Z) columns, rows and sections run along.
        public var axes: SIMD3<Int>
        public var minimum: Double, maximum: Double, mean: Double
        public var spaceGroup: Int
        public var symmetryBytes: Int
        /// MRC2014's ORIGIN (Å), words 50-52.
        public var originWords: SIMD3<Double>
        /// RMS deviation from the mean, word 55 (0 or negative where not written).
        public var rms: Double
        public var bigEndian: Bool
        public var labels: [String]

        public static func == (a: Header, b: Header) -> Bool {
            a.counts == b.counts && a.mode == b.mode && a.starts == b.starts && a.sampling == b.sampling
                && a.cell.lengths == b.cell.lengths && a.cell.angles == b.cell.angles && a.axes == b.axes
                && a.spaceGroup == b.spaceGroup && a.symmetryBytes == b.symmetryBytes && a.labels == b.labels
        }
    }

    /// The values' statistics, from the values (a header's may be absent or stale).
    public struct Statistics: Sendable, Equatable {
        public var minimum: Double, maximum: Double, mean: Double
        /// Root mean square deviation from the mean (numpy's `std`): what "sigma" levels count in.
        public var rms: Double
    }

    public var voxelCount: Int { values.count }

    /// The map file at `path` (gzip inflated).
    public static func load(path: String, limits: DensityLimits = .standard) throws -> DensityMap {
        try decode(try FileInput.readAll(path: path, limit: limits.maxBytes), file: path, limits: limits)
    }

    /// A map file's bytes as read from disk or uploaded, inflating gzip first.
    public static func decode(_ raw: [UInt8], file: String, limits: DensityLimits = .standard) throws -> DensityMap {
        try parse(try FileInput.inflatedIfGzip(raw, source: file, limit: limits.maxBytes), file: file, limits: limits)
    }

    /// Whether `bytes` look like a CCP4/MRC map: a whole header with "MAP " at byte 208 (CCP4's
    /// and MRC2014's own mark; old MRC files without it are known by their name instead).
    public static func looksLikeMap(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 1024 && bytes[208] == 0x4D && bytes[209] == 0x41 && bytes[210] == 0x50 && bytes[211] == 0x20
    }

    public static func parse(_ bytes: [UInt8], file: String, limits: DensityLimits = .standard) throws -> DensityMap {
        func fail(_ message: String) -> InputFileError { InputFileError(file: file, message: message) }
        guard bytes.count >= 1024 else {
            throw fail("not a CCP4/MRC map: \(bytes.count) bytes, shorter than the 1024-byte header")
        }
        // Byte order: the machine stamp (0x44 0x41 or 0x44 0x44 little-endian, 0x11 0x11 big),
        // else the order in which the mode and the counts read sanely.
        func word(_ w: Int, big: Bool) -> UInt32 {
            let o = (w - 1) * 4
            let b0 = UInt32(bytes[o]), b1 = UInt32(bytes[o + 1]), b2 = UInt32(bytes[o + 2]), b3 = UInt32(bytes[o + 3])
            return big ? b0 << 24 | b1 << 16 | b2 << 8 | b3 : b3 << 24 | b2 << 16 | b1 << 8 | b0
        }
        func sane(big: Bool) -> Bool {
            let mode = Int32(bitPattern: word(4, big: big))
            let n = (1...3).map { Int32(bitPattern: word($0, big: big)) }
            return [0, 1, 2, 6, 12].contains(mode) && n.allSatisfy { $0 > 0 && $0 <= 1 << 20 }
        }
        let big: Bool
        switch (bytes[212], bytes[213]) {
        case (0x44, 0x41), (0x44, 0x44): big = false
        case (0x11, 0x11): big = true
        default: big = !sane(big: false) && sane(big: true)
        }
        func int(_ w: Int) -> Int { Int(Int32(bitPattern: word(w, big: big))) }
        func real(_ w: Int) -> Double { Double(Float(bitPattern: word(w, big: big))) }

        let counts = SIMD3(int(1), int(2), int(3))
        let mode = int(4)
        let bytesPerValue: Int
        switch mode {
        case 0: bytesPerValue = 1
        case 1, 6, 12: bytesPerValue = 2
        case 2: bytesPerValue = 4
        case 3, 4: throw fail("mode \(mode) (complex values, a Fourier transform) is not a density map Molshot draws")
        default: throw fail("mode \(mode) is not a CCP4/MRC data mode (0, 1, 2, 6 or 12)")
        }
        for (k, name) in ["NC (columns)", "NR (rows)", "NS (sections)"].enumerated() {
            guard counts[k] >= 1 && counts[k] <= limits.maxSide else {
                throw fail("header word \(k + 1), \(name), is \(counts[k]): not between 1 and \(limits.maxSide)")
            }
        }
        // Sizes multiplied without trapping, checked against the limits and the bytes there are.
        let (plane, o1) = counts.x.multipliedReportingOverflow(by: counts.y)
        let (voxels, o2) = plane.multipliedReportingOverflow(by: counts.z)
        guard !o1 && !o2 && voxels <= limits.maxVoxels else {
            throw fail("\(counts.x) x \(counts.y) x \(counts.z) grid points: more than the limit of \(limits.maxVoxels)")
        }
        let symmetryBytes = int(24)
        guard symmetryBytes >= 0 && symmetryBytes <= bytes.count - 1024 else {
            throw fail("header word 24, NSYMBT, is \(symmetryBytes) bytes of symmetry records, but \(bytes.count - 1024) bytes follow the header")
        }
        let dataStart = 1024 + symmetryBytes
        let dataBytes = voxels * bytesPerValue  // at most maxVoxels * 4: no overflow
        guard dataBytes <= bytes.count - dataStart else {
            throw fail("truncated: the header says \(counts.x) x \(counts.y) x \(counts.z) values of \(bytesPerValue) bytes (\(dataBytes) bytes) from byte \(dataStart), but the file has \(bytes.count - dataStart)")
        }
        let axes = SIMD3(int(17), int(18), int(19))
        guard Set([axes.x, axes.y, axes.z]) == [1, 2, 3] else {
            throw fail("header words 17-19, MAPC/MAPR/MAPS, are \(axes.x), \(axes.y), \(axes.z): not an order of the axes 1, 2, 3")
        }
        let sampling = SIMD3(int(8), int(9), int(10))
        for (k, name) in ["NX", "NY", "NZ"].enumerated() {
            guard sampling[k] >= 1 && sampling[k] <= 1 << 20 else {
                throw fail("header word \(k + 8), \(name), is \(sampling[k]): the grid must sample the cell at least once")
            }
        }
        let lengths = SIMD3(real(11), real(12), real(13)), angles = SIMD3(real(14), real(15), real(16))
        for k in 0..<3 {
            guard lengths[k].isFinite && lengths[k] > 0 && lengths[k] < 1e6 else {
                throw fail("header word \(k + 11), cell length \(["a", "b", "c"][k]), is \(lengths[k]): a cell needs edges longer than 0 Å")
            }
            guard angles[k].isFinite && angles[k] > 0 && angles[k] < 180 else {
                throw fail("header word \(k + 14), cell angle \(["alpha", "beta", "gamma"][k]), is \(angles[k]) degrees: not between 0 and 180")
            }
        }
        let starts = SIMD3(int(5), int(6), int(7))
        for k in 0..<3 where abs(starts[k]) > 1 << 24 {
            throw fail("header word \(k + 5), the start of the block, is \(starts[k]) grid points: out of range")
        }
        let originWords = SIMD3(real(50), real(51), real(52))
        var labels: [String] = []
        let labelCount = min(max(int(56), 0), 10)
        for k in 0..<labelCount {
            let o = 224 + k * 80
            let text = String(decoding: bytes[o..<(o + 80)].map { $0 >= 32 && $0 < 127 ? $0 : 32 }, as: UTF8.self)
            labels.append(text.trimmingTrailingSpaces())
        }
        let header = Header(counts: counts, mode: mode, starts: starts, sampling: sampling, cell: (lengths, angles), axes: axes,
                            minimum: real(20), maximum: real(21), mean: real(22), spaceGroup: int(23), symmetryBytes: symmetryBytes,
                            originWords: SIMD3(originWords.x.isFinite ? originWords.x : 0, originWords.y.isFinite ? originWords.y : 0, originWords.z.isFinite ? originWords.z : 0), rms: real(55), bigEndian: big, labels: labels)

        // The orthogonalization of the cell (a along x, b in the xy plane), as the PDB's convention.
        let rad = Double.pi / 180
        let (ca, cb, cg) = (cosine(angles.x * rad), cosine(angles.y * rad), cosine(angles.z * rad))
        let sg = sine(angles.z * rad)
        let volumeTerm = 1 - ca * ca - cb * cb - cg * cg + 2 * ca * cb * cg
        guard volumeTerm > 1e-9 && sg > 1e-9 else {
            throw fail("header words 14-16, the cell angles \(angles.x), \(angles.y), \(angles.z), make no cell with a volume")
        }
        let a = SIMD3(lengths.x, 0, 0)
        let b = SIMD3(lengths.y * cg, lengths.y * sg, 0)
        let c = SIMD3(lengths.z * cb, lengths.z * (ca - cb * cg) / sg, lengths.z * volumeTerm.squareRoot() / sg)
        let steps = (x: a / Double(sampling.x), y: b / Double(sampling.y), z: c / Double(sampling.z))

        // X, Y, Z sizes and starts from the column, row and section ones.
        var size = SIMD3<Int>(1, 1, 1), start = SIMD3<Int>(0, 0, 0)
        for k in 0..<3 {
            size[axes[k] - 1] = counts[k]
            start[axes[k] - 1] = starts[k]
        }
        // Where the block starts: its start in grid steps; an EM map that gives MRC2014's ORIGIN
        // (Å) with zero starts is placed at ORIGIN, as ChimeraX places it.
        var origin = steps.x * Double(start.x) + steps.y * Double(start.y) + steps.z * Double(start.z)
        if start == .zero && header.originWords != .zero { origin = header.originWords }

        // The values, converted to floats and put in X, Y, Z order.
        var values = [Float](repeating: 0, count: voxels)
        var stride = SIMD3<Int>(0, 0, 0)  // where one step along column, row, section lands in X-fastest order
        let xyzStride = SIMD3(1, size.x, size.x * size.y)
        for k in 0..<3 { stride[k] = xyzStride[axes[k] - 1] }
        bytes.withUnsafeBufferPointer { raw in
            let base = raw.baseAddress! + dataStart
            values.withUnsafeMutableBufferPointer { out in
                var i = 0
                for s in 0..<counts.z {
                    for r in 0..<counts.y {
                        var target = s * stride.z + r * stride.y
                        for _ in 0..<counts.x {
                            out[target] = value(base, i, mode: mode, big: big)
                            target += stride.x
                            i += 1
                        }
                    }
                }
            }
        }
        return DensityMap(header: header, size: size, values: values, origin: origin, steps: steps, statistics: statisticsOf(values))
    }

    static func value(_ p: UnsafePointer<UInt8>, _ i: Int, mode: Int, big: Bool) -> Float {
        switch mode {
        case 0: return Float(Int8(bitPattern: p[i]))
        case 1, 6, 12:
            let lo = UInt16(p[2 * i]), hi = UInt16(p[2 * i + 1])
            let bits = big ? lo << 8 | hi : hi << 8 | lo
            if mode == 1 { return Float(Int16(bitPattern: bits)) }
            if mode == 6 { return Float(bits) }
            return halfToFloat(bits)
        default:
            let o = 4 * i
            let b0 = UInt32(p[o]), b1 = UInt32(p[o + 1]), b2 = UInt32(p[o + 2]), b3 = UInt32(p[o + 3])
            let v = Float(bitPattern: big ? b0 << 24 | b1 << 16 | b2 << 8 | b3 : b3 << 24 | b2 << 16 | b1 << 8 | b0)
            // Not-a-number and infinities read as 0: no level can be set through them.
            return v.isFinite ? v : 0
        }
    }

    /// IEEE 754 half precision to single.
    static func halfToFloat(_ h: UInt16) -> Float {
        let sign: Float = h & 0x8000 != 0 ? -1 : 1
        let exponent = Int(h >> 10 & 0x1F), fraction = Float(h & 0x3FF)
        if exponent == 0 { return sign * fraction * 0x1p-24 }
        if exponent == 31 { return 0 }  // infinities and NaN, as for floats
        return sign * (1 + fraction / 1024) * Float(sign: .plus, exponent: exponent - 15, significand: 1)
    }

    static func statisticsOf(_ values: [Float]) -> Statistics {
        guard !values.isEmpty else { return Statistics(minimum: 0, maximum: 0, mean: 0, rms: 0) }
        var lo = Float.greatestFiniteMagnitude, hi = -Float.greatestFiniteMagnitude
        var sum = 0.0
        for v in values {
            lo = min(lo, v)
            hi = max(hi, v)
            sum += Double(v)
        }
        let mean = sum / Double(values.count)
        var squares = 0.0
        for v in values {
            let d = Double(v) - mean
            squares += d * d
        }
        return Statistics(minimum: Double(lo), maximum: Double(hi), mean: mean, rms: (squares / Double(values.count)).squareRoot())
    }

    /// The Cartesian position of grid point (x, y, z) of the block (fractions allowed).
    public func position(_ g: SIMD3<Double>) -> SIMD3<Double> {
        origin + steps.x * g.x + steps.y * g.y + steps.z * g.z
    }

    /// The block's eight corners in space.
    public var corners: [SIMD3<Double>] {
        let n = SIMD3<Double>(Double(size.x - 1), Double(size.y - 1), Double(size.z - 1))
        return (0..<8).map { c in position(SIMD3(c & 1 == 0 ? 0 : n.x, c & 2 == 0 ? 0 : n.y, c & 4 == 0 ? 0 : n.z)) }
    }
}

private func cosine(_ x: Double) -> Double {
    // Exact for the right angle most cells have (cos(pi/2) in floating point is 6e-17).
    abs(x - Double.pi / 2) < 1e-12 ? 0 : cos(x)
}

private func sine(_ x: Double) -> Double { abs(x - Double.pi / 2) < 1e-12 ? 1 : sin(x) }

extension String {
    func trimmingTrailingSpaces() -> String {
        var s = Substring(self)
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}

/// A contour level: absolute (`0.02`), or in standard deviations above the mean (`1.5s`,
/// `1.5sigma`, `1.5σ`), the crystallographer's and EMDB's way of saying it.
public enum MapLevel: Sendable, Equatable, CustomStringConvertible {
    case absolute(Double)
    case sigma(Double)
    /// The level at which the surface encloses this volume (Å³), as EMDB states a map's
    /// "enclosed volume": the voxels at or above it, each a voxel's volume, add up to it.
    case enclosing(Double)
    /// The contour its EMDB entry recommends (the header's primary contour level): found by
    /// `resolved(in:header:file:)`.
    case recommended

    public init?(_ text: String) {
        var t = Substring(text.trimmingCharacters(in: .whitespaces).lowercased())
        if t == "recommended" {
            self = .recommended
            return
        }
        for suffix in ["å³", "å3", "a3"] where t.hasSuffix(suffix) {
            guard let v = Double(t.dropLast(suffix.count)), v.isFinite, v > 0, v < 1e15 else { return nil }
            self = .enclosing(v)
            return
        }
        var sigma = false
        for suffix in ["sigma", "σ", "s"] where t.hasSuffix(suffix) {
            t = t.dropLast(suffix.count)
            sigma = true
            break
        }
        guard let v = Double(t), v.isFinite, abs(v) < 1e30 else { return nil }
        self = sigma ? .sigma(v) : .absolute(v)
    }

    /// The level in the map's values (an enclosed volume needs the map: `value(in map:)`).
    public func value(in statistics: DensityMap.Statistics) -> Float {
        switch self {
        case .absolute(let v): return Float(v)
        case .sigma(let s): return Float(statistics.mean + s * statistics.rms)
        case .enclosing, .recommended: return Float(statistics.maximum)
        }
    }

    /// The level as a value of `map` where it needs more than the statistics: an enclosed volume
    /// counted over `map`'s voxels, a recommended level read from `header` (nil: the map has none
    /// beside it). Sigma and absolute levels are returned as they are.
    public func resolved(in map: DensityMap, header: EMDBHeader?, file: String) throws -> MapLevel {
        switch self {
        case .absolute, .sigma: return self
        case .enclosing: return .absolute(Double(value(in: map)))
        case .recommended:
            guard let header else {
                throw RequestError(field: "level", "recommended: \(file) has no EMDB header beside it (emd-NNNN-v30.xml in its folder or in ../header/); "
                                   + "give one with --map-header, or a level (1.5s, 0.02, 12000A3)")
            }
            guard let level = header.recommendedLevel else {
                throw RequestError(field: "level", "recommended: the EMDB header of \(file) states no contour level; give a level (1.5s, 0.02, 12000A3)")
            }
            return .absolute(level)
        }
    }

    /// The level in `map`'s values; an enclosed volume counted over `map`'s voxels.
    public func value(in map: DensityMap, statistics: DensityMap.Statistics? = nil) -> Float {
        guard case .enclosing(let volume) = self else { return value(in: statistics ?? map.statistics) }
        let (a, b, c) = (map.steps.x, map.steps.y, map.steps.z)
        let voxel = abs(a.x * (b.y * c.z - b.z * c.y) - a.y * (b.x * c.z - b.z * c.x) + a.z * (b.x * c.y - b.y * c.x))
        guard voxel > 0, !map.values.isEmpty else { return Float(map.statistics.maximum) }
        let count = Int(min(Double(map.values.count), max(1, (volume / voxel).rounded())))
        // The count-th largest value (quickselect on a copy).
        var v = map.values
        let k = count - 1
        var lo = 0, hi = v.count - 1
        while lo < hi {
            let pivot = v[(lo + hi) / 2]
            var i = lo, j = hi
            while i <= j {
                while v[i] > pivot { i += 1 }
                while v[j] < pivot { j -= 1 }
                if i <= j {
                    v.swapAt(i, j)
                    i += 1
                    j -= 1
                }
            }
            if k <= j { hi = j } else if k >= i { lo = i } else { break }
        }
        return v[k]
    }

    public var description: String {
        switch self {
        case .absolute(let v): return "\(v)"
        case .sigma(let s): return "\(s)σ"
        case .enclosing(let v): return "\(v) Å³ enclosed"
        case .recommended: return "recommended"
        }
    }
}

extension DensityMap {
    /// Whether `path` names a CCP4/MRC map by its extension (`.map`, `.mrc`, `.ccp4`, `.mrcs`, gzip or not).
    public static func isMapPath(_ path: String) -> Bool {
        var name = path.lowercased()
        if name.hasSuffix(".gz") { name = String(name.dropLast(3)) }
        return [".map", ".mrc", ".ccp4", ".mrcs"].contains { name.hasSuffix($0) }
    }
}

extension DensityMap {
    /// Whether the stored block holds the whole cell along each axis (a crystallographic map
    /// over its unit cell: values anywhere follow by periodicity).
    public var coversCell: [Bool] { (0..<3).map { size[$0] >= header.sampling[$0] } }

    /// The part of the map over the points' bounding box, `margin` Å beyond (`region`).
    public func around(_ points: [SIMD3<Float>], margin: Double, file: String) throws -> DensityMap? {
        var lo = SIMD3<Double>(repeating: .infinity), hi = -lo
        for p in points { lo = pointwiseMin(lo, SIMD3<Double>(p)); hi = pointwiseMax(hi, SIMD3<Double>(p)) }
        guard lo.x <= hi.x else { return nil }
        return try region(from: lo - margin, to: hi + margin, file: file)
    }

    /// Grid coordinates (in steps from the block's first point, fractions allowed) of a point in space.
    public func gridCoordinates(_ p: SIMD3<Double>) -> SIMD3<Double> {
        // Solve steps.x * g.x + steps.y * g.y + steps.z * g.z = p - origin (Cramer's rule).
        let (a, b, c) = (steps.x, steps.y, steps.z)
        func det(_ u: SIMD3<Double>, _ v: SIMD3<Double>, _ w: SIMD3<Double>) -> Double {
            u.x * (v.y * w.z - v.z * w.y) - u.y * (v.x * w.z - v.z * w.x) + u.z * (v.x * w.y - v.y * w.x)
        }
        let d = det(a, b, c), r = p - origin
        return SIMD3(det(r, b, c) / d, det(a, r, c) / d, det(a, b, r) / d)
    }

    /// The part of the map over the box from `lo` to `hi` (Å): along an axis where the block holds
    /// the whole cell, values wrap round it (the density of a symmetry-free P1 expansion, as
    /// Coot and PyMOL show a crystallographic map anywhere); along others, the box is cut to the
    /// block. Nil where nothing of the block is in the box. Refused past `limits.maxVoxels`.
    public func region(from lo: SIMD3<Double>, to hi: SIMD3<Double>, file: String, limits: DensityLimits = .standard) throws -> DensityMap? {
        var gLo = SIMD3<Double>(repeating: .infinity), gHi = SIMD3<Double>(repeating: -.infinity)
        for c in 0..<8 {
            let p = SIMD3(c & 1 == 0 ? lo.x : hi.x, c & 2 == 0 ? lo.y : hi.y, c & 4 == 0 ? lo.z : hi.z)
            let g = gridCoordinates(p)
            gLo = pointwiseMin(gLo, g)
            gHi = pointwiseMax(gHi, g)
        }
        guard gLo.x.isFinite && gLo.y.isFinite && gLo.z.isFinite && gHi.x.isFinite && gHi.y.isFinite && gHi.z.isFinite else { return nil }
        var first = SIMD3<Int>(0, 0, 0), count = SIMD3<Int>(0, 0, 0)
        let wrap = coversCell
        for k in 0..<3 {
            var a = Int(max(-1e9, gLo[k].rounded(.down))), b = Int(min(1e9, gHi[k].rounded(.up)))
            if !wrap[k] {
                a = max(a, 0)
                b = min(b, size[k] - 1)
            }
            guard b >= a else { return nil }
            first[k] = a
            count[k] = b - a + 1
        }
        let (plane, o1) = count.x.multipliedReportingOverflow(by: count.y)
        let (voxels, o2) = plane.multipliedReportingOverflow(by: count.z)
        guard !o1 && !o2 && voxels <= limits.maxVoxels else {
            throw InputFileError(file: file, message: "the region asked for is \(count.x) x \(count.y) x \(count.z) grid points: more than the limit of \(limits.maxVoxels)")
        }
        var out = self
        out.size = count
        out.origin = position(SIMD3(Double(first.x), Double(first.y), Double(first.z)))
        out.values = [Float](repeating: 0, count: voxels)
        // Block point j is grid point start + j; the cell repeats every `sampling` points.
        func wrapped(_ i: Int, _ k: Int) -> Int {
            guard wrap[k] else { return i }
            let n = header.sampling[k]
            let m = i % n
            return m < 0 ? m + n : m
        }
        var i = 0
        for z in 0..<count.z {
            let sz = wrapped(first.z + z, 2)
            for y in 0..<count.y {
                let sy = wrapped(first.y + y, 1)
                let row = (sz * size.y + sy) * size.x
                for x in 0..<count.x {
                    out.values[i] = values[row + wrapped(first.x + x, 0)]
                    i += 1
                }
            }
        }
        return out
    }
}

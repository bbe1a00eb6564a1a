import Core
@testable import Density
import Foundation
import XCTest

/// Real CCP4/MRC maps read as gemmi and mrcfile read them; isosurfaces measured against
/// scikit-image's marching cubes; hostile headers refused.
final class DensityMapTests: XCTestCase {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/maps")

    func load(_ name: String) throws -> DensityMap {
        try DensityMap.load(path: DensityMapTests.fixtures.appendingPathComponent(name).path)
    }

    func value(_ map: DensityMap, _ x: Int, _ y: Int, _ z: Int) -> Float {
        map.values[(z * map.size.y + y) * map.size.x + x]
    }

    /// Header words as gemmi's `header_i32` gives them, the cell as its `unit_cell`, values at
    /// grid points as mrcfile's data (in file order, mapped through MAPC/MAPR/MAPS) has them.
    func testHeadersAndValuesAsGemmiAndMrcfileReadThem() throws {
        struct Case {
            var file: String, counts: SIMD3<Int>, mode: Int, starts: SIMD3<Int>, sampling: SIMD3<Int>, axes: SIMD3<Int>
            var spaceGroup: Int, symmetryBytes: Int, cell: [Double], size: SIMD3<Int>, values: [(SIMD3<Int>, Float)]
        }
        let cases = [
            Case(file: "EMD-3197.map", counts: [20, 20, 20], mode: 2, starts: [-2, 0, 0], sampling: [20, 20, 20], axes: [1, 2, 3],
                 spaceGroup: 1, symmetryBytes: 0, cell: [228, 228, 228, 90, 90, 90], size: [20, 20, 20],
                 values: [([0, 0, 0], -1.801309), ([19, 0, 0], -2.056672), ([0, 19, 0], 1.176278), ([0, 0, 19], -1.656098), ([10, 10, 10], 0.12517)]),
            Case(file: "emd_3001.map.gz", counts: [73, 43, 25], mode: 2, starts: [0, -21, -12], sampling: [40, 12, 72], axes: [3, 1, 2],
                 spaceGroup: 4, symmetryBytes: 160, cell: [17.93, 4.71, 33.03, 90, 94.326, 90], size: [43, 25, 73],
                 values: [([0, 0, 0], 0.042834), ([42, 0, 0], 0.067245), ([42, 24, 72], 0.067245), ([21, 12, 36], -0.080189)]),
            Case(file: "5i55_tiny.ccp4", counts: [8, 6, 10], mode: 2, starts: [50, -8, 40], sampling: [60, 24, 60], axes: [2, 1, 3],
                 spaceGroup: 4, symmetryBytes: 160, cell: [29.45, 10.5, 29.7, 90, 111.975, 90], size: [6, 8, 10],
                 values: [([0, 0, 0], 0.054935), ([5, 0, 0], -0.201428), ([0, 7, 0], -0.256363), ([0, 0, 9], -0.32961), ([3, 4, 5], 1.171947)]),
            Case(file: "iota_yzx.ccp4.gz", counts: [1, 2, 4], mode: 2, starts: [20, -3, 1], sampling: [5, 6, 7], axes: [2, 3, 1],
                 spaceGroup: 1, symmetryBytes: 80, cell: [150, 132, 140, 90, 90, 90], size: [4, 1, 2],
                 values: [([0, 0, 0], 60), ([3, 0, 0], 186), ([0, 0, 1], 61), ([3, 0, 1], 187), ([2, 0, 1], 145)]),
        ]
        for c in cases {
            let map = try load(c.file)
            let h = map.header
            XCTAssertEqual(h.counts, c.counts, c.file)
            XCTAssertEqual(h.mode, c.mode, c.file)
            XCTAssertEqual(h.starts, c.starts, c.file)
            XCTAssertEqual(h.sampling, c.sampling, c.file)
            XCTAssertEqual(h.axes, c.axes, c.file)
            XCTAssertEqual(h.spaceGroup, c.spaceGroup, c.file)
            XCTAssertEqual(h.symmetryBytes, c.symmetryBytes, c.file)
            let cell = [h.cell.lengths.x, h.cell.lengths.y, h.cell.lengths.z, h.cell.angles.x, h.cell.angles.y, h.cell.angles.z]
            for (a, b) in zip(cell, c.cell) { XCTAssertEqual(a, b, accuracy: 1e-3, c.file) }
            XCTAssertEqual(map.size, c.size, c.file)
            for (p, v) in c.values { XCTAssertEqual(value(map, p.x, p.y, p.z), v, accuracy: 1e-5, "\(c.file) at \(p)") }
        }
    }

    /// Statistics from the values, as numpy's `min`, `max`, `mean` and `std`; a sigma level is
    /// the mean plus that many of the `std`.
    func testStatisticsAsNumpy() throws {
        let emd = try load("EMD-3197.map").statistics
        XCTAssertEqual(emd.minimum, -4.13375, accuracy: 1e-5)
        XCTAssertEqual(emd.maximum, 5.57674, accuracy: 1e-5)
        XCTAssertEqual(emd.mean, 0.783612034, accuracy: 1e-8)
        XCTAssertEqual(emd.rms, 2.39995291, accuracy: 1e-7)
        let micro = try load("emd_3001.map.gz").statistics
        XCTAssertEqual(micro.mean, 0.000532966682, accuracy: 1e-10)
        XCTAssertEqual(micro.rms, 0.157057221, accuracy: 1e-8)
    }

    /// Levels: `1.5s` the mean plus 1.5 standard deviations, `0.02` itself, `148154.4A3` the
    /// level with exactly 100 of EMD-3197's voxels (11.4 Å a side) at or above it.
    func testLevels() throws {
        let emd = try load("EMD-3197.map")
        XCTAssertEqual(MapLevel("1.5s"), .sigma(1.5))
        XCTAssertEqual(MapLevel("1.5sigma"), .sigma(1.5))
        XCTAssertEqual(MapLevel("0.02"), .absolute(0.02))
        XCTAssertEqual(MapLevel("12000A3"), .enclosing(12000))
        for bad in ["", "s", "lots", "1e400", "nan", "-5A3", "0a3"] { XCTAssertNil(MapLevel(bad), bad) }
        XCTAssertEqual(Double(MapLevel.sigma(1.5).value(in: emd.statistics)), 0.783612034 + 1.5 * 2.39995291, accuracy: 1e-5)
        let level = MapLevel.enclosing(100 * 11.4 * 11.4 * 11.4).value(in: emd)
        XCTAssertEqual(emd.values.filter { $0 >= level }.count, 100)
    }

    /// Where grid points lie: EMD-3197's first point two steps of 11.4 Å before the cell's origin
    /// along x (NCSTART -2); a monoclinic cell's z step leans over x by cos(beta); mrcfile's
    /// MRC2014 ORIGIN taken where the starts are zero.
    func testGridPositions() throws {
        let emd = try load("EMD-3197.map")
        XCTAssertEqual(emd.origin.x, -22.8, accuracy: 1e-9)
        XCTAssertEqual(emd.steps.x.x, 11.4, accuracy: 1e-9)
        let micro = try load("emd_3001.map.gz")
        let beta = 94.326 * Double.pi / 180
        XCTAssertEqual(micro.steps.z.x, 33.03 / 72 * cos(beta), accuracy: 1e-4)
        XCTAssertEqual(micro.steps.z.z, 33.03 / 72 * sin(beta), accuracy: 1e-4)
        XCTAssertEqual(micro.steps.y.y, 4.71 / 12, accuracy: 1e-6)
        // gemmi's `get_position` after `setup`: 5i55's first point and the one a step along x and z from it.
        let tiny = try load("5i55_tiny.ccp4")
        for (a, b) in zip([tiny.origin.x, tiny.origin.y, tiny.origin.z], [-11.3359, 21.875, 18.3615]) { XCTAssertEqual(a, b, accuracy: 1e-4) }
        let next = tiny.position(SIMD3(1, 0, 1))
        for (a, b) in zip([next.x, next.y, next.z], [-11.0303, 21.875, 18.8205]) { XCTAssertEqual(a, b, accuracy: 1e-4) }
        XCTAssertEqual(micro.origin.x, -9.41325, accuracy: 1e-4)
        XCTAssertEqual(micro.origin.y, -4.71, accuracy: 1e-4)
        let mode0 = try load("mrcfile_mode0.mrc")
        XCTAssertEqual(mode0.origin, SIMD3(10, 20, 30))
        XCTAssertEqual(mode0.steps.y.y, 11.4, accuracy: 1e-5)
    }

    /// Modes 0, 1, 6 and 12 and big-endian floats as mrcfile wrote them: the same values
    /// mrcfile reads back (data[7, 3, 1] is section 7, row 3, column 1: x 1, y 3, z 7).
    func testEveryModeAndByteOrder() throws {
        let expected: [(String, Int, Float, Float, Double)] = [
            ("mrcfile_mode0.mrc", 0, 101, 81, 41.58203125),
            ("mrcfile_mode1.mrc", 1, 5072, 4066, 2079.125),
            ("mrcfile_mode6.mrc", 6, 10072, 9066, 7079.125),
            ("mrcfile_mode12.mrc", 12, 5.0703125, 4.06640625, 2.079054355621338),
        ]
        for (file, mode, first, other, mean) in expected {
            let map = try load(file)
            XCTAssertEqual(map.header.mode, mode, file)
            XCTAssertEqual(map.size, SIMD3(8, 8, 8), file)
            XCTAssertEqual(value(map, 0, 0, 0), first, file)
            XCTAssertEqual(value(map, 1, 3, 7), other, file)
            XCTAssertEqual(map.statistics.mean, mean, accuracy: 1e-6, file)
        }
        let big = try load("mrcfile_bigendian.mrc")
        XCTAssertTrue(big.header.bigEndian)
        let emd = try load("EMD-3197.map")
        XCTAssertEqual(value(big, 1, 3, 7), value(emd, 7, 9, 13), "the 8^3 block from [6, 6, 6]")
    }

    /// The isosurface's area and enclosed volume against scikit-image's `marching_cubes` on the
    /// same values (padded by a point below the minimum all round, so both surfaces close):
    /// within 2%. EMD-3197 at 1 sigma (level 3.18356494) in Å (11.4 Å voxels): skimage 255,383 Å²
    /// and 2,190,700 Å³; emd_3001 at 1.5 sigma (0.236118798) in grid units: 8,536.12 and 5,703.24.
    func testIsosurfaceAgainstScikitImage() throws {
        func padded(_ map: DensityMap, unitSteps: Bool) -> DensityMap {
            var out = map
            let (nx, ny, nz) = (map.size.x + 2, map.size.y + 2, map.size.z + 2)
            let low = Float(map.statistics.minimum) - 1
            out.values = [Float](repeating: low, count: nx * ny * nz)
            for z in 0..<map.size.z {
                for y in 0..<map.size.y {
                    for x in 0..<map.size.x {
                        out.values[((z + 1) * ny + y + 1) * nx + x + 1] = value(map, x, y, z)
                    }
                }
            }
            out.size = SIMD3(nx, ny, nz)
            out.origin = .zero
            if unitSteps { out.steps = (SIMD3(1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1)) }
            return out
        }
        let emd = padded(try load("EMD-3197.map"), unitSteps: false)
        let s1 = try Isosurface.make(emd, level: 3.18356494)
        XCTAssertEqual(s1.area, 255_383, accuracy: 255_383 * 0.02)
        XCTAssertEqual(s1.enclosedVolume, 2_190_700, accuracy: 2_190_700 * 0.02)
        let micro = padded(try load("emd_3001.map.gz"), unitSteps: true)
        let s2 = try Isosurface.make(micro, level: 0.236118798)
        XCTAssertEqual(s2.area, 8_536.12, accuracy: 8_536.12 * 0.02)
        XCTAssertEqual(s2.enclosedVolume, 5_703.24, accuracy: 5_703.24 * 0.02)
        // Closed: every edge shared by exactly two triangles (slabs joined without seams).
        for s in [s1, s2] {
            var uses: [UInt64: Int] = [:]
            for t in stride(from: 0, to: s.indices.count, by: 3) {
                for k in 0..<3 {
                    let a = UInt64(s.indices[t + k]), b = UInt64(s.indices[t + (k + 1) % 3])
                    uses[min(a, b) << 32 | max(a, b), default: 0] += 1
                }
            }
            XCTAssertTrue(uses.values.allSatisfy { $0 == 2 }, "\(uses.values.filter { $0 != 2 }.count) edges not shared by two")
            XCTAssertGreaterThan(s.enclosedVolume, 0, "wound outward")
        }
    }

    /// A map over its whole unit cell (gemmi's 2mFo-DFc of 5wkd from its test MTZ, 90 x 8 x 30
    /// over the C2 cell) read anywhere by periodicity: a region one cell along from the stored
    /// block holds the block's values; a block that is not the whole cell is cut to itself.
    func testRegionsWrapRoundTheCell() throws {
        let map = try load("5wkd_2fofc.ccp4.gz")
        XCTAssertEqual(map.coversCell, [true, true, true])
        let a = map.steps.x * 90, b = map.steps.y * 8
        let lo = map.position(SIMD3(2, 1, 3)), hi = map.position(SIMD3(6, 4, 8))
        let shifted = try XCTUnwrap(try map.region(from: lo + a - 0.01, to: hi + a + b + 0.01, file: "5wkd"))
        XCTAssertGreaterThanOrEqual(shifted.size.x, 5)
        let g = shifted.gridCoordinates(map.position(SIMD3(3, 2, 4)) + a + b)
        let (x, y, z) = (Int(g.x.rounded()), Int(g.y.rounded()), Int(g.z.rounded()))
        XCTAssertEqual(shifted.values[(z * shifted.size.y + y) * shifted.size.x + x], value(map, 3, 2, 4), "a cell along x and y")
        // EMD-3197's block is not its whole cell: a box reaching past it is cut to the block,
        // one wholly outside it is nothing.
        let emd = try load("EMD-3197.map")
        XCTAssertEqual(emd.coversCell, [true, true, true], "20 points over a cell sampled 20 times: the whole cell")
        let tiny = try load("5i55_tiny.ccp4")
        XCTAssertEqual(tiny.coversCell, [false, false, false])
        let cut = try XCTUnwrap(try tiny.region(from: tiny.origin - 100, to: tiny.origin + 1, file: "tiny"))
        XCTAssertLessThan(cut.voxelCount, tiny.voxelCount)
        XCTAssertNil(try tiny.region(from: tiny.origin - 100, to: tiny.origin - 50, file: "tiny"))
        // A region past the voxel limit is refused before it is allocated.
        XCTAssertThrowsError(try map.region(from: lo, to: lo + 10_000, file: "5wkd.map", limits: DensityLimits(maxVoxels: 1_000_000))) {
            XCTAssertTrue("\($0)".contains("more than the limit"), "\($0)")
        }
    }

    /// The mesh's lines (`lines: true`): edges of the triangles, each in a plane of the grid
    /// (PyMOL's isomesh: contours on the grid's planes), the fans' diagonals left out.
    func testMeshLinesLieInTheGridsPlanes() throws {
        var map = try load("emd_3001.map.gz")
        map.origin = .zero
        map.steps = (SIMD3(1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1))
        let s = try Isosurface.make(map, level: 0.236118798, lines: true)
        var edges = Set<UInt64>()
        for t in stride(from: 0, to: s.indices.count, by: 3) {
            for k in 0..<3 {
                let a = UInt64(s.indices[t + k]), b = UInt64(s.indices[t + (k + 1) % 3])
                edges.insert(min(a, b) << 32 | max(a, b))
            }
        }
        XCTAssertGreaterThan(s.lines.count / 2, edges.count / 2, "most edges are on the planes")
        XCTAssertLessThan(s.lines.count / 2, edges.count, "the diagonals are left out")
        for l in stride(from: 0, to: s.lines.count, by: 2) {
            let a = s.positions[Int(s.lines[l])], b = s.positions[Int(s.lines[l + 1])]
            XCTAssertTrue(edges.contains(UInt64(min(s.lines[l], s.lines[l + 1])) << 32 | UInt64(max(s.lines[l], s.lines[l + 1]))))
            XCTAssertTrue((0..<3).contains { abs(a[$0] - b[$0]) < 1e-5 && abs(a[$0] - a[$0].rounded()) < 1e-5 }, "\(a) - \(b) in a grid plane")
        }
    }

    /// A surface past the triangle limit is refused, naming the map, not built: noise contoured
    /// at its mean has about a triangle a voxel.
    func testASurfaceTooLargeIsRefused() throws {
        var map = try load("emd_3001.map.gz")
        var seed: UInt64 = 7
        map.values = map.values.map { _ in
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Float(seed >> 40) / Float(1 << 24) - 0.5
        }
        XCTAssertThrowsError(try Isosurface.make(map, level: 0, file: "noise.map", maxTriangles: 10_000)) {
            XCTAssertTrue("\($0)".hasPrefix("noise.map: the surface at level 0.0 has more than 10000 triangles"), "\($0)")
        }
        XCTAssertGreaterThan(try Isosurface.make(map, level: 0).triangleCount, 10_000)
    }

    // MARK: Hostile maps

    /// A header of our own making over `data` bytes, words set as given (little-endian).
    func header(_ words: [Int: Int32], floats: [Int: Float] = [:], data: Int = 8 * 4) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 1024 + data)
        func put(_ w: Int, _ bits: UInt32) {
            for k in 0..<4 { bytes[(w - 1) * 4 + k] = UInt8(truncatingIfNeeded: bits >> (8 * k)) }
        }
        let defaults: [Int: Int32] = [1: 2, 2: 2, 3: 2, 4: 2, 8: 2, 9: 2, 10: 2, 17: 1, 18: 2, 19: 3, 23: 1]
        for (w, v) in defaults.merging(words, uniquingKeysWith: { $1 }) { put(w, UInt32(bitPattern: v)) }
        for (w, v) in [11: Float(10), 12: 10, 13: 10, 14: 90, 15: 90, 16: 90].merging(floats, uniquingKeysWith: { $1 }) { put(w, v.bitPattern) }
        bytes[208] = 0x4D; bytes[209] = 0x41; bytes[210] = 0x50; bytes[211] = 0x20
        bytes[212] = 0x44; bytes[213] = 0x41
        return bytes
    }

    func testHostileHeadersAreRefusedNamingTheFileAndWord() throws {
        XCTAssertNoThrow(try DensityMap.parse(header([:]), file: "ok.map"))
        let refused: [(String, [UInt8], String)] = [
            ("2^31 columns", header([1: Int32.max]), "NC"),
            ("sizes whose product overflows", header([1: 16_000, 2: 16_000, 3: 16_000]), "more than the limit"),
            ("mode 99", header([4: 99]), "mode 99"),
            ("complex mode 4", header([4: 4]), "complex"),
            ("negative cell", header([:], floats: [11: -10]), "cell length a"),
            ("zero cell", header([:], floats: [13: 0]), "cell length c"),
            ("NaN angle", header([:], floats: [15: .nan]), "cell angle beta"),
            ("flat cell", header([:], floats: [14: 120, 15: 120, 16: 120]), "no cell with a volume"),
            ("axes not an order", header([17: 1, 18: 1, 19: 3]), "MAPC"),
            ("truncated data", header([1: 4, 2: 4, 3: 4]), "truncated"),
            ("symmetry past the end", header([24: 1 << 30]), "NSYMBT"),
            ("negative symmetry", header([24: -4]), "NSYMBT"),
            ("zero sampling", header([8: 0]), "NX"),
            ("short file", Array(header([:]).prefix(500)), "shorter than the 1024-byte header"),
        ]
        for (what, bytes, phrase) in refused {
            XCTAssertThrowsError(try DensityMap.parse(bytes, file: "hostile.map"), what) { error in
                let text = "\(error)"
                XCTAssertTrue(text.hasPrefix("hostile.map: "), "\(what): \(text)")
                XCTAssertTrue(text.contains(phrase), "\(what): \(text)")
            }
        }
        // The voxel limit, before anything is allocated.
        XCTAssertThrowsError(try DensityMap.parse(header([1: 100, 2: 100, 3: 100]), file: "big.map", limits: DensityLimits(maxVoxels: 1000))) {
            XCTAssertTrue("\($0)".contains("more than the limit of 1000"), "\($0)")
        }
    }
}

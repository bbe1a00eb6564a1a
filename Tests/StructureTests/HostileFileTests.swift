import Foundation
import XCTest
@testable import Structure

/// Files made to take a reader down: each is refused with an error naming the file and the
/// limit, or read with its bad part set aside, never a trap or an allocation the file asked for.
/// The BinaryCIF producers' own files (Mol*'s `cif2bcif`, the PDBe's, Mol*'s ModelServer) read
/// as the mmCIF they were made from.
final class HostileFileTests: XCTestCase {
    /// One atom (`Tests/Fixtures/one-atom.cif`) and the assembly tables given.
    static func mmCIF(assemblies: String) -> [UInt8] {
        let head = (try? String(contentsOfFile: Fixtures.path("one-atom.cif"), encoding: .utf8)) ?? ""
        return Array((head + assemblies + "\n").utf8)
    }

    static let identity = """
        loop_
        _pdbx_struct_oper_list.id
        _pdbx_struct_oper_list.matrix[1][1]
        _pdbx_struct_oper_list.matrix[1][2]
        _pdbx_struct_oper_list.matrix[1][3]
        _pdbx_struct_oper_list.vector[1]
        _pdbx_struct_oper_list.matrix[2][1]
        _pdbx_struct_oper_list.matrix[2][2]
        _pdbx_struct_oper_list.matrix[2][3]
        _pdbx_struct_oper_list.vector[2]
        _pdbx_struct_oper_list.matrix[3][1]
        _pdbx_struct_oper_list.matrix[3][2]
        _pdbx_struct_oper_list.matrix[3][3]
        _pdbx_struct_oper_list.vector[3]
        1 1 0 0 0 0 1 0 0 0 0 1 0
        """

    /// `-9223372036854775808-0`: the range's length does not fit an Int. Listed with the reason, not a trap.
    func testAnAssemblyRangeThatOverflowsIsRefused() throws {
        for expression in ["-9223372036854775808-0", "(1)(-9223372036854775808-9223372036854775807)", "0-9223372036854775807"] {
            let s = try StructureFile.parse(Self.mmCIF(assemblies: """
                loop_
                _pdbx_struct_assembly.id
                _pdbx_struct_assembly.details
                1 x
                loop_
                _pdbx_struct_assembly_gen.assembly_id
                _pdbx_struct_assembly_gen.oper_expression
                _pdbx_struct_assembly_gen.asym_id_list
                1 '\(expression)' A
                \(Self.identity)
                """), source: "range.cif")
            XCTAssertEqual(s.models[0].atoms.count, 1)
            XCTAssertTrue(s.assemblies[0].problem?.contains("backwards or longer than 100000") ?? false, "\(expression): \(String(describing: s.assemblies[0].problem))")
            XCTAssertThrowsError(try s.applying(.id("1"), source: "range.cif"))
        }
        XCTAssertThrowsError(try AssemblyBuilder.expand("-9223372036854775808-0", source: "x.cif"))
    }

    /// 300 generator rows of (1-46)(1-46)(1-46), 97,336 copies each: the file's copies are counted
    /// across every row and assembly before any is expanded, and past 100,000 the rest are refused.
    func testAssemblyProductsAreCountedAcrossTheWholeFile() throws {
        let rows = (0..<300).map { "\($0 % 3 + 1) '(1-46)(1-46)(1-46)' A" }.joined(separator: "\n")
        let operators = (1...46).map { "\($0) 1 0 0 0 0 1 0 0 0 0 1 0" }.joined(separator: "\n")
        let s = try StructureFile.parse(Self.mmCIF(assemblies: """
            loop_
            _pdbx_struct_assembly.id
            _pdbx_struct_assembly.details
            1 x
            2 y
            3 z
            loop_
            _pdbx_struct_assembly_gen.assembly_id
            _pdbx_struct_assembly_gen.oper_expression
            _pdbx_struct_assembly_gen.asym_id_list
            \(rows)
            \(Self.identity.split(separator: "\n").dropLast().joined(separator: "\n"))
            \(operators)
            """), source: "products.cif")
        XCTAssertEqual(s.assemblies.count, 3)
        let copies = s.assemblies.map { $0.generators.reduce(0) { $0 + $1.operators.count } }
        XCTAssertLessThanOrEqual(copies.reduce(0, +), AssemblyBuilder.maxCopies)
        XCTAssertEqual(copies[0], 0, "the first assembly's 100 rows of 97,336 copies pass the file's limit")
        for a in s.assemblies {
            XCTAssertTrue(a.problem?.contains("more than 100000 copies") ?? false, "\(a.id): \(String(describing: a.problem))")
        }
        // One row of 97,336 fits, and builds under the atom limit.
        let one = try StructureFile.parse(Self.mmCIF(assemblies: """
            loop_
            _pdbx_struct_assembly.id
            1
            loop_
            _pdbx_struct_assembly_gen.assembly_id
            _pdbx_struct_assembly_gen.oper_expression
            _pdbx_struct_assembly_gen.asym_id_list
            1 '(1-46)(1-46)(1-46)' A
            \(Self.identity.split(separator: "\n").dropLast().joined(separator: "\n"))
            \(operators)
            """), source: "one.cif")
        XCTAssertNil(one.assemblies[0].problem)
        XCTAssertEqual(one.assemblies[0].generators[0].operators.count, 97_336)
    }

    /// 2,000 assemblies and 2,000 generator rows: read in time linear in the rows (the rows of each
    /// assembly found once, not by scanning every row for every assembly).
    func testManyAssembliesAndRowsAreMatchedOnce() throws {
        let n = 2_000
        let assemblies = (1...n).map { "\($0)" }.joined(separator: "\n")
        let rows = (1...n).map { "\($0) 1 A" }.joined(separator: "\n")
        let s = try StructureFile.parse(Self.mmCIF(assemblies: """
            loop_
            _pdbx_struct_assembly.id
            \(assemblies)
            loop_
            _pdbx_struct_assembly_gen.assembly_id
            _pdbx_struct_assembly_gen.oper_expression
            _pdbx_struct_assembly_gen.asym_id_list
            \(rows)
            \(Self.identity)
            """), source: "many.cif")
        XCTAssertEqual(s.assemblies.count, n)
        XCTAssertTrue(s.assemblies.allSatisfy { $0.problem == nil && $0.generators.count == 1 && $0.generators[0].chains == ["A"] })
    }

    /// A pair after a loop of the same category adds a tag to the first row only; a pair after a
    /// loop with no rows starts the first. Neither may index past a row.
    func testAPairAfterALoopOfItsCategoryIsNotReadPastARow() throws {
        let s = try StructureFile.parse(Self.mmCIF(assemblies: """
            loop_
            _pdbx_struct_assembly.id
            1
            2
            _pdbx_struct_assembly.details x
            loop_
            _pdbx_struct_assembly_gen.assembly_id
            _pdbx_struct_assembly_gen.oper_expression
            1 1
            2 1
            _pdbx_struct_assembly_gen.asym_id_list A
            loop_
            _entity.id
            loop_
            _exptl.method
            'X-RAY DIFFRACTION'
            _entity.type x
            \(Self.identity)
            """), source: "ragged.cif")
        XCTAssertEqual(s.assemblies.map(\.id), ["1", "2"])
        XCTAssertEqual(s.assemblies[0].generators.first?.chains, ["A"])
        XCTAssertTrue(s.assemblies[1].generators.isEmpty)
    }

    // MARK: BinaryCIF

    /// One entry as three producers write it, each equal to the RCSB's mmCIF of it: Mol*'s
    /// `cif2bcif` (string columns of `?` stored as an empty text with offsets [0,0]), the PDBe's
    /// files, Mol*'s ModelServer.
    func testBinaryCIFFromEveryProducerReadsAsTheMMCIF() throws {
        let cif = try Fixtures.load("bcif/200l_rcsb.cif.gz")
        XCTAssertEqual(cif.metadata.id, "200L")
        for producer in ["200l_cif2bcif", "200l_ebi", "200l_modelserver"] {
            let b = try Fixtures.load("bcif/\(producer).bcif.gz")
            Fixtures.assertReadAlike(b, cif, producer)
            XCTAssertEqual(b.metadata.id, cif.metadata.id, producer)
            XCTAssertEqual(b.entities.map(\.id), cif.entities.map(\.id), producer)
        }
        // cif2bcif keeps every category: entities, metadata and secondary structure whole.
        let molstar = try Fixtures.load("bcif/200l_cif2bcif.bcif.gz")
        XCTAssertEqual(molstar.metadata, cif.metadata)
        XCTAssertEqual(molstar.entities, cif.entities)
        XCTAssertEqual(molstar.secondaryStructure, cif.secondaryStructure)
    }

    /// Sizes taken on the file's word, each refused with the file's name before the allocation.
    func testBinaryCIFSizesAreCheckedBeforeAllocating() throws {
        typealias B = BinaryCIFBuilder
        var cases: [(String, [UInt8], String)] = []
        // rowCount 2^40 in a 226-byte file.
        cases.append(("rowCount 2^40", B.document(rows: 1 << 40, columns: [("Cartn_y", [B.byteArray(3)], [1, 0, 0, 0])]), "values allowed"))
        // Delta makes a run of Int.max, which RunLength must not add to its count.
        cases.append(("delta-chained run length", B.document(rows: 1, columns: [("Cartn_y", [
            B.encoding([("kind", .s("RunLength")), ("srcType", .i(3)), ("srcSize", .i(1))]),
            B.encoding([("kind", .s("Delta")), ("origin", .l(Int.max - 5)), ("srcType", .i(3))]),
            B.byteArray(3)], [0, 0, 0, 0, 5, 0, 0, 0])]), "runs past srcSize"))
        // 40 run-length columns of 10 million rows in a few kilobytes: refused before any is decoded.
        let run = [B.encoding([("kind", .s("RunLength")), ("srcType", .i(3)), ("srcSize", .i(10_000_000))]), B.byteArray(3)]
        cases.append(("40 columns of 10M", B.document(rows: 10_000_000, columns: (0..<40).map { ("c\($0)", run, [1, 0, 0, 0, 0x80, 0x96, 0x98, 0]) }), "values allowed"))
        // A string array whose offsets run past its text, and one nested in itself past two levels.
        cases.append(("offsets past the text", B.document(rows: 1, columns: [("Cartn_y", [B.stringArray(text: "ab", offsets: [0, 9])], [0, 0, 0, 0])]), "offsets"))
        for (what, bytes, expected) in cases {
            XCTAssertThrowsError(try StructureFile.parse(bytes, source: "hostile.bcif"), what) { error in
                XCTAssertTrue(error is StructureError, "\(what): \(error)")
                XCTAssertTrue("\(error)".contains("hostile.bcif"), "\(what): \(error)")
                XCTAssertTrue("\(error)".contains(expected), "\(what): \(error)")
            }
        }
        XCTAssertLessThan(cases[0].1.count, 400)
        XCTAssertLessThan(cases[2].1.count, 8_000)
    }

    /// Five million one-byte integers in an array: walked in place, never boxed a value at a time.
    func testAMessagePackDocumentOfMillionsOfValuesIsNotBoxed() throws {
        let n = 5_000_000
        var bytes: [UInt8] = [0x82] + BinaryCIFBuilder.str("dataBlocks") + [0x90] + BinaryCIFBuilder.str("junk") + [0xDD]
        bytes += withUnsafeBytes(of: UInt32(n).bigEndian, Array.init)
        bytes += [UInt8](repeating: 0x01, count: n)
        XCTAssertThrowsError(try StructureFile.parse(bytes, source: "boxes.bcif")) { error in
            XCTAssertTrue("\(error)".contains("boxes.bcif: BinaryCIF: no dataBlocks"), "\(error)")
        }
        // And as the one data block's categories: each value is one category that is not a map.
        var categories: [UInt8] = [0x81] + BinaryCIFBuilder.str("dataBlocks") + [0x91, 0x82] + BinaryCIFBuilder.str("header") + BinaryCIFBuilder.str("X")
            + BinaryCIFBuilder.str("categories") + [0xDD]
        categories += withUnsafeBytes(of: UInt32(n).bigEndian, Array.init)
        categories += [UInt8](repeating: 0x01, count: n)
        XCTAssertThrowsError(try StructureFile.parse(categories, source: "boxes.bcif")) { error in
            XCTAssertTrue("\(error)".contains("a category without name or columns"), "\(error)")
        }
    }
}

extension BinaryCIFBuilder {
    static func int64(_ v: Int) -> [UInt8] { [0xD3] + withUnsafeBytes(of: Int64(v).bigEndian, Array.init) }

    enum Value { case s(String), i(Int), l(Int) }

    /// One encoding step's map.
    static func encoding(_ pairs: [(String, Value)]) -> [UInt8] {
        var m: [UInt8] = [0x80 | UInt8(pairs.count)]
        for (k, v) in pairs {
            m += str(k)
            switch v {
            case .s(let s): m += str(s)
            case .i(let i): m += int(i)
            case .l(let l): m += int64(l)
            }
        }
        return m
    }

    static func byteArray(_ type: Int) -> [UInt8] { encoding([("kind", .s("ByteArray")), ("type", .i(type))]) }

    /// A StringArray whose indices and offsets are Int32 byte arrays.
    static func stringArray(text: String, offsets: [Int32]) -> [UInt8] {
        let raw = offsets.flatMap { withUnsafeBytes(of: $0.littleEndian, Array.init) }
        var m: [UInt8] = [0x85] + str("kind") + str("StringArray") + str("stringData") + str(text)
        m += str("offsets") + [0xC4, UInt8(raw.count)] + raw
        m += str("offsetEncoding") + [0x91] + byteArray(3) + str("dataEncoding") + [0x91] + byteArray(3)
        return m
    }

    /// One category `_x` of `rows` rows, its columns each a name, its encodings (first applied
    /// last, as in the file) and its bytes.
    static func document(rows: Int, columns: [(String, [[UInt8]], [UInt8])]) -> [UInt8] {
        var list: [UInt8] = columns.count < 16 ? [0x90 | UInt8(columns.count)] : [0xDC, 0, UInt8(columns.count)]
        for (name, encodings, data) in columns {
            list += [0x83] + str("name") + str(name) + str("mask") + [0xC0] + str("data")
            list += [0x82] + str("data") + [0xC4, UInt8(data.count)] + data + str("encoding") + [0x90 | UInt8(encodings.count)] + encodings.joined()
        }
        let category: [UInt8] = [0x83] + str("name") + str("_atom_site") + str("rowCount") + int64(rows) + str("columns") + list
        let block: [UInt8] = [0x82] + str("header") + str("X") + str("categories") + [0x91] + category
        return [0x81] + str("dataBlocks") + [0x91] + block
    }
}

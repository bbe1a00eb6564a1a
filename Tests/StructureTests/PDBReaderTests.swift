import Core
import TestSupport
import XCTest
@testable import Structure

final class PDBReaderTests: XCTestCase {
    func testCrambinHierarchyAndMetadata() throws {
        let s = try Fixtures.load("1crn.pdb")
        XCTAssertEqual(s.format, .pdb)
        XCTAssertEqual(s.metadata.id, "1CRN")
        XCTAssertEqual(s.metadata.method, "X-RAY DIFFRACTION")
        XCTAssertEqual(s.metadata.resolution, 1.5)
        XCTAssertTrue(s.metadata.title.hasPrefix("WATER STRUCTURE OF A HYDROPHOBIC PROTEIN AT ATOMIC RESOLUTION."))
        XCTAssertEqual(s.models.count, 1)
        let m = s.models[0]
        XCTAssertEqual(m.atoms.count, 327)
        XCTAssertEqual(m.residues.count, 46)
        XCTAssertEqual(m.chains.map(\.id), ["A"])
        let first = m.atoms[0]
        XCTAssertEqual(first.name, ShortName("N"))
        XCTAssertEqual(first.element, .nitrogen)
        XCTAssertEqual(first.position, SIMD3<Float>(17.047, 14.099, 3.625))
        XCTAssertEqual(first.bFactor, 13.79)
        XCTAssertEqual(m.residues[0].name, ShortName("THR"))
        XCTAssertEqual(m.residues[0].atoms, 0..<7)
        XCTAssertEqual(m.explicitBonds.count, 3, "three disulfides in CONECT")
    }

    /// The record names written out as integers are the six blank-padded bytes `key` makes.
    func testRecordKeys() {
        typealias R = PDBReader.Record
        let written: [(UInt64, StaticString)] = [
            (R.model, "MODEL"), (R.endmdl, "ENDMDL"), (R.ter, "TER"), (R.conect, "CONECT"), (R.header, "HEADER"),
            (R.title, "TITLE"), (R.compnd, "COMPND"), (R.source, "SOURCE"), (R.author, "AUTHOR"), (R.keywds, "KEYWDS"),
            (R.expdta, "EXPDTA"), (R.remark, "REMARK"), (R.modres, "MODRES"), (R.seqres, "SEQRES"), (R.hetnam, "HETNAM"),
            (R.helix, "HELIX"), (R.sheet, "SHEET"), (R.end, "END"),
        ]
        for (key, name) in written { XCTAssertEqual(key, R.key(name), "\(name)") }
        XCTAssertEqual(Set(written.map(\.0)).count, written.count)
    }

    func testOldLayoutWithLineNumbersInColumns73To80() throws {
        // Columns 73-80 hold "1GDR 109": neither segment id nor element.
        let s = try Fixtures.load("pdb1gdr.ent")
        XCTAssertEqual(s.models[0].atoms.count, 105)
        XCTAssertTrue(s.models[0].atoms.allSatisfy { $0.element == .carbon && $0.name == ShortName("CA") })
        XCTAssertEqual(s.metadata.title, "GAMMA DELTA RESOLVASE", "COMPND stands in for TITLE, without the line ids")
    }

    func testCRLFAndMissingResidueNames() throws {
        let s = try Fixtures.load("Nanotube.pdb")
        XCTAssertEqual(s.models[0].atoms.count, 288)
        XCTAssertTrue(s.models[0].atoms.allSatisfy { $0.element == .carbon })
        XCTAssertEqual(s.models[0].explicitBonds.count, 416)
    }

    func testCaffeineWithoutResidueOrChain() throws {
        let m = try Fixtures.load("Caffeine.pdb").models[0]
        XCTAssertEqual(m.atoms.count, 24)
        XCTAssertEqual(m.atoms.filter { $0.element == .hydrogen }.count, 10)
        XCTAssertEqual(m.atoms.filter { $0.element == .nitrogen }.count, 4)
        XCTAssertEqual(m.chains.map(\.id), [""])
        XCTAssertEqual(m.explicitBonds.count, 25, "CONECT lists each bond from both ends; zero fields are no atom")
    }

    func testConectFindsAtomsByDenseAndBySparseSerials() throws {
        func atom(_ serial: Int, _ name: String, _ x: Double) -> String {
            "HETATM" + String(repeating: " ", count: 5 - String(serial).count) + "\(serial) \(name.padding(toLength: 4, withPad: " ", startingAt: 0)) LIG A   1    "
                + String(format: "%8.3f%8.3f%8.3f", x, 0.0, 0.0) + "  1.00  0.00           C"
        }
        for serials in [[1, 2, 3], [7, 50_000, 99_999]] {
            var text = (0..<3).map { atom(serials[$0], "C\($0 + 1)", Double($0) * 1.5) }.joined(separator: "\n") + "\n"
            // Bonds 1-2 and 2-3, one listed from both ends, and a partner no atom has.
            func field(_ n: Int) -> String { String(repeating: " ", count: 5 - String(n).count) + "\(n)" }
            text += "CONECT" + field(serials[0]) + field(serials[1]) + "\n"
            text += "CONECT" + field(serials[1]) + field(serials[0]) + field(serials[2]) + field(12_345) + "\nEND\n"
            let bytes = Array(text.utf8)
            let m = try bytes.withUnsafeBufferPointer { try PDBReader.read($0, source: "conect.pdb") }.models[0]
            XCTAssertEqual(m.explicitBonds.map { [$0.a, $0.b] }, [[0, 1], [1, 2]], "serials \(serials)")
        }
    }

    func testModelsHybrid36AndIons() throws {
        let s = try Fixtures.load("multimodel.pdb")
        XCTAssertEqual(s.models.map(\.number), [1, 2])
        XCTAssertEqual(s.models.map(\.atoms.count), [10, 2])
        XCTAssertEqual(s.metadata.title, "TWO MODELS, HYBRID-36 NUMBERS, A CALCIUM ION AND A MERCURY ATOM SPLIT OVER TWO LINES")
        XCTAssertEqual(s.metadata.method, "SOLUTION NMR")
        let m = s.models[0]
        let calcium = m.atoms[8], mercury = m.atoms[9]
        XCTAssertEqual(calcium.serial, 100_000, "A0000 in hybrid-36")
        XCTAssertEqual(m.residues[Int(calcium.residue)].number, 10_000, "A000 in hybrid-36")
        XCTAssertEqual(calcium.element.symbol, "Ca", "CA starting in column 13 of a HETATM is calcium")
        XCTAssertEqual(mercury.element.symbol, "Hg")
        XCTAssertEqual(m.atoms[1].element, .carbon, "' CA ' is an alpha carbon")
        XCTAssertEqual(s.models[1].atoms[0].position.x, 0.1)
    }

    func testElementInferredFromAtomNameColumns() {
        func infer(_ name: String, _ residue: String = "ALA", hetero: Bool = false) -> String {
            Array(name.utf8).withUnsafeBufferPointer {
                PDBReader.inferElement($0, 0, residueName: ShortName(residue), hetero: hetero).symbol
            }
        }
        XCTAssertEqual(infer(" CA "), "C")
        XCTAssertEqual(infer("CA  ", "CA", hetero: true), "Ca")
        XCTAssertEqual(infer("1HB "), "H")
        XCTAssertEqual(infer("HD21", "ASN"), "H")
        XCTAssertEqual(infer("HO5'", "DA", hetero: true), "H")
        XCTAssertEqual(infer("FE  ", "HEM", hetero: true), "Fe")
        XCTAssertEqual(infer(" NA ", "HEM", hetero: true), "N")
        XCTAssertEqual(infer("CL1 ", "LIG", hetero: true), "Cl")
        XCTAssertEqual(infer("C12 ", "LIG", hetero: true), "C")
        XCTAssertEqual(infer("    "), "X")
    }

    /// AlphaFold DB's PDB files name the prediction in their TITLE: the B-factors are pLDDT.
    func testAnAlphaFoldModelSaysItIsPredicted() throws {
        let af = try Fixtures.load("alphafold/AF-A0A0R4IYF1-F1-model_v2.pdb")
        XCTAssertTrue(af.metadata.predicted)
        XCTAssertEqual(af.models[0].atoms.first?.bFactor, 39.14)
        XCTAssertFalse(try Fixtures.load("1crn.pdb").metadata.predicted)
    }

    func testAlternateLocationsAndInsertionCodes() throws {
        let m = try Fixtures.loadAll("1orc.pdb").models[0]
        XCTAssertEqual(m.atoms.count, 559)
        let first = try Fixtures.load("1orc.pdb")
        XCTAssertEqual(first.models[0].atoms.count, 553, "read by default with the first alternate of each")
        XCTAssertEqual(first.alternatesLeftAside, 6)
        let alternates = m.atoms.filter { $0.altLoc != 0 }
        XCTAssertEqual(alternates.count, 12)
        XCTAssertEqual(Set(alternates.map(\.altLoc)), [UInt8(ascii: "A"), UInt8(ascii: "B")])
        let mask = m.defaultConformerMask()
        XCTAssertEqual(zip(m.atoms, mask).filter { $0.0.altLoc != 0 && $0.1 }.count, 6, "one conformer of each pair")
        XCTAssertEqual(m.residues.filter { $0.insertionCode != 0 }.count, 5)
    }

    func testReadingTwiceGivesTheSameStructure() throws {
        let a = try Fixtures.load("1orc.pdb"), b = try Fixtures.load("1orc.pdb")
        XCTAssertEqual(a.models[0].atoms, b.models[0].atoms)
        XCTAssertEqual(a.models[0].residues, b.models[0].residues)
    }
    /// Atom lines read ahead on every core give the structure that one thread reading every line
    /// gives: 1hpv (old layout, its id and line numbers in columns 73-80, so the read-ahead must
    /// know the HEADER's id), and 1orc's atoms as 60 models (2.7 MB, three windows, parts cut
    /// mid-model) with blank serials, a TER and CRLF endings.
    func testAtomLinesReadAheadGiveWhatOneThreadReads() throws {
        func both(_ text: [UInt8], _ name: String) throws -> (Structure, Structure) {
            try text.withUnsafeBufferPointer { b in
                (try PDBReader.read(b, source: name, readAhead: .always),
                 try PDBReader.read(b, source: name, readAhead: .never))
            }
        }
        func assertSame(_ a: Structure, _ b: Structure, _ what: String) {
            XCTAssertEqual(a.models.count, b.models.count, what)
            for (x, y) in zip(a.models, b.models) {
                XCTAssertEqual(x.atoms, y.atoms, what)
                XCTAssertEqual(x.residues, y.residues, what)
                XCTAssertEqual(x.chains.map(\.id), y.chains.map(\.id), what)
                XCTAssertEqual(x.explicitBonds.count, y.explicitBonds.count, what)
            }
        }
        let hpv = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.path("1hpv.pdb"))))
        XCTAssertGreaterThan(hpv.count, 2 * PDBAtomReadAhead.windowBytes, "three windows")
        let (a, b) = try both(hpv, "1hpv.pdb")
        assertSame(a, b, "1hpv")
        XCTAssertEqual(a.models[0].atoms.count, 1631)
        XCTAssertEqual(a.models[0].atoms.first?.element, .nitrogen, "columns 73-80 are a line id, not an element")

        let orc = try String(contentsOfFile: Fixtures.path("1orc.pdb"), encoding: .utf8)
            .split(separator: "\n").filter { $0.hasPrefix("ATOM") || $0.hasPrefix("HETATM") }
        var text = "HEADER    DNA BINDING PROTEIN                     01-JAN-00   1ORC              \r\n"
        for model in 1...60 {
            text += "MODEL     \(model)\r\n"
            for (i, line) in orc.enumerated() {
                // Every seventh serial blank (numbered from the one before), a TER mid-chain once.
                text += i % 7 == 3 ? String(line.prefix(6)) + "     " + String(line.dropFirst(11)) : String(line)
                text += "\r\n"
                if i == 200 { text += "TER\r\n" }
            }
            text += "ENDMDL\r\n"
        }
        let big = Array(text.utf8)
        XCTAssertGreaterThan(big.count, 2 * PDBAtomReadAhead.windowBytes)
        let (c, d) = try both(big, "models.pdb")
        assertSame(c, d, "60 models")
        XCTAssertEqual(c.models.count, 60)
        XCTAssertEqual(c.models[59].atoms.count, orc.count)
        XCTAssertEqual(c.models[0].atoms[3].serial, c.models[0].atoms[2].serial + 1, "a blank serial follows the one before")
        // The first model alone (as thumbnails read), read ahead or not: the 60-model read's first.
        for ahead in [PDBReader.ReadAhead.always, .never] {
            let first = try big.withUnsafeBufferPointer { try PDBReader.read($0, source: "models.pdb", readAhead: ahead, firstModelOnly: true) }
            var expected = Structure(format: .pdb)
            expected.models = [c.models[0]]
            assertSame(first, expected, "the first of 60 models, read ahead \(ahead)")
        }

        // Every plain PDB file of the shared corpus, where it is beside the checkout.
        if let corpus = Fixtures.corpus {
            let names = try FileManager.default.contentsOfDirectory(atPath: corpus.path).filter { $0.hasSuffix(".pdb") }.sorted()
            for name in names {
                let bytes = try [UInt8](Data(contentsOf: corpus.appendingPathComponent(name)))
                guard let pair = try? both(bytes, name) else { continue }
                assertSame(pair.0, pair.1, name)
            }
        }

        // A bad coordinate deep in the file: the same message, naming the same line, both ways.
        var lines = text.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        let bad = lines.count * 3 / 4
        let broken = lines.indices.first { $0 >= bad && lines[$0].hasPrefix("ATOM") }!
        var chars = Array(lines[broken])
        chars.replaceSubrange(38..<46, with: "  1.2x4 ")
        lines[broken] = String(chars)
        let badText = Array(lines.joined(separator: "\r\n").utf8)
        var messages: [String] = []
        for ahead in [PDBReader.ReadAhead.always, .never] {
            XCTAssertThrowsError(try badText.withUnsafeBufferPointer { try PDBReader.read($0, source: "bad.pdb", readAhead: ahead) }) {
                messages.append("\($0)")
            }
        }
        XCTAssertEqual(messages.count, 2)
        XCTAssertEqual(messages.first, messages.last)
        XCTAssertTrue(messages.first?.contains("bad.pdb:\(broken + 1)") ?? false, messages.first ?? "")
        XCTAssertTrue(messages.first?.contains("bad y coordinate '1.2x4' (columns 39-46)") ?? false, messages.first ?? "")
    }

    /// A gzip PDB file read as it is inflated (on a thread of its own, the atom lines read ahead
    /// in windows cut before their bytes are there) gives what inflating it first gives, or the
    /// same error: real files, 60 models with CRLF ends, a bad coordinate deep in the file, and
    /// damaged, cut and several-member gzip, which fall back to inflating first.
    func testAGzipFileReadAsItInflatesGivesWhatInflatingFirstGives() throws {
        func both(_ gz: [UInt8], _ name: String) -> (Result<Structure, Error>, Result<Structure, Error>) {
            (Result { try StructureFile.decode(gz, source: name, options: .init(), streaming: .always) },
             Result { try StructureFile.decode(gz, source: name, options: .init(), streaming: .never) })
        }
        func assertSame(_ gz: [UInt8], _ name: String, atoms: Int? = nil, error: String? = nil) {
            switch both(gz, name) {
            case (.success(let a), .success(let b)):
                XCTAssertNil(error, name)
                XCTAssertEqual(a.models.count, b.models.count, name)
                for (x, y) in zip(a.models, b.models) {
                    XCTAssertEqual(x.atoms, y.atoms, name)
                    XCTAssertEqual(x.residues, y.residues, name)
                    XCTAssertEqual(x.chains.map(\.id), y.chains.map(\.id), name)
                    XCTAssertEqual(x.explicitBonds, y.explicitBonds, name)
                }
                XCTAssertEqual(a.metadata, b.metadata, name)
                XCTAssertEqual(a.entities.map(\.id), b.entities.map(\.id), name)
                XCTAssertEqual(a.assemblies.count, b.assemblies.count, name)
                if let atoms { XCTAssertEqual(a.models.first?.atoms.count, atoms, name) }
            case (.failure(let a), .failure(let b)):
                XCTAssertEqual("\(a)", "\(b)", name)
                if let error { XCTAssertTrue("\(a)".contains(error), "\(name): \(a)") } else { XCTFail("\(name): \(a)") }
            case (let a, let b):
                XCTFail("\(name): read as it inflated \(a), inflated first \(b)")
            }
        }
        let hpv = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.path("1hpv.pdb"))))
        assertSame(try Gzip.compress(hpv), "1hpv.pdb.gz", atoms: 1631)

        let orc = try String(contentsOfFile: Fixtures.path("1orc.pdb"), encoding: .utf8)
            .split(separator: "\n").filter { $0.hasPrefix("ATOM") || $0.hasPrefix("HETATM") }
        var lines = ["HEADER    DNA BINDING PROTEIN                     01-JAN-00   1ORC              "]
        for model in 1...60 {
            lines.append("MODEL     \(model)")
            lines += orc.map(String.init)
            lines.append("ENDMDL")
        }
        let models = try Gzip.compress(Array((lines.joined(separator: "\r\n") + "\r\n").utf8))
        XCTAssertGreaterThan(FileInput.gzipSizeHint(models), 4 * PDBAtomReadAhead.windowBytes)
        assertSame(models, "models.pdb.gz")

        // A bad coordinate three quarters in: the same error, naming the same line.
        let broken = lines.indices.first { $0 >= lines.count * 3 / 4 && lines[$0].hasPrefix("ATOM") }!
        var bad = lines
        var chars = Array(bad[broken])
        chars.replaceSubrange(38..<46, with: "  1.2x4 ")
        bad[broken] = String(chars)
        assertSame(try Gzip.compress(Array(bad.joined(separator: "\n").utf8)), "bad.pdb.gz", error: "bad.pdb.gz:\(broken + 1)")

        // A NUL byte past the first 4096 bytes (in a REMARK): only those are checked for binary
        // data, however much has been inflated when the check is made.
        var remark = lines
        remark.insert("REMARK 999 " + String(repeating: "x", count: 20) + "\u{0}" + String(repeating: "x", count: 20), at: 60)
        XCTAssertGreaterThan(remark[0..<60].map { $0.utf8.count + 1 }.reduce(0, +), 4096)
        assertSame(try Gzip.compress(Array(remark.joined(separator: "\n").utf8)), "nul.pdb.gz")

        // Damaged, cut short and several members: inflated first, as before.
        var damaged = models
        for k in (models.count / 2)..<(models.count / 2 + 20) { damaged[k] ^= 0x5A }
        assertSame(damaged, "damaged.pdb.gz", error: "damaged.pdb.gz")
        assertSame(Array(models.dropLast(100)) + Array(models.suffix(4)), "cut.pdb.gz", error: "cut.pdb.gz")
        let second = try Gzip.compress(Array("ATOM      1  N   MET B   1      11.104   6.134  -6.504  1.00  0.00           N\n".utf8))
        // The last trailer states the last member's size: the buffer is too small for the first.
        let members = models + second
        assertSame(members, "members.pdb.gz")
        XCTAssertEqual(try StructureFile.decode(members, source: "members.pdb.gz", options: .init(), streaming: .always).models.last?.chains.last?.id, "B",
                       "the second member's atom is read")

        // Every gzip PDB file of the shared corpus, where it is beside the checkout.
        if let corpus = Fixtures.corpus {
            let names = try FileManager.default.contentsOfDirectory(atPath: corpus.path).filter { $0.hasSuffix(".pdb.gz") || $0.hasSuffix(".ent.gz") }.sorted()
            XCTAssertGreaterThan(names.count, 3)
            for name in names {
                let path = corpus.appendingPathComponent(name).path
                assertSame(try FileInput.readAll(path: path), path)
            }
        }
    }

    /// Crambin as eight producers of gzip write it (Tests/Fixtures/gzip-producers): read as it
    /// inflates, the same structure as the plain file's; each a whole single member for ISA-L
    /// but bgzip's, whose blocks are members of their own and whose last, empty, states a size of
    /// 0: it is inflated first, by zlib's stream, as before.
    func testGzipFromEveryProducerReadAsItInflates() throws {
        guard Cores.active >= 2 else { throw XCTSkip("one core: files are inflated whole") }
        let plain = try StructureFile.load(path: Fixtures.path("1crn.pdb"))
        let producers = ["gzip-9", "pigz", "bgzip", "zopfli", "igzip", "libdeflate", "python", "header-fields"]
        for producer in producers {
            let path = Fixtures.path("gzip-producers/1crn.\(producer).pdb.gz")
            let gz = try FileInput.readAll(path: path)
            if let filling = InflatingBytes.start(gz, minimum: 1, limit: 1 << 30) {
                XCTAssertTrue(filling.finish(), producer)
            } else {
                XCTAssertEqual(producer, "bgzip")
            }
            let streamed = try StructureFile.decode(gz, source: path, options: .init(), streaming: .always)
            XCTAssertEqual(streamed.models.first?.atoms.count, 327, producer)
            XCTAssertEqual(streamed.models.first?.atoms.map(\.position), plain.models.first?.atoms.map(\.position), producer)
            XCTAssertEqual(streamed.metadata.id, "1CRN", producer)
        }
    }

    /// A cursor over a file still being inflated, set far past what has come (as a window's
    /// reader is), waits until its line is there and reads it whole: before, it waited for one
    /// step more, then searched a negative length (the fuzzer's heap overflow, which
    /// AddressSanitizer sees; here the bytes past those that had come were read before they were
    /// written, and were mostly right by the time).
    func testALineFarPastWhatHasComeIsWaitedFor() throws {
        guard Cores.active >= 2 else { throw XCTSkip("one core: files are inflated whole") }
        let lines = (0..<40_000).map { String(format: "LINE %08d ", $0) + String(repeating: "x", count: 60) }
        let text = Array((lines.joined(separator: "\n") + "\n").utf8)
        let gz = try Gzip.compress(text)
        let length = lines[0].utf8.count + 1
        for k in [39_999, 30_000, 20_000, 12_345] {
            let filling = try XCTUnwrap(InflatingBytes.start(gz, minimum: 1, limit: 1 << 30))
            var cursor = LineCursor(filling.bytes, separator: 0x0A, filling: filling)
            cursor.position = k * length
            let line = try XCTUnwrap(cursor.next())
            XCTAssertEqual(String(decoding: filling.bytes[line], as: UTF8.self), lines[k])
            XCTAssertEqual(cursor.position, (k + 1) * length)
            XCTAssertTrue(filling.finish())
        }
    }

    /// An id code that changes after the atoms began (a HEADER mid-file, in 1hpv's old layout
    /// where columns 73-80 repeat it): the records read ahead with the first id are not used past
    /// it, and the structure is the one a single thread reads.
    func testIDCodeChangingMidFileGivesWhatOneThreadReads() throws {
        var lines = try String(contentsOfFile: Fixtures.path("1hpv.pdb"), encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        let header = lines.removeFirst()
        let middle = lines.indices.filter { lines[$0].hasPrefix("ATOM") }[800]
        lines.insert(header, at: middle)
        let text = Array(lines.joined(separator: "\n").utf8)
        XCTAssertGreaterThan(text.count, 2 * PDBAtomReadAhead.windowBytes)
        let (a, b) = try text.withUnsafeBufferPointer { buffer in
            (try PDBReader.read(buffer, source: "moved.pdb", readAhead: .always), try PDBReader.read(buffer, source: "moved.pdb", readAhead: .never))
        }
        XCTAssertEqual(a.models.count, b.models.count)
        XCTAssertEqual(a.models[0].atoms, b.models[0].atoms)
        XCTAssertEqual(a.models[0].residues, b.models[0].residues)
        XCTAssertEqual(a.models[0].atoms.count, 1631)
        XCTAssertEqual(a.models[0].atoms.last?.element, .oxygen, "after the HEADER, columns 73-80 are the line id again")
    }

    /// PDB's fixed-point fields read a word at a time are `ByteFields.float`'s values, bit for bit,
    /// for numbers as PDB writes them and for the unusual text that goes the long way.
    func testFixedPointFieldsReadAsFloatReadsThem() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array(" -.0123456789+eE\t".utf8)
        var cases: [[UInt8]] = ["   1.000", "  -0.000", "-999.999", "9999.999", "   0.500", "  12.345", " -12.345", "12345.67",
                                "  1.2345", "   -.500", "   - 1.0", "  --1.00", "    .   ", "        ", " 1 2.345", "  1e2.00"].map { Array($0.utf8) }
        for _ in 0..<20_000 {
            if Bool.random(using: &generator) {
                let v = Double.random(in: -9999...9999, using: &generator)
                cases.append(Array(String(format: "%8.3f", v).utf8.suffix(8)))
            } else {
                cases.append((0..<8).map { _ in alphabet.randomElement(using: &generator)! })
            }
        }
        for field in cases {
            // The field at the end of a line of 20 bytes, after other digits (a neighbour's).
            let line = Array("123456789012".utf8) + field
            line.withUnsafeBufferPointer { b in
                let text = String(decoding: field, as: UTF8.self)
                let expected8 = ByteFields.float(b, 12, 20), got8 = ByteFields.fixedPoint8(b, end: 20, width: 8, decimals: 3)
                XCTAssertEqual(expected8?.bitPattern, got8?.bitPattern, "'\(text)' as %8.3f")
                let expected6 = ByteFields.float(b, 14, 20), got6 = ByteFields.fixedPoint8(b, end: 20, width: 6, decimals: 2)
                XCTAssertEqual(expected6?.bitPattern, got6?.bitPattern, "'\(text.suffix(6))' as %6.2f")
            }
        }
    }
}

import Foundation
import TestSupport
import XCTest

/// The molecule as its entry defines it, as a user runs the commands: a library molecule draws
/// the same bytes as its file in every mode (cartoons from the file's helices and strands, the
/// assembly `auto` picks, modified residues in their chains), and the assembly options answer.
final class EntryPictureTests: XCTestCase {
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("molshot-entry-\(UUID().uuidString)")
    var db: String { scratch.appendingPathComponent("library.sqlite").path }

    override func setUpWithError() throws {
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(at: scratch) }

    func molshot(_ arguments: [String], db: String? = nil) throws -> MolshotBinary.Run {
        try MolshotBinary.run(arguments, environment: ["MOLSHOT_DB": db ?? self.db])
    }

    static var corpus: String? {
        let path = ProcessInfo.processInfo.environment["MOLSHOT_CORPUS"]
            ?? InfoCommandTests.root.deletingLastPathComponent().appendingPathComponent("shared/corpus").path
        return FileManager.default.fileExists(atPath: path + "/MANIFEST.tsv") ? path : nil
    }

    func testALibraryMoleculeDrawsItsFilesPicture() throws {
        var files = ["Tests/Fixtures/1crn.pdb", "Tests/Fixtures/1CRN.cif", "Tests/Fixtures/1bna.pdb", "Tests/Fixtures/bcif/1A8O.bcif.gz"]
        if let corpus = EntryPictureTests.corpus {
            files += ["TransferRNA.pdb", "1A8O.pdb", "3PQR.cif", "1aki.cif", "4gxy.cif", "Insulin.pdb", "1pfe.cif.gz", "5ugo.cif"].map { corpus + "/" + $0 }
        }
        for (i, file) in files.enumerated() {
            // A library of its own each: 1crn.pdb and 1CRN.cif are one molecule to a library.
            let own = scratch.appendingPathComponent("library-\(i).sqlite").path
            let imported = try molshot(["library", "import", file], db: own)
            XCTAssertEqual(imported.status, 0, imported.stderr)
            // Every mode on the fixtures; on the corpus's files the modes that read different parts of
            // a molecule (secondary structure, bonds, and the automatic choice over all of it).
            let modes = i < 4 ? ["cartoon", "ball-and-stick", "spacefill", "sticks", "auto"] : ["cartoon", "sticks", "auto"]
            for mode in modes {
                let a = scratch.appendingPathComponent("file-\(i)-\(mode).png").path, b = scratch.appendingPathComponent("lib-\(i)-\(mode).png").path
                let fromFile = try molshot(["render", file, "-o", a, "--mode", mode, "--size", "160"])
                XCTAssertEqual(fromFile.status, 0, fromFile.stderr)
                let fromLibrary = try molshot(["render", "lib:1", "-o", b, "--mode", mode, "--size", "160"], db: own)
                XCTAssertEqual(fromLibrary.status, 0, fromLibrary.stderr)
                XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: a)), try Data(contentsOf: URL(fileURLWithPath: b)), "\(file) \(mode)")
            }
        }
    }

    /// Skipped where the corpus is absent (a clone with no ../shared beside it).
    func testAssemblyOptionsAndInfo() throws {
        guard let corpus = EntryPictureTests.corpus else { throw XCTSkip("no corpus") }
        let info = try molshot(["info", "--json", corpus + "/1A8O.cif"])
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any])
        let assemblies = try XCTUnwrap(json["assemblies"] as? [[String: Any]])
        XCTAssertEqual(assemblies.first?["atoms"] as? Int, 1288)
        XCTAssertEqual(assemblies.first?["copies"] as? Int, 2)
        let entities = try XCTUnwrap(json["entities"] as? [[String: Any]])
        XCTAssertEqual(entities.first?["description"] as? String, "HIV CAPSID")
        let built = try molshot(["info", "--json", "--assembly", "1", corpus + "/1A8O.cif"])
        let builtJSON = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(built.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(builtJSON["atoms"] as? Int, 1288)
        XCTAssertEqual((builtJSON["chains"] as? [[String: Any]])?.compactMap { $0["id"] as? String }, ["A", "A-2"])
        let missing = try molshot(["render", corpus + "/1A8O.cif", "--assembly", "9", "-o", scratch.appendingPathComponent("x.png").path])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains("has no assembly 9; it declares 1"), missing.stderr)
        // The dimer is twice the monomer's width in a picture with the same zoom.
        let exported = try molshot(["export", corpus + "/1A8O.cif", "--assembly", "1", "-o", scratch.appendingPathComponent("dimer.cif").path])
        XCTAssertEqual(exported.status, 0, exported.stderr)
        let again = try molshot(["info", "--json", scratch.appendingPathComponent("dimer.cif").path])
        XCTAssertTrue(again.stdout.contains("\"atoms\":1288"), again.stdout)
    }

    /// BinaryCIF is found in a folder by its name and drawn: biotite's five, the RCSB's one, and
    /// 200L from Mol*'s cif2bcif, the PDBe and Mol*'s ModelServer (with the RCSB's mmCIF of it).
    func testThumbnailsOfBinaryCIF() throws {
        let run = try molshot(["thumbnails", "Tests/Fixtures/bcif", "-o", scratch.appendingPathComponent("thumbs").path, "--size", "64"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("10 rendered, 0 up to date, 0 failed of 10") || run.stderr.contains("10 rendered, 0 up to date, 0 failed of 10"),
                      run.stdout + run.stderr)
    }

    /// `export --assembly 1 -o x.cif` read by gemmi (first conformer kept): the atom count, centroid
    /// and radius of gyration biotite gives for that assembly (Tests/Fixtures/assemblies-reference.tsv).
    /// Skipped where python3 has no gemmi (pip install gemmi) or the corpus is absent.
    func testExportedAssembliesReadInGemmiAsBiotiteBuildsThem() throws {
        guard let corpus = EntryPictureTests.corpus else { throw XCTSkip("no corpus") }
        guard Python.has("gemmi") else { throw XCTSkip("python3 has no gemmi") }
        let reference = try String(contentsOfFile: "Tests/Fixtures/assemblies-reference.tsv", encoding: .utf8)
        let files = ["1A8O.cif", "1pfe.cif.gz", "3PQR.cif", "3o5r.cif", "4i39.cif", "5ugo.cif", "1aon.pdb.gz"]
        var outputs: [String] = []
        for f in files {
            let out = scratch.appendingPathComponent("\(f).cif").path
            let run = try molshot(["export", corpus + "/" + f, "--assembly", "1", "-o", out])
            XCTAssertEqual(run.status, 0, run.stderr)
            outputs.append(out)
        }
        let script = """
            import gemmi, sys
            for f in sys.argv[1:]:
                st = gemmi.read_structure(f)
                st.remove_alternative_conformations()
                p = [a.pos for ch in st[0] for r in ch for a in r]
                n = len(p); c = [sum(q[i] for q in p) / n for i in range(3)]
                rg = (sum(sum((q[i] - c[i]) ** 2 for i in range(3)) for q in p) / n) ** 0.5
                print(n, c[0], c[1], c[2], rg)
            """
        let text = try Python.run(script, outputs).output
        let lines = text.split(separator: "\n")
        XCTAssertEqual(lines.count, files.count, text)
        for (f, line) in zip(files, lines) {
            let got = line.split(separator: " ").compactMap { Double($0) }
            let row = try XCTUnwrap(reference.split(separator: "\n").first { $0.hasPrefix(f + "\t1\t") }, f)
            let want = row.split(separator: "\t").map(String.init)
            XCTAssertEqual(Int(got[0]), Int(want[2]), f)
            for (k, column) in [(1, 4), (2, 5), (3, 6), (4, 7)] { XCTAssertEqual(got[k], Double(want[column])!, accuracy: 0.01, "\(f) \(k)") }
        }
    }
}

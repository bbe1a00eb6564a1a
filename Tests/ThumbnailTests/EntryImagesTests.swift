import Foundation
import Graphics
import Imaging
import MoleculeView
import Structure
import TestSupport
import Thumbnails
import XCTest

/// `molshot images`: an entry's image set (EntryImages), drawn with real Mesa, counted against
/// gemmi's view of the same files, looked at by pixels.
final class EntryImagesTests: GLTestCase {
    static let fixtures = ThumbnailRunTests.fixtures
    static let corpus = fixtures.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("shared/corpus")
    var dir: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("molshot-images-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    func make(_ path: String, _ adjust: (inout EntryImages.Options) -> Void = { _ in }) throws -> EntryImages.Summary {
        let structure = try StructureFile.load(path: path)
        var options = EntryImages.Options()
        options.sizes = [(200, 200), (100, 100)]
        adjust(&options)
        return try EntryImages.make(structure, source: path, id: EntryImages.entryID(structure, source: path), options: options,
                                    into: dir.path, renderer: try MoleculeRenderer(), perception: try BondPerception.standard())
    }

    /// For every mmCIF of the corpus: one image per colouring of the model, two per assembly, one per
    /// non-water entity, one per distinct ligand, as gemmi lists assemblies, entities and ligands.
    func testTheSetHasAnImageForWhatGemmiListsInEachCorpusEntry() throws {
        guard FileManager.default.fileExists(atPath: Self.corpus.path) else { throw XCTSkip("no ../shared/corpus beside the checkout") }
        guard Python.has("gemmi") else { throw XCTSkip("gemmi is not installed (pip install gemmi)") }
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.corpus.path).filter { $0.hasSuffix(".cif") }.sorted()
        XCTAssertGreaterThanOrEqual(files.count, 10)
        // Ligands as gemmi sees them: hetero residues, not water, outside any polymer sequence (no
        // label_seq_id): non-polymer entities and sugars alike. Assemblies: the file's list.
        let script = """
            import gemmi, sys, json
            out = {}
            for path in sys.argv[1:]:
                st = gemmi.read_structure(path)
                block = gemmi.cif.read(path).sole_block()
                types = list(block.find_values('_entity.type'))
                ligands = set()
                for ch in st[0]:
                    for r in ch:
                        if r.het_flag == 'H' and not r.is_water() and r.label_seq is None:
                            ligands.add(r.name)
                out[path] = {"assemblies": len(list(block.find_values('_pdbx_struct_assembly.id'))),
                             "entities": sum(1 for t in types if t.lower() != 'water'), "ligands": len(ligands)}
            print(json.dumps(out))
            """
        let paths = files.map { Self.corpus.appendingPathComponent($0).path }
        let answer = try Python.run(script, paths)
        XCTAssertEqual(answer.status, 0)
        let gemmi = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(answer.output.utf8)) as? [String: [String: Int]])
        for path in paths {
            let structure = try StructureFile.load(path: path)
            let captions = EntryImages.planned(structure, id: "x", options: EntryImages.Options())
            let count = { (kind: String) in captions.filter { $0.kind == kind }.count }
            let g = try XCTUnwrap(gemmi[path], path)
            let name = (path as NSString).lastPathComponent
            XCTAssertEqual(count("entry"), 2, name)
            XCTAssertEqual(count("assembly"), 2 * g["assemblies"]!, "\(name): two per assembly")
            XCTAssertEqual(count("entity"), g["entities"]!, "\(name): one per non-water entity")
            XCTAssertEqual(count("ligand"), g["ligands"]!, "\(name): one per distinct ligand")
        }
    }

    /// A set drawn: every image at each size (the smaller shrunk from the larger), a caption beside
    /// each, ID.json holding them all and ID_filelist naming every file; 1A8O's selenomethionines give
    /// a modified-residue image, and its B-factors a B-factor image.
    func testASetIsDrawnAtEachSizeWithCaptionsAndASummary() throws {
        let summary = try make(Self.fixtures.appendingPathComponent("bcif/1A8O.bcif.gz").path)
        XCTAssertEqual(summary.entry, "1a8o")
        let kinds = Set(summary.images.map(\.kind))
        XCTAssertEqual(kinds, ["entry", "assembly", "entity", "modres", "bfactor"])
        for caption in summary.images {
            XCTAssertEqual(caption.files.map(\.width), [200, 100])
            for file in caption.files {
                let image = try PNGDecoder.read(dir.appendingPathComponent(file.file).path)
                XCTAssertEqual([image.width, image.height], [file.width, file.height], file.file)
                XCTAssertGreaterThan(image.pixels.enumerated().filter { $0.offset % 4 == 3 && $0.element > 0 }.count, file.width * file.height / 20,
                                     "\(file.file) shows the molecule")
            }
            let written = try JSONDecoder().decode(EntryImages.Caption.self, from: Data(contentsOf: dir.appendingPathComponent("\(caption.name).caption.json")))
            XCTAssertEqual(written, caption)
            XCTAssertFalse(caption.text.isEmpty)
        }
        let chainImage = try XCTUnwrap(summary.images.first { $0.name == "1a8o_assembly_1_chain_front" })
        XCTAssertEqual(chainImage.legend.count, 2, "the dimer's two chains in the key: \(chainImage.legend)")
        XCTAssertNotEqual(chainImage.legend[0].color, chainImage.legend[1].color)
        let modres = try XCTUnwrap(summary.images.first { $0.kind == "modres" })
        XCTAssertTrue(modres.text.contains("MSE"), modres.text)
        let list = try String(contentsOf: dir.appendingPathComponent("1a8o_filelist"), encoding: .utf8).split(separator: "\n").map(String.init)
        XCTAssertEqual(Set(list), Set(try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0 != "1a8o_filelist" }))
        // The smaller size is the larger one shrunk by area: the same picture, half the side.
        let big = try PNGDecoder.read(dir.appendingPathComponent("1a8o_deposited_chain_front_200x200.png").path)
        let small = try PNGDecoder.read(dir.appendingPathComponent("1a8o_deposited_chain_front_100x100.png").path)
        XCTAssertTrue(big.shrunk(width: 100, height: 100) == small)
    }

    /// The area filter: a black and white checkerboard shrunk by two is mid grey everywhere; a
    /// transparent pixel does not darken its opaque neighbour's colour.
    func testShrinkingAveragesAreasInPremultipliedAlpha() {
        var pixels: [UInt8] = []
        for y in 0..<4 { for x in 0..<4 { pixels += (x + y) % 2 == 0 ? [0, 0, 0, 255] : [255, 255, 255, 255] } }
        let board = RGBAImage(width: 4, height: 4, pixels: pixels)
        let grey = board.shrunk(width: 2, height: 2)
        for y in 0..<2 { for x in 0..<2 { XCTAssertEqual(Int(grey.pixel(x, y).0), 128, accuracy: 1) } }
        let edge = RGBAImage(width: 2, height: 1, pixels: [255, 0, 0, 255, 0, 0, 0, 0])
        let half = edge.shrunk(width: 1, height: 1).pixel(0, 0)
        XCTAssertEqual(half.0, 255, "red stays red, half covered")
        XCTAssertEqual(Int(half.3), 128, accuracy: 1)
    }

    /// Several views get axis arrows in the bottom left corner (x red, y green, z blue); one view,
    /// or `axes` off, none. In the side view (turned 90 degrees about the vertical), x points away
    /// (a red ring at the origin) and z to the right (blue).
    func testSeveralViewsGetAxisArrows() throws {
        let path = Self.fixtures.appendingPathComponent("1crn.pdb").path
        func image(_ file: String) throws -> RGBAImage { try PNGDecoder.read(dir.appendingPathComponent(file).path) }
        func clear() throws {
            for file in try FileManager.default.contentsOfDirectory(atPath: dir.path) { try FileManager.default.removeItem(at: dir.appendingPathComponent(file)) }
        }
        // The pictures without arrows first: what the corner holds of the molecule itself.
        _ = try make(path) { $0.kinds = [.entry]; $0.views = EntryImages.View.allCases; $0.sizes = [(200, 200)]; $0.axes = false }
        let plain = try ["front", "side"].map { try image("1crn_deposited_chain_\($0)_200x200.png") }
        try clear()
        _ = try make(path) { $0.kinds = [.entry]; $0.sizes = [(200, 200)] }
        XCTAssertEqual(try image("1crn_deposited_chain_front_200x200.png"), plain[0], "one view: no arrows")
        try clear()
        // With arrows: the corner's pixels that changed, by colour.
        _ = try make(path) { $0.kinds = [.entry]; $0.views = EntryImages.View.allCases; $0.sizes = [(200, 200)] }
        func arrows(_ view: Int) throws -> (red: Int, green: Int, blue: Int, elsewhere: Int) {
            let drawn = try image("1crn_deposited_chain_\(["front", "side"][view])_200x200.png")
            var c = (red: 0, green: 0, blue: 0, elsewhere: 0)
            for y in 0..<200 { for x in 0..<200 {
                let p = drawn.pixel(x, y), q = plain[view].pixel(x, y)
                guard p != q else { continue }
                guard x < 60 && y >= 140 else { c.elsewhere += 1; continue }
                if p.r > 180 && p.g < 90 && p.b < 90 { c.red += 1 }
                if p.g > 130 && p.r < 80 && p.b < 100 { c.green += 1 }
                if p.b > 180 && p.r < 90 && p.g < 120 { c.blue += 1 }
            } }
            return c
        }
        let front = try arrows(0)
        XCTAssertGreaterThan(front.red, 10); XCTAssertGreaterThan(front.green, 10); XCTAssertGreaterThan(front.blue, 5)
        XCTAssertEqual(front.elsewhere, 0, "only the corner changes")
        let side = try arrows(1)
        XCTAssertGreaterThan(side.blue, 10, "z drawn across in the side view")
        XCTAssertGreaterThan(side.green, 10)
    }

    /// A ligand's image shows the ligand in the middle of the picture and not hidden: drawn with the
    /// same selections and focus, the ligand in magenta covers the middle third.
    func testALigandImageShowsTheLigandInTheMiddleUnhidden() throws {
        let path = Self.fixtures.appendingPathComponent("1hpv.pdb").path
        let summary = try make(path) { $0.kinds = [.ligand] }
        let ligand = try XCTUnwrap(summary.images.first)
        XCTAssertEqual(ligand.ligand, "478")
        let instance = "resi 200 and resn 478"
        var request = RenderRequest()
        request.width = 300
        request.height = 300
        try request.set("show", "lines element: byres (within 5 of (\(instance))) and not (\(instance)) and not water")
        try request.set("show", "ball-and-stick #FF00FF: \(instance)")
        try request.set("focus", instance)
        let structure = try request.molecule(try StructureFile.load(path: path), source: path)
        let picture = try MoleculePicture(structure, mode: try request.singleMode(), request: request, perception: try BondPerception.standard())
        let image = try picture.draw(try MoleculeRenderer()).finished()
        func magenta(_ image: RGBAImage) -> (n: Int, x: Int, y: Int) {
            var n = 0, sx = 0, sy = 0
            for y in 0..<300 { for x in 0..<300 {
                let p = image.pixel(x, y)
                if p.3 > 128 && p.0 > 150 && p.1 < 90 && p.2 > 150 { n += 1; sx += x; sy += y }
            } }
            return (n, sx / max(n, 1), sy / max(n, 1))
        }
        let seen = magenta(image)
        // The same view of the ligand alone: how much of it the neighbours leave in sight.
        var alone = request
        alone.shows = []
        try alone.set("show", "ball-and-stick #FF00FF: \(instance)")
        let bare = magenta(try MoleculePicture(structure, mode: try alone.singleMode(), request: alone, perception: try BondPerception.standard())
            .draw(try MoleculeRenderer()).finished())
        XCTAssertGreaterThan(seen.n, 500)
        XCTAssertGreaterThan(Double(seen.n), Double(bare.n) * 0.7, "the ligand is seen, not hidden behind its neighbours: \(seen.n) of \(bare.n) pixels")
        XCTAssertTrue((100...200).contains(seen.x) && (100...200).contains(seen.y), "in the middle third: \(seen.x), \(seen.y)")
    }

    /// An AlphaFold DB model: its plddt image in AlphaFold's colours (mostly the two blues of a
    /// confident model, some yellow and orange), no B-factor image (its B-factors are pLDDT).
    func testAnAlphaFoldModelGetsItsConfidenceColours() throws {
        let summary = try make(Self.fixtures.appendingPathComponent("alphafold/AF-Q8W3K0-F1-model_v4.cif.gz").path)
        XCTAssertFalse(summary.images.contains { $0.kind == "bfactor" })
        let plddt = try XCTUnwrap(summary.images.first { $0.kind == "plddt" })
        XCTAssertEqual(plddt.legend.map(\.color), ["#0053D6", "#65CBF3", "#FFDB13", "#FF7D45"])
        let image = try PNGDecoder.read(dir.appendingPathComponent(plddt.files[0].file).path)
        var blue = 0, warm = 0
        for y in 0..<image.height { for x in 0..<image.width {
            let p = image.pixel(x, y)
            guard p.3 > 200 else { continue }
            if Int(p.2) > Int(p.0) + 60 { blue += 1 }
            if Int(p.0) > Int(p.2) + 80 && p.1 > 80 { warm += 1 }
        } }
        XCTAssertGreaterThan(blue, 2 * warm, "mostly confident (blue; global pLDDT 82): \(blue) against \(warm)")
        XCTAssertGreaterThan(warm, 20, "some low-confidence yellow and orange")
    }
}

import Core
import Foundation
import Graphics
import Imaging
import MoleculeView
import Scene
import Structure
import XCTest

/// Labels, distances, keys and scale bars found in the pixels of real pictures (real Mesa), each
/// against the same picture drawn without it.
final class AnnotationTests: XCTestCase {
    func load(_ name: String) throws -> Structure {
        try StructureFile.load(path: Rendering.fixtures.appendingPathComponent(name).path)
    }

    func draw(_ s: Structure, _ fields: [(String, String)]) throws -> (image: RGBAImage, picture: MoleculePicture) {
        let request = try RenderRequest(fields)
        let picture = try MoleculePicture(s, mode: request.modes[0], request: request, perception: try BondPerception.standard())
        return (try picture.finish(try picture.draw(try Rendering.renderer())), picture)
    }

    /// Pixels that differ between two pictures of one size.
    func changed(_ a: RGBAImage, _ b: RGBAImage) -> [SIMD2<Int>] {
        var out: [SIMD2<Int>] = []
        for y in 0..<a.height {
            for x in 0..<a.width {
                let p = a.pixel(x, y), q = b.pixel(x, y)
                if p.r != q.r || p.g != q.g || p.b != q.b || p.a != q.a { out.append(SIMD2(x, y)) }
            }
        }
        return out
    }

    func testALabelSitsBesideItsAtomAtEverySize() throws {
        let crambin = try load("1crn.pdb")
        for size in [256, 512, 1024] {
            let base: [(String, String)] = [("size", "\(size)"), ("mode", "cartoon")]
            let plain = try draw(crambin, base)
            let labelled = try draw(crambin, base + [("label", "resi 10 and name CA: %resn%resi")])
            let diff = changed(plain.image, labelled.image)
            XCTAssertGreaterThan(diff.count, size / 8, "the label's pixels at \(size) px")
            let model = labelled.picture.prepared.model
            let ca = try XCTUnwrap(model.atoms.indices.first { model.atoms[$0].name.description == "CA" && model.residues[Int(model.atoms[$0].residue)].number == 10 })
            XCTAssertEqual(Annotations.fill("%resn%resi %chain:%name %elem", atom: ca, model: model), "ARG10 A:CA C")
            let anchor = labelled.picture.camera.project(model.atoms[ca].position, width: size, height: size)
            // Every changed pixel lies near the atom (the text's width, 5 letters at 16 px a 512 px picture, and its offset),
            // and some of them are the label's dark ink.
            let reach = Float(size) * 0.22
            for p in diff {
                XCTAssertLessThan((SIMD2(Float(p.x), Float(p.y)) - anchor).length, reach, "a label pixel \(p) far from its atom at \(anchor), \(size) px")
            }
            let ink = diff.filter { let c = labelled.image.pixel($0.x, $0.y); return c.r < 60 && c.g < 60 && c.b < 60 }
            XCTAssertGreaterThan(ink.count, size / 16, "dark letters at \(size) px")
        }
    }

    func testALabelAtTheEdgeStaysInsideThePicture() throws {
        let crambin = try load("1crn.pdb")
        let base: [(String, String)] = [("size", "300x200"), ("mode", "cartoon")]
        let plain = try draw(crambin, base)
        let model = plain.picture.prepared.model
        // The CA furthest right on screen: a label to its right would leave the picture.
        let cas = model.atoms.indices.filter { model.atoms[$0].name.description == "CA" }
        let right = try XCTUnwrap(cas.max { plain.picture.camera.project(model.atoms[$0].position, width: 300, height: 200).x
                                            < plain.picture.camera.project(model.atoms[$1].position, width: 300, height: 200).x })
        let residue = model.residues[Int(model.atoms[right].residue)].number
        let labelled = try draw(crambin, base + [("label", "resi \(residue) and name CA: %resn%resi"), ("label-size", "14")])
        let diff = changed(plain.image, labelled.image)
        XCTAssertFalse(diff.isEmpty)
        let xs = diff.map(\.x), ys = diff.map(\.y)
        // Not clipped: the text's box ends before the picture's edges.
        XCTAssertGreaterThan(xs.min()!, 0)
        XCTAssertLessThan(xs.max()!, 299)
        XCTAssertGreaterThan(ys.min()!, 0)
        XCTAssertLessThan(ys.max()!, 199)
    }

    func testADistanceIsADashedLineBetweenTheClosestAtoms() throws {
        let crambin = try load("1crn.pdb")
        let base: [(String, String)] = [("size", "512"), ("mode", "ball-and-stick")]
        let plain = try draw(crambin, base)
        let measured = try draw(crambin, base + [("distance", "resi 3 and name SG, resi 40 and name SG")])
        let model = measured.picture.prepared.model
        let a = try Selection(parsing: "resi 3 and name SG").atoms(in: model), b = try Selection(parsing: "resi 40 and name SG").atoms(in: model)
        let pair = Annotations.closestPair(a, b, in: model)
        // Crambin's Cys3-Cys40 disulfide: gemmi and PyMOL give 2.00-2.05 Å.
        XCTAssertEqual(pair.distance, 2.03, accuracy: 0.05)
        // The second selection's many atoms: the closest of them is taken.
        let many = Annotations.closestPair(a, try Selection(parsing: "resi 40").atoms(in: model), in: model)
        XCTAssertLessThanOrEqual(many.distance, pair.distance)
        let diff = Set(changed(plain.image, measured.image).map { $0.y * 512 + $0.x })
        let p = measured.picture.camera.project(model.atoms[pair.first].position, width: 512, height: 512)
        let q = measured.picture.camera.project(model.atoms[pair.second].position, width: 512, height: 512)
        // Along the segment some points are dashes, some gaps.
        var hits = 0
        for k in 1..<20 {
            let t = p + (q - p) * Float(k) / 20
            let near = (-1...1).contains { dy in (-1...1).contains { dx in diff.contains((Int(t.y) + dy) * 512 + Int(t.x) + dx) } }
            if near { hits += 1 }
        }
        XCTAssertGreaterThan(hits, 4, "dashes along the segment")
    }

    func testADistanceToAnAtomFarOutOfTheViewIsDrawnWhereItCrossesIt() throws {
        var crambin = try load("1crn.pdb")
        let model = crambin.models[0]
        let ca = { (n: Int32) in model.atoms.indices.first { model.atoms[$0].name.description == "CA" && model.residues[Int(model.atoms[$0].residue)].number == n }! }
        let base: [(String, String)] = [("size", "256"), ("mode", "ball-and-stick"), ("focus", "resi 10")]
        for far: Float in [3_000, 1e18] {
            // Residue 1's CA moved far off: tens of thousands of pixels, then past any Int, from the focused view.
            crambin.models[0].atoms[ca(1)].position.x = far
            let plain = try draw(crambin, base)
            let measured = try draw(crambin, base + [("distance", "resi 1 and name CA, resi 10 and name CA")])
            let diff = changed(plain.image, measured.image)
            if far < 1e6 {
                // The dashes from the picture's edge to residue 10's CA.
                let q = measured.picture.camera.project(model.atoms[ca(10)].position, width: 256, height: 256)
                XCTAssertTrue(diff.contains { (SIMD2(Float($0.x), Float($0.y)) - q).length < 20 }, "dashes near the atom in view")
                XCTAssertGreaterThan(diff.count, 40)
            }
        }
    }

    func testKeysShowTheSchemesEnds() throws {
        let crambin = try load("1crn.pdb")
        let keyed = try draw(crambin, [("size", "512"), ("mode", "putty"), ("color", "bfactor"), ("legend", "true")])
        // The bar's left end is the scale's blue, its right end its red, in the bottom-right corner, blue left of red.
        var blue: [Int] = [], red: [Int] = []
        for y in 380..<512 {
            for x in 256..<512 {
                let c = keyed.image.pixel(x, y)
                // Within a step of the bar's 140 columns of the ends (the outermost column is under its frame).
                if c.r <= 8 && c.g <= 8 && c.b == 255 { blue.append(x) }
                if c.r == 255 && c.g <= 8 && c.b <= 8 { red.append(x) }
            }
        }
        XCTAssertFalse(blue.isEmpty, "the key's blue end")
        XCTAssertFalse(red.isEmpty, "the key's red end")
        if let b = blue.max(), let r = red.min() { XCTAssertLessThan(b, r) }
        // pLDDT's four bands as swatches of AlphaFold's exact colours.
        let model = try StructureFile.load(path: Rendering.fixtures.appendingPathComponent("alphafold/AF-Q8W3K0-F1-model_v4.cif.gz").path)
        let plddt = try draw(model, [("size", "400"), ("mode", "cartoon"), ("color", "plddt"), ("legend", "true")])
        var found = Set<UInt32>()
        for y in 250..<400 {
            for x in 200..<400 {
                let c = plddt.image.pixel(x, y)
                found.insert(UInt32(c.r) << 16 | UInt32(c.g) << 8 | UInt32(c.b))
            }
        }
        for colour: UInt32 in [0x0053D6, 0x65CBF3, 0xFFDB13, 0xFF7D45] { XCTAssertTrue(found.contains(colour), String(colour, radix: 16)) }
        // Unasked (color auto), a predicted model opens in the same confidence colours, as the AlphaFold DB shows it.
        let unasked = try draw(model, [("size", "300"), ("mode", "cartoon")])
        let asked = try draw(model, [("size", "300"), ("mode", "cartoon"), ("color", "plddt")])
        XCTAssertEqual(unasked.image.pixels, asked.image.pixels)
    }

    func testTheScaleBarIsARoundLengthAtTheViewsScale() throws {
        let crambin = try load("1crn.pdb")
        let plain = try draw(crambin, [("size", "600"), ("mode", "cartoon")])
        let barred = try draw(crambin, [("size", "600"), ("mode", "cartoon"), ("scale-bar", "true")])
        let perPixel = barred.picture.camera.worldUnitsPerPixel(width: 600, height: 600)
        // The longest dark horizontal run in the bottom-left corner.
        var longest = 0
        for y in 540..<600 {
            var run = 0
            for x in 0..<300 {
                let c = barred.image.pixel(x, y), o = plain.image.pixel(x, y)
                if c.r < 80 && c.g < 80 && c.b < 80 && (c.r != o.r || c.g != o.g) { run += 1; longest = max(longest, run) } else { run = 0 }
            }
        }
        let angstroms = Float(longest) * perPixel
        let round = [1, 2, 5, 10, 20, 50, 100].map(Float.init).min { abs($0 - angstroms) < abs($1 - angstroms) }!
        XCTAssertEqual(angstroms, round, accuracy: round * 0.08 + 2 * perPixel, "a bar of \(longest) px is \(angstroms) Å")
        XCTAssertGreaterThan(Float(longest), 600 * 0.08)
    }

    func testBadFiguresAreRefusedByField() throws {
        let crambin = try load("1crn.pdb")
        func refusal(_ fields: [(String, String)]) -> RequestError? {
            do { _ = try draw(crambin, [("size", "128")] + fields); return nil } catch { return error as? RequestError }
        }
        XCTAssertEqual(refusal([("label", "resn HEM: %resn")])?.field, "label", "selects no atoms")
        XCTAssertEqual(refusal([("label", "all: %name")])?.field, nil, "327 atoms labelled: under the limit")
        XCTAssertThrowsError(try RenderRequest([("label", "resi 10")])) { XCTAssertEqual(($0 as? RequestError)?.field, "label") }
        XCTAssertThrowsError(try RenderRequest([("distance", "resi 10")])) { XCTAssertEqual(($0 as? RequestError)?.field, "distance") }
        XCTAssertThrowsError(try RenderRequest([("angle", "resi 1, resi 2")])) { XCTAssertEqual(($0 as? RequestError)?.field, "angle") }
        XCTAssertThrowsError(try RenderRequest([("label-size", "500")])) { XCTAssertEqual(($0 as? RequestError)?.field, "label-size") }
        XCTAssertEqual(refusal([("color", "red"), ("legend", "true")])?.field, "legend")
        let hpv = try load("1hpv.pdb")
        do {
            _ = try draw(hpv, [("size", "128"), ("label", "all: %name")])
            XCTFail("thousands of labels")
        } catch { XCTAssertEqual((error as? RequestError)?.field, "label") }
    }

    /// `legend` with the schemes given in `show`: a key per keyable scheme, stacked up from the
    /// bottom-right corner; shows that need no key (element colours) are refused naming the field.
    func testKeysForTheSchemesOfShows() throws {
        let site = try load("1hpv.pdb")
        let one: [(String, String)] = [("size", "400"), ("show", "cartoon hydrophobicity: chain B")]
        let two = one + [("show", "cartoon bfactor: chain A")]
        func keyRows(_ fields: [(String, String)]) throws -> Int {
            let diff = changed(try draw(site, fields).image, try draw(site, fields + [("legend", "true")]).image)
            XCTAssertTrue(diff.allSatisfy { $0.x > 200 }, "a key's pixels lie at the right")
            return Set(diff.map(\.y)).count
        }
        let rowsOne = try keyRows(one), rowsTwo = try keyRows(two)
        XCTAssertGreaterThan(rowsOne, 15)
        XCTAssertGreaterThan(rowsTwo, rowsOne + 15, "two keys stacked")
        XCTAssertThrowsError(try draw(site, [("size", "200"), ("show", "sticks element: all"), ("legend", "true")])) {
            XCTAssertEqual(($0 as? RequestError)?.field, "legend")
        }
    }

    /// A putty's B-factor scale spans its trace (1hpv's CA atoms, 9.4-72.1 Å²), not one side-chain
    /// atom at 128 that would leave the tube all blue; the key says the same range.
    func testThePuttyScaleSpansTheTrace() throws {
        let site = try load("1hpv.pdb")
        let model = site.models[0]
        let all = ColorTheme.bfactorRange(of: model), trace = ColorTheme.bfactorRange(of: model, traced: true)
        XCTAssertEqual(all.hi, 128.18, accuracy: 0.01)
        XCTAssertEqual(trace.lo, 9.40, accuracy: 0.01)
        XCTAssertEqual(trace.hi, 72.06, accuracy: 0.01)
        let request = try RenderRequest([("mode", "putty"), ("color", "bfactor")])
        let prepared = try PreparedMolecule(site, mode: .putty, color: request.color, perception: try BondPerception.standard())
        // Red where the trace is hottest: some atoms take the scale's red end, not only white and blue.
        let red = prepared.atomColors.filter { ($0 >> 16 & 0xFF) > 200 && ($0 >> 8 & 0xFF) < 80 }.count
        XCTAssertGreaterThan(red, 20)
    }

    /// A crowded site: a label for every residue within 8 Å of 1hpv's inhibitor, with its
    /// interactions' key and two distances. No label's box covers another's (a label that finds no
    /// free place near its atom moves further out with a leader line, or is left out), and most are set.
    func testLabelsOnACrowdedSiteNeverCoverOneAnother() throws {
        let site = try load("1hpv.pdb")
        let request = try RenderRequest([("size", "600x450"), ("show", "cartoon: polymer"), ("show", "sticks: resn 478"), ("focus", "resn 478"),
                                         ("interactions", "resn 478"), ("label", "name CA and byres (polymer and within 8 of resn 478):"),
                                         ("distance", "resn 478 and elem O, resi 25 and chain A and name OD1"),
                                         ("distance", "resn 478 and elem N, resi 27 and chain B and name O")])
        let picture = try MoleculePicture(site, mode: request.modes[0], request: request, perception: try BondPerception.standard())
        var image = try picture.draw(try Rendering.renderer()).finished()
        let boxes = try request.annotations.draw(into: &image, prepared: picture.prepared, camera: picture.camera, request: request)
        let residues = Set(try Selection(parsing: "name CA and byres (polymer and within 8 of resn 478)").atoms(in: picture.prepared.model)).count
        XCTAssertGreaterThan(residues, 30)
        XCTAssertGreaterThan(boxes.count, residues * 2 / 3, "most labels are set (\(boxes.count) boxes for \(residues) residues)")
        for (i, a) in boxes.enumerated() {
            for b in boxes[(i + 1)...] {
                let overlap = a.x < b.z && b.x < a.z && a.y < b.w && b.y < a.w
                XCTAssertFalse(overlap, "\(a) covers \(b)")
            }
        }
    }
}

import Core
import Foundation
import Graphics
import Imaging
import MoleculeView
import Scene
import Structure
import XCTest

/// `site`: a binding-site figure from one word, on ten real complexes (1hpv's inhibitor and nine
/// of PLIP's test set, `Tests/Fixtures/interactions/`), checked through its caption and its pixels
/// (real Mesa): every interaction ends on drawn atoms inside the slab, a flat ligand faces the
/// viewer, the ligand's carbons differ in hue from the protein's, and no label covers its residue.
final class SiteFigureTests: XCTestCase {
    /// File and site: the ligand PLIP's reference names (`sites.txt`).
    static let sites: [(String, String)] = [
        ("1hpv.pdb", "resn 478"), ("interactions/2q8q.pdb.gz", "resn HEM and chain A"), ("interactions/1vsn.pdb.gz", "resn NFT"),
        ("interactions/1ay8.pdb.gz", "resn PLP and chain A"), ("interactions/4agl.pdb.gz", "resn P84"), ("interactions/1eve.pdb.gz", "resn E20"),
        ("interactions/2reg.pdb.gz", "resn CHT and chain A and resi 1"), ("interactions/1bju.pdb.gz", "resn GP6"),
        ("interactions/1xdn.pdb.gz", "resn ATP"), ("interactions/1aku.pdb.gz", "resn FMN"),
    ]
    /// The flat ones: a heme, a pyridoxal phosphate's ring with its phosphate, a flavin's rings (not its ribityl tail).
    static let flat: Set<String> = ["interactions/2q8q.pdb.gz"]

    struct Figure {
        var picture: MoleculePicture
        var image: RGBAImage
        var caption: FigureCaption
        var labels: [Annotations.PlacedLabel]
    }

    func figure(_ file: String, _ site: String, size: String = "900x700") throws -> Figure {
        let s = try StructureFile.load(path: Rendering.fixtures.appendingPathComponent(file).path)
        let request = try RenderRequest([("size", size), ("site", site)])
        let picture = try MoleculePicture(try request.molecule(s, source: file), mode: request.modes[0], request: request,
                                          perception: try BondPerception.standard())
        let (image, labels) = try picture.finishLabelled(try picture.draw(try Rendering.renderer()))
        return Figure(picture: picture, image: image, caption: try FigureCaption(picture, labels: labels), labels: labels)
    }

    func testEveryInteractionEndsOnDrawnAtomsInsideTheSlab() throws {
        for (file, site) in Self.sites {
            let f = try figure(file, site)
            let model = f.picture.prepared.model
            let drawn = Set(f.caption.drawn.filter { $0.representation != "cartoon" }.flatMap(\.atoms))
            XCTAssertFalse(f.caption.interactions.isEmpty, file)
            let bySerial = Dictionary(model.atoms.indices.map { (model.atoms[$0].serial, $0) }, uniquingKeysWith: { a, _ in a })
            let camera = f.picture.camera
            let m = camera.rotation.matrix
            let toward = SIMD3(m.0.z, m.1.z, m.2.z)
            let clip = try XCTUnwrap(camera.clip, file)
            for i in f.caption.interactions {
                for end in i.atoms + [i.water.map { [$0] } ?? []] {
                    for serial in end {
                        XCTAssertTrue(drawn.contains(serial), "\(file): \(i.kind) ends on atom \(serial), which is not drawn")
                        let z = ((model.atoms[bySerial[serial]!].position - camera.center) * toward).sum()
                        XCTAssertTrue(z < clip.x && -z < clip.y, "\(file): \(i.kind)'s atom \(serial) lies outside the slab (\(z) against \(clip))")
                    }
                }
            }
            XCTAssertFalse(f.caption.labels.isEmpty, file)
            XCTAssertTrue(f.caption.sentence.contains(" in "), f.caption.sentence)
        }
    }

    func testAFlatLigandIsSeenFaceOn() throws {
        for (file, site) in Self.sites where Self.flat.contains(file) {
            let f = try figure(file, site)
            let model = f.picture.prepared.model
            let heavy = try Selection(parsing: "(\(site)) and not hydrogen").atoms(in: model).map { model.atoms[$0].position }
            let axes = Orientation.principalAxes(heavy).matrix
            let normal = SIMD3(axes.0.z, axes.1.z, axes.2.z)
            let m = f.picture.camera.rotation.matrix
            let toward = SIMD3(m.0.z, m.1.z, m.2.z)
            let degrees = acos(min(1, abs((normal * toward).sum()))) * 180 / .pi
            XCTAssertLessThan(degrees, 30, "\(file): the plane's normal is \(degrees) degrees off the view")
        }
        // Edge-on is what the eight turns of a plain focus found for the heme.
    }

    func testTheLigandsCarbonsDifferInHueFromTheProteins() throws {
        for (file, site) in Self.sites.prefix(6) {
            let f = try figure(file, site)
            let model = f.picture.prepared.model, camera = f.picture.camera
            let project = camera.projector(width: f.image.width, height: f.image.height)
            func hues(_ selection: String) throws -> [Float] {
                try Selection(parsing: selection).atoms(in: model).compactMap { i -> Float? in
                    guard model.atoms[i].element.atomicNumber == 6 else { return nil }
                    let p = project(model.atoms[i].position)
                    guard p.x >= 0, p.y >= 0, p.x < Float(f.image.width), p.y < Float(f.image.height) else { return nil }
                    let c = f.image.pixel(Int(p.x), Int(p.y))
                    let hi = max(c.r, c.g, c.b), lo = min(c.r, c.g, c.b)
                    guard hi > 40, Float(hi - lo) / Float(hi) > 0.12 else { return nil }
                    return ColorTheme.hue(UInt32(c.r) << 16 | UInt32(c.g) << 8 | UInt32(c.b))
                }
            }
            let ligand = try hues("(\(site))"), protein = try hues("interacting (\(site)) and polymer and sidechain")
            XCTAssertGreaterThan(ligand.count, 4, file)
            XCTAssertGreaterThan(protein.count, 4, file)
            let a = ligand.sorted()[ligand.count / 2], b = protein.sorted()[protein.count / 2]
            let d = min(abs(a - b), 360 - abs(a - b))
            XCTAssertGreaterThan(d, 40, "\(file): the ligand's carbons at hue \(a), the protein's at \(b)")
        }
    }

    func testNoLabelCoversItsOwnResidue() throws {
        for (file, site) in Self.sites {
            let f = try figure(file, site)
            let model = f.picture.prepared.model
            let project = f.picture.camera.projector(width: f.image.width, height: f.image.height)
            var drawn = Set<Int32>()
            for part in f.picture.prepared.parts where part.representation != .cartoon { drawn.formUnion(part.atoms) }
            for label in f.labels {
                let residue = model.residues[Int(model.atoms[label.atom].residue)]
                for i in Int(residue.atoms.lowerBound)..<Int(residue.atoms.upperBound) where drawn.contains(Int32(i)) {
                    let p = project(model.atoms[i].position)
                    let inside = p.x > Float(label.box.x + 1) && p.x < Float(label.box.z - 1) && p.y > Float(label.box.y + 1) && p.y < Float(label.box.w - 1)
                    XCTAssertFalse(inside, "\(file): the label \(label.text) covers its atom \(model.atoms[i].name)")
                }
            }
        }
    }

    /// `interacting S` is the residues the interactions of S end on, `partners S` their atoms;
    /// a word that goes nowhere is refused where it stands.
    func testInteractingSelectsTheResiduesOfThePartners() throws {
        let s = try StructureFile.load(path: Rendering.fixtures.appendingPathComponent("1hpv.pdb").path)
        let model = s.models[0]
        let found = try InteractionPartners.interactions(of: try Selection(parsing: "resn 478"), in: model)
        var residues = Set<Int32>(), atoms = Set<Int>()
        for i in found {
            for a in i.partnerAtoms + (i.water.map { [$0] } ?? []) { residues.insert(model.atoms[a].residue); atoms.insert(a) }
        }
        XCTAssertEqual(Set(try Selection(parsing: "interacting (resn 478)").atoms(in: model).map { model.atoms[$0].residue }), residues)
        XCTAssertEqual(Set(try Selection(parsing: "partners resn 478").atoms(in: model)), atoms)
        XCTAssertTrue(residues.contains { model.residues[Int($0)].name.description == "ASP" && model.residues[Int($0)].number == 25 })
        XCTAssertTrue(residues.contains { model.residues[Int($0)].isWater }, "a bridge's water")
        XCTAssertEqual(try Selection(parsing: "interacting water and resn 478").atoms(in: model), [])
        XCTAssertThrowsError(try Selection(parsing: "interacting"))
        XCTAssertThrowsError(try Selection(parsing: "interactng resn 478")) { XCTAssertTrue("\($0)".contains("interacting"), "\($0)") }
        // Narrowed to the protein: a DNA strand's protein partners, not its other strand's bases.
        let dna = try StructureFile.load(path: Rendering.fixtures.appendingPathComponent("interactions/1tf6.pdb.gz").path).models[0]
        let all = try Selection(parsing: "interacting (chain B and resi 9-13)").atoms(in: dna)
        let protein = try Selection(parsing: "interacting (chain B and resi 9-13) with protein").atoms(in: dna)
        XCTAssertFalse(protein.isEmpty)
        XCTAssertTrue(protein.allSatisfy { Selection.aminoAcids.contains(dna.residues[Int(dna.atoms[$0].residue)].name.description) })
        XCTAssertTrue(all.contains { !Selection.aminoAcids.contains(dna.residues[Int(dna.atoms[$0].residue)].name.description) }, "the other strand")
        let zinc = try StructureFile.load(path: Rendering.fixtures.appendingPathComponent("interactions/4agl.pdb.gz").path)
        XCTAssertEqual(try Selection(parsing: "ion and elem Zn").atoms(in: zinc.models[0]).count, try Selection(parsing: "resn ZN").atoms(in: zinc.models[0]).count)
    }

    /// Options beside `site` replace its parts, in any order given; without them it makes them all.
    func testOptionsGivenReplaceTheSitesParts() throws {
        let plain = try RenderRequest([("site", "resn 478")])
        XCTAssertEqual(plain.shows.map(\.representation), [.cartoon, .ballAndStick, .sticks, .sticks, .ballAndStick, .ballAndStick])
        XCTAssertEqual(plain.focus?.text, "resn 478")
        XCTAssertEqual(plain.annotations.interactions?.text, "resn 478")
        XCTAssertEqual(plain.annotations.labels.count, 1)
        let shown = try RenderRequest([("show", "spacefill: all"), ("site", "resn 478")])
        XCTAssertEqual(shown.shows.map(\.representation), [.spacefill])
        var later = try RenderRequest([("site", "resn 478")])
        try later.set("label", "resn 478: %resn")
        try later.set("mode", "cartoon")
        XCTAssertEqual(later.annotations.labels.map(\.text), ["resn 478: %resn"])
        XCTAssertTrue(later.shows.isEmpty)
        XCTAssertEqual(later.modes, [.cartoon])
        XCTAssertNotEqual(plain.canonical, try RenderRequest([("site", "resn HEM")]).canonical)
        XCTAssertThrowsError(try RenderRequest([("site", "resn (")])) { XCTAssertEqual(($0 as? RequestError)?.field, "site") }
        let s = try StructureFile.load(path: Rendering.fixtures.appendingPathComponent("1hpv.pdb").path)
        XCTAssertThrowsError(try RenderRequest([("site", "resn XYZ")]).molecule(s, source: "1hpv.pdb")) {
            XCTAssertEqual(($0 as? RequestError)?.field, "site", "\($0)")
        }
    }

    /// Interactions are geometry in the scene: inside an opaque surface none of their blue shows,
    /// under a see-through cartoon it does; every piece of their mesh lies on a segment between
    /// the two ends (ring centres for stacking and cation-pi: one line, no fan to the ring's atoms)
    /// or at a ring centre's dot or a bridge's water.
    func testInteractionLinesAreHiddenByWhatIsInFrontAndRunBetweenTheirEnds() throws {
        let s = try StructureFile.load(path: Rendering.fixtures.appendingPathComponent("1hpv.pdb").path)
        let renderer = try Rendering.renderer()
        func blue(_ shows: [String]) throws -> Int {
            let request = try RenderRequest([("size", "500"), ("focus", "resn 478"), ("slab", "none"), ("interactions", "resn 478"), ("antialias", "0")]
                                            + shows.map { ("show", $0) })
            let p = try MoleculePicture(s, mode: request.modes[0], request: request, perception: try BondPerception.standard())
            // Outside the key in the top-left corner, whose sample dashes are drawn in the colour.
            let image = try p.finish(p.draw(renderer))
            let c = Annotations.color(.hbond)
            var n = 0
            for y in 90..<image.height {
                for x in 0..<image.width {
                    let q = image.pixel(x, y)
                    if abs(Int(q.r) - Int(c >> 16 & 0xFF)) <= 30 && abs(Int(q.g) - Int(c >> 8 & 0xFF)) <= 30 && abs(Int(q.b) - Int(c & 0xFF)) <= 30 { n += 1 }
                }
            }
            return n
        }
        let open = try blue(["cartoon #FFFFFF: polymer", "sticks #FFFFFF: resn 478"]), buried = try blue(["surface #FFFFFF: all"])
        XCTAssertGreaterThan(open, 100)
        XCTAssertEqual(buried, 0, "buried in an opaque surface: \(buried) pixels of blue, \(open) under a cartoon")

        let e = try StructureFile.load(path: Rendering.fixtures.appendingPathComponent("interactions/1eve.pdb.gz").path)
        let request = try RenderRequest([("site", "resn E20")])
        let prepared = try PreparedMolecule(e, mode: request.modes[0], request: request, perception: try BondPerception.standard())
        let found = try InteractionPartners.interactions(of: try Selection(parsing: "(resn E20)"), in: prepared.model)
        XCTAssertTrue(found.contains { $0.kind == .pistacking } && found.contains { $0.kind == .pication })
        let mesh = try XCTUnwrap(prepared.geometry.meshes.first { $0.name == "interactions" })
        var segments: [(SIMD3<Float>, SIMD3<Float>)] = []
        for i in found {
            if let w = i.water { let o = prepared.model.atoms[w].position; segments += [(i.point, o), (o, i.partnerPoint), (o, o)] } else { segments.append((i.point, i.partnerPoint)) }
            segments += [(i.point, i.point), (i.partnerPoint, i.partnerPoint)]
        }
        func distance(_ p: SIMD3<Float>, _ a: SIMD3<Float>, _ b: SIMD3<Float>) -> Float {
            let ab = b - a, t = max(0, min(1, ((p - a) * ab).sum() / max(1e-9, (ab * ab).sum())))
            return (p - (a + ab * t)).length
        }
        for v in mesh.positions { XCTAssertLessThan(segments.map { distance(v, $0.0, $0.1) }.min()!, 0.45) }
        for i in found where i.kind == .pistacking {
            XCTAssertTrue(mesh.positions.contains { ($0 - i.point).length < 0.25 }, "a dot at the ring's centre")
        }
    }
}

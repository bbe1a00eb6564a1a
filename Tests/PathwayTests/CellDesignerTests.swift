import Core
import Foundation
import Graphics
import Imaging
@testable import PathwayModel
@testable import Pathways
import XCTest

/// CellDesigner's own diagram, read from its SBML annotation: real files from cd2sbgnml and
/// celldesigner-parser (Tests/Fixtures/pathways-real/MANIFEST.tsv).
final class CellDesignerTests: XCTestCase {
    typealias S = PathwayTestSupport

    static func real(_ name: String) -> String { S.root.appendingPathComponent("Tests/Fixtures/pathways-real/\(name)").path }

    /// Each alias's id and bounds as the file states them, read apart from the reader (by pattern).
    static func bounds(in path: String) throws -> [String: (x: Double, y: Double, w: Double, h: Double)] {
        let bytes = try FileInput.read(path: path, limit: 64 << 20)
        let text = String(decoding: bytes, as: UTF8.self)
        let alias = try NSRegularExpression(pattern: #"<celldesigner:(?:complexS|s)peciesAlias [^>]*\bid="([^"]+)"[^>]*>\s*(?:<celldesigner:activity>[a-z]*</celldesigner:activity>\s*)?<celldesigner:bounds ([^>]*)/>"#)
        var out: [String: (Double, Double, Double, Double)] = [:]
        for m in alias.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            let id = String(text[Range(m.range(at: 1), in: text)!]), attrs = String(text[Range(m.range(at: 2), in: text)!])
            func v(_ k: String) -> Double {
                let r = attrs.range(of: #"\b\#(k)="([^"]+)""#, options: .regularExpression)!
                return Double(attrs[r].split(separator: "\"")[1])!
            }
            out[id] = (v("x"), v("y"), v("w"), v("h"))
        }
        return out
    }

    /// The map drawn at 4 pixels a unit round a node (twice its size), with the picture's view.
    static func closeUp(_ n: PathwayMap.Node, in map: PathwayMap) throws -> (PathwayPicture, RGBAImage) {
        var request = PathwayRequest()
        let corner = n.center - n.size
        request.region = "\(corner.x),\(corner.y),\(n.size.x * 2),\(n.size.y * 2)"
        request.scale = 4
        let picture = try PathwayPicture(map, request: request)
        return (picture, try picture.draw(try PathwayTestSupport.renderer()))
    }

    /// The box an alias's node covers with a homodimer's copies (drawn behind it).
    static func frame(of id: String, in map: PathwayMap) -> (min: SIMD2<Double>, max: SIMD2<Double>)? {
        guard let n = map.node(id) else { return nil }
        var (lo, hi) = n.frame
        for copy in map.nodes where copy.id.hasPrefix(id + ".copy") {
            lo = pointwiseMin(lo, copy.frame.min)
            hi = pointwiseMax(hi, copy.frame.max)
        }
        return (lo, hi)
    }

    /// Every species and complex alias is a node at exactly the file's bounds, in the shape and
    /// colour CellDesigner gives its class.
    func testNodesAtTheFilesBoundsInTheirClassShapes() throws {
        let path = Self.real("celldesigner_components44.xml.gz")
        let map = try PathwayFile.load(path: path)
        XCTAssertEqual(map.format, "sbml-celldesigner")
        XCTAssertFalse(map.needsLayout)
        let expected = try Self.bounds(in: path)
        XCTAssertEqual(expected.count, 240, "232 species aliases and 8 complex aliases in the file")
        for (id, b) in expected {
            guard let (lo, hi) = Self.frame(of: id, in: map) else { XCTFail("\(id) not drawn"); continue }
            XCTAssertEqual(lo.x, b.x, accuracy: 1e-9, id)
            XCTAssertEqual(lo.y, b.y, accuracy: 1e-9, id)
            XCTAssertEqual(hi.x, b.x + b.w, accuracy: 1e-9, id)
            XCTAssertEqual(hi.y, b.y + b.h, accuracy: 1e-9, id)
        }
        func shapes(_ label: String) -> Set<PathwayMap.Shape> { Set(map.nodes.filter { $0.label == label }.map(\.shape)) }
        XCTAssertEqual(shapes("RNA"), [.parallelogram])
        XCTAssertEqual(shapes("AntiSenseRNA"), [.parallelogramLeft])
        XCTAssertEqual(shapes("Gene"), [.rectangle])
        XCTAssertEqual(shapes("Simple_Molecule"), [.ellipse])
        XCTAssertEqual(shapes("Phenotype"), [.hexagon])
        XCTAssertEqual(shapes("Protein"), [.roundRectangle])
        XCTAssertTrue(map.nodes.contains { $0.shape == .sourceSink }, "degraded is a struck circle")
        XCTAssertEqual(map.nodes.filter { $0.shape == .cutRectangle }.count, 8, "every complex alias has cut corners")
        // "Truncated_br_Protein": CellDesigner's line break.
        XCTAssertTrue(map.nodes.contains { $0.label == "Truncated\nProtein" })
        XCTAssertEqual(map.nodes.first { $0.label == "RNA" }?.fill, Color(rgb: 0x66FF66), "the usual view's paint (ff66ff66)")
        // Complexes come before their members, so the members are drawn on top.
        let order = Dictionary(uniqueKeysWithValues: map.nodes.enumerated().map { ($1.id, $0) })
        XCTAssertLessThan(order["csa4"]!, order.filter { $0.key.hasPrefix("sa") }.values.min()!)
        // Compartments: the square and the oval, double lined, in their paint.
        XCTAssertTrue(map.compartments.contains { $0.name == "Compartment Oval" && $0.shape == .ellipse && $0.doubleLine })
        XCTAssertTrue(map.compartments.contains { $0.name == "Compartment Square" && $0.shape == .roundRectangle && $0.doubleLine })
    }

    /// A state transition's line runs from the reactant's anchor through the edit points (in
    /// CellDesigner's frame between the two aliases' centres) to the product's, the process on
    /// the segment the file names; a modifier ends at the process with its head.
    func testReactionLinesFollowTheEditPointsAndTheProcessSitsOnItsSegment() throws {
        let map = try PathwayFile.load(path: Self.real("celldesigner_sample.xml.gz"))
        // re1: sa1 (50,90 80x40) east anchor to sa2 (260,90 80x40) west anchor, edit points at 0.256
        // and 0.744 of the way between their centres (90,110)-(300,110), the process on segment 1.
        let process = try XCTUnwrap(map.node("re1"))
        XCTAssertEqual(process.shape, .process)
        XCTAssertEqual(process.center.x, (90 + 0.2564102564102564 * 210 + 90 + 0.7435897435897438 * 210) / 2, accuracy: 1e-6)
        XCTAssertEqual(process.center.y, 110, accuracy: 1e-6)
        let into = try XCTUnwrap(map.edges.first { $0.id == "re1:r0" }), out = try XCTUnwrap(map.edges.first { $0.id == "re1:p0" })
        XCTAssertEqual(into.start, SIMD2(130, 110), "from sa1's east side")
        XCTAssertEqual(into.segments.count, 2, "through the first edit point to the process")
        XCTAssertEqual(out.segments.last?.end, SIMD2(260, 110), "to sa2's west side")
        XCTAssertEqual(out.head, .arrow)
        // ATP (sa3) in and ADP (sa4) out through the process.
        XCTAssertTrue(map.edges.contains { $0.from == "sa3" && $0.to == "re1" && $0.kind == .substrate })
        XCTAssertTrue(map.edges.contains { $0.from == "re1" && $0.to == "sa4" && $0.head == .arrow })
        XCTAssertTrue(map.edges.contains { $0.kind == .catalysis && $0.head == .circle }, "a catalysis ends in a circle")
    }

    /// Associations join their reactants at one point, dissociations split at one; logic gates
    /// are drawn where the file puts them, their inputs running to the gate; influences are one
    /// line without a process, unknown ones dashed.
    func testAssociationsGatesAndInfluences() throws {
        let map = try PathwayFile.load(path: Self.real("celldesigner_components44.xml.gz"))
        // re12: sa31 and sa32 joined, into complex csa4.
        let r0 = try XCTUnwrap(map.edges.first { $0.id == "re12:r0" }), r1 = try XCTUnwrap(map.edges.first { $0.id == "re12:r1" })
        XCTAssertEqual(r0.from, "sa31")
        XCTAssertEqual(r1.from, "sa32")
        XCTAssertEqual(r0.segments.first?.end, r1.segments.first?.end, "both branches meet at the association point")
        XCTAssertTrue(map.edges.contains { $0.id == "re12:p0" && $0.to == "csa4" && $0.head == .arrow })
        let gates = map.nodes.filter { $0.id.contains(".gate") }
        XCTAssertEqual(Set(gates.map(\.label)), ["&", "|", "!", "?"])
        for g in gates {
            XCTAssertTrue(map.edges.contains { $0.from == g.id && $0.head != .none }, "\(g.id) leads on to its process")
            XCTAssertGreaterThanOrEqual(map.edges.filter { $0.to == g.id }.count, 2, "\(g.id)'s inputs run to the gate")
        }
        let influences = map.edges.filter { $0.id.hasSuffix(":line") }
        XCTAssertGreaterThanOrEqual(influences.count, 15)
        XCTAssertTrue(influences.contains { $0.head == .bar && !$0.dashed }, "negative influence")
        XCTAssertTrue(influences.contains { $0.head == .bar && $0.dashed }, "unknown negative influence")
        XCTAssertTrue(influences.contains { $0.head == .barArrow }, "reduced trigger")
        XCTAssertTrue(map.edges.contains { $0.id.hasPrefix("re") && $0.dashed && $0.kind == .substrate }, "transcription is dashed")
    }

    /// A dissociation's process lies between the complex's outline and the point where it splits
    /// (CellDesigner counts its segment from the point, and measures from outlines, not centres),
    /// outside the complex in every real file; an association's likewise outside its product.
    func testDissociationAndAssociationProcessesLieOutsideTheirComplexes() throws {
        var checked = 0
        for file in ["celldesigner_components44.xml.gz", "celldesigner_reaction.xml.gz", "celldesigner_cellcycle_v1.1.xml.gz"] {
            let map = try PathwayFile.load(path: Self.real(file))
            let nodes = Dictionary(map.nodes.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            for process in map.nodes where process.shape == .process {
                let ins = map.edges.filter { $0.to == process.id && $0.kind == .substrate }
                let outs = map.edges.filter { $0.from == process.id && $0.kind == .product }
                // A dissociation: one reactant, two or more products; an association the reverse.
                let complex: PathwayMap.Node?
                if ins.count == 1 && outs.count >= 2 { complex = ins[0].from.flatMap { nodes[$0] } }
                else if ins.count >= 2 && outs.count == 1 { complex = outs[0].to.flatMap { nodes[$0] } }
                else { continue }
                guard let c = complex else { continue }
                let (lo, hi) = c.frame
                let p = process.center
                XCTAssertFalse(p.x > lo.x && p.x < hi.x && p.y > lo.y && p.y < hi.y, "\(file) \(process.id) inside \(c.id)")
                checked += 1
            }
        }
        XCTAssertGreaterThanOrEqual(checked, 15)
    }

    /// Aliases a tool left stacked at one point (the sample's 16 outside complexes moved to (50,50)) are spread in a
    /// grid below the map, with a warning, and their reactions follow them.
    func testAliasesStackedAtOnePointAreSpread() throws {
        let text = String(decoding: try FileInput.read(path: Self.real("celldesigner_sample.xml.gz")), as: UTF8.self)
        let stacked = text.replacingOccurrences(of: #"(<celldesigner:speciesAlias id="[^"]*" species="[^"]*">\s*<celldesigner:activity>[a-z]+</celldesigner:activity>\s*<celldesigner:bounds) x="[-0-9.]+" y="[-0-9.]+""#,
                                                with: "$1 x=\"50.0\" y=\"50.0\"", options: .regularExpression)
        XCTAssertEqual(stacked.components(separatedBy: #"x="50.0" y="50.0""#).count - 1, 16)
        let map = try PathwayFile.parse(Array(stacked.utf8), file: "stacked.xml")
        XCTAssertTrue(map.warnings.contains { $0.contains("16 species aliases stacked at one point (50.0, 50.0)") }, "\(map.warnings)")
        let aliases = map.nodes.filter { $0.id.hasPrefix("sa") && !$0.id.contains(".") && !["sa10", "sa11"].contains($0.id) }
        XCTAssertEqual(aliases.count, 16)
        XCTAssertEqual(Set(aliases.map { SIMD2($0.frame.min.x.rounded(), $0.frame.min.y.rounded()) }).count, 16, "each at its own place")
        for (i, a) in aliases.enumerated() {
            for b in aliases[(i + 1)...] {
                let overlap = a.frame.min.x < b.frame.max.x && b.frame.min.x < a.frame.max.x && a.frame.min.y < b.frame.max.y && b.frame.min.y < a.frame.max.y
                XCTAssertFalse(overlap, "\(a.id) and \(b.id) overlap")
            }
        }
        // re1 runs between its aliases where they now are.
        let into = try XCTUnwrap(map.edges.first { $0.id == "re1:r0" })
        let sa1 = try XCTUnwrap(map.node("sa1"))
        let d = into.start - sa1.center
        XCTAssertLessThan((d.x * d.x + d.y * d.y).squareRoot(), (sa1.size.x * sa1.size.x + sa1.size.y * sa1.size.y).squareRoot())
    }

    /// An active complex is ringed with a dashed outline of its shape, as an active species is.
    func testAnActiveComplexIsRinged() throws {
        let text = String(decoding: try FileInput.read(path: Self.real("celldesigner_sample.xml.gz")), as: UTF8.self)
        let active = text.replacingOccurrences(of: #"(complexSpeciesAlias id="csa1" species="Comp">\s*<celldesigner:activity>)inactive"#,
                                               with: "$1active", options: .regularExpression)
        XCTAssertNotEqual(active, text)
        let map = try PathwayFile.parse(Array(active.utf8), file: "active.xml")
        let complex = try XCTUnwrap(map.node("csa1"))
        let ring = try XCTUnwrap(map.nodes.first { $0.id == "csa1.active" })
        XCTAssertTrue(ring.dashed)
        XCTAssertEqual(ring.shape, complex.shape)
        XCTAssertGreaterThan(ring.size.x, complex.size.x)
        let index = { (id: String) in map.nodes.firstIndex { $0.id == id }! }
        XCTAssertLessThan(index("csa1.active"), index("csa1"), "drawn behind the complex")
        XCTAssertLessThan(index("csa1"), index("sa10"), "its members on top")
    }

    /// Structural states in an oval on their species' border (the top middle by default), and
    /// compartments as CellDesigner draws them: the band between the double lines in the
    /// compartment's colour, the inside white.
    func testStructuralStatesAndWhiteCompartments() throws {
        let map = try PathwayFile.load(path: Self.real("celldesigner_components44.xml.gz"))
        let states = map.nodes.filter { $0.id.hasSuffix(".structure") }
        XCTAssertEqual(Set(states.map(\.label)), ["open", "closed"])
        let state = try XCTUnwrap(map.nodes.first { $0.label == "State" && $0.kind != .marker })
        let oval = try XCTUnwrap(states.first { $0.id == state.id + ".structure" })
        XCTAssertEqual(oval.shape, .ellipse)
        XCTAssertEqual(oval.center.x, state.center.x, accuracy: 0.5)
        XCTAssertEqual(oval.center.y, state.frame.min.y, accuracy: 0.5, "on the top edge")

        let square = try XCTUnwrap(map.compartments.first { $0.name == "Compartment Square" })
        XCTAssertEqual(square.innerFill, .white)
        var request = PathwayRequest()
        request.size = "1600"
        let picture = try PathwayPicture(map, request: request)
        let image = try picture.draw(try S.renderer())
        func pixel(_ p: SIMD2<Double>) -> (Int, Int) { let q = picture.view.pixel(p); return (Int(q.x), Int(q.y)) }
        let inside = pixel(square.origin + SIMD2(square.size.x * 0.3, square.size.y * 0.3))
        XCTAssertTrue(S.near(image, inside.0, inside.1, 0xFFFFFF, tolerance: 4), "the inside is white")
        let band = pixel(square.origin + SIMD2(square.size.x / 2, 6))
        XCTAssertFalse(S.near(image, band.0, band.1, 0xFFFFFF, tolerance: 20), "the band is coloured")
    }

    /// CellDesigner 4.0 on SBML Level 2 Version 1 keeps its elements in the annotation itself:
    /// the RB/E2F map is drawn at its own places, not laid out anew.
    func testALevel2Version1MapKeepsItsLayout() throws {
        let path = Self.real("celldesigner_cellcycle_v1.1.xml.gz")
        let map = try PathwayFile.load(path: path)
        XCTAssertEqual(map.format, "sbml-celldesigner")
        let expected = try Self.bounds(in: path)
        XCTAssertEqual(expected.count, 673)
        var placed = 0
        for (id, b) in expected {
            if let f = Self.frame(of: id, in: map), f.min == SIMD2(b.x, b.y), f.max == SIMD2(b.x + b.w, b.y + b.h) { placed += 1 }
        }
        XCTAssertEqual(placed, 673)
        XCTAssertEqual(map.canvas?.size, SIMD2(5120, 5120))
        XCTAssertGreaterThan(map.edges.count, 900)
        XCTAssertTrue(map.compartments.contains { $0.shape == .ellipse })
    }

    /// Pixels: a protein's fill inside its box, an RNA's parallelogram leaning right (its lower
    /// left corner inside, its upper left corner outside), the process square drawn.
    func testShapesAndColoursInThePicture() throws {
        let map = try PathwayFile.load(path: Self.real("celldesigner_components44.xml.gz"))
        let rna = try XCTUnwrap(map.nodes.first { $0.label == "RNA" && $0.shape == .parallelogram })
        let (picture, image) = try Self.closeUp(rna, in: map)
        func near(_ p: SIMD2<Double>, _ rgb: UInt32, tolerance: Int = 30) -> Bool {
            let q = picture.view.pixel(p)
            return S.near(image, Int(q.x), Int(q.y), rgb, tolerance: tolerance)
        }
        let (lo, hi) = rna.frame
        XCTAssertTrue(near(SIMD2(lo.x + 3, hi.y - 3), 0x66FF66), "the lower left corner is inside the parallelogram")
        XCTAssertFalse(near(SIMD2(lo.x + 3, lo.y + 3), 0x66FF66), "the upper left corner is outside it")
        XCTAssertTrue(near(SIMD2(hi.x - 3, lo.y + 3), 0x66FF66), "the upper right corner is inside")
    }

    /// Proteins by their type in the protein list (receptor, ion channel, truncated), homodimers as
    /// stacked copies, active species ringed with a dashed outline, and each residue of a protein a
    /// circle on its border at the residue's angle with its state's letters (CellDesigner's notation
    /// sheet, components44).
    func testProteinTypesHomodimersActivityAndResidues() throws {
        let path = Self.real("celldesigner_components44.xml.gz")
        let map = try PathwayFile.load(path: path)
        let labelled = { (label: String) in Set(map.nodes.filter { $0.label == label && $0.kind != .marker }.map(\.shape)) }
        XCTAssertEqual(labelled("Receptor"), [.receptor])
        XCTAssertEqual(labelled("Ion_Channel"), [.ionChannel])
        XCTAssertEqual(labelled("Truncated\nProtein"), [.truncated])
        // The file's homodimers (<celldesigner:homodimer>2): one copy behind each, no label on it.
        let copies = map.nodes.filter { $0.id.hasSuffix(".copy1") }
        XCTAssertEqual(copies.count, 4)
        XCTAssertTrue(copies.allSatisfy { $0.label.isEmpty && $0.kind == .marker })
        XCTAssertFalse(map.nodes.contains { $0.id.hasSuffix(".copy2") })
        // Active aliases (<celldesigner:activity>active): a dashed ring 4 units outside the bounds.
        let text = String(decoding: try FileInput.read(path: path, limit: 64 << 20), as: UTF8.self)
        let active = text.components(separatedBy: "<celldesigner:activity>active</celldesigner:activity>").count - 1
        let rings = map.nodes.filter { $0.id.hasSuffix(".active") }
        XCTAssertEqual(rings.count, active)
        XCTAssertGreaterThan(active, 3)
        let bounds = try Self.bounds(in: path)
        for ring in rings {
            let b = try XCTUnwrap(bounds[String(ring.id.dropLast(".active".count))])
            XCTAssertTrue(ring.dashed && ring.fill == nil)
            XCTAssertEqual(ring.size, SIMD2(b.w + 8, b.h + 8), ring.id)
        }
        XCTAssertFalse(map.nodes.contains { $0.dashed && !$0.id.hasSuffix(".active") })
        // Each state's letters, as CellDesigner writes them.
        let letters = Set(map.nodes.filter { $0.id.contains(".residue") }.map(\.label))
        XCTAssertEqual(letters, ["P", "Ac", "Ub", "Me", "OH", "G", "My", "Pa", "Pr", "H", "S", "*", "?", ""])
        // "Phosphorylated" (protein p14, residue angle 2.0761 rad, 119 degrees): on the top edge,
        // left of the middle: x = centre + w/2 * cos/|sin|, y = top.
        let protein = try XCTUnwrap(map.nodes.first { $0.label == "Phosphorylated" && $0.kind != .marker })
        let circle = try XCTUnwrap(map.nodes.first { $0.id == protein.id + ".residue0" })
        let angle = 2.0761076451572253
        XCTAssertEqual(circle.label, "P")
        XCTAssertEqual(circle.center.y, protein.frame.min.y, accuracy: 1e-9)
        XCTAssertEqual(circle.center.x, protein.center.x + protein.size.x / 2 * cos(angle) / sin(angle), accuracy: 1e-9)
        // "residue" (p10, Thr14 at 3.98 rad, 228 degrees): the lower left, its name inside the box;
        // the unmodified species of that protein has the circle empty.
        let residues = map.nodes.filter { $0.id.hasSuffix(".residue0") && map.node(String($0.id.dropLast(".residue0".count)))?.label == "residue" }
        XCTAssertEqual(Set(residues.map(\.label)), ["", "P"])
        for r in residues {
            let owner = try XCTUnwrap(map.node(String(r.id.dropLast(".residue0".count))))
            XCTAssertEqual(r.center.y, owner.frame.max.y, accuracy: 1e-9, "on the bottom edge")
            XCTAssertLessThan(r.center.x, owner.center.x - owner.size.x * 0.4)
        }
        let names = map.texts.filter { $0.text == "Thr14" }
        XCTAssertEqual(names.count, residues.count)
        // A gene's modification site (gene gn5 "Phophorylated", region tr1 at pos 0.49): on its
        // top edge at 0.49 of its width, with the state's letter.
        let gene = try XCTUnwrap(map.nodes.first { $0.label == "Phophorylated" && $0.shape == .rectangle })
        let site = try XCTUnwrap(map.nodes.first { $0.id == gene.id + ".residue0" })
        XCTAssertEqual(site.label, "P")
        XCTAssertEqual(site.center.x, gene.frame.min.x + 0.49 * gene.size.x, accuracy: 1e-9)
        XCTAssertEqual(site.center.y, gene.frame.min.y, accuracy: 1e-9)
        // Kept as Molshot JSON and read back: the new shapes and the dashed rings survive.
        let back = try PathwayFile.parse(try PathwayJSONWriter.data(map), file: "c44.json")
        XCTAssertEqual(back.nodes.map(\.shape), map.nodes.map(\.shape))
        XCTAssertEqual(back.nodes.map(\.dashed), map.nodes.map(\.dashed))
        XCTAssertThrowsError(try PathwayFile.parse(Data(#"{"nodes": [{"id": "a", "x": 1, "y": 1, "dashed": "yes"}]}"#.utf8), file: "d.json")) {
            XCTAssertEqual(($0 as? PathwayError)?.description, "d.json: nodes[0].dashed: must be true or false")
        }
    }

    /// A name kept inside its node stays there at the map's own size, even where another label is
    /// near (the members of components44's complexes: their names were moved onto the border
    /// between two members before).
    func testMemberNamesStayInsideTheirNodes() throws {
        let map = try PathwayFile.load(path: Self.real("celldesigner_components44.xml.gz"))
        let scale = 1.0
        let placed = try MapLabels(theme: PathwayTheme(.standard), fonts: FontCache()).place(map, scale: scale)
        for name in ["A", "B", "D", "E"] {
            for n in map.nodes where n.label == name && n.fitsLabel && n.kind != .marker {
                let (lo, hi) = n.frame
                let inside = placed.contains { l in
                    let c = SIMD2((l.box.x + l.box.z) / 2, (l.box.y + l.box.w) / 2) / scale
                    return l.lines.map(\.text).joined() == name && c.x > lo.x && c.x < hi.x && c.y > lo.y && c.y < hi.y
                }
                XCTAssertTrue(inside, "\(n.id)'s \(name) inside its box")
            }
        }
    }

    /// Pixels: a receptor's notch is not filled while its top corners are; an ion channel's two
    /// boxes have a gap between them at the top; a residue's circle is white on the border.
    func testProteinShapesInThePicture() throws {
        let map = try PathwayFile.load(path: Self.real("celldesigner_components44.xml.gz"))
        let receptor = try XCTUnwrap(map.nodes.first { $0.shape == .receptor && $0.kind != .marker })
        let channel = try XCTUnwrap(map.nodes.first { $0.shape == .ionChannel && $0.kind != .marker })
        for n in [receptor, channel] {
            let (picture, image) = try Self.closeUp(n, in: map)
            let fill = n.fill!.rgb
            func near(_ p: SIMD2<Double>) -> Bool {
                let q = picture.view.pixel(p)
                // Close: the compartment behind is a pale yellow too.
                return S.near(image, Int(q.x), Int(q.y), fill, tolerance: 6)
            }
            let (lo, hi) = n.frame
            if n.shape == .receptor {
                XCTAssertTrue(near(SIMD2(lo.x + 4, lo.y + 4)), "the upper left corner is filled")
                XCTAssertTrue(near(SIMD2(hi.x - 4, lo.y + 4)), "the upper right corner is filled")
                XCTAssertFalse(near(SIMD2(n.center.x, lo.y + 3)), "the notch at the top middle is not")
                XCTAssertFalse(near(SIMD2(lo.x + 3, hi.y - 3)), "the bottom left is cut away towards the point")
                XCTAssertTrue(near(SIMD2(n.center.x, hi.y - 4)), "the point at the bottom middle is filled")
            } else {
                let narrow = min(n.size.x * 0.2, n.size.y * 0.5)
                XCTAssertTrue(near(SIMD2(lo.x + n.size.x * 0.4, n.center.y + 8)), "the main box is filled")
                XCTAssertTrue(near(SIMD2(hi.x - narrow / 2, n.center.y)), "the channel is filled")
                XCTAssertFalse(near(SIMD2(hi.x - narrow, lo.y + 1)), "between the two boxes' rounded corners, nothing")
            }
        }
    }

    /// Hostile values: a missing bounds is named by its line; a reaction naming an alias that is
    /// not there is named too; huge and NaN edit points do not crash.
    func testBadDiagramsAreNamed() throws {
        func sbml(_ aliases: String, _ reactions: String = "") -> String {
            """
            <sbml xmlns="http://www.sbml.org/sbml/level2/version4" xmlns:celldesigner="http://www.sbml.org/2001/ns/celldesigner" level="2" version="4">
            <model id="m"><annotation><celldesigner:extension><celldesigner:listOfSpeciesAliases>
            \(aliases)
            </celldesigner:listOfSpeciesAliases></celldesigner:extension></annotation>
            <listOfSpecies><species id="a" name="A"/><species id="b" name="B"/></listOfSpecies>
            <listOfReactions>\(reactions)</listOfReactions></model></sbml>
            """
        }
        let a = #"<celldesigner:speciesAlias id="sa1" species="a"><celldesigner:bounds x="0" y="0" w="80" h="40"/></celldesigner:speciesAlias>"#
        let b = #"<celldesigner:speciesAlias id="sa2" species="b"><celldesigner:bounds x="200" y="0" w="80" h="40"/></celldesigner:speciesAlias>"#
        XCTAssertThrowsError(try PathwayFile.parse(Array(sbml(#"<celldesigner:speciesAlias id="sa1" species="a"/>"#).utf8), file: "x.xml")) {
            let e = $0 as? PathwayError
            XCTAssertEqual(e?.location, "line 3 <speciesAlias id=\"sa1\">")
            XCTAssertTrue(e?.message.contains("<bounds>") == true)
        }
        func reaction(_ product: String, _ edit: String) -> String {
            """
            <reaction id="r"><annotation><celldesigner:extension><celldesigner:reactionType>STATE_TRANSITION</celldesigner:reactionType>
            <celldesigner:baseReactants><celldesigner:baseReactant species="a" alias="sa1"/></celldesigner:baseReactants>
            <celldesigner:baseProducts><celldesigner:baseProduct species="b" alias="\(product)"/></celldesigner:baseProducts>
            <celldesigner:editPoints>\(edit)</celldesigner:editPoints></celldesigner:extension></annotation></reaction>
            """
        }
        XCTAssertThrowsError(try PathwayFile.parse(Array(sbml(a + b, reaction("sa9", "")).utf8), file: "x.xml")) {
            XCTAssertTrue(($0 as? PathwayError)?.message.contains("sa9 is not a species alias") == true, "\($0)")
        }
        // Edit points that are not numbers, or that would throw the line far past the map, are left out.
        let odd = try PathwayFile.parse(Array(sbml(a + b, reaction("sa2", "nan,1 0.5,inf 1e300,2 x,y 0.5 0.5,0.25")).utf8), file: "x.xml")
        // The one good point, (0.5, 0.25) between the centres (40,20) and (240,20), is (140, 70); the
        // process sits in the middle of the first segment, from sa1's outline toward it (80,40) to it.
        XCTAssertEqual(odd.node("r")?.center, SIMD2(110, 55), "the one good edit point is kept")
        XCTAssertLessThan(odd.bounds.max.x, 1000)
        // A protein of 5,000 residues drawn by 400 aliases (2 million circles asked for in 0.5 MB),
        // a homodimer of a billion: each alias draws at most 64 residues and 8 copies.
        let residues = (0..<5000).map { #"<celldesigner:modificationResidue angle="\#(Double($0) * 0.001)" id="r\#($0)"/>"# }.joined()
        let aliases = (0..<400).map { #"<celldesigner:speciesAlias id="s\#($0)" species="a"><celldesigner:bounds x="\#($0 * 100)" y="0" w="80" h="40"/></celldesigner:speciesAlias>"# }.joined()
        let many = """
            <sbml xmlns="http://www.sbml.org/sbml/level2/version4" xmlns:celldesigner="http://www.sbml.org/2001/ns/celldesigner" level="2" version="4">
            <model id="m"><annotation><celldesigner:extension>
            <celldesigner:listOfProteins><celldesigner:protein id="p" name="P" type="GENERIC"><celldesigner:listOfModificationResidues>\(residues)</celldesigner:listOfModificationResidues></celldesigner:protein></celldesigner:listOfProteins>
            <celldesigner:listOfSpeciesAliases>\(aliases)</celldesigner:listOfSpeciesAliases></celldesigner:extension></annotation>
            <listOfSpecies><species id="a" name="A"><annotation><celldesigner:extension><celldesigner:speciesIdentity><celldesigner:class>PROTEIN</celldesigner:class>
            <celldesigner:proteinReference>p</celldesigner:proteinReference><celldesigner:state><celldesigner:homodimer>1000000000</celldesigner:homodimer></celldesigner:state>
            </celldesigner:speciesIdentity></celldesigner:extension></annotation></species></listOfSpecies></model></sbml>
            """
        let bounded = try PathwayFile.parse(Array(many.utf8), file: "many.xml")
        XCTAssertEqual(bounded.nodes.filter { $0.id.hasPrefix("s7.residue") }.count, CellDesignerReader.residuesDrawn)
        XCTAssertEqual(bounded.nodes.filter { $0.id.hasPrefix("s7.copy") }.count, CellDesignerReader.copiesDrawn - 1)
        XCTAssertLessThanOrEqual(bounded.nodes.count, 400 * (1 + CellDesignerReader.residuesDrawn + CellDesignerReader.copiesDrawn))
    }
}

/// SBML `comp`: a model of submodels is flattened as libSBML names things, and a file whose
/// submodels multiply past what a map holds is refused before anything is copied.
final class SBMLCompTests: XCTestCase {
    typealias S = PathwayTestSupport

    func testSubmodelsAreFlattenedWithLibSBMLsPrefixes() throws {
        let map = try PathwayFile.load(path: S.fixture("comp-two-instances.xml"))
        XCTAssertEqual(Set(map.nodes.map(\.id)), ["A__S", "A__P", "A__J0", "B__S", "B__P", "B__J0"])
        XCTAssertEqual(Set(map.edges.map { "\($0.from!)>\($0.to!)" }), ["A__S>A__J0", "A__J0>A__P", "B__S>B__J0", "B__J0>B__P"])
        XCTAssertEqual(map.node("A__S")?.label, "substrate")
        XCTAssertEqual(map.warnings, ["submodel X: model elsewhere is not defined in this file (an external definition is not read); left out"])
    }

    /// Replacements and deletions, checked against libSBML 5.21.2's flattening of the same file
    /// (`flatten comp`, from PyPI's python-libsbml): the shared compartment and species once, a
    /// replacedBy species under the model's id with the instance's content, a reaction deleted
    /// through a port.
    func testReplacementsAndDeletionsAsLibSBMLFlattensThem() throws {
        let map = try PathwayFile.load(path: S.fixture("comp-replacements.xml"))
        let species: Set<String> = ["shared", "A__S", "T", "B__P", "B__Q"], reactions: Set<String> = ["A__J0", "A__J1", "B__J0"]
        XCTAssertEqual(Set(map.nodes.map(\.id)), species.union(reactions))
        XCTAssertEqual(Set(map.edges.map { "\($0.from!)>\($0.to!)" }),
                       ["A__S>A__J0", "A__J0>shared", "shared>A__J1", "A__J1>T", "shared>B__J0", "B__J0>B__P"])
        XCTAssertEqual(map.node("shared")?.label, "glucose")
        XCTAssertEqual(map.node("T")?.label, "Q", "the instance's species stands in under the model's id")
        XCTAssertTrue(map.warnings.isEmpty)
    }

    func testSubmodelsThatMultiplyOrContainThemselvesAreRefused() throws {
        func composed(_ definitions: String, top: String) -> [UInt8] {
            Array("""
                <sbml xmlns="http://www.sbml.org/sbml/level3/version1/core" level="3" version="1"
                      xmlns:comp="http://www.sbml.org/sbml/level3/version1/comp/version1">
                <model id="top"><comp:listOfSubmodels>\(top)</comp:listOfSubmodels></model>
                <comp:listOfModelDefinitions>\(definitions)</comp:listOfModelDefinitions></sbml>
                """.utf8)
        }
        func ten(_ ref: String) -> String { (0..<10).map { #"<comp:submodel comp:id="s\#($0)" comp:modelRef="\#(ref)"/>"# }.joined() }
        // d4 holds ten d3, each ten d2 ...: 100,000 instances from a file of a few lines.
        var definitions = #"<comp:modelDefinition id="d0"><listOfSpecies><species id="x" compartment="c"/></listOfSpecies></comp:modelDefinition>"#
        for k in 1...4 { definitions += #"<comp:modelDefinition id="d\#(k)"><comp:listOfSubmodels>\#(ten("d\(k - 1)"))</comp:listOfSubmodels></comp:modelDefinition>"# }
        XCTAssertThrowsError(try PathwayFile.parse(composed(definitions, top: ten("d4")), file: "fan.xml")) {
            XCTAssertTrue(($0 as? PathwayError)?.message.contains("more than 1000 instances") == true, "\($0)")
        }
        let loop = #"<comp:modelDefinition id="me"><comp:listOfSubmodels><comp:submodel comp:id="again" comp:modelRef="me"/></comp:listOfSubmodels></comp:modelDefinition>"#
        XCTAssertThrowsError(try PathwayFile.parse(composed(loop, top: #"<comp:submodel comp:id="a" comp:modelRef="me"/>"#), file: "loop.xml")) {
            XCTAssertTrue(($0 as? PathwayError)?.message.contains("nest more than 16 deep") == true, "\($0)")
        }
        // 999 instances of one definition of 10,000 species: under the instance limit, but ten
        // million elements to copy from a file of half a megabyte. Counted before copying.
        let species = (0..<10_000).map { #"<species id="s\#($0)" compartment="c"/>"# }.joined()
        let big = #"<comp:modelDefinition id="big"><listOfSpecies>\#(species)</listOfSpecies></comp:modelDefinition>"#
        let many = (0..<999).map { #"<comp:submodel comp:id="m\#($0)" comp:modelRef="big"/>"# }.joined()
        let file = composed(big, top: many)
        XCTAssertLessThan(file.count, 600_000)
        XCTAssertThrowsError(try PathwayFile.parse(file, file: "copies.xml")) {
            XCTAssertTrue(($0 as? PathwayError)?.message.contains("more than 2000000 elements") == true, "\($0)")
        }
    }
}

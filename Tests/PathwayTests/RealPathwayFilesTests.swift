import Core
import Foundation
import Graphics
import Imaging
@testable import PathwayModel
@testable import Pathways
import XCTest

/// Real files from other projects (Tests/Fixtures/pathways-real/MANIFEST.tsv gives each one's
/// source and license, and whether Molshot draws it or refuses its language by name), and the
/// SBGN PD notation their pictures need.
final class RealPathwayFilesTests: XCTestCase {
    typealias S = PathwayTestSupport

    struct Entry { let file: String, format: String, expect: String }

    static func manifest(_ folder: URL) throws -> [Entry] {
        let text = try String(contentsOf: folder.appendingPathComponent("MANIFEST.tsv"), encoding: .utf8)
        return text.split(separator: "\n").dropFirst().map { line in
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return Entry(file: f[0], format: f[1], expect: f[2])
        }
    }

    /// Every file in the manifest is drawn (a picture with ink in it) or refused naming its language.
    func testEveryRealFileIsDrawnOrRefusedByName() throws {
        let folder = S.root.appendingPathComponent("Tests/Fixtures/pathways-real")
        let entries = try Self.manifest(folder)
        XCTAssertGreaterThanOrEqual(entries.count, 30)
        XCTAssertEqual(Set(entries.map { $0.format.split(separator: " ").first! }), ["SBGN-ML", "SBML", "KGML,", "GPML", "Escher"])
        let renderer = try S.renderer()
        for e in entries {
            let path = folder.appendingPathComponent(e.file).path
            XCTAssertTrue(FileManager.default.fileExists(atPath: path), e.file)
            if e.expect.hasPrefix("refuse:") {
                let language = String(e.expect.dropFirst("refuse:".count))
                XCTAssertThrowsError(try PathwayFile.load(path: path), e.file) {
                    let message = ($0 as? PathwayError)?.message ?? "\($0)"
                    XCTAssertTrue(message.contains("an SBGN \(language) map"), "\(e.file): \(message)")
                }
                continue
            }
            let map: PathwayMap
            do { map = try PathwayFile.load(path: path) } catch {
                XCTFail("\(e.file): \(error)")
                continue
            }
            var request = PathwayRequest()
            request.size = "200"
            let image = try PathwayPicture(map, request: request).draw(renderer)
            XCTAssertGreaterThan(S.inked(image, x: 0..<image.width, y: 0..<image.height), 50, "\(e.file): nothing drawn")
        }
    }

    /// The files in ../shared/pathways-real, where present: each drawn or refused by its language.
    func testSharedRealFiles() throws {
        let folder = S.root.deletingLastPathComponent().appendingPathComponent("shared/pathways-real")
        guard FileManager.default.fileExists(atPath: folder.path) else { throw XCTSkip("no ../shared/pathways-real beside the checkout") }
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasSuffix(".tsv") && !$0.hasPrefix("reference") }
        XCTAssertGreaterThanOrEqual(files.count, 14)
        for f in files {
            do { _ = try PathwayFile.load(path: folder.appendingPathComponent(f).path) } catch {
                let message = (error as? PathwayError)?.message ?? "\(error)"
                XCTAssertTrue(f.contains("_AF_") || f.contains("_ER_"), "\(f) refused: \(message)")
                XCTAssertTrue(message.contains("Molshot draws SBGN Process Description maps only"), "\(f): \(message)")
            }
        }
    }

    /// Each entity pool node in its own shape, multimers doubled, the clone marker's band dark.
    func testSBGNShapesMultimersAndCloneMarkers() throws {
        let sbgn = """
            <sbgn xmlns="http://sbgn.org/libsbgn/0.2"><map language="process description">
              <glyph id="cx" class="complex"><label text="C"/><bbox x="0" y="0" w="100" h="60"/></glyph>
              <glyph id="na" class="nucleic acid feature"><label text="N"/><bbox x="120" y="0" w="100" h="60"/></glyph>
              <glyph id="pa" class="perturbing agent"><label text="P"/><bbox x="240" y="0" w="100" h="60"/></glyph>
              <glyph id="ph" class="phenotype"><label text="F"/><bbox x="360" y="0" w="100" h="60"/></glyph>
              <glyph id="ss" class="source and sink"><bbox x="0" y="100" w="60" h="60"/></glyph>
              <glyph id="mm" class="macromolecule multimer"><label text="M"/><bbox x="120" y="100" w="100" h="60"/>
                <clone><label text="K"/></clone></glyph>
              <glyph id="tg" class="tag" orientation="left"><label text="T"/><bbox x="240" y="100" w="100" h="60"/></glyph>
            </map></sbgn>
            """
        let map = try PathwayFile.parse(Data(sbgn.utf8), file: "shapes.sbgn")
        XCTAssertEqual(map.node("cx")?.shape, .cutRectangle)
        XCTAssertEqual(map.node("na")?.shape, .bottomRounded)
        XCTAssertEqual(map.node("pa")?.shape, .concaveHexagon)
        XCTAssertEqual(map.node("ph")?.shape, .hexagon)
        XCTAssertEqual(map.node("ss")?.shape, .sourceSink)
        XCTAssertEqual(map.node("tg")?.shape, .tagLeft)
        XCTAssertEqual(map.node("mm")?.cloneMarker, "K")
        XCTAssertNotNil(map.node("mm.multimer"), "a multimer has a second outline behind it")
        XCTAssertTrue(map.texts.contains { $0.text == "K" && $0.color == .white }, "the clone marker's label, white on the band")
        var request = PathwayRequest()
        request.scale = 2
        let picture = try PathwayPicture(map, request: request)
        let image = try picture.draw(try S.renderer())
        func pixel(_ p: SIMD2<Double>) -> (Int, Int) { let q = picture.view.pixel(p); return (Int(q.x), Int(q.y)) }
        let corner = pixel(SIMD2(3, 3)), inside = pixel(SIMD2(50, 20))
        XCTAssertTrue(S.near(image, corner.0, corner.1, 0xFFFFFF, tolerance: 6), "the complex's corner is cut off")
        XCTAssertTrue(S.near(image, inside.0, inside.1, 0xEEF4FA, tolerance: 6), "inside the complex is filled")
        let band = pixel(SIMD2(150, 155)), top = pixel(SIMD2(150, 110))
        XCTAssertTrue(S.near(image, band.0, band.1, 0x4A4A4A, tolerance: 50), "the clone marker fills the bottom dark")
        XCTAssertFalse(S.near(image, top.0, top.1, 0x4A4A4A, tolerance: 50), "above the band the fill is light")
        let notch = pixel(SIMD2(245, 30)), pa = pixel(SIMD2(265, 12))
        XCTAssertTrue(S.near(image, notch.0, notch.1, 0xFFFFFF), "the perturbing agent's side is notched in")
        XCTAssertTrue(S.near(image, pa.0, pa.1, 0xFFFFFF, tolerance: 30), "a perturbing agent is white inside")
    }

    /// An arc to a terminal inside a submap reaches the terminal (the whole map was refused once:
    /// "target glyph48 is not a glyph"); the terminal is pointed by its orientation.
    func testAnArcToASubmapTerminalIsResolved() throws {
        let sbgn = """
            <sbgn xmlns="http://sbgn.org/libsbgn/0.2"><map language="process description">
              <glyph id="sm" class="submap"><label text="MAPK"/><bbox x="100" y="0" w="200" h="120"/>
                <glyph id="t1" class="terminal" orientation="left"><label text="A"/><bbox x="100" y="40" w="40" h="20"/></glyph>
              </glyph>
              <glyph id="e" class="macromolecule"><label text="ERK"/><bbox x="0" y="35" w="60" h="30"/></glyph>
              <arc id="x" class="equivalence arc" source="e" target="t1"><start x="60" y="50"/><end x="100" y="50"/></arc>
            </map></sbgn>
            """
        let map = try PathwayFile.parse(Data(sbgn.utf8), file: "submap.sbgn")
        XCTAssertEqual(map.edges.first { $0.id == "x" }?.to, "t1")
        XCTAssertEqual(map.node("t1")?.shape, .tagLeft)
        XCTAssertEqual(map.node("sm")?.kind, .pathway)
        let ids = map.nodes.map(\.id)
        XCTAssertLessThan(ids.firstIndex(of: "sm")!, ids.firstIndex(of: "t1")!, "the terminal drawn over its submap")
    }

    /// The render extension's colours (SBML Render's XML inside SBGN-ML) fill and stroke glyphs by id.
    func testRenderExtensionColours() throws {
        let sbgn = """
            <sbgn xmlns="http://sbgn.org/libsbgn/0.3"><map language="process description">
              <extension><renderInformation xmlns="http://www.sbml.org/sbml/level3/version1/render/version1">
                <listOfColorDefinitions><colorDefinition id="orange" value="#fa9e2f"/></listOfColorDefinitions>
                <listOfGradientDefinitions><linearGradient id="g"><stop offset="0%" stop-color="#ffffff"/><stop offset="100%" stop-color="#0000ff"/></linearGradient></listOfGradientDefinitions>
                <listOfStyles><style idList="a"><g stroke="orange" stroke-width="2" fill="g"/></style>
                  <style idList="k"><g stroke="#ff0000" fill="#ffffcc"/></style></listOfStyles>
              </renderInformation></extension>
              <glyph id="k" class="compartment"><label text="cell"><bbox x="10" y="150" w="80" h="20"/></label><bbox x="0" y="0" w="200" h="180"/></glyph>
              <glyph id="a" class="macromolecule"><label text="A"/><bbox x="20" y="20" w="80" h="40"/></glyph>
            </map></sbgn>
            """
        let map = try PathwayFile.parse(Data(sbgn.utf8), file: "render.sbgn")
        XCTAssertEqual(map.node("a")?.stroke, Color(rgb: 0xFA9E2F))
        XCTAssertEqual(map.node("a")?.fill?.rgb, Color(rgb: 0xFFFFFF).mixed(with: Color(rgb: 0x0000FF), 0.5).rgb, "a gradient as its middle colour")
        XCTAssertEqual(map.node("a")?.lineWidth, 2)
        XCTAssertEqual(map.compartments.first?.fill, Color(rgb: 0xFFFFCC))
        XCTAssertEqual(map.compartments.first?.labelBox?.origin, SIMD2(10, 150), "the compartment's name in its label box")
    }

    /// SBML's Render package: species glyphs coloured as the file's styles say (libSBML's own sample).
    func testSBMLRenderColours() throws {
        let map = try PathwayFile.load(path: S.root.appendingPathComponent("Tests/Fixtures/pathways-real/sbml_simple-L2-render-local.xml").path)
        let species = map.nodes.filter { $0.kind == .metabolite }
        XCTAssertEqual(species.count, 2)
        for n in species { XCTAssertEqual(n.stroke, Color(rgb: 0xFF9900), n.id) }
        XCTAssertTrue(map.edges.contains { $0.color == Color(rgb: 0x008000) }, "the reaction's curve in the style's green")
    }

    /// Render styles chosen by role (`roleList` against a species reference glyph's role or
    /// `objectRole`) come after the glyph's own id and before its type: libSBML's global render
    /// example with its product style turned red draws the product curve red, the substrate not.
    func testSBMLRenderStylesByRole() throws {
        let text = try String(contentsOf: S.root.appendingPathComponent("Tests/Fixtures/pathways-real/sbml_simple-L2-render-global.xml"), encoding: .utf8)
        let red = try NSRegularExpression(pattern: #"(roleList=" product">\s*<g stroke=")Color_3"#)
        let changed = red.stringByReplacingMatches(in: text, range: NSRange(text.startIndex..., in: text), withTemplate: "$1#FF0000")
        XCTAssertNotEqual(changed, text)
        let map = try PathwayFile.parse(Data(changed.utf8), file: "render-global.xml")
        let product = try XCTUnwrap(map.edges.first { $0.id == "SpeciesReference_J0_0" })
        let substrate = try XCTUnwrap(map.edges.first { $0.id == "SpeciesReference_J0_2" })
        XCTAssertEqual(product.color, Color(rgb: 0xFF0000))
        XCTAssertNotEqual(substrate.color, Color(rgb: 0xFF0000))
    }

    /// SBMLDiagrams' render information as SBMLDiagrams draws it: reaction glyphs styled as
    /// circles at their boxes' size with an "R" in them and their names beside, modifiers ending
    /// in the filled dots its line endings define, products in arrows.
    func testSBMLRenderReactionGlyphsAndLineEndings() throws {
        let map = try PathwayFile.load(path: S.root.appendingPathComponent("Tests/Fixtures/pathways-real/sbml_render_sbmldiagrams_Garde2020.xml").path)
        let reactions = map.nodes.filter { $0.kind == .reaction }
        XCTAssertEqual(reactions.count, 5)
        for r in reactions {
            XCTAssertEqual(r.shape, .ellipse, r.id)
            XCTAssertEqual(r.size, SIMD2(29, 29), r.id)
            XCTAssertEqual(r.fill, .white, r.id)
            XCTAssertEqual(r.stroke, .black, r.id)
        }
        let labels = reactions.map(\.label) + map.texts.map(\.text)
        XCTAssertEqual(labels.filter { $0 == "R" }.count, 5, "\(labels)")
        XCTAssertTrue(labels.contains("Diffusion of glutamate"), "\(labels)")
        let modifiers = map.edges.filter { $0.kind == .catalysis }
        XCTAssertEqual(modifiers.count, 3)
        XCTAssertTrue(modifiers.allSatisfy { $0.head == .dot }, "\(modifiers.map(\.head))")
        XCTAssertEqual(map.edges.filter { $0.kind == .product && $0.head == .arrow }.count, 4)
        // In the picture: the circle's inside white, its ring dark, the dot filled.
        var request = PathwayRequest()
        request.size = "800"
        let picture = try PathwayPicture(map, request: request)
        let image = try picture.draw(try S.renderer())
        func pixel(_ p: SIMD2<Double>) -> (Int, Int) { let q = picture.view.pixel(p); return (Int(q.x), Int(q.y)) }
        let r = try XCTUnwrap(reactions.first { $0.name == "Diffusion of ammonia" || $0.id.hasSuffix("Diffusion_of_ammonia") })
        let inside = pixel(r.center + SIMD2(-9, -9))
        XCTAssertTrue(S.near(image, inside.0, inside.1, 0xFFFFFF, tolerance: 10), "the circle is filled white")
        let ring = pixel(r.center + SIMD2(0, 14))
        XCTAssertTrue(S.near(image, ring.0, ring.1, 0x000000, tolerance: 90), "its ring is dark")
        let dot = try XCTUnwrap(modifiers.first)
        let tip = pixel(dot.segments.last!.end)
        var dark = 0
        for dx in -6...6 { for dy in -6...6 where S.near(image, tip.0 + dx, tip.1 + dy, 0x000000, tolerance: 60) { dark += 1 } }
        XCTAssertGreaterThan(dark, 20, "the modifier's dot is filled")
    }

    /// A map (SBMLDiagrams' export of a MINERVA map) whose compartments of 15,574 x 8,700 and
    /// 5,630 x 1,926 hold species within 1,340 x 740: drawn at the size of what it holds, the
    /// complexes beneath their members, their names at the bottom where the text style says.
    func testSBMLMapExtentFromWhatItDraws() throws {
        let map = try PathwayFile.load(path: S.root.appendingPathComponent("Tests/Fixtures/pathways-real/sbml_render_sbmldiagrams_pdmap-nucleoid.xml.gz").path)
        let b = map.bounds
        XCTAssertLessThan(b.max.x - b.min.x, 1_500)
        XCTAssertLessThan(b.max.y - b.min.y, 900)
        XCTAssertEqual(Set(map.compartments.filter(\.beyondExtent).map(\.id)), ["path_0_ca1", "path_0_ca19", "path_0_ca20", "default_compartment"])
        let index = Dictionary(map.nodes.enumerated().map { ($0.element.id, $0.offset) }, uniquingKeysWith: { a, _ in a })
        func held(by c: PathwayMap.Node) -> [PathwayMap.Node] {
            map.nodes.filter { $0.id != c.id && $0.kind != .reaction && $0.frame.min.x >= c.frame.min.x && $0.frame.max.x <= c.frame.max.x
                && $0.frame.min.y >= c.frame.min.y && $0.frame.max.y <= c.frame.max.y }
        }
        let complexes = map.nodes.filter { held(by: $0).count >= 2 }
        XCTAssertEqual(complexes.count, 6)
        let complex = try XCTUnwrap(complexes.max { held(by: $0).count < held(by: $1).count })
        let members = held(by: complex)
        XCTAssertEqual(members.count, 18, "the tRNAs")
        XCTAssertGreaterThanOrEqual(members.count, 2)
        for m in members { XCTAssertLessThan(index[complex.id]!, index[m.id]!, "\(m.id) drawn over its complex") }
        let name = try XCTUnwrap(complex.labelPosition)
        XCTAssertGreaterThan(name.y, complex.center.y + complex.size.y / 4, "the complex's name at its bottom")
    }

    /// Every label of Newt's PD learners' card reads at WCAG's 4.5:1 on what it is set on: the
    /// dark headers' white names without the white rim that blurred them; and a compartment filled
    /// opaque olive (as CellDesigner's SBGN export fills them) names itself readably.
    func testLabelsReadOnTheirBackdrops() throws {
        let path = S.root.appendingPathComponent("Tests/Fixtures/pathways-real/newt_pd_learners_card.nwt").path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let labels = MapLabels(theme: PathwayTheme(.standard), fonts: FontCache())
        let card = try PathwayFile.parse(Data(text.utf8), file: "card.nwt")
        let placed = try labels.place(card, scale: 1.5)
        XCTAssertGreaterThan(placed.count, 150)
        for l in placed {
            XCTAssertGreaterThanOrEqual(l.color.contrast(with: l.backdrop), 4.5, "\(l.lines.map(\.text)) on \(l.backdrop)")
        }
        let headers = placed.filter { ["ENTITY POOL NODES", "PROCESS NODES", "LOGICAL OPERATORS"].contains($0.lines.first?.text ?? "") }
        XCTAssertEqual(headers.count, 3)
        for h in headers {
            XCTAssertEqual(h.color, .white)
            XCTAssertEqual(h.backdrop.rgb, 0x555555)
            XCTAssertNil(h.halo, "no white rim round white letters")
        }
        // CellDesigner's compartment colour (#cccc00) as line and opaque fill: its name, drawn in the
        // line's colour darkened, read at 2:1 before.
        let olive = text.replacingOccurrences(of: #"(idList="n162">\s*<g [^>]*)stroke="color_2"([^>]*fill=")color_1""#,
                                              with: "$1stroke=\"#cccc00\"$2#cccc00ff\"", options: .regularExpression)
        XCTAssertNotEqual(olive, text)
        let map = try PathwayFile.parse(Data(olive.utf8), file: "olive.nwt")
        XCTAssertEqual(map.compartments.first?.fill?.rgb, 0xCCCC00)
        let name = try XCTUnwrap(try labels.place(map, scale: 1.5).first { $0.lines.first?.text == "LABEL" && $0.backdrop.rgb == 0xCCCC00 })
        XCTAssertLessThan(map.compartments[0].color.mixed(with: .black, 0.3).contrast(with: name.backdrop), 4.5, "its own colour would not read")
        XCTAssertGreaterThanOrEqual(name.color.contrast(with: name.backdrop), 4.5)
    }

    /// SBML Render's font-weight and font-style: a text glyph's style set bold and italic makes its
    /// species' label so; the file as it is (normal) leaves it book.
    func testSBMLRenderFontWeightAndStyle() throws {
        let text = try String(contentsOf: S.root.appendingPathComponent("Tests/Fixtures/pathways-real/sbml_simple-L2-render-local.xml"), encoding: .utf8)
        let plain = try PathwayFile.parse(Data(text.utf8), file: "render-local.xml")
        XCTAssertFalse(plain.nodes.contains { $0.bold || $0.italic })
        let style = try NSRegularExpression(pattern: #"(idList="tGlyph_0">\s*<g [^>]*)font-style="normal" font-weight="normal""#)
        let changed = style.stringByReplacingMatches(in: text, range: NSRange(text.startIndex..., in: text),
                                                     withTemplate: #"$1font-style="italic" font-weight="bold""#)
        XCTAssertNotEqual(changed, text)
        let map = try PathwayFile.parse(Data(changed.utf8), file: "render-local.xml")
        XCTAssertEqual(map.nodes.filter(\.bold).map(\.id), ["sGlyph_0"])
        XCTAssertEqual(map.nodes.filter(\.italic).map(\.id), ["sGlyph_0"])
    }

    /// PathVisio's connectors: an elbow leaves and enters by the sides its ends name, in right
    /// angles; a curved one is a smooth curve through its waypoints.
    func testGPMLElbowAndCurvedConnectorsFromRealFiles() throws {
        let folder = S.root.appendingPathComponent("Tests/Fixtures/pathways-real")
        let elbow = try XCTUnwrap(PathwayFile.load(path: folder.appendingPathComponent("gpml2013a_edge-elbow-bottom1-to-right1.gpml").path).edges.first)
        let points = [elbow.start] + elbow.segments.map(\.end)
        for (p, q) in zip(points, points.dropFirst()) {
            XCTAssertTrue(abs(p.x - q.x) < 1e-6 || abs(p.y - q.y) < 1e-6, "axis-aligned: \(p) to \(q)")
        }
        XCTAssertGreaterThan(points[1].y, points[0].y, "leaves the bottom of its node downwards")
        XCTAssertLessThan(points[points.count - 1].x, points[points.count - 2].x, "enters the right side of its target leftwards")
        let curved = try XCTUnwrap(PathwayFile.load(path: folder.appendingPathComponent("gpml2013a_edge-curved-top1-to-bottom1.gpml").path).edges.first)
        XCTAssertEqual(curved.segments.count, 4, "one curve piece between each pair of points")
        guard case .cubic(let c1, _, _) = curved.segments[0] else { return XCTFail("a curve") }
        XCTAssertLessThan(c1.y, curved.start.y, "leaves the top of its node upwards")
    }

    /// GPML shapes, groups and line styles as PathVisio draws WikiPathways' WP534 (2013a; its
    /// published thumbnail beside it in ../shared/pathways-real/reference-pictures): the
    /// mitochondrion a double-lined round rectangle 3 thick without fill, the legend a plain
    /// rectangle, the five complexes octagons round their members, the broken line dashed.
    func testGPMLShapesComplexesAndBrokenLines() throws {
        let map = try PathwayFile.load(path: S.root.appendingPathComponent("Tests/Fixtures/pathways-real/gpml2013a_WP534.gpml.gz").path)
        let mito = try XCTUnwrap(map.compartments.first { $0.id == "ec254" })
        XCTAssertEqual(mito.shape, .roundRectangle)
        XCTAssertTrue(mito.doubleLine)
        XCTAssertEqual(mito.lineWidth, 3)
        XCTAssertTrue(mito.unfilled)
        let legend = try XCTUnwrap(map.compartments.first { $0.id == "b0fd4" })
        XCTAssertEqual(legend.shape, .rectangle)
        XCTAssertFalse(legend.doubleLine)
        let complexes = map.compartments.filter { $0.shape == .cutRectangle }
        XCTAssertEqual(complexes.count, 5)
        let pgam = try XCTUnwrap(map.nodes.first { $0.label == "PGAM1" })
        XCTAssertTrue(complexes.contains { c in
            c.origin.x < pgam.frame.min.x && c.origin.y < pgam.frame.min.y && c.origin.x + c.size.x > pgam.frame.max.x && c.origin.y + c.size.y > pgam.frame.max.y
        }, "PGAM1 inside its complex's octagon")
        XCTAssertEqual(map.edges.filter(\.dashed).map(\.id), ["ecfe3"], "LineStyle=Broken is dashed")
        // Drawn: the double line is two grey lines across the mitochondrion's left side, and its
        // inside is the page's white (no fill).
        let renderer = try S.renderer()
        let b = map.bounds
        let image = try renderer.render(map, view: MapView(origin: b.min, scale: 1), width: Int(b.max.x - b.min.x), height: Int(b.max.y - b.min.y),
                                        theme: PathwayTheme(.standard))
        let y = Int(mito.origin.y + mito.size.y / 2 - b.min.y)
        var runs = 0, inLine = false
        for x in Int(mito.origin.x - b.min.x) - 4..<Int(mito.origin.x - b.min.x) + 16 {
            let grey = S.near(image, x, y, 0xC0C0C0, tolerance: 40)
            if grey && !inLine { runs += 1 }
            inLine = grey
        }
        XCTAssertEqual(runs, 2, "two lines at the mitochondrion's left side")
        XCTAssertTrue(S.near(image, Int(mito.origin.x - b.min.x) + 30, y, 0xFFFFFF, tolerance: 8), "no fill inside")
    }

    /// A GPML label with a shape is a box with its fill; a shape keeps its own fill (green, not
    /// grey) and type; GPML 2021 spells the border borderWidth and a double line borderStyle.
    func testGPMLLabelBoxesAndShapeFills() throws {
        let old = """
            <Pathway xmlns="http://pathvisio.org/GPML/2013a" Name="t">
              <Label TextLabel="Heading" GraphId="l1"><Graphics CenterX="100" CenterY="50" Width="120" Height="40" FillColor="ffcc00" ShapeType="Oval" FontSize="10" Color="0000ff"/></Label>
              <Label TextLabel="Free" GraphId="l2"><Graphics CenterX="100" CenterY="150" Width="60" Height="20" FontSize="12"/></Label>
              <Shape GraphId="s1"><Graphics CenterX="300" CenterY="100" Width="100" Height="60" FillColor="00ff00" ShapeType="Oval" Color="008000"/></Shape>
            </Pathway>
            """
        let map = try PathwayFile.parse(Data(old.utf8), file: "t.gpml")
        let heading = try XCTUnwrap(map.nodes.first { $0.id == "l1" })
        XCTAssertEqual(heading.kind, .label)
        XCTAssertEqual(heading.shape, .ellipse)
        XCTAssertEqual(heading.fill, Color(rgb: 0xFFCC00))
        XCTAssertEqual(heading.fontSize, 10)
        XCTAssertEqual(map.texts.map(\.text), ["Free"], "a label without a shape stays free text")
        // Shapes one over another in their ZOrder, the file's order among equals.
        let stacked = """
            <Pathway xmlns="http://pathvisio.org/GPML/2013a" Name="z">
              <Shape GraphId="top"><Graphics CenterX="50" CenterY="50" Width="80" Height="80" ZOrder="20" FillColor="ff0000"/></Shape>
              <Shape GraphId="bottom"><Graphics CenterX="60" CenterY="60" Width="80" Height="80" ZOrder="-4" FillColor="0000ff"/></Shape>
              <Shape GraphId="middle"><Graphics CenterX="70" CenterY="70" Width="80" Height="80" FillColor="00ff00"/></Shape>
              <Shape GraphId="middle2"><Graphics CenterX="80" CenterY="80" Width="80" Height="80" FillColor="00ff00"/></Shape>
            </Pathway>
            """
        XCTAssertEqual(try PathwayFile.parse(Data(stacked.utf8), file: "z.gpml").compartments.map(\.id), ["bottom", "middle", "middle2", "top"])
        let oval = try XCTUnwrap(map.compartments.first { $0.id == "s1" })
        XCTAssertEqual(oval.shape, .ellipse)
        XCTAssertEqual(oval.fill, Color(rgb: 0x00FF00))
        XCTAssertFalse(oval.unfilled)
        let renderer = try S.renderer()
        let b = map.bounds
        let image = try renderer.render(map, view: MapView(origin: b.min, scale: 1), width: Int(b.max.x - b.min.x), height: Int(b.max.y - b.min.y),
                                        theme: PathwayTheme(.standard))
        XCTAssertTrue(S.near(image, Int(300 - b.min.x) - 35, Int(100 - b.min.y), 0x00FF00, tolerance: 12), "the shape's own green")
        XCTAssertTrue(S.near(image, Int(100 - b.min.x) - 48, Int(50 - b.min.y), 0xFFCC00, tolerance: 12), "the label's box filled")
        XCTAssertFalse(S.near(image, Int(300 - b.min.x) - 49, Int(100 - b.min.y) - 29, 0x00FF00, tolerance: 60), "an oval: the corner is not green")
        let new = """
            <Pathway xmlns="http://pathvisio.org/GPML/2021" title="t"><Shapes>
              <Shape elementId="n1"><Graphics centerX="100" centerY="100" width="200" height="100" borderColor="c0c0c0" borderStyle="Double" borderWidth="3.0" fillColor="00000000" shapeType="RoundedRectangle"/></Shape>
            </Shapes></Pathway>
            """
        // A map of shapes alone is drawn as it is.
        let shapesOnly = try PathwayFile.parse(Data(new.utf8), file: "n.gpml")
        let nucleus = try XCTUnwrap(shapesOnly.compartments.first)
        XCTAssertTrue(nucleus.doubleLine)
        XCTAssertEqual(nucleus.lineWidth, 3)
        XCTAssertTrue(nucleus.unfilled, "00000000: no fill")
        var request = PathwayRequest()
        request.size = "200"
        let drawn = try PathwayPicture(shapesOnly, request: request).draw(renderer)
        XCTAssertGreaterThan(S.inked(drawn, x: 0..<drawn.width, y: 0..<drawn.height), 50)
    }

    /// PathVisio's other shape types: regular polygons with a vertex pointing right, brace and arc
    /// as open lines, and Rotation in radians clockwise (or a side's name).
    func testGPMLPolygonsBracesArcsAndRotation() throws {
        let doc = """
            <Pathway xmlns="http://pathvisio.org/GPML/2013a" Name="shapes">
              <Shape GraphId="t"><Graphics CenterX="60" CenterY="60" Width="80" Height="60" FillColor="ffcc00" ShapeType="Triangle" Color="000000"/></Shape>
              <Shape GraphId="p"><Graphics CenterX="180" CenterY="60" Width="80" Height="60" ShapeType="Pentagon"/></Shape>
              <Shape GraphId="o"><Graphics CenterX="300" CenterY="60" Width="80" Height="60" ShapeType="Octagon"/></Shape>
              <Shape GraphId="a"><Graphics CenterX="420" CenterY="60" Width="100" Height="40" ShapeType="Arc"/></Shape>
              <Shape GraphId="br"><Graphics CenterX="100" CenterY="200" Width="150" Height="30" ShapeType="Brace" Color="0000ff" LineThickness="3" Rotation="1.5707963267948966"/></Shape>
              <Shape GraphId="tl"><Graphics CenterX="300" CenterY="200" Width="80" Height="60" ShapeType="Triangle" Rotation="Left"/></Shape>
            </Pathway>
            """
        let map = try PathwayFile.parse(Data(doc.utf8), file: "shapes.gpml")
        func area(_ id: String) throws -> PathwayMap.Compartment { try XCTUnwrap(map.compartments.first { $0.id == id }) }
        XCTAssertEqual(try ["t", "p", "o", "a", "br"].map { try area($0).shape }, [.triangle, .pentagon, .octagon, .arc, .brace])
        XCTAssertEqual(try area("br").rotation, .pi / 2, accuracy: 1e-12)
        XCTAssertEqual(try area("tl").rotation, 3 * .pi / 2, accuracy: 1e-12)
        XCTAssertTrue(PathwayMap.Shape.brace.isOpen && PathwayMap.Shape.arc.isOpen && !PathwayMap.Shape.triangle.isOpen)
        // The brace stood up: 150 tall and 30 wide about its centre, in the map's extent.
        XCTAssertEqual(map.bounds.max.y, 275, accuracy: 1e-9)
        let image = try S.renderer().render(map, view: MapView(origin: SIMD2(0, 0), scale: 1), width: 480, height: 290,
                                            theme: PathwayTheme(.standard))
        // The triangle points right: filled near its tip's side at mid height, not at its upper right corner.
        XCTAssertTrue(S.near(image, 90, 60, 0xFFCC00, tolerance: 12))
        XCTAssertFalse(S.near(image, 96, 34, 0xFFCC00, tolerance: 60))
        // The brace turned clockwise a quarter: its point at the right middle (x 115), its ends at the left.
        XCTAssertTrue(S.near(image, 114, 200, 0x0000FF, tolerance: 90), "the point")
        XCTAssertTrue(S.near(image, 86, 127, 0x0000FF, tolerance: 90) || S.near(image, 86, 126, 0x0000FF, tolerance: 90), "the top end")
        XCTAssertEqual(S.inked(image, x: 20..<80, y: 195..<205), 0, "unturned, the brace would run across here")
        // The turned triangle points up: its apex column inked near the top, its old tip side blank.
        XCTAssertTrue(S.inked(image, x: 296..<305, y: 160..<166) > 0, "the apex at the top")
        XCTAssertEqual(S.inked(image, x: 336..<341, y: 195..<205), 0, "no tip at the right any more")
        // WikiPathways' WP10 (IL-9 signalling, 2013a): its four braces and three arcs, turned as the
        // file says (pi, 0.785, 2.356, 4.249), filled black as PathVisio fills them (its thumbnail).
        let wp10 = try PathwayFile.load(path: S.root.appendingPathComponent("Tests/Fixtures/pathways-real/gpml2013a_WP10.gpml.gz").path)
        let braces = wp10.compartments.filter { $0.shape == .brace }, arcs = wp10.compartments.filter { $0.shape == .arc }
        XCTAssertEqual(braces.count, 4)
        XCTAssertEqual(arcs.count, 3)
        XCTAssertEqual(braces.filter { abs($0.rotation - .pi) < 1e-9 }.count, 2)
        XCTAssertEqual(Set(arcs.map { ($0.rotation * 1000).rounded() }), [785, 2356, 4249])
        XCTAssertTrue((braces + arcs).allSatisfy { $0.fill == .black && !$0.unfilled })
    }

    /// PathVisio's cellular components in outlines of their own (WikiPathways' WP2507, beside its
    /// thumbnail): the mitochondrion an oval with its inner membrane folded (four grey lines down
    /// its middle, where a plain oval has two), the endoplasmic reticulum a folded band; groups
    /// without a style dashed boxes.
    func testGPMLCellularComponents() throws {
        let map = try PathwayFile.load(path: S.root.appendingPathComponent("Tests/Fixtures/pathways-real/gpml2013a_WP2507.gpml.gz").path)
        let mito = try XCTUnwrap(map.compartments.first { $0.shape == .mitochondria })
        XCTAssertNotNil(map.compartments.first { $0.shape == .endoplasmicReticulum })
        XCTAssertFalse(mito.doubleLine, "the folds are its inner membrane")
        // Its three groups without a style (BAK/BAX, AIF/EndoG, CASP7/6/3) dashed grey boxes round
        // their members, as the thumbnail has them; its two of Style "Group" not drawn.
        let boxes = map.nodes.filter { $0.id.hasSuffix(".group") }
        XCTAssertEqual(boxes.count, 3)
        XCTAssertTrue(boxes.allSatisfy { $0.dashed && $0.fill == nil && $0.kind == .marker })
        let casp3 = try XCTUnwrap(map.nodes.first { $0.label == "CASP3" })
        XCTAssertTrue(boxes.contains { $0.frame.min.x < casp3.frame.min.x && $0.frame.max.y > casp3.frame.max.y })
        let x = Int(mito.origin.x + mito.size.x * 0.62)  // clear of the arrow into its top
        let top = Int(mito.origin.y) - 4, bottom = Int(mito.origin.y + mito.size.y) + 4
        let image = try S.renderer().render(map, view: MapView(origin: SIMD2(0, 0), scale: 1), width: x + 10, height: bottom + 10,
                                            theme: PathwayTheme(.standard))
        var runs = 0, inLine = false
        for y in top..<bottom {
            let grey = S.near(image, x, y, 0xC0C0C0, tolerance: 50)
            if grey && !inLine { runs += 1 }
            inLine = grey
        }
        XCTAssertEqual(runs, 4, "outer membrane, a fold from above, a fold from below, outer membrane")
    }

    /// GPML's FontWeight and FontStyle: WP534's eight bold labels (2013a) and WP554's bold ones
    /// (2021) set bold, in DejaVu Sans Bold (more ink than the book face); kept in Molshot JSON.
    func testGPMLBoldAndItalicLabels() throws {
        let path = S.root.appendingPathComponent("Tests/Fixtures/pathways-real/gpml2013a_WP534.gpml.gz").path
        let map = try PathwayFile.load(path: path)
        let text = String(decoding: try FileInput.read(path: path, limit: 64 << 20), as: UTF8.self)
        let bold = text.components(separatedBy: #"FontWeight="Bold""#).count - 1
        XCTAssertEqual(bold, 8)
        XCTAssertEqual(map.nodes.filter(\.bold).count + map.texts.filter(\.bold).count, bold)
        XCTAssertTrue(map.nodes.contains { $0.bold && $0.label == "Pentose phosphate pathway" })
        XCTAssertFalse(map.nodes.contains { $0.italic } || map.texts.contains { $0.italic })
        let doc = """
            <Pathway xmlns="http://pathvisio.org/GPML/2021" title="t"><Labels>
              <Label elementId="a" textLabel="Glycolysis"><Graphics centerX="100" centerY="50" width="120" height="30" fontWeight="Bold" fontStyle="Italic" fontSize="14" shapeType="None"/></Label>
              <Label elementId="b" textLabel="Glycolysis"><Graphics centerX="100" centerY="150" width="120" height="30" fontWeight="Normal" fontStyle="Normal" fontSize="14" shapeType="None"/></Label>
            </Labels></Pathway>
            """
        let two = try PathwayFile.parse(Data(doc.utf8), file: "t.gpml")
        XCTAssertEqual(two.texts.map(\.bold), [true, false])
        XCTAssertEqual(two.texts.map(\.italic), [true, false])
        let back = try PathwayFile.parse(try PathwayJSONWriter.data(two), file: "t.json")
        XCTAssertEqual(back.texts.map(\.bold), [true, false])
        XCTAssertEqual(back.texts.map(\.italic), [true, false])
        // Drawn: the bold italic one carries more ink than the book one of the same words and size.
        let renderer = try S.renderer()
        let image = try renderer.render(two, view: MapView(origin: SIMD2(0, 0), scale: 1), width: 200, height: 200, theme: PathwayTheme(.standard))
        let top = S.inked(image, x: 0..<200, y: 30..<70), bottom = S.inked(image, x: 0..<200, y: 130..<170)
        XCTAssertGreaterThan(bottom, 50, "the book face drawn")
        XCTAssertGreaterThan(Double(top), Double(bottom) * 1.2, "bold: more ink")
    }

    /// Arc ends and ports written as (0,0) placeholders (PANTHER's maps exported through
    /// SBGNview) are joined to their port, else their glyph's centre, not drawn to the origin.
    func testPlaceholderArcEndsAreJoinedToTheirGlyphs() throws {
        let sbgn = """
            <sbgn xmlns="http://sbgn.org/libsbgn/0.2"><map language="process description">
              <glyph id="a" class="simple chemical"><label text="A"/><bbox x="100" y="100" w="40" h="40"/></glyph>
              <glyph id="b" class="simple chemical"><label text="B"/><bbox x="300" y="100" w="40" h="40"/></glyph>
              <glyph id="p" class="process"><bbox x="210" y="110" w="20" h="20"/>
                <port id="p.1" x="205" y="120"/><port id="p.2" x="0" y="0"/></glyph>
              <arc id="c" class="consumption" source="a" target="p.1"><start x="0" y="0"/><end x="0" y="0"/></arc>
              <arc id="d" class="production" source="p.2" target="b"><start x="0" y="0"/><end x="0.0" y="0.0"/></arc>
            </map></sbgn>
            """
        let map = try PathwayFile.parse(Data(sbgn.utf8), file: "panther.sbgn")
        let c = try XCTUnwrap(map.edges.first { $0.id == "c" }), d = try XCTUnwrap(map.edges.first { $0.id == "d" })
        XCTAssertEqual(c.start, SIMD2(120, 120), "A's centre")
        XCTAssertEqual(c.segments.last?.end, SIMD2(205, 120), "the port it names")
        XCTAssertEqual(d.start, SIMD2(220, 120), "a placeholder port: the process's centre")
        XCTAssertEqual(d.segments.last?.end, SIMD2(320, 120), "B's centre")
        XCTAssertFalse(map.edges.contains { $0.id == "p.port" && $0.segments.last?.end == .zero }, "no port line to the origin")
        // A map that really starts at the origin keeps its (0,0).
        let origin = sbgn.replacingOccurrences(of: #"<bbox x="100" y="100""#, with: #"<bbox x="-20" y="-20""#)
        XCTAssertEqual(try PathwayFile.parse(Data(origin.utf8), file: "o.sbgn").edges.first { $0.id == "c" }?.start, .zero)
    }

    /// Newt's maps made from SIF leave every arc's `<start/>` and `<end/>` empty: each arc is
    /// joined between its source and target glyphs, as Newt draws it, and the file is warned of.
    func testNewtsEmptyArcEndsAreJoinedToTheirGlyphs() throws {
        let path = S.root.appendingPathComponent("Tests/Fixtures/pathways-real/newt_RTN4-controllers-and-binding-proteins.nwt").path
        let map = try PathwayFile.load(path: path)
        XCTAssertEqual(map.edges.filter { $0.from != nil && $0.to != nil && $0.from != $0.to }.count, 46, "every arc drawn")
        XCTAssertTrue(map.warnings.contains { $0.contains("92 arc ends have no coordinates") }, "\(map.warnings)")
        let centres = Dictionary(uniqueKeysWithValues: map.nodes.map { ($0.id, ($0.frame.0 + $0.frame.1) / 2) })
        for e in map.edges where e.from != nil && e.to != nil && e.from != e.to {
            XCTAssertEqual(e.start, centres[e.from!], e.id)
            XCTAssertEqual(e.segments.last?.end, centres[e.to!], e.id)
        }
        // 39 controls-expression-of and controls-state-change-of point at their targets; 7 in-complex-with do not.
        XCTAssertEqual(map.edges.filter { $0.head == .arrow }.count, 39)
        XCTAssertEqual(map.edges.filter { $0.from != $0.to && $0.head == .none }.count, 7)
    }

    /// Escher's builder maps from before schema 1-0-0 (a body object, no header, the old keys, no
    /// stoichiometry), as Escher's own repository keeps one: read with a warning, products arrowed.
    func testAnEscherBuilderMapFromBeforeTheSchemaIsRead() throws {
        let path = S.root.appendingPathComponent("Tests/Fixtures/pathways-real/escher_builder2013_755234.json.gz").path
        let map = try PathwayFile.load(path: path)
        XCTAssertEqual(map.format, "escher")
        XCTAssertTrue(map.warnings.contains { $0.contains("before schema 1-0-0") }, "\(map.warnings)")
        XCTAssertEqual(map.nodes.filter { $0.kind == .metabolite }.count, 571)
        XCTAssertEqual(map.nodes.filter { $0.kind == .reaction }.count, 158)
        let nadh = try XCTUnwrap(map.nodes.first { $0.label == "nadh" })
        XCTAssertEqual(nadh.name, "Nicotinamide adenine dinucleotide - reduced")
        XCTAssertTrue(map.nodes.contains { $0.kind == .reaction && $0.label == "ASNS1" })
        // ARGSL is reversible: both metabolite ends of its segments arrowed; ASNS1 is not: only the products'.
        let argsl = map.edges.filter { $0.id.hasPrefix("755287.") && ($0.head != .none || $0.tail != .none) }
        XCTAssertEqual(argsl.count, 3)
        XCTAssertTrue(argsl.allSatisfy { $0.head == .arrow || $0.tail == .arrow })
        let asns = map.edges.filter { $0.id.hasPrefix("879623.") }
        XCTAssertEqual(asns.filter { $0.head == .arrow }.count, 5, "five products")
        XCTAssertEqual(asns.filter { $0.tail == .arrow }.count, 0)
        XCTAssertEqual(asns.filter { $0.kind == .substrate }.count, 0, "a substrate's segment leaves it (its to is the marker)")
    }

    /// Nodes of a type the schema lacks and segments listed as an array: read as Escher reads
    /// them, each named in a warning.
    func testEscherNodesOfOtherTypesAndSegmentArrays() throws {
        let json = """
        [{"map_name": "m", "schema": "https://escher.github.io/escher/jsonschema/1-0-0#"},
         {"nodes": {"1": {"node_type": "metabolite", "x": 0, "y": 0, "bigg_id": "a_c", "name": "A", "node_is_primary": true},
                    "2": {"node_type": "reaction", "x": 100, "y": 0},
                    "3": {"node_type": "metabolite", "x": 200, "y": 0, "bigg_id": "b_c", "name": "B", "node_is_primary": true}},
          "reactions": {"9": {"bigg_id": "R", "name": "R", "reversibility": false, "label_x": 100, "label_y": -20,
                              "metabolites": [{"bigg_id": "a_c", "coefficient": -1}, {"bigg_id": "b_c", "coefficient": 1}],
                              "segments": [{"from_node_id": "1", "to_node_id": "2"}, {"from_node_id": "2", "to_node_id": "3"}]}},
          "text_labels": {}, "canvas": {"x": -50, "y": -50, "width": 300, "height": 100}}]
        """
        let map = try PathwayFile.parse(Data(json.utf8), file: "e.json")
        XCTAssertEqual(map.edges.count, 2)
        XCTAssertEqual(map.edges.map(\.head), [.none, .arrow])
        XCTAssertTrue(map.warnings.contains { $0.contains("1 node of node_type reaction") }, "\(map.warnings)")
        XCTAssertTrue(map.warnings.contains { $0.contains("1 reaction lists segments as an array") }, "\(map.warnings)")
    }

    /// `--relayout`'s map: the file's places left out, every node placed anew, top to bottom.
    func testRelayoutPlacesEveryNodeAnew() throws {
        let file = S.root.appendingPathComponent("Tests/Fixtures/pathways-real/sbgn_adh.sbgn").path
        let original = try PathwayFile.load(path: file)
        let laid = try PathwayFile.load(path: file, relayout: true)
        XCTAssertTrue(laid.compartments.isEmpty)
        XCTAssertFalse(laid.nodes.contains { $0.kind == .marker })
        // The same nodes, currency metabolites (NAD, NADH, H+) as a copy beside each reaction.
        XCTAssertEqual(Set(laid.nodes.map { String($0.id.split(separator: "#").first!) }), Set(original.nodes.filter { $0.kind != .marker }.map(\.id)))
        XCTAssertTrue(laid.nodes.contains { $0.id.hasPrefix("glyph_nad#") })
        XCTAssertGreaterThan(Set(laid.nodes.map { $0.center.y.rounded() }).count, 1, "more than one rank")
        // Written as JSON and read back: the same nodes at the same places.
        let json = try PathwayJSONWriter.data(laid)
        let back = try PathwayFile.parse(json, file: "laid.json")
        XCTAssertEqual(back.nodes.count, laid.nodes.count)
        for (a, b) in zip(back.nodes, laid.nodes) { XCTAssertEqual(a.center.x, b.center.x, accuracy: 0.01) }
    }
}

/// Numbers a file can say but no picture can hold: not-a-number, infinity, sizes near the
/// largest Double. Each is an error naming the file (and the line where there is one), never a trap.
final class HostilePathwayValuesTests: XCTestCase {
    func testNotANumberIsAMissingValueNamedByItsLine() throws {
        let sbgn = """
            <sbgn xmlns="http://sbgn.org/libsbgn/0.3"><map language="process description">
            <glyph id="m" class="macromolecule"><label text="M"/><bbox x="10" y="10" w="nan" h="10"/></glyph>
            </map></sbgn>
            """
        XCTAssertThrowsError(try PathwayFile.parse(Data(sbgn.utf8), file: "nan.sbgn")) {
            XCTAssertEqual(($0 as? PathwayError)?.description, "nan.sbgn: line 2 <glyph id=\"m\">: a glyph needs a <bbox> with x, y, w and h")
        }
        let gpml = """
            <Pathway xmlns="http://pathvisio.org/GPML/2021" title="h">
            <DataNode elementId="a" textLabel="A" type="GeneProduct"><Graphics centerX="inf" centerY="1" width="80" height="20"/></DataNode>
            </Pathway>
            """
        XCTAssertThrowsError(try PathwayFile.parse(Data(gpml.utf8), file: "inf.gpml")) {
            XCTAssertTrue(($0 as? PathwayError)?.description.hasPrefix("inf.gpml: line 2 <DataNode>: needs <Graphics> with centerX") == true, "\($0)")
        }
    }

    func testAnExtentPastTheLargestDoubleIsRefusedForEveryFrontEnd() throws {
        let sbgn = """
            <sbgn xmlns="http://sbgn.org/libsbgn/0.3"><map language="process description">
            <glyph id="a" class="macromolecule"><bbox x="-1e308" y="0" w="10" h="10"/></glyph>
            <glyph id="b" class="macromolecule"><bbox x="1e308" y="0" w="10" h="10"/></glyph>
            </map></sbgn>
            """
        // Two wide glyphs feeding a third: their file's places fit, side by side in one rank of a
        // layout anew they do not.
        let wide = """
            <sbgn xmlns="http://sbgn.org/libsbgn/0.3"><map language="process description">
            <glyph id="a" class="macromolecule"><bbox x="0" y="0" w="1e308" h="10"/></glyph>
            <glyph id="b" class="macromolecule"><bbox x="0" y="20" w="1e308" h="10"/></glyph>
            <glyph id="c" class="macromolecule"><bbox x="0" y="40" w="10" h="10"/></glyph>
            <arc id="x" class="stimulation" source="a" target="c"><start x="0" y="5"/><end x="0" y="40"/></arc>
            <arc id="y" class="stimulation" source="b" target="c"><start x="0" y="25"/><end x="0" y="40"/></arc>
            </map></sbgn>
            """
        XCTAssertEqual(try PathwayFile.parse([UInt8](wide.utf8), file: "wide.sbgn").nodes.count, 3)
        for (text, relayout) in [(sbgn, false), (wide, true)] {
            XCTAssertThrowsError(try PathwayFile.parse([UInt8](text.utf8), file: "far.sbgn", relayout: relayout)) {
                XCTAssertEqual(($0 as? PathwayError)?.message, "the map's extent is not a finite number: its places or sizes reach past what can be drawn")
            }
        }
        // What a map built in code can still hold: a pyramid over it counts its levels without
        // overflowing, and JSON refuses it by name.
        var map = PathwayMap()
        map.nodes = [PathwayMap.Node(id: "a", kind: .other, center: SIMD2(-1e308, 0), size: SIMD2(10, 10), shape: .rectangle),
                     PathwayMap.Node(id: "b", kind: .other, center: SIMD2(1e308, 0), size: SIMD2(10, 10), shape: .rectangle)]
        XCTAssertEqual(TilePyramid(map: map, tileSize: 256).levels, 12)
        map.nodes[1].center.x = .infinity
        XCTAssertThrowsError(try PathwayJSONWriter.data(map, file: "built")) {
            XCTAssertEqual(($0 as? PathwayError)?.description, "built: node b: its place or size is not a finite number")
        }
    }
}


/// The viewer's overview tiles raise labels too small to read (`raisedLabels`), the most connected
/// nodes first, as many as fit: an Escher map's first level shows names, not bare dots.
final class RaisedLabelTests: XCTestCase {
    typealias S = PathwayTestSupport

    func testAnOverviewNamesItsHubsWhereLabelsAreRaised() throws {
        let map = try PathwayFile.load(path: S.root.appendingPathComponent("Tests/Fixtures/pathways/escher_recon1_glycolysis_tca_ppp.json").path)
        let renderer = try S.renderer()
        let view = MapView.fitting(map.bounds, width: 256, height: 256)
        var plain = PathwayTheme(.standard)
        XCTAssertNil(plain.raisedLabels)
        let bare = try PathwayPicture(map, view: view, width: 256, height: 256, theme: plain).draw(renderer)
        plain.raisedLabels = 9
        let named = try PathwayPicture(map, view: view, width: 256, height: 256, theme: plain).draw(renderer)
        // Text is near black; the map's own drawing at this scale is grey lines and light fills.
        func dark(_ i: RGBAImage) -> Int {
            var n = 0
            for y in 0..<i.height { for x in 0..<i.width { let p = i.pixel(x, y); if Int(p.0) + Int(p.1) + Int(p.2) < 150 { n += 1 } } }
            return n
        }
        XCTAssertLessThan(dark(bare), 40, "at 256 px the labels are under 6 px and left out")
        XCTAssertGreaterThan(dark(named), dark(bare) + 300, "raised to 9 px, the most connected are named")
    }

    /// The viewer's overview of WikiPathways' WP78 (TCA Cycle): names raised to the tiles' 9 px
    /// stay inside the boxes they are centred in (fitted to them, else left out), never beside or
    /// above them, at the overview's scales; and the list gives its title from GPML 2021's `title=`.
    func testAnOverviewKeepsNamesInsideTheirBoxes() throws {
        let path = S.root.appendingPathComponent("Tests/Fixtures/pathways/gpml2021_WP78_70014_tca_cycle.gpml").path
        let map = try PathwayFile.load(path: path)
        var theme = PathwayTheme(.standard)
        theme.raisedLabels = 9
        let labels = MapLabels(theme: theme, fonts: FontCache())
        for scale in [0.28, 0.56, 0.7, 1.12] {
            let placed = try labels.place(map, scale: scale)
            var inside = 0
            for l in placed {
                guard let k = l.node else { continue }
                let n = map.nodes[k]
                guard n.labelPosition == nil, n.shape != .none, n.size.x > 0 else { continue }
                // Centred in its box, reaching past it by a few pixels at most (a name at the file's
                // own size may be a little wider than its box, as PathVisio draws it too).
                let (lo, hi) = (n.frame.min * scale, n.frame.max * scale)
                let c = SIMD2((l.box.x + l.box.z) / 2, (l.box.y + l.box.w) / 2)
                XCTAssertTrue(c.x >= lo.x && c.x <= hi.x && c.y >= lo.y && c.y <= hi.y, "at \(scale): \(n.label) at \(l.box) off its box \(lo)-\(hi)")
                XCTAssertTrue(l.box.x >= lo.x - 4 && l.box.z <= hi.x + 4 && l.box.y >= lo.y - 4 && l.box.w <= hi.y + 4,
                              "at \(scale): \(n.label) at \(l.box) outside its box \(lo)-\(hi)")
                inside += 1
            }
            // At the first level (0.28 px a unit) a box is 6 px tall: no name fits, none is set beside it.
            XCTAssertGreaterThanOrEqual(inside, scale < 0.5 ? 0 : 25, "at \(scale) names are drawn")
        }
        let head = try FileInput.read(path: path)
        XCTAssertEqual(PathwayTitle.peek(Array(head.prefix(PathwayTitle.headBytes))), "TCA Cycle")
    }
}

import Core
import Foundation
import Graphics
import Imaging
@testable import PathwayModel
@testable import Pathways
import XCTest

/// KGML as KEGG and KEGGgraph read it: first names in boxes, groups framed, relations left out
/// unless asked, KGML 0.6.1 reactions (no id, compounds by name), global maps' line enzymes.
final class KGMLAsKEGGDrawsItTests: XCTestCase {
    typealias S = PathwayTestSupport

    let kgml = """
        <pathway name="path:hsa00000" title="Test">
          <entry id="1" name="hsa:5105 hsa:5106" type="gene" reaction="rn:R00341">
            <graphics name="PCK1, PEPCK-C, PEPCK1, PEPCKC..." x="100" y="100" width="46" height="17" bgcolor="#BFFFBF" type="rectangle"/></entry>
          <entry id="2" name="cpd:C00036" type="compound"><graphics name="2,3-Bisphosphoglycerate" x="40" y="100" width="8" height="8" type="circle"/></entry>
          <entry id="3" name="cpd:C00074" type="compound"><graphics name="C00074" x="160" y="100" width="8" height="8" type="circle"/></entry>
          <entry id="4" name="cpd:C00036" type="compound"><graphics name="C00036" x="400" y="300" width="8" height="8" type="circle"/></entry>
          <entry id="5" name="hsa:1 hsa:2" type="gene"><graphics name="A1, X" x="100" y="200" width="46" height="17" type="rectangle"/></entry>
          <entry id="6" name="hsa:3" type="gene"><graphics name="B2" x="150" y="200" width="46" height="17" type="rectangle"/></entry>
          <entry id="7" name="undefined" type="group"><component id="5"/><component id="6"/></entry>
          <entry id="8" name="path:hsa00010" type="map"><graphics name="TITLE:Glycolysis, and more" x="300" y="30" width="150" height="25" type="roundrectangle"/></entry>
          <entry id="9" name="ko:K00001" type="ortholog" reaction="rn:R00002"><graphics name="K00001" type="line" coords="10,300,200,300"/></entry>
          <relation entry1="1" entry2="7" type="PPrel"><subtype name="activation" value="--&gt;"/></relation>
          <relation entry1="1" entry2="9" type="PPrel"><subtype name="activation" value="--&gt;"/></relation>
          <reaction name="rn:R00341" type="irreversible"><substrate name="cpd:C00036"/><product name="cpd:C00074"/></reaction>
          <reaction name="rn:R00002" type="irreversible"><substrate name="cpd:C00036"/><product name="cpd:C00074"/></reaction>
        </pathway>
        """

    func testNamesGroupsRelationsAndOldReactions() throws {
        let map = try PathwayFile.parse(Data(kgml.utf8), file: "t.xml")
        let labels = Dictionary(map.nodes.map { ($0.id, $0.label) }, uniquingKeysWith: { a, _ in a })
        XCTAssertEqual(labels["1"], "PCK1", "the first of a gene's names")
        XCTAssertEqual(labels["2"], "2,3-Bisphosphoglycerate", "a compound's name keeps its commas")
        XCTAssertEqual(labels["8"], "Glycolysis, and more", "a map's whole name, without TITLE:")
        // The group: a frame around its two members.
        let group = try XCTUnwrap(map.compartments.first { $0.id == "7" })
        XCTAssertLessThanOrEqual(group.origin.x, 100 - 23)
        XCTAssertGreaterThanOrEqual(group.origin.x + group.size.x, 150 + 23)
        XCTAssertLessThanOrEqual(group.origin.y, 200 - 8.5)
        // Relations: kept apart (the one to the group found it; the one to a line is left out), drawn when asked.
        XCTAssertEqual(map.relations.map(\.id), ["1~7"])
        XCTAssertFalse(map.edges.contains { $0.id == "1~7" })
        XCTAssertTrue(map.showingRelations().edges.contains { $0.id == "1~7" })
        // KGML 0.6.1: the reaction has no id; its enzyme is entry 1 (reaction="rn:R00341"), its
        // substrate the copy of C00036 nearest that enzyme (entry 2, not 4).
        let into = try XCTUnwrap(map.edges.first { $0.to == "1" })
        XCTAssertEqual(into.from, "2")
        XCTAssertTrue(map.edges.contains { $0.from == "1" && $0.to == "3" })
        // The global-map reaction whose enzyme is a line: the line is its picture, no more edges.
        XCTAssertFalse(map.edges.contains { $0.reaction == "9" })
        XCTAssertTrue(map.edges.contains { $0.id == "9" }, "the line itself")
    }

    /// KEGG's signalling maps (hsa04110 cell cycle, hsa04010 MAPK, as KEGGgraph ships them) drawn
    /// with their relations by default, in KEGG's styles: an arrow for activation and expression,
    /// a bar for inhibition, +p/-p/+u beside the line, through the compound a compound subtype
    /// names. Counts from the files (Python's ElementTree over the same XML).
    func testSignallingMapsDrawTheirRelations() throws {
        let folder = S.root.appendingPathComponent("Tests/Fixtures/pathways-real")
        let cycle = try PathwayFile.load(path: folder.appendingPathComponent("kgml_hsa04110.xml.gz").path)
        XCTAssertTrue(cycle.relations.isEmpty, "a signalling map's relations are edges")
        let relations = cycle.edges.filter { $0.id.contains("~") }
        XCTAssertEqual(relations.count, 70)
        XCTAssertEqual(relations.filter { $0.head == .bar && $0.kind == .inhibition }.count, 30)
        XCTAssertEqual(cycle.texts.filter(\.isEdgeMark).count, 35)
        XCTAssertTrue(cycle.texts.contains { $0.isEdgeMark && $0.text == "+p" })
        XCTAssertTrue(cycle.warnings.isEmpty, "\(cycle.warnings)")
        let mapk = try PathwayFile.load(path: folder.appendingPathComponent("kgml_hsa04010.xml.gz").path)
        let through = mapk.edges.filter { $0.id.contains("~") && $0.segments.count == 2 }
        XCTAssertEqual(through.count, 2, "the two relations whose compound subtype names a compound go through it")
        for e in through {
            let compound = try XCTUnwrap(mapk.nodes.first { $0.kind == .metabolite && $0.center == e.segments[0].end })
            XCTAssertTrue(compound.name.hasPrefix("cpd:"))
        }
        XCTAssertEqual(mapk.edges.filter { $0.id.contains("~") }.count, 171)
        // A metabolic map (KEGG draws no relations there) keeps them apart.
        let metabolic = try PathwayFile.parse(Data(kgml.utf8), file: "t.xml")
        XCTAssertFalse(metabolic.relations.isEmpty)
    }

    /// Names kept inside KEGG's boxes: a linked map's name wrapped in its rounded box ("MAPK
    /// signaling pathway" three lines in a tall one), a long gene name made smaller; every gene
    /// and map label of hsa04110 inside its node at the default size.
    func testNamesFitTheirBoxes() throws {
        let map = try PathwayFile.load(path: S.root.appendingPathComponent("Tests/Fixtures/pathways-real/kgml_hsa04110.xml.gz").path)
        let scale = 1.6
        let placed = try MapLabels(theme: PathwayTheme(.standard), fonts: FontCache()).place(map, scale: scale)
        let mapk = try XCTUnwrap(placed.first { $0.lines.map(\.text).joined(separator: " ") == "MAPK signaling pathway" })
        XCTAssertGreaterThanOrEqual(mapk.lines.count, 2, "wrapped")
        var checked = 0
        for n in map.nodes where n.fitsLabel && !n.label.isEmpty {
            let frame = SIMD4(n.frame.min.x * scale, n.frame.min.y * scale, n.frame.max.x * scale, n.frame.max.y * scale)
            guard let label = placed.first(where: { $0.lines.map(\.text).joined(separator: " ") == n.label && abs(($0.box.x + $0.box.z) / 2 - n.center.x * scale) < 1 && abs(($0.box.y + $0.box.w) / 2 - n.center.y * scale) < 2 }) else { continue }
            XCTAssertGreaterThanOrEqual(label.box.x, frame.x - 0.5, n.label)
            XCTAssertLessThanOrEqual(label.box.z, frame.z + 0.5, n.label)
            XCTAssertGreaterThanOrEqual(label.box.y, frame.y - 0.5, n.label)
            XCTAssertLessThanOrEqual(label.box.w, frame.w + 0.5, n.label)
            checked += 1
        }
        XCTAssertGreaterThan(checked, 60, "labels found in their boxes")
    }

    /// The real files KEGGgraph ships (../shared/pathways-real), where present: read, with no
    /// list of names in a box, and drawn without relations unless asked.
    func testRealKGMLFiles() throws {
        let folder = S.root.deletingLastPathComponent().appendingPathComponent("shared/pathways-real")
        let tca = folder.appendingPathComponent("kgml_hsa00020.xml").path, glycine = folder.appendingPathComponent("kgml_map00260.xml").path
        guard FileManager.default.fileExists(atPath: tca), FileManager.default.fileExists(atPath: glycine) else {
            throw XCTSkip("no ../shared/pathways-real beside the checkout")
        }
        let map = try PathwayFile.load(path: tca)
        XCTAssertFalse(map.nodes.contains { $0.kind == .geneProduct && $0.label.contains(", ") }, "first names only")
        XCTAssertGreaterThan(map.relations.count, 20)
        XCTAssertFalse(map.edges.contains { $0.dashed }, "no maplink drawn by default")
        let old = try PathwayFile.load(path: glycine)  // KGML 0.6.1, reactions without ids: refused before
        XCTAssertGreaterThan(old.edges.filter { $0.kind == .product }.count, 50)
        // Drawn: the relations' grey only when asked.
        let renderer = try S.renderer()
        func grey(_ m: PathwayMap) throws -> Int {
            let b = m.bounds
            let image = try renderer.render(m, view: MapView(origin: b.min, scale: 1), width: Int(b.max.x - b.min.x), height: Int(b.max.y - b.min.y),
                                            theme: PathwayTheme(.standard))
            var n = 0
            for y in 0..<image.height { for x in 0..<image.width where S.near(image, x, y, 0x808080, tolerance: 24) { n += 1 } }
            return n
        }
        let without = try grey(map), with = try grey(map.showingRelations())
        XCTAssertGreaterThan(with, without + 1000, "relations drawn when asked (\(without) grey pixels without, \(with) with)")
    }
}

/// SBML layouts as SBW and JDesigner write them: reaction glyphs with an empty box at the
/// origin, placed from their species references' curves.
final class SBMLLayoutFromCurvesTests: XCTestCase {
    func testAnEmptyReactionBoxIsPlacedFromItsCurves() throws {
        let file = PathwayTestSupport.root.deletingLastPathComponent().appendingPathComponent("shared/pathways-real/sbml_l2annot_FutileCycle.xml").path
        guard FileManager.default.fileExists(atPath: file) else { throw XCTSkip("no ../shared/pathways-real beside the checkout") }
        let map = try PathwayFile.load(path: file)
        let reactions = map.nodes.filter { $0.kind == .reaction }
        XCTAssertEqual(reactions.count, 4)
        for r in reactions {
            XCTAssertEqual(r.shape, .none, "no process square where the file gave none: \(r.id)")
            XCTAssertGreaterThan(r.center.x, 50, "not at the origin: \(r.id) \(r.center)")
        }
        XCTAssertGreaterThan(map.bounds.min.x, 40, "nothing drawn at the top left: \(map.bounds)")
        // A box that is not empty still places its reaction (the fixtures' CellDesigner and COPASI files).
        let own = try PathwayFile.parse(Data("""
            <sbml xmlns="http://www.sbml.org/sbml/level3/version1/core" xmlns:layout="http://www.sbml.org/sbml/level3/version1/layout/version1" level="3" version="1">
            <model id="m"><listOfSpecies><species id="A"/><species id="B"/></listOfSpecies><listOfReactions><reaction id="R"/></listOfReactions>
            <layout:listOfLayouts><layout:layout layout:id="l"><layout:dimensions layout:width="300" layout:height="100"/>
            <layout:listOfSpeciesGlyphs>
              <layout:speciesGlyph layout:id="gA" layout:species="A"><layout:boundingBox><layout:position layout:x="10" layout:y="40"/><layout:dimensions layout:width="40" layout:height="20"/></layout:boundingBox></layout:speciesGlyph>
              <layout:speciesGlyph layout:id="gB" layout:species="B"><layout:boundingBox><layout:position layout:x="250" layout:y="40"/><layout:dimensions layout:width="40" layout:height="20"/></layout:boundingBox></layout:speciesGlyph>
            </layout:listOfSpeciesGlyphs>
            <layout:listOfReactionGlyphs><layout:reactionGlyph layout:id="gR" layout:reaction="R">
              <layout:boundingBox><layout:position layout:x="146" layout:y="46"/><layout:dimensions layout:width="8" layout:height="8"/></layout:boundingBox>
              <layout:listOfSpeciesReferenceGlyphs><layout:speciesReferenceGlyph layout:id="s1" layout:speciesGlyph="gA" layout:role="substrate"/></layout:listOfSpeciesReferenceGlyphs>
            </layout:reactionGlyph></layout:listOfReactionGlyphs></layout:layout></layout:listOfLayouts></model></sbml>
            """.utf8), file: "own.xml")
        let r = try XCTUnwrap(own.nodes.first { $0.kind == .reaction })
        XCTAssertEqual(r.shape, .process)
        XCTAssertEqual(r.center, SIMD2(150, 50))
    }
}

/// GPML 2013a beside 2021: the capitalized spelling, points inside <Graphics>, elbow connectors.
final class GPML2013aTests: XCTestCase {
    let gpml = """
        <Pathway xmlns="http://pathvisio.org/GPML/2013a" Name="Small">
          <Graphics BoardWidth="400" BoardHeight="200"/>
          <DataNode TextLabel="Glucose" GraphId="a" Type="Metabolite">
            <Graphics CenterX="50" CenterY="50" Width="60" Height="20" FontSize="12" Color="0000ff"/></DataNode>
          <DataNode TextLabel="HK1" GraphId="b" Type="GeneProduct">
            <Graphics CenterX="300" CenterY="150" Width="60" Height="20" FontSize="12"/></DataNode>
          <Label TextLabel="Cytosol" GraphId="l"><Graphics CenterX="200" CenterY="20" Width="80" Height="20" FontSize="14" Color="999999"/></Label>
          <Interaction GraphId="i">
            <Graphics ConnectorType="Elbow" ZOrder="12288" LineThickness="2.0" Color="ff0000">
              <Point X="80" Y="50" GraphRef="a" RelX="1.0" RelY="0.0"/>
              <Point X="270" Y="150" GraphRef="b" RelX="-1.0" RelY="0.0" ArrowHead="Arrow"/>
            </Graphics>
          </Interaction>
        </Pathway>
        """

    func testGPML2013aIsReadWithElbowsInRightAngles() throws {
        let map = try PathwayFile.parse(Data(gpml.utf8), file: "small.gpml")
        XCTAssertEqual(map.title, "Small")
        XCTAssertEqual(map.nodes.map(\.label), ["Glucose", "HK1"])
        XCTAssertEqual(map.nodes[0].kind, .metabolite)
        XCTAssertEqual(map.nodes[0].stroke, Color(rgb: 0x0000FF), "Color is the border's and the text's")
        XCTAssertEqual(map.texts.map(\.text), ["Cytosol"])
        let edge = try XCTUnwrap(map.edges.first)
        XCTAssertEqual(edge.from, "a")
        XCTAssertEqual(edge.to, "b")
        XCTAssertEqual(edge.head, .arrow)
        XCTAssertEqual(edge.color, Color(rgb: 0xFF0000))
        XCTAssertEqual(edge.width, 2)
        // Right angles: across to halfway, down, across.
        let points = [edge.start] + edge.segments.map(\.end)
        XCTAssertEqual(points, [SIMD2(80, 50), SIMD2(175, 50), SIMD2(175, 150), SIMD2(270, 150)])
        // A GPML version neither reader knows is named.
        let old = gpml.replacingOccurrences(of: "GPML/2013a", with: "GPML/2010a")
        XCTAssertThrowsError(try PathwayFile.parse(Data(old.utf8), file: "old.gpml")) {
            XCTAssertTrue(($0 as? PathwayError)?.message.contains("GPML of 2010a is not read: GPML 2013a and 2021 are") == true, "\($0)")
        }
    }

    /// WikiPathways' WP534 as it is distributed (../shared/pathways-real), where present.
    func testWikiPathwaysWP534() throws {
        let file = PathwayTestSupport.root.deletingLastPathComponent().appendingPathComponent("shared/pathways-real/gpml2013a_WP534.gpml").path
        guard FileManager.default.fileExists(atPath: file) else { throw XCTSkip("no ../shared/pathways-real beside the checkout") }
        let map = try PathwayFile.load(path: file)
        XCTAssertGreaterThan(map.nodes.count, 70)
        XCTAssertTrue(map.nodes.contains { $0.label == "Glucose-6P" && $0.kind == .metabolite })
        XCTAssertGreaterThan(map.edges.count, 60)
        XCTAssertTrue(map.texts.contains { $0.text == "Mitochondrion" })
        XCTAssertFalse(map.compartments.isEmpty)
    }
}

/// SBGN PD as libsbgn's files have it: glyphs in glyphs, state variables, ports, languages.
final class SBGNNotationTests: XCTestCase {
    func testNestedGlyphsStateVariablesPortsAndLanguages() throws {
        let sbgn = """
            <sbgn xmlns="http://sbgn.org/libsbgn/0.2"><map language="process description">
              <glyph id="c" class="complex"><label text="AB"/><bbox x="0" y="0" w="200" h="100"/>
                <glyph id="a" class="macromolecule"><label text="A"/><bbox x="10" y="10" w="80" h="40"/>
                  <glyph id="a.s" class="state variable"><state value="P" variable="S22"/><bbox x="60" y="0" w="30" h="16"/></glyph>
                  <glyph id="a.u" class="unit of information"><label text="mt:prot"/><bbox x="15" y="2" w="40" h="14"/></glyph>
                </glyph>
                <glyph id="b" class="simple chemical"><label text="B"/><bbox x="110" y="10" w="40" h="40"/></glyph>
              </glyph>
              <glyph id="p" class="dissociation"><bbox x="300" y="40" w="20" h="20"/>
                <port id="p.1" x="290" y="50"/><port id="p.2" x="330" y="50"/></glyph>
              <glyph id="o" class="omitted process"><bbox x="300" y="140" w="20" h="20"/></glyph>
              <arc id="x" class="consumption" source="c" target="p.1"><start x="200" y="50"/><end x="290" y="50"/></arc>
              <arc id="y" class="production" source="p.2" target="b"><start x="330" y="50"/><end x="150" y="30"/></arc>
            </map></sbgn>
            """
        let map = try PathwayFile.parse(Data(sbgn.utf8), file: "n.sbgn")
        let ids = map.nodes.map(\.id)
        XCTAssertEqual(Array(ids.prefix(5)), ["c", "a", "a.s", "a.u", "b"], "members after their complex, over it")
        XCTAssertEqual(map.node("a.s")?.label, "P@S22")
        XCTAssertEqual(map.node("a.u")?.label, "mt:prot")
        XCTAssertEqual(map.node("a.u")?.shape, .rectangle)
        XCTAssertEqual(map.node("o")?.label, "\\\\", "an omitted process says so")
        XCTAssertNotNil(map.node("p.inner"), "dissociation: a circle in a circle")
        XCTAssertEqual(map.edges.filter { $0.id == "p.port" }.count, 2, "port lines from the process to its ports")
        XCTAssertEqual(map.edges.first { $0.id == "y" }?.to, "b", "an arc to a glyph inside a complex")
        let label = try XCTUnwrap(map.node("c")?.labelPosition)
        XCTAssertGreaterThan(label.y, 80, "a complex's label at its bottom, clear of its members")
        // Each arc class its own head.
        let arcs = sbgn.replacingOccurrences(of: "<arc id=\"x\" class=\"consumption\"", with: "<arc id=\"x\" class=\"modulation\"")
            .replacingOccurrences(of: "<arc id=\"y\" class=\"production\"", with: "<arc id=\"y\" class=\"necessary stimulation\"")
        let heads = try PathwayFile.parse(Data(arcs.utf8), file: "h.sbgn").edges
        XCTAssertEqual(heads.first { $0.id == "x" }?.head, .diamond)
        XCTAssertEqual(heads.first { $0.id == "y" }?.head, .barArrow)
        // Activity Flow and Entity Relationship maps are read in their own notation, not refused.
        for language in ["entity relationship", "activity flow"] {
            let other = sbgn.replacingOccurrences(of: "process description", with: language)
            XCTAssertNoThrow(try PathwayFile.parse(Data(other.utf8), file: "x.sbgn"), language)
        }
    }

    /// SBGN Activity Flow and Entity Relationship in their glyphs (libsbgn's test files and
    /// reference cards): activities as rectangles, influences with their heads, delay as tau,
    /// units of information in their entity's shape; entities as round rectangles, outcomes as
    /// filled dots, interactions pointing at the entities they join, arc groups read.
    func testActivityFlowAndEntityRelationshipMaps() throws {
        let folder = PathwayTestSupport.root.appendingPathComponent("Tests/Fixtures/pathways-real")
        let af = try PathwayFile.load(path: folder.appendingPathComponent("sbgn_af10101-pass.sbgn").path)
        XCTAssertEqual(af.nodes.filter { $0.shape == .rectangle && $0.kind == .geneProduct }.count, 3, "three biological activities")
        XCTAssertEqual(af.edges.filter { $0.head == .openArrow && $0.kind == .stimulation }.count, 1, "a positive influence")
        let er = try PathwayFile.load(path: folder.appendingPathComponent("sbgn_er10107-pass.sbgn").path)
        XCTAssertEqual(er.nodes.filter { $0.shape == .roundRectangle && $0.kind == .geneProduct }.count, 2, "two entities")
        XCTAssertEqual(er.edges.filter { $0.head == .bar }.count, 1)
        let card = """
            <sbgn xmlns="http://sbgn.org/libsbgn/0.2"><map language="entity relationship">
              <glyph id="e1" class="entity"><label text="A"/><bbox x="100" y="100" w="80" h="40"/></glyph>
              <glyph id="e2" class="entity"><label text="B"/><bbox x="100" y="300" w="80" h="40"/></glyph>
              <glyph id="e3" class="entity"><label text="C"/><bbox x="400" y="200" w="80" h="40"/></glyph>
              <arc id="a0" class="interaction" source="e1" target="e2"><glyph id="o" class="outcome"><bbox x="130" y="210" w="20" h="20"/></glyph>
                <start x="140" y="140"/><end x="140" y="300"/></arc>
              <arcgroup class="interaction"><glyph id="i" class="interaction"><bbox x="300" y="205" w="30" h="30"/></glyph>
                <arc id="a1" class="interaction" source="i" target="e3"><start x="330" y="220"/><end x="400" y="220"/></arc></arcgroup>
              <arc id="a2" class="assignment" source="e3" target="a0"><start x="400" y="230"/><end x="140" y="220"/></arc>
              <glyph id="u" class="unit of information"><label text="Simple Chemical"/><entity name="simple chemical"/><bbox x="300" y="300" w="40" h="40"/></glyph>
              <glyph id="d" class="delay"><bbox x="300" y="400" w="30" h="30"/></glyph>
              <glyph id="n" class="annotation"><label text="a note"/><bbox x="500" y="400" w="80" h="40"/>
                <callout target="e1"><point x="140" y="120"/></callout></glyph>
              <glyph id="e4" class="entity"><label text="D"/><bbox x="600" y="100" w="80" h="40"/>
                <glyph id="sv" class="state variable"><state value="phosphorylated" variable="Ser473"/><bbox x="610" y="92" w="30" h="16"/></glyph></glyph>
            </map></sbgn>
            """
        let map = try PathwayFile.parse(Data(card.utf8), file: "er.sbgn")
        XCTAssertEqual(map.node("o")?.fill, .black, "an outcome is a filled dot")
        let a0 = try XCTUnwrap(map.edges.first { $0.id == "a0" }), a1 = try XCTUnwrap(map.edges.first { $0.id == "a1" })
        XCTAssertEqual([a0.head, a0.tail], [.arrow, .arrow], "an interaction of two entities points at both")
        XCTAssertEqual([a1.head, a1.tail], [.arrow, .none], "from an interaction glyph: at the entity only")
        let a2 = try XCTUnwrap(map.edges.first { $0.id == "a2" })
        XCTAssertNil(a2.to, "an arc ending on an arc")
        XCTAssertEqual(a2.segments.last?.end, SIMD2(140, 220))
        XCTAssertEqual(map.node("u")?.shape, .ellipse)
        XCTAssertTrue(map.node("u")?.fitsLabel == true)
        XCTAssertEqual(map.node("d")?.label, "\u{03C4}")
        // An annotation: a note with a folded corner and its callout; a long state kept in its ellipse.
        XCTAssertEqual(map.node("n")?.shape, .note)
        XCTAssertEqual(map.edges.first { $0.id == "n.callout" }?.segments.last?.end, SIMD2(140, 120))
        XCTAssertTrue(map.node("sv")?.fitsLabel == true)
        let placed = try MapLabels(theme: PathwayTheme(.standard), fonts: FontCache()).place(map, scale: 2)
        let state = try XCTUnwrap(placed.first { $0.lines.map(\.text).joined().contains("Ser473") })
        XCTAssertEqual(state.lines.map(\.text), ["phosphorylated@", "Ser473"], "broken after the @")
        XCTAssertGreaterThanOrEqual(state.box.x, 610 * 2 - 0.5, "inside the ellipse's box")
        XCTAssertLessThanOrEqual(state.box.z, 640 * 2 + 0.5)
    }

    /// Entity Relationship's decorations as libsbgn's ER reference card draws them: existence a
    /// circle with its right half filled, location a crossed circle, a variable's value a capsule,
    /// absolute stimulation two open arrows and absolute inhibition two bars.
    func testEntityRelationshipExistenceLocationAndAbsoluteInfluences() throws {
        let card = """
            <sbgn xmlns="http://sbgn.org/libsbgn/0.2"><map language="entity relationship">
              <glyph id="e1" class="entity"><label text="A"/><bbox x="100" y="100" w="80" h="40"/>
                <glyph id="ex" class="existence"><bbox x="110" y="88" w="24" h="24"/></glyph></glyph>
              <glyph id="e2" class="entity"><label text="B"/><bbox x="300" y="100" w="80" h="40"/>
                <glyph id="lo" class="location"><bbox x="310" y="88" w="24" h="24"/></glyph></glyph>
              <glyph id="vv" class="variable value"><label text="val"/><bbox x="100" y="200" w="60" h="20"/></glyph>
              <glyph id="e3" class="entity"><label text="C"/><bbox x="300" y="300" w="80" h="40"/>
                <glyph id="sv" class="state variable"><state value="P" variable="S1"/><bbox x="310" y="292" w="30" h="16"/></glyph></glyph>
              <arc id="s" class="absolute stimulation" source="e1" target="e2"><start x="180" y="120"/><end x="300" y="120"/></arc>
              <arc id="i" class="absolute inhibition" source="e2" target="e1"><start x="300" y="130"/><end x="180" y="130"/></arc>
            </map></sbgn>
            """
        let map = try PathwayFile.parse(Data(card.utf8), file: "er.sbgn")
        XCTAssertEqual(map.node("ex")?.shape, .existence)
        XCTAssertEqual(map.node("lo")?.shape, .location)
        XCTAssertEqual(map.node("vv")?.shape, .stadium)
        XCTAssertEqual(map.node("sv")?.shape, .stadium, "an ER state variable is a capsule")
        let pd = try PathwayFile.parse(Data(card.replacingOccurrences(of: "entity relationship", with: "process description").utf8), file: "pd.sbgn")
        XCTAssertEqual(pd.node("sv")?.shape, .ellipse, "a PD one an ellipse (libsbgn's PD card)")
        XCTAssertEqual(map.edges.first { $0.id == "s" }?.head, .doubleOpenArrow)
        XCTAssertEqual(map.edges.first { $0.id == "i" }?.head, .doubleBar)
        let image = try PathwayTestSupport.renderer().render(map, view: MapView(origin: SIMD2(0, 0), scale: 2), width: 800, height: 480,
                                                             theme: PathwayTheme(.standard))
        // Existence (centre 122, 100): dark right of the centre, white left of it.
        XCTAssertTrue(PathwayTestSupport.near(image, 2 * 127, 2 * 100, 0x000000, tolerance: 60), "the right half filled")
        XCTAssertTrue(PathwayTestSupport.near(image, 2 * 117, 2 * 100, 0xFFFFFF, tolerance: 60), "the left half white")
        // Location (centre 322, 100): the cross through the centre, white between its arms.
        XCTAssertTrue(PathwayTestSupport.near(image, 2 * 322, 2 * 100, 0x000000, tolerance: 90), "the cross at the centre")
        XCTAssertTrue(PathwayTestSupport.near(image, 2 * 327, 2 * 100, 0xFFFFFF, tolerance: 60), "open between the arms")
        // Two bars where the inhibition ends (at A's border, x 180): dark at two places beside the line, light between.
        let row = 2 * 130
        let dark = (2 * 181..<2 * 190).filter { !PathwayTestSupport.near(image, $0, row - 8, 0xFFFFFF, tolerance: 60) }
        var runs = 0, last = -10
        for x in dark { if x != last + 1 { runs += 1 }; last = x }
        XCTAssertEqual(runs, 2, "two bars beside the line (dark columns \(dark))")
    }
}

/// SBML without the Layout package: its species and reactions laid out, not refused.
final class SBMLWithoutLayoutTests: XCTestCase {
    func testAModelWithoutALayoutIsLaidOut() throws {
        let sbml = """
            <sbml xmlns="http://www.sbml.org/sbml/level3/version1/core" level="3" version="1"><model id="m" name="Enzyme">
              <listOfSpecies><species id="E" name="enzyme"/><species id="S"/><species id="ES"/><species id="P"/></listOfSpecies>
              <listOfReactions>
                <reaction id="bind" reversible="true"><listOfReactants><speciesReference species="E"/><speciesReference species="S"/></listOfReactants>
                  <listOfProducts><speciesReference species="ES"/></listOfProducts></reaction>
                <reaction id="make"><listOfReactants><speciesReference species="ES"/></listOfReactants>
                  <listOfProducts><speciesReference species="E"/><speciesReference species="P"/></listOfProducts></reaction>
              </listOfReactions></model></sbml>
            """
        let map = try PathwayFile.parse(Data(sbml.utf8), file: "e.xml")
        XCTAssertEqual(map.title, "Enzyme")
        XCTAssertFalse(map.needsLayout, "placed")
        XCTAssertEqual(Set(map.nodes.filter { $0.kind == .reaction }.map(\.id)), ["bind", "make"])
        XCTAssertEqual(map.node("E")?.label, "enzyme")
        XCTAssertEqual(map.edges.filter { $0.reaction == "make" && $0.kind == .product }.count, 2)
        // Placed in layers: every node apart from the others.
        let centers = map.nodes.filter { !$0.id.contains("#") }.map(\.center)
        for (i, a) in centers.enumerated() { for b in centers[(i + 1)...] { XCTAssertGreaterThan(((a - b) * (a - b)).sum(), 100) } }
        // A reference to a species that is not there is named.
        let bad = sbml.replacingOccurrences(of: "<speciesReference species=\"P\"/>", with: "<speciesReference species=\"Q\"/>")
        XCTAssertThrowsError(try PathwayFile.parse(Data(bad.utf8), file: "b.xml")) {
            XCTAssertTrue(($0 as? PathwayError)?.message.contains("Q is not a species of the model") == true, "\($0)")
        }
        let file = PathwayTestSupport.root.deletingLastPathComponent().appendingPathComponent("shared/pathways-real/sbml_nolayout_enzymekinetics.xml").path
        if FileManager.default.fileExists(atPath: file) {
            let real = try PathwayFile.load(path: file)
            XCTAssertEqual(real.nodes.filter { $0.kind == .reaction }.count, 2)
        }
    }
}

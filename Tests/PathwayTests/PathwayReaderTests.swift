import Core
import Foundation
@testable import PathwayModel
@testable import Pathways
import XCTest

/// What the readers take from each format, and bad files named by file and place.
final class PathwayReaderTests: XCTestCase {
    typealias S = PathwayTestSupport

    func error(_ text: String, file: String = "bad.json") -> PathwayError? {
        do {
            _ = try PathwayFile.parse(Data(text.utf8), file: file)
            return nil
        } catch { return error as? PathwayError }
    }

    func testEachFormatReadsItsNodesAndEdges() throws {
        let sbgn = try PathwayFile.load(path: S.fixture("sbgn_glycolysis.sbgn"))
        XCTAssertEqual(sbgn.format, "sbgn")
        XCTAssertEqual(sbgn.nodes.filter { $0.kind == .reaction }.count, 10)
        XCTAssertEqual(sbgn.edges.count, 44 + 20, "the arcs and a port line for each of the processes' 20 ports")
        XCTAssertEqual(sbgn.edges.filter { $0.head == .circle }.count, 10, "catalysis arcs end in circles")
        let kgml = try PathwayFile.load(path: S.fixture("kgml_ko03070.xml.gz"))
        XCTAssertEqual(kgml.format, "kgml")
        XCTAssertEqual(kgml.nodes.count, 81)
        let escher = try PathwayFile.load(path: S.fixture("escher_recon1_glycolysis_tca_ppp.json"))
        XCTAssertEqual(escher.format, "escher")
        XCTAssertEqual(escher.edges.count, 224)
        XCTAssertEqual(escher.texts.count, 3)
        XCTAssertTrue(escher.edges.contains { $0.segments.contains { if case .cubic = $0 { return true } else { return false } } })
        XCTAssertTrue(escher.edges.allSatisfy { $0.reaction?.hasPrefix("reaction:") == true })
    }

    func testSBMLLayoutGlyphsBecomeNodesEdgesAndLabels() throws {
        let sbml = try PathwayFile.load(path: S.fixture("hexokinase-layout.sbml"))
        XCTAssertEqual(sbml.format, "sbml")
        XCTAssertEqual(sbml.compartments.map(\.name), ["cytosol"])
        XCTAssertEqual(sbml.nodes.filter { $0.kind == .metabolite }.map(\.label).sorted(), ["HK1", "glucose", "glucose 6-phosphate"])
        let reaction = try XCTUnwrap(sbml.node("rg_HK"))
        XCTAssertEqual(reaction.kind, .reaction)
        XCTAssertEqual(reaction.name, "hexokinase")
        let product = try XCTUnwrap(sbml.edges.first { $0.id == "srg_g6p" })
        XCTAssertEqual(product.head, .arrow)
        XCTAssertEqual(product.to, "sg_g6p")
        XCTAssertTrue(product.segments.contains { if case .cubic = $0 { return true } else { return false } })
        let substrate = try XCTUnwrap(sbml.edges.first { $0.id == "srg_glc" })
        XCTAssertEqual(substrate.from, "sg_glc", "into the reaction, though the file's curve starts at it")
        XCTAssertEqual(substrate.start, SIMD2(130, 165))
        XCTAssertEqual(sbml.edges.first { $0.id == "srg_hk" }?.head, .circle)
        XCTAssertEqual(sbml.texts.map(\.text), ["Glycolysis, step 1"])
        let noLayout = error(#"<sbml level="3" version="1"><model id="m"><listOfSpecies/></model></sbml>"#, file: "m.xml")
        XCTAssertTrue(noLayout?.message.contains("no layout") == true, "\(String(describing: noLayout))")
    }

    /// XML past libxml2's 10,000,000-byte lookup limit reads as its smaller self: the SBGN fixture
    /// with 10.5 MB of notes between its elements (a genome-scale SBML's size).
    func testXMLPastTenMegabytesReads() throws {
        let sbgn = try String(contentsOfFile: S.fixture("sbgn_glycolysis.sbgn"), encoding: .utf8)
        let small = try PathwayFile.parse(Data(sbgn.utf8), file: "small.sbgn")
        // Many notes of a hundred bytes, as a large model's annotations come (one text of 10 MB is
        // past libxml2's limit for a single text, which no real map reaches).
        let comment = String(repeating: "<!-- " + String(repeating: "padding ", count: 11) + " -->\n", count: 110_000)
        guard let close = sbgn.range(of: "</sbgn>") else { return XCTFail("no </sbgn>") }
        var big = sbgn
        big.insert(contentsOf: comment, at: close.lowerBound)
        XCTAssertGreaterThan(big.utf8.count, 10_500_000)
        let read = try PathwayFile.parse(Data(big.utf8), file: "big.sbgn")
        XCTAssertEqual(read.nodes.count, small.nodes.count)
        XCTAssertEqual(read.edges.count, small.edges.count)
        // Cut short past the limit: still an error naming a line inside the file.
        let cut = String(big.prefix(big.utf8.count - 200))
        XCTAssertThrowsError(try PathwayFile.parse(Data(cut.utf8), file: "cut.sbgn")) {
            XCTAssertTrue(($0 as? PathwayError)?.location?.hasPrefix("line ") == true, "\($0)")
        }
    }

    /// A genome-scale model's size: COBRApy's textbook model (BiGG annotations on every species and
    /// reaction) with its annotation bags grown until the file passes 52 MB, as large models'
    /// MIRIAM annotations make them (Recon3D is 29 MB for 10,600 reactions), read, laid out and drawn.
    func testA52MegabyteSBMLIsDrawn() throws {
        let path = S.root.appendingPathComponent("Tests/Fixtures/pathways-real/sbml_cobra_textbook.xml.gz").path
        let text = String(decoding: try FileInput.read(path: path), as: UTF8.self)
        let small = try PathwayFile.parse(Data(text.utf8), file: "textbook.xml")
        let bags = text.components(separatedBy: "<rdf:Bag>").count - 1
        XCTAssertGreaterThan(bags, 100)
        let line = "\n                  <rdf:li rdf:resource=\"http://identifiers.org/chebi/CHEBI:00000\"/>"
        let padding = String(repeating: line, count: 52_000_000 / bags / line.utf8.count + 1)
        let big = text.replacingOccurrences(of: "<rdf:Bag>", with: "<rdf:Bag>" + padding)
        XCTAssertGreaterThan(big.utf8.count, 52_000_000)
        let map = try PathwayFile.parse(Data(big.utf8), file: "big.xml")
        XCTAssertEqual(map.nodes.count, small.nodes.count)
        XCTAssertEqual(map.edges.count, small.edges.count)
        XCTAssertGreaterThan(map.nodes.count, 150)
        var request = PathwayRequest()
        request.size = "400"
        let image = try PathwayPicture(map, request: request).draw(try S.renderer())
        XCTAssertGreaterThan(S.inked(image, x: 0..<image.width, y: 0..<image.height), 2_000)
    }

    func testBadFilesNameTheFileAndThePlace() throws {
        let cut = error(#"{"nodes": [{"id": "a", "x": 1"#)
        XCTAssertEqual(cut?.file, "bad.json")
        XCTAssertTrue(cut?.message.contains("not valid JSON") == true, "\(String(describing: cut))")
        let unknown = error(#"{"nodes": [{"id": "a", "x": 1, "y": 2}], "edges": [{"from": "a", "to": "zz"}]}"#)
        XCTAssertEqual(unknown?.location, "edges[0].to")
        XCTAssertTrue(unknown?.message.contains("zz is not a node") == true)
        let noID = error(#"{"nodes": [{"x": 1, "y": 2}]}"#)
        XCTAssertEqual(noID?.location, "nodes[0].id")
        let escher = error(#"[{"map_name": "m"}, {"nodes": {"1": {"node_type": "metabolite", "x": 0, "y": 0}}, "reactions": {"9": {"segments": {"0": {"from_node_id": "1", "to_node_id": "7"}}}}}]"#)
        XCTAssertEqual(escher?.location, "reactions.9.segments.0.to_node_id")
        let sbgn = try String(contentsOfFile: S.fixture("sbgn_glycolysis.sbgn"), encoding: .utf8)
        let truncated = error(String(sbgn.prefix(sbgn.count / 2)), file: "cut.sbgn")
        XCTAssertEqual(truncated?.file, "cut.sbgn")
        XCTAssertTrue(truncated?.location?.hasPrefix("line ") == true, "\(String(describing: truncated))")
        // A KGML relation or reaction naming an entry the file does not declare is left out with
        // a warning naming the line, as Biopython and KEGGgraph read such files.
        let kgml = try PathwayFile.parse(Data(#"<pathway name="path:hsa04110" number="04110"><entry id="1" type="compound"><graphics x="1" y="1" width="8" height="8"/></entry><entry id="3" name="hsa:1" type="gene"><graphics name="A" x="40" y="1" width="46" height="17"/></entry><relation entry1="1" entry2="5" type="PPrel"/><reaction id="3" name="rn:R1" type="irreversible"><substrate id="9" name="gl:G00001"/><product id="1" name="cpd:C1"/></reaction></pathway>"#.utf8), file: "k.xml")
        XCTAssertEqual(kgml.nodes.count, 2)
        XCTAssertEqual(kgml.edges.map(\.id), ["3+1"], "the product edge drawn, the undeclared substrate's left out")
        XCTAssertTrue(kgml.relations.isEmpty)
        XCTAssertEqual(kgml.warnings.count, 2, "\(kgml.warnings)")
        XCTAssertTrue(kgml.warnings.contains { $0.hasPrefix("k.xml: line 1 <relation>") && $0.contains("entry2 5 is not an entry") }, "\(kgml.warnings)")
        XCTAssertTrue(kgml.warnings.contains { $0.contains("substrate") && $0.contains("9") }, "\(kgml.warnings)")
        // Found by fuzz/run pathway: bytes that are not UTF-8 in a name stopped Foundation's parser (a crash).
        let fuzzed = try Data(contentsOf: S.root.appendingPathComponent("Tests/Fixtures/fuzz-pathways/bad-utf8-attribute.sbgn"))
        XCTAssertThrowsError(try PathwayFile.parse(fuzzed, file: "f.sbgn")) {
            XCTAssertEqual(($0 as? PathwayError)?.location, "line 306")
            XCTAssertTrue(($0 as? PathwayError)?.message.contains("not valid UTF-8") == true)
        }
        // Found by fuzzing: on Linux Foundation's parser ends the process on a processing instruction
        // with no data and on a DOCTYPE's attribute list without a default, notation or unparsed entity.
        // The first is read (given a space), the others refused with the DOCTYPE's line.
        let glyph = #"<sbgn><map id="m"><glyph id="a" class="simple chemical"><label text="ATP"/><bbox x="0" y="0" w="20" h="20"/></glyph></map></sbgn>"#
        XCTAssertEqual(try PathwayFile.parse(Data(("<?xml version=\"1.0\"?>\n<?x?>\n" + glyph).utf8), file: "pi.sbgn").nodes.first?.label, "ATP")
        for subset in ["<!ATTLIST sbgn b CDATA #IMPLIED>", #"<!NOTATION n SYSTEM "x">"#, #"<!NOTATION n SYSTEM "x"><!ENTITY e SYSTEM "y" NDATA n>"#] {
            XCTAssertThrowsError(try PathwayFile.parse(Data(("<?xml version=\"1.0\"?>\n<!DOCTYPE sbgn [" + subset + "]>\n" + glyph).utf8), file: "d.sbgn")) {
                XCTAssertEqual(($0 as? PathwayError)?.location, "line 2", subset)
                XCTAssertTrue(($0 as? PathwayError)?.message.contains("DOCTYPE's own declaration") == true, "\($0)")
            }
        }
        // Latin-1, declared so, is read.
        let latin = Data(#"<?xml version="1.0" encoding="ISO-8859-1"?><sbgn><map id="m"><glyph id="a" class="simple chemical"><label text="caf\#u{E9}"/><bbox x="0" y="0" w="20" h="20"/></glyph></map></sbgn>"#.data(using: .isoLatin1)!)
        XCTAssertEqual(try PathwayFile.parse(latin, file: "l.sbgn").nodes.first?.label, "caf\u{E9}")
        XCTAssertNotNil(error("", file: "empty.json"))
        XCTAssertNotNil(error("hello", file: "text.txt"))
    }
}

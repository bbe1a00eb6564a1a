import Core
import XCTest

final class XMLPreflightTests: XCTestCase {
    private func check(_ text: String) -> XMLPreflight.Outcome {
        Array(text.utf8).withUnsafeBytes { XMLPreflight.check($0) }
    }

    func testAProcessingInstructionThatEndsAtItsTargetIsGivenASpaceAndNoLineMoves() {
        XCTAssertEqual(check(#"<?xml version="1.0"?><a><?x data?></a>"#), .unchanged)
        XCTAssertEqual(check("<?x?>\n<a/>\n<?y?>"), .changed(Array("<?x ?>\n<a/>\n<?y ?>".utf8)))
        // Inside comments and CDATA it is text, left as it is.
        XCTAssertEqual(check("<a><!-- <?x?> --><![CDATA[<?y?>]]></a>"), .unchanged)
        XCTAssertEqual(check("<a>text <?"), .unchanged, "cut short: the parser says so")
    }

    func testADoctypeWithDeclarationsOfItsOwnIsRefusedAtItsLine() {
        XCTAssertEqual(check(#"<?xml version="1.0"?><!DOCTYPE pathway SYSTEM "https://www.kegg.jp/kegg/xml/KGML_v0.7.2_.dtd"><pathway/>"#), .unchanged)
        XCTAssertEqual(check(#"<!DOCTYPE a PUBLIC "p[1]" 's]'><a/>"#), .unchanged, "brackets in its ids are not a subset")
        guard case .refused(let why) = check("<?xml version=\"1.0\"?>\n\n<!DOCTYPE a [<!ATTLIST a b CDATA #IMPLIED>]>\n<a/>") else {
            return XCTFail("an internal subset is refused")
        }
        XCTAssertEqual(why.line, 3)
        XCTAssertTrue(why.message.contains("DOCTYPE"), why.message)
        XCTAssertEqual(check("<!-- <!DOCTYPE a [ ]> --><a/>"), .unchanged)
    }
}

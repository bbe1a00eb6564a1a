import Core
import XCTest

final class XMLPreflightTests: XCTestCase {
    private func check(_ text: String) -> XMLPreflight.Outcome {
        Array(text.utf8).withUnsafeBytes { XMLPreflight.check($0) }
    }

    /// Every instruction whose target ends at `?>` gets a space, wherever it is: libxml2 reads on
    /// past broken markup (two found by fuzzing: inside a broken instruction, after a broken declaration).
    func testAProcessingInstructionThatEndsAtItsTargetIsGivenASpaceAndNoLineMoves() {
        XCTAssertEqual(check(#"<?xml version="1.0"?><a><?x data?></a>"#), .unchanged)
        XCTAssertEqual(check("<?x?>\n<a/>\n<?y?>"), .changed(Array("<?x ?>\n<a/>\n<?y ?>".utf8)))
        XCTAssertEqual(check("<?<?x?>"), .changed(Array("<?<?x ?>".utf8)))
        XCTAssertEqual(check("<?xml version=\"0.0n=\"1.0\"H>\n<?x?>\n<a/>"), .changed(Array("<?xml version=\"0.0n=\"1.0\"H>\n<?x ?>\n<a/>".utf8)))
        XCTAssertEqual(check("<a>text <?"), .unchanged, "cut short: the parser says so")
    }

    func testDeclarationsOfADoctypesOwnAreRefusedAtTheirLine() {
        XCTAssertEqual(check(#"<?xml version="1.0"?><!DOCTYPE pathway SYSTEM "https://www.kegg.jp/kegg/xml/KGML_v0.7.2_.dtd"><pathway/>"#), .unchanged)
        XCTAssertEqual(check("<!DOCTYPE a [<!ELEMENT a ANY>]><a/>"), .unchanged, "an element declaration is harmless")
        for declaration in ["<!ATTLIST a b CDATA #IMPLIED>", #"<!NOTATION n SYSTEM "x">"#, #"<!ENTITY e "&#60;?x?>">"#] {
            guard case .refused(let why) = check("<?xml version=\"1.0\"?>\n\n<!DOCTYPE a [" + declaration + "]>\n<a/>") else {
                XCTFail("\(declaration) is refused"); continue
            }
            XCTAssertEqual(why.line, 3)
            XCTAssertTrue(why.message.contains("declares an " + declaration.dropFirst(2).prefix { $0 != " " }), why.message)
        }
    }

    /// An element with more attributes than any map or header has is refused at its line before
    /// libxml2 compares each with those before it (250,000 took minutes); quoted `=` and `>` are
    /// values, not attributes, and a tag in a comment does not hide an instruction after it.
    func testAnElementWithTooManyAttributesIsRefusedAtItsLine() {
        let many = (0...XMLPreflight.maxAttributes).map { " a\($0)=\"1\"" }.joined()
        guard case .refused(let why) = check("<?xml version=\"1.0\"?>\n<root>\n<e" + many + "/></root>") else { return XCTFail("refused") }
        XCTAssertEqual(why.line, 3)
        XCTAssertTrue(why.message.contains("more than \(XMLPreflight.maxAttributes) attributes"), why.message)
        let fewer = (1...XMLPreflight.maxAttributes).map { " a\($0)=\"x=y>z\"" }.joined()
        XCTAssertEqual(check("<root><e" + fewer + "/></root>"), .unchanged, "the limit itself, with = and > inside values")
        XCTAssertEqual(check("<!-- <a b='x --><c d=\"1\"/><?x?>"), .changed(Array("<!-- <a b='x --><c d=\"1\"/><?x ?>".utf8)))
        // Linear: a million attributes' worth of bytes in unclosed quotes is looked at once.
        let hostile = String(repeating: "<a '", count: 200_000)
        XCTAssertEqual(check(hostile), .unchanged)
    }
}

import Core
@testable import Density
import Foundation
import XCTest

/// EMDB headers read for their recommended contour level: the XML of schema v3 and v1.9 (the
/// element paths of EMDB's own schemas, emdb-empiar/emdb-schemas v3.0.9.4 and v1.9.6) and the
/// entry API's JSON; found beside a map in EMDB's layout; hostile ones refused. The headers here
/// are written for the tests after those schemas (levels made up), not copies of real entries.
final class EMDBHeaderTests: XCTestCase {
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("molshot-emdb-\(UUID().uuidString)")

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: scratch)
    }

    func parse(_ text: String) throws -> EMDBHeader { try EMDBHeader.parse(Array(text.utf8), file: "h.xml") }

    /// v3: the primary map's primary contour; a half map's and an additional map's contours
    /// (under `interpretation`) are not the entry's; a non-primary contour is taken only alone.
    func testSchemaV3() throws {
        let h = try parse("""
            <?xml version="1.0" encoding="UTF-8"?>
            <emd emdb_id="EMD-8249" version="3.0.9.4">
              <crossreferences><pdb_list><pdb_reference><pdb_id>5khe</pdb_id><relationship><in_frame>FULLOVERLAP</in_frame></relationship></pdb_reference></pdb_list></crossreferences>
              <map format="CCP4" size_kbytes="56">
                <file>emd_8249.map.gz</file>
                <contour_list>
                  <contour primary="false"><level>9.5</level><source>SOFTWARE</source></contour>
                  <contour primary="true"><level>1.25</level><source>AUTHOR</source></contour>
                </contour_list>
              </map>
              <interpretation>
                <half_map_list><half_map format="CCP4"><contour_list><contour primary="true"><level>0.1</level></contour></contour_list></half_map></half_map_list>
              </interpretation>
            </emd>
            """)
        XCTAssertEqual(h, EMDBHeader(id: "EMD-8249", recommendedLevel: 1.25, levelSource: "AUTHOR", fittedModels: ["5KHE"]))
        let alone = try parse(#"<emd emdb_id="EMD-1"><map><contour_list><contour primary="false"><level>-2e-3</level></contour></contour_list></map></emd>"#)
        XCTAssertEqual(alone.recommendedLevel, -0.002)
        // Only a half map's level: the entry recommends none.
        let none = try parse(#"<emd><map/><interpretation><half_map_list><half_map><contour_list><contour primary="true"><level>3</level></contour></contour_list></half_map></half_map_list></interpretation></emd>"#)
        XCTAssertNil(none.recommendedLevel)
    }

    func testSchemaV19AndTheEntryAPI() throws {
        let v19 = try parse("""
            <emdEntry accessCode="EMD-1001" version="1.9.6"><admin/><deposition><fittedPDBEntryIdList><fittedPDBEntryId>1ABC</fittedPDBEntryId></fittedPDBEntryIdList></deposition>
            <map><file type="CCP4" format="MRC">emd_1001.map.gz</file><contourLevel source="author">0.062</contourLevel></map></emdEntry>
            """)
        XCTAssertEqual(v19, EMDBHeader(id: "EMD-1001", recommendedLevel: 0.062, levelSource: "author", fittedModels: ["1ABC"]))
        let json = try parse(#"{"emdb_id": "EMD-8249", "map": {"contour_list": {"contour": [{"primary": false, "level": 7}, {"primary": true, "level": 0.5, "source": "AUTHOR"}]}}}"#)
        XCTAssertEqual(json.recommendedLevel, 0.5)
        XCTAssertEqual(json.id, "EMD-8249")
        XCTAssertEqual(json.levelSource, "AUTHOR")
    }

    /// What is not a header is refused naming the file: not XML, XML of another kind, elements
    /// nested beyond any header, broken XML; a level that is not a number is no level.
    func testHostileHeaders() throws {
        func refused(_ text: String, _ fragment: String, line: Int = #line) {
            XCTAssertThrowsError(try parse(text), line: UInt(line)) { e in
                XCTAssertTrue("\(e)".hasPrefix("h.xml"), "\(e)", line: UInt(line))
                XCTAssertTrue("\(e)".contains(fragment), "\(e)", line: UInt(line))
            }
        }
        refused("", "empty")
        refused("MAP binary", "not an EMDB header")
        refused("<sbml><model/></sbml>", "not an EMDB header")
        refused("<emd><map><contour_list>", "not well-formed")
        refused(String(repeating: "<a>", count: 5000), "256 deep")
        refused("[1, 2]", "not an EMDB entry")
        // Found by fuzzing: bytes that are not UTF-8 in a name ended the process inside Foundation's parser.
        XCTAssertThrowsError(try EMDBHeader.parse(Array("<emd><map><contour_list>".utf8) + [0xFF, 0xFE] + Array("<level>1</level></contour_list></map></emd>".utf8), file: "h.xml")) { e in
            XCTAssertTrue("\(e)".contains("not UTF-8"), "\(e)")
        }
        // Found by fuzzing (fuzz/seeds/emdb/crash-pi-without-data.xml): a processing instruction with no data
        // (`<?x?>`) ended the process inside Foundation's parser; it is read, and its level with it.
        let instruction = try parse(#"<?x?><emd><map><contour_list><contour primary="true"><level>0.5</level></contour></contour_list></map></emd>"#)
        XCTAssertEqual(instruction.recommendedLevel, 0.5)
        let seed = try Array(Data(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../fuzz/seeds/emdb/crash-pi-without-data.xml")))
        _ = try? EMDBHeader.parse(seed, file: "seed.xml")
        refused(#"<!DOCTYPE emd [<!ATTLIST emd b CDATA #IMPLIED>]><emd/>"#, "declares an ATTLIST")
        let nan = try parse(#"<emd><map><contour_list><contour primary="true"><level>nan</level></contour></contour_list></map></emd>"#)
        XCTAssertNil(nan.recommendedLevel)
        let huge = try parse(#"<emd><map><contour_list><contour primary="true"><level>1e999</level></contour></contour_list></map></emd>"#)
        XCTAssertNil(huge.recommendedLevel)
    }

    /// EMDB's archive layout: EMD-NNNN/map/emd_NNNN.map.gz with EMD-NNNN/header/emd-NNNN-v30.xml;
    /// or both in one folder. A map whose name carries no EMDB number has none.
    func testTheHeaderBesideAMap() throws {
        let mapDir = scratch.appendingPathComponent("EMD-8249/map"), headerDir = scratch.appendingPathComponent("EMD-8249/header")
        try FileManager.default.createDirectory(at: mapDir, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: headerDir, withIntermediateDirectories: true)
        let map = mapDir.appendingPathComponent("emd_8249.map.gz").path
        XCTAssertNil(EMDBHeader.path(beside: map))
        try Data("<emd/>".utf8).write(to: headerDir.appendingPathComponent("emd-8249-v30.xml"))
        XCTAssertEqual(EMDBHeader.path(beside: map), headerDir.appendingPathComponent("emd-8249-v30.xml").path)
        try Data("<emd/>".utf8).write(to: mapDir.appendingPathComponent("emd-8249.xml"))
        XCTAssertEqual(EMDBHeader.path(beside: map), mapDir.appendingPathComponent("emd-8249.xml").path, "the map's own folder first")
        XCTAssertNil(EMDBHeader.path(beside: scratch.appendingPathComponent("density.map").path))
        XCTAssertEqual(EMDBHeader.emdbNumber(in: "EMD-12345.mrc"), "12345")
        XCTAssertNil(EMDBHeader.emdbNumber(in: "emd_12.map"))
    }

    /// `--level recommended`: the header's level, absolute; without a header, or a header with no
    /// level, an error that says what to give instead.
    func testRecommendedLevels() throws {
        XCTAssertEqual(MapLevel("recommended"), .recommended)
        let map = try DensityMap.load(path: DensityMapTests.fixtures.appendingPathComponent("emd_8249.map.gz").path)
        XCTAssertEqual(try MapLevel.recommended.resolved(in: map, header: EMDBHeader(recommendedLevel: 1.25), file: "m"), .absolute(1.25))
        XCTAssertThrowsError(try MapLevel.recommended.resolved(in: map, header: nil, file: "m")) { e in
            XCTAssertTrue("\(e)".contains("--map-header"), "\(e)")
        }
        XCTAssertThrowsError(try MapLevel.recommended.resolved(in: map, header: EMDBHeader(id: "EMD-8249"), file: "m")) { e in
            XCTAssertTrue("\(e)".contains("states no contour level"), "\(e)")
        }
        XCTAssertEqual(try MapLevel.sigma(1).resolved(in: map, header: nil, file: "m"), .sigma(1))
        guard case .absolute(let v) = try MapLevel.enclosing(100 * 5.28 * 5.28 * 5.28).resolved(in: map, header: nil, file: "m") else { return XCTFail() }
        XCTAssertEqual(map.values.filter { $0 >= Float(v) }.count, 100)
    }
}

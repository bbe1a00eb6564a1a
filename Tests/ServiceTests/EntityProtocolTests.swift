import Foundation
import Graphics
import Hummingbird
import Imaging
import Library
@testable import Service
import Structure
import TestSupport
import XCTest

/// The openBIS iPad read protocol in-process: the service's own answer to each request body.
final class EntityProtocolTests: GLTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("molshot-entities-\(UUID().uuidString)")

    override func tearDown() { try? FileManager.default.removeItem(at: scratch) }

    func service() throws -> (MolshotService, crambin: Int, caffeine: Int) {
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let db = scratch.appendingPathComponent("library.sqlite").path
        let lib = try MoleculeLibrary(path: db)
        let perception = try BondPerception.standard()
        func add(_ file: String, owner: String?, isPrivate: Bool) throws -> Int {
            let bytes = [UInt8](try Data(contentsOf: Self.root.appendingPathComponent("Tests/Fixtures/\(file)")))
            guard case .added(let r) = try lib.importBytes(bytes, source: file, name: MoleculeLibrary.name(forPath: file), perception: perception,
                                                          owner: owner, isPrivate: isPrivate) else {
                throw LibraryError(.machine, "\(file) was not added: the library held it already")
            }
            return r.id
        }
        let crambin = try add("1crn.pdb", owner: nil, isPrivate: false)
        let caffeine = try add("Caffeine.pdb", owner: "alice", isPrivate: true)
        var c = ServiceConfiguration(database: db)
        c.pathways = Self.root.appendingPathComponent("Tests/Fixtures/pathways").path
        let service = try MolshotService(configuration: c)
        addTeardownBlock { service.close() }
        return (service, crambin, caffeine)
    }

    func ask(_ s: MolshotService, _ body: String, as viewer: String? = nil) async throws -> EntityTable {
        try await s.entities.entityTable(Array(body.utf8), viewer: .reader(viewer), base: "http://example.org")
    }

    func column(_ t: EntityTable, _ name: String) throws -> [String] {
        let k = try XCTUnwrap(t.columns.firstIndex(of: name), "no column \(name) in \(t.columns)")
        return t.rows.map { $0[k] }
    }

    func json(_ text: String) throws -> Any { try JSONSerialization.jsonObject(with: Data(text.utf8)) }

    func testCategoriesRootDrillDetailWithImagesThatDecode() async throws {
        let (s, crambin, caffeine) = try service()
        let prefs = try await ask(s, #"{"requestKey":"CLIENT_PREFS"}"#)
        XCTAssertEqual(prefs.columns, ["KEY", "VALUE"])
        XCTAssertTrue(prefs.rows.contains(["IMAGES", "URL"]))

        let categories = try await ask(s, #"{"requestKey":"CATEGORIES"}"#)
        XCTAssertEqual(try column(categories, "PERM_ID"), ["MOLECULES", "PATHWAYS"])
        let molecules = try XCTUnwrap(try json(try column(categories, "CHILDREN")[0]) as? [String])
        XCTAssertEqual(molecules, ["MOLECULE:\(crambin)"], "the private molecule is not there for anyone else")
        let pathways = try XCTUnwrap(try json(try column(categories, "CHILDREN")[1]) as? [String])
        XCTAssertTrue(pathways.contains("PATHWAY:sbgn_glycolysis"), "\(pathways)")
        let own = try await ask(s, #"{"requestKey":"CATEGORIES"}"#, as: "alice")
        XCTAssertEqual(try json(try column(own, "CHILDREN")[0]) as? [String], ["MOLECULE:\(crambin)", "MOLECULE:\(caffeine)"])

        let root = try await ask(s, #"{"requestKey":"ROOT"}"#)
        XCTAssertTrue(try column(root, "PERM_ID").contains("MOLECULE:\(crambin)"))
        XCTAssertEqual(Set(try column(root, "ROOT_LEVEL")), ["true"])
        XCTAssertEqual(try column(root, "CATEGORY").first, "Molecules")

        // Drilling into crambin gives it and its chain.
        let drill = try await ask(s, #"{"requestKey":"DRILL","entities":[{"PERM_ID":"MOLECULE:\#(crambin)","REFCON":"{}"}]}"#)
        let ids = try column(drill, "PERM_ID")
        XCTAssertEqual(ids.first, "MOLECULE:\(crambin)")
        XCTAssertTrue(ids.contains("CHAIN:\(crambin):A"), "\(ids)")
        XCTAssertEqual(try json(try column(drill, "CHILDREN")[0]) as? [String], ["CHAIN:\(crambin):A"])

        // The detail, with images as data: each decodes to a PNG of the size asked.
        let detail = try await ask(s, #"{"requestKey":"DETAIL","IMAGES":"DATA","entities":[{"PERM_ID":"MOLECULE:\#(crambin)","REFCON":"{}"}]}"#)
        XCTAssertEqual(try column(detail, "SUMMARY_HEADER"), ["1crn"])
        let properties = try XCTUnwrap(try json(try column(detail, "PROPERTIES")[0]) as? [[String: String]])
        XCTAssertTrue(properties.contains { $0["key"] == "atoms" && $0["value"] == "327" }, "\(properties)")
        let images = try XCTUnwrap(try json(try column(detail, "IMAGES")[0]) as? [String: Any])
        let marquee = try XCTUnwrap((images["MARQUEE"] as? [String: Any])?["DATA"] as? [String: String])
        XCTAssertEqual(marquee["FORMAT"], "PNG")
        let tiled = try XCTUnwrap(images["TILED"] as? [[String: Any]])
        XCTAssertEqual(tiled.count, 2)
        for (spec, side) in [(marquee, 512)] + tiled.map({ (($0["DATA"] as? [String: String]) ?? [:], 160) }) {
            let png = try XCTUnwrap(Data(base64Encoded: spec["BASE64"] ?? ""))
            let path = scratch.appendingPathComponent("image-\(UUID().uuidString).png").path
            try png.write(to: URL(fileURLWithPath: path))
            let image = try PNGDecoder.read(path)
            XCTAssertEqual(image.width, side)
            XCTAssertTrue(image.pixels.contains { $0 != 255 && $0 != 0 }, "something is drawn")
        }
        // As URLs by default.
        let urls = try await ask(s, #"{"requestKey":"DETAIL","entities":[{"PERM_ID":"CHAIN:\#(crambin):A","REFCON":"{}"}]}"#)
        let spec = try XCTUnwrap(try json(try column(urls, "IMAGES")[0]) as? [String: Any])
        XCTAssertEqual((spec["MARQUEE"] as? [String: String])?["URL"], "http://example.org/v1/molecules/\(crambin)/image?size=512&color=chain")

        // A pathway's detail image decodes too.
        let map = try await ask(s, #"{"requestKey":"DETAIL","IMAGES":"DATA","entities":[{"PERM_ID":"PATHWAY:sbgn_glycolysis","REFCON":"{}"}]}"#)
        let mapImages = try XCTUnwrap(try json(try column(map, "IMAGES")[0]) as? [String: Any])
        let mapPNG = try XCTUnwrap(Data(base64Encoded: ((mapImages["MARQUEE"] as? [String: Any])?["DATA"] as? [String: String])?["BASE64"] ?? ""))
        XCTAssertEqual(Array(mapPNG.prefix(4)), [0x89, 0x50, 0x4E, 0x47])
    }

    func testPrivateMoleculesAndBadRequests() async throws {
        let (s, _, caffeine) = try service()
        let body = #"{"requestKey":"DETAIL","entities":[{"PERM_ID":"MOLECULE:\#(caffeine)","REFCON":"{}"}]}"#
        do {
            _ = try await ask(s, body, as: "bob")
            XCTFail("bob sees alice's private molecule")
        } catch let e as HTTPError {
            XCTAssertEqual(e.status, .notFound)
        }
        let alice = try await ask(s, body, as: "alice")
        XCTAssertEqual(try column(alice, "SUMMARY_HEADER"), ["Caffeine"])
        for (bad, words) in [("[]", "JSON object"), (#"{"requestKey":"NOPE"}"#, "requestKey must be"), (#"{"requestKey":"DRILL"}"#, "entities is needed"),
                             (#"{"requestKey":"DETAIL","IMAGES":"GIF","entities":[]}"#, "IMAGES must be")] {
            do {
                _ = try await ask(s, bad)
                XCTFail("\(bad) was taken")
            } catch let e as HTTPError {
                XCTAssertEqual(e.status, .badRequest)
                XCTAssertTrue(e.body?.contains(words) == true, "\(e.body ?? "")")
            }
        }
    }
}

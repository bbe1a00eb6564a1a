import Core
import Foundation
import Graphics
import Imaging
@testable import Gestures
import Hummingbird
import Library
import MoleculeView
@testable import PathwayModel
@testable import Pathways
@testable import Service
import Structure
import TestSupport
import XCTest

/// Every finding of the stranger's second attack, as a request answered with a 4xx that names
/// its limit, refused before the work starts, and the server answering the next request: nested
/// parentheses, a replay event at t = 1e300, a map nested 100,000 deep, exponential selections,
/// pictures past the sample budget, repeated entities, multi-model files past max-atoms, ranges,
/// heads, refused sessions and error backlogs.
final class BoundedRequestTests: GLTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("molshot-bounded-\(UUID().uuidString)")

    override func tearDown() { try? FileManager.default.removeItem(at: scratch) }

    static func fixture(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: root.appendingPathComponent("Tests/Fixtures/\(name)")))
    }

    /// A library with crambin (imported from a path with folders) and the fixture pathways, and
    /// `maps` as the pathway folder when given.
    func service(maps: String? = nil, maxAtoms: Int? = nil) throws -> MolshotService {
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let db = scratch.appendingPathComponent("library.sqlite").path
        let lib = try MoleculeLibrary(path: db)
        _ = try lib.importBytes(try Self.fixture("1crn.pdb"), source: "/srv/secret/folder/1crn.pdb", name: "1crn",
                                perception: try BondPerception.standard(), owner: nil, isPrivate: false)
        var c = ServiceConfiguration(database: db)
        c.pathways = maps ?? Self.root.appendingPathComponent("Tests/Fixtures/pathways").path
        if let maxAtoms { c.maxAtoms = maxAtoms }
        let service = try MolshotService(configuration: c)
        addTeardownBlock { service.close() }
        return service
    }

    static func query(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text }

    func testSelectionsPastTheirLengthWordsOrDepthAre400sNamingTheLimit() async throws {
        let s = try service()
        try await Application(router: s.router()).test(.router) { client in
            let deep = "cartoon: " + String(repeating: "(", count: 30_000) + "all" + String(repeating: ")", count: 30_000)
            let nested = "cartoon: " + String(repeating: "(", count: 40) + "all" + String(repeating: ")", count: 40)
            let wordy = "cartoon: " + Array(repeating: "all", count: 200).joined(separator: " or ")
            let nots = "cartoon: " + String(repeating: "not ", count: 100) + "all"
            for (show, says) in [(deep, "longer than \(Selection.Limits.length) characters"), (nested, "nested more than \(Selection.Limits.depth) deep"),
                                 (wordy, "more than \(Selection.Limits.words) words"), (nots, "nested more than \(Selection.Limits.depth) deep")] {
                let r = try await client.execute(uri: "/v1/molecules/1/image?size=64&show=\(Self.query(show))", method: .get)
                let message = String(buffer: r.body)
                XCTAssertEqual(r.status, .badRequest, message)
                XCTAssertTrue(message.contains(says), message)
                XCTAssertLessThan(message.utf8.count, 1000, "the error quotes an excerpt, not the 60 KB expression")
            }
            let many = (0..<20).map { _ in "show=\(Self.query("spacefill: chain A"))" }.joined(separator: "&")
            let r = try await client.execute(uri: "/v1/molecules/1/image?size=64&\(many)", method: .get)
            XCTAssertEqual(r.status, .badRequest)
            XCTAssertTrue(String(buffer: r.body).contains("more than \(Show.maxCount) times"), String(buffer: r.body))
            let fine = try await client.execute(uri: "/v1/molecules/1/image?size=64&show=\(Self.query("cartoon: ((((polymer))))"))", method: .get)
            XCTAssertEqual(fine.status, .ok, "the server answers the next request")
        }
    }

    /// `around` nested 30 deep evaluated its inner selection twice a level (2^30 passes, which
    /// never ends here); each sub-expression is now evaluated once, and `within` any distance is
    /// one pass of the atoms over a grid of the seeds. The answers are those of a plain count.
    func testNestedAroundAndFarWithinAreEvaluatedOnceAndAgreeWithACount() throws {
        let structure = try StructureFile.decode(try Self.fixture("1crn.pdb"), source: "1crn.pdb")
        let model = try XCTUnwrap(structure.models.first)
        var text = "resi 10"
        for _ in 0..<10 { text = "byres ((\(text)) around 0.1)" }
        _ = try Selection(parsing: text).mask(in: model)
        text = "resi 10"
        for _ in 0..<30 { text = "(\(text) around 1000)" }
        // Around 1000 Å of crambin is every other atom: the levels alternate, and 30 of them come back to residue 10.
        XCTAssertEqual(try Selection(parsing: text).atoms(in: model), try Selection(parsing: "resi 10").atoms(in: model))
        XCTAssertEqual(try Selection(parsing: "within 1e30 of resi 1").atoms(in: model).count, model.atoms.count)
        // Against a count of every pair.
        let positions = model.atoms.map(\.position)
        let seeds = try Selection(parsing: "resn CYS").mask(in: model)
        for distance: Float in [0, 1.5, 4, 9] {
            let expected = positions.indices.filter { i in
                seeds[i] || positions.indices.contains { j in seeds[j] && ((positions[i] - positions[j]) * (positions[i] - positions[j])).sum() <= distance * distance }
            }
            XCTAssertEqual(try Selection(parsing: "within \(distance) of resn CYS").atoms(in: model), expected, "within \(distance)")
            XCTAssertEqual(try Selection(parsing: "resn CYS around \(distance)").atoms(in: model), expected.filter { !seeds[$0] }, "around \(distance)")
        }
    }

    func testAReplayEventAtTenToThe300IsRefusedBeforeAFrameIsListed() async throws {
        let s = try service()
        try await Application(router: s.router()).test(.router) { client in
            let events = #"{"type":"header","version":1,"viewport":{"width":100,"height":100}}"# + "\n" + #"{"type":"rotate","t":1e300,"dx":1,"dy":0}"#
            let r = try await client.execute(uri: "/v1/replay?molecule=1&fps=60&size=32", method: .post, body: ByteBuffer(string: events))
            XCTAssertEqual(r.status, .contentTooLarge, String(buffer: r.body))
            XCTAssertTrue(String(buffer: r.body).contains("more than \(ServiceLimits.replayFrames.value) frames"), String(buffer: r.body))
            // 11 s at 60 fps is 661 frames: past the limit too, found before they are drawn.
            let long = #"{"type":"header","version":1,"viewport":{"width":100,"height":100}}"# + "\n" + #"{"type":"rotate","t":11,"dx":1,"dy":0}"#
            let l = try await client.execute(uri: "/v1/replay?molecule=1&fps=60&size=32", method: .post, body: ByteBuffer(string: long))
            XCTAssertEqual(l.status, .contentTooLarge, String(buffer: l.body))
            let short = #"{"type":"header","version":1,"viewport":{"width":100,"height":100}}"# + "\n" + #"{"type":"rotate","t":0.1,"dx":1,"dy":0}"#
            let ok = try await client.execute(uri: "/v1/replay?molecule=1&fps=60&size=32", method: .post, body: ByteBuffer(string: short))
            XCTAssertEqual(ok.status, .ok)
        }
        var clock = FrameClock(fps: 240)
        XCTAssertNil(clock.due(before: 1e300, limit: 100_000))
        let second = try XCTUnwrap(clock.due(before: 1, limit: 241), "a second at 240 fps is within 241 frames")
        XCTAssertTrue((240...241).contains(second.count), "\(second.count)")
    }

    func testAMapNested100000DeepIsRefusedNamingTheDepth() async throws {
        let maps = scratch.appendingPathComponent("maps")
        try FileManager.default.createDirectory(at: maps, withIntermediateDirectories: true)
        let n = 100_000
        let text = #"<?xml version="1.0"?><sbgn xmlns="http://sbgn.org/libsbgn/0.2"><map language="process description">"#
            + String(repeating: #"<glyph id="g" class="macromolecule"><bbox x="0" y="0" w="1" h="1"/>"#, count: n)
            + String(repeating: "</glyph>", count: n) + "</map></sbgn>"
        try Data(text.utf8).write(to: maps.appendingPathComponent("deep.sbgn"))
        XCTAssertThrowsError(try PathwayFile.load(path: maps.appendingPathComponent("deep.sbgn").path)) { error in
            XCTAssertTrue("\(error)".contains("nest more than \(XMLLimits.depth) deep"), "\(error)")
        }
        let s = try service(maps: maps.path)
        try await Application(router: s.router()).test(.router) { client in
            let r = try await client.execute(uri: "/v1/pathways/deep/image?size=64", method: .get)
            XCTAssertEqual(r.status, .badRequest, String(buffer: r.body))
            XCTAssertTrue(String(buffer: r.body).contains("nest more than"), String(buffer: r.body))
            let health = try await client.execute(uri: "/healthz", method: .get)
            XCTAssertEqual(health.status, .ok)
        }
    }

    func testPicturesPastTheSampleBudgetAre413BeforeTheyAreDrawn() async throws {
        let s = try service()
        try await Application(router: s.router()).test(.router) { client in
            for q in ["size=4096&antialias=4&occlusion=1&outline=16", "size=4096&antialias=2", "size=2048&antialias=4"] {
                let r = try await client.execute(uri: "/v1/molecules/1/image?\(q)", method: .get)
                XCTAssertEqual(r.status, .contentTooLarge, q)
                XCTAssertTrue(String(buffer: r.body).contains("picture samples"), String(buffer: r.body))
            }
            let fine = try await client.execute(uri: "/v1/molecules/1/image?size=256&antialias=2", method: .get)
            XCTAssertEqual(fine.status, .ok)
        }
        // Memory: pictures in flight share the budget; one past it alone is 413, one that does not
        // fit beside those being made 503, and the place comes back when a picture is done.
        let limit = ServiceLimits.pictureMemory.value
        XCTAssertThrowsError(try s.pictures.reserveMemory(limit + 1)) { XCTAssertEqual(($0 as? HTTPError)?.status, .contentTooLarge) }
        let first = try s.pictures.reserveMemory(limit / 2 + 1)
        XCTAssertThrowsError(try s.pictures.reserveMemory(limit / 2 + 1)) { XCTAssertEqual(($0 as? HTTPError)?.status, .serviceUnavailable) }
        first.release()
        first.release()
        try s.pictures.reserveMemory(limit / 2 + 1).release()
        XCTAssertEqual(s.pictures.pictureMemory.withLock { $0 }, 0, "every place given back once")
        var r = try RenderRequest([("size", "4096")])
        XCTAssertLessThanOrEqual(r.estimatedBytes, limit, "the largest side at the default settings fits")
        XCTAssertLessThanOrEqual(r.samples, ServiceLimits.pictureSamples.value, "the largest side at the default settings draws")
        r.occlusion = 0
        r.outline = 0
        XCTAssertEqual(r.samples, 4096 * 4096)
    }

    func testEntityRequestsCountEachEntityOnceAndAreBounded() async throws {
        let s = try service()
        func body(_ ids: [String]) -> [UInt8] {
            Array(("{\"requestKey\":\"DETAIL\",\"IMAGES\":\"DATA\",\"entities\":[" + ids.map { "{\"PERM_ID\":\"\($0)\",\"REFCON\":\"{}\"}" }.joined(separator: ",") + "]}").utf8)
        }
        // One molecule 1,500 times is one molecule: three small pictures, not 4,500.
        let repeated = try await s.entities.entityTable(body(Array(repeating: "MOLECULE:1", count: 1500)), viewer: .reader(nil), base: "http://x")
        XCTAssertEqual(repeated.rows.count, 1)
        do {
            _ = try await s.entities.entityTable(body((0...ServiceLimits.entities.value).map { "CHAIN:1:\($0)" }), viewer: .reader(nil), base: "http://x")
            XCTFail("more entities than the limit were answered")
        } catch let e as HTTPError {
            XCTAssertEqual(e.status, .contentTooLarge)
            XCTAssertTrue(e.body?.contains("more than \(ServiceLimits.entities.value) entities") == true, e.body ?? "")
        }
    }

    func testMaxAtomsCountsEveryModel() async throws {
        // multimodel.pdb: 12 atom records in two models.
        let s = try service(maxAtoms: 8)
        try await Application(router: s.router()).test(.router) { client in
            let r = try await client.execute(uri: "/v1/render?name=multimodel.pdb&size=32", method: .post, body: ByteBuffer(bytes: try Self.fixture("multimodel.pdb")))
            XCTAssertEqual(r.status, .contentTooLarge, String(buffer: r.body))
            XCTAssertTrue(String(buffer: r.body).contains("in 2 models"), String(buffer: r.body))
        }
    }

    func testPublicRecordsShowNoServerPathsNorUploaders() async throws {
        let s = try service()
        try await Application(router: s.router()).test(.router) { client in
            for path in ["/v1/molecules", "/v1/molecules/1"] {
                let text = String(buffer: try await client.execute(uri: path, method: .get).body)
                XCTAssertFalse(text.contains("/srv/secret"), text)
                XCTAssertTrue(text.contains("\"source\":\"1crn.pdb\""), text)
            }
        }
        var r = try XCTUnwrap(try MoleculeLibrary(path: scratch.appendingPathComponent("library.sqlite").path).record(id: 1))
        r.source = "upload:alice/mine.pdb"
        XCTAssertEqual(r.withoutServerDetails.source, "uploaded")
    }

    /// A stranger counting public ids learns nothing of private molecules: those get ids drawn at
    /// random above 2^40, and public ids run on without a gap where one was made (nor reuse a
    /// removed one's).
    func testPrivateMoleculesLeaveNoGapInPublicIds() throws {
        _ = try service()
        let lib = try MoleculeLibrary(path: scratch.appendingPathComponent("library.sqlite").path)
        let perception = try BondPerception.standard()
        func add(_ file: String, owner: String?, isPrivate: Bool) throws -> Int {
            guard case .added(let r) = try lib.importBytes(try Self.fixture(file), source: file, name: file, perception: perception,
                                                           owner: owner, isPrivate: isPrivate) else { throw LibraryError(.machine, "\(file) not added") }
            return r.id
        }
        let hidden = try add("Caffeine.pdb", owner: "alice", isPrivate: true)
        XCTAssertGreaterThanOrEqual(hidden, MoleculeLibrary.privateIDs)
        XCTAssertLessThan(hidden, 1 << 52, "exact as a JavaScript number")
        let next = try add("TYR.sdf", owner: nil, isPrivate: false)
        XCTAssertEqual(next, 2, "crambin is 1; the private import took no public id")
        _ = try lib.remove(id: next)
        XCTAssertEqual(try add("Heme.sdf", owner: nil, isPrivate: false), 3, "a removed id is not given again")
        XCTAssertNotEqual(try add("03F.sdf", owner: "bob", isPrivate: true), hidden)
    }

    /// A gzip trailer that states more than its input can inflate to is no size to allocate:
    /// noise after a gzip header stated half a gigabyte, allocated before a byte was read, which
    /// ended the server under an address-space cap (the 100,000-request fuzz run found it).
    func testAGzipTrailerIsNotBelievedPastWhatDeflateCanMake() async throws {
        var bytes: [UInt8] = [0x1F, 0x8B, 0x08, 0x00] + (0..<196).map { UInt8(truncatingIfNeeded: $0 &* 37) }
        bytes[bytes.count - 1] = 0x20  // a trailer stating 512 MiB and more
        let noise = bytes
        XCTAssertEqual(FileInput.gzipSizeHint(noise), 0)
        XCTAssertThrowsError(try FileInput.inflate(noise, source: "noise.gz", limit: 1 << 30))
        let s = try service()
        try await Application(router: s.router()).test(.router) { client in
            let r = try await client.execute(uri: "/v1/render?name=x.pdb.gz&size=32", method: .post, body: ByteBuffer(bytes: noise))
            XCTAssertEqual(r.status, .badRequest, String(buffer: r.body))
        }
    }

    /// RFC 9110's ranges: one range clamped to the body, a suffix of it, 416 only where it starts
    /// past the end, and the whole body for what is not served in parts.
    func testByteRangesAsRFC9110SaysAndViewerFilesWhole() async throws {
        typealias R = ThumbnailController.ByteRange
        let n = 1000
        XCTAssertEqual(ThumbnailController.byteRange("bytes=0-99", length: n), R.part(from: 0, to: 99))
        XCTAssertEqual(ThumbnailController.byteRange("bytes=-5", length: n), R.part(from: 995, to: 999))
        XCTAssertEqual(ThumbnailController.byteRange("bytes=-5000", length: n), R.part(from: 0, to: 999))
        XCTAssertEqual(ThumbnailController.byteRange("bytes=0-99999999999999999999999", length: n), R.part(from: 0, to: 999))
        XCTAssertEqual(ThumbnailController.byteRange("bytes=900-", length: n), R.part(from: 900, to: 999))
        XCTAssertEqual(ThumbnailController.byteRange("bytes=99999-", length: n), R.unsatisfiable)
        XCTAssertEqual(ThumbnailController.byteRange("bytes=-0", length: n), R.unsatisfiable)
        for whole in ["bytes=0-1,5-9", "items=0-5", "bytes=5-1", "bytes=a-b", "bytes=--5", "bytes"] {
            XCTAssertEqual(ThumbnailController.byteRange(whole, length: n), R.whole, whole)
        }
        let s = try service()
        try await Application(router: s.router()).test(.router) { client in
            for range in ["bytes=99999-", "bytes=-5", "bytes=0-3"] {
                let r = try await client.execute(uri: "/index.html", method: .get, headers: [.range: range])
                XCTAssertEqual(r.status, .ok, range)
                XCTAssertNil(r.headers[.contentRange], range)
                XCTAssertTrue(String(buffer: r.body).contains("<html"), range)
            }
        }
    }

    /// Heads nginx refuses at once are refused at once: a long request line 414, a long head 431,
    /// HTTP/2.0 on this port 505, Content-Length with Transfer-Encoding 400.
    func testBadHeadsAreRefusedAtOnce() {
        func refusal(_ text: String) -> String? { FirstHeadDeadline.refusal(Array(text.utf8), whole: text.hasSuffix("\r\n\r\n")) }
        XCTAssertEqual(refusal("GET /" + String(repeating: "a", count: 20_000)), "414 URI Too Long", "refused before the line ends")
        XCTAssertEqual(refusal("GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: 70_000)), "431 Request Header Fields Too Large")
        XCTAssertEqual(refusal("GET / HTTP/2.0\r\nHost: x\r\n\r\n"), "505 HTTP Version Not Supported")
        XCTAssertEqual(refusal("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"), "400 Bad Request")
        XCTAssertEqual(refusal("GARBAGE\r\n\r\n"), "400 Bad Request")
        XCTAssertNil(refusal("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"))
        XCTAssertNil(refusal("GET /healthz HTTP/1.1\r\nHost: x\r\n"), "not yet whole")
        let clients = ClientConnections(limit: 2)
        XCTAssertTrue(clients.open("10.0.0.1") && clients.open("10.0.0.1"))
        XCTAssertFalse(clients.open("10.0.0.1"), "a third from one address")
        XCTAssertTrue(clients.open("10.0.0.2"), "another address has its own")
        clients.close("10.0.0.1")
        XCTAssertTrue(clients.open("10.0.0.1"))
    }

    /// A refused session leaves nothing behind: its place is taken before anything is opened and
    /// given back on every way out; an error backlog is bounded in bytes, each error cut.
    func testSessionPlacesCannotLeakAndBacklogsAreBoundedInBytes() {
        let sessions = LiveSessions()
        XCTAssertTrue(sessions.reserve("a", limit: 1))
        for i in 0..<100 { XCTAssertFalse(sessions.reserve("r\(i)", limit: 1)) }
        XCTAssertEqual(sessions.count, 1, "refusals hold nothing")
        sessions.close("a")
        XCTAssertEqual(sessions.count, 0)
        XCTAssertTrue(sessions.reserve("b", limit: 1))
        sessions.close("b")

        let backlog = SendBacklog()
        let huge = String(repeating: "x", count: 1 << 20)
        guard case .error(_, let cut)? = backlog.admit(.error(line: 1, message: huge)) else { return XCTFail() }
        XCTAssertLessThanOrEqual(cut.utf8.count, SendBacklog.messageBytes)
        var admitted = 1
        while backlog.admit(.error(line: 1, message: huge)) != nil { admitted += 1 }
        XCTAssertLessThanOrEqual(admitted * SendBacklog.messageBytes, SendBacklog.bytes + SendBacklog.messageBytes)
        XCTAssertLessThan(admitted, SendBacklog.messages, "the bytes bound comes first for long errors")
    }

    /// Work past its request's deadline stops where it has got to: preparing a surface, a
    /// selection's shows, drawing, encoding each throw `WorkStopped` under a deadline that has
    /// passed, and the same work without one (the CLI's) runs to its end.
    func testWorkStopsAtItsDeadlineWhereverItIs() throws {
        let structure = try StructureFile.decode(try Self.fixture("1hpv.pdb"), source: "1hpv.pdb")
        let perception = try BondPerception.standard()
        let surface = try RenderRequest([("size", "256"), ("mode", "surface")])
        let shows = try RenderRequest([("size", "256"), ("show", "spacefill: within 5 of resn HOH")])
        let over = WorkDeadline(seconds: 60)
        over.cancel()
        for request in [surface, shows] {
            XCTAssertThrowsError(try WorkDeadline.with(over) {
                try MoleculePicture(structure, mode: try request.singleMode(), request: request, perception: perception)
            }) { XCTAssertTrue($0 is WorkStopped, "\($0)") }
        }
        let picture = try MoleculePicture(structure, mode: .surface, request: surface, perception: perception)
        XCTAssertNil(WorkDeadline.current, "the deadline was the thread's only while the work ran")
        XCTAssertThrowsError(try WorkDeadline.with(WorkDeadline(seconds: 0)) { try picture.png(DrawnPicture(image: RGBAImage(width: 4, height: 4), smoothEdges: false)) })
        XCTAssertFalse(WorkDeadline(seconds: .infinity).isOver)
        XCTAssertFalse(WorkDeadline(seconds: 1e300).isOver, "a deadline past UInt64's nanoseconds is none")
        XCTAssertTrue(WorkDeadline(seconds: -5).isOver)
    }

    /// The README's limits table and the OpenAPI document's `x-limits` are `ServiceLimits.all`, row for row.
    func testTheREADMELimitsTableIsServiceLimits() throws {
        let openapi = try String(contentsOf: Self.root.appendingPathComponent("Assets/openapi.yaml"), encoding: .utf8)
        let listed = openapi.split(separator: "\n").filter { $0.hasPrefix("    - {name: ") }.map(String.init)
        XCTAssertEqual(listed, ServiceLimits.all.map { "    - {name: \"\($0.name)\", value: \($0.value), unit: \"\($0.unit)\", status: \($0.status)}" })
        let readme = try String(contentsOf: Self.root.appendingPathComponent("docs/serve.md"), encoding: .utf8)
        let section = try XCTUnwrap(readme.components(separatedBy: "## Limits").dropFirst().first, "no Limits section")
        // The section's first table: its lines up to the first that is not one.
        let lines = section.split(separator: "\n", omittingEmptySubsequences: false).drop { !$0.hasPrefix("|") }.prefix { $0.hasPrefix("|") }
        let rows = lines.filter { $0.hasPrefix("| ") && !$0.hasPrefix("| limit") }.map { line in
            line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        XCTAssertEqual(rows.map { $0[0] }, ServiceLimits.all.map(\.name))
        for (row, limit) in zip(rows, ServiceLimits.all) {
            XCTAssertEqual(row[1], "\(limit.value) \(limit.unit)", limit.name)
            XCTAssertEqual(row[2], limit.status == 0 ? "-" : "\(limit.status)", limit.name)
        }
    }
}

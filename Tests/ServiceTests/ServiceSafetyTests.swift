import Core
import Foundation
@testable import Gestures
import Graphics
import Hummingbird
import Library
@testable import Service
import Structure
import TestSupport
import XCTest

/// What a stranger can send the service, in-process through its router: every route the table
/// guards asks for a token, hostile numbers are 400s, a gesture `load` reads no server file,
/// metrics stay as small as the table, and a crafted checksum collision does not poison the cache.
final class ServiceSafetyTests: GLTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("molshot-safety-\(UUID().uuidString)")

    override func tearDown() { try? FileManager.default.removeItem(at: scratch) }

    static func fixture(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: root.appendingPathComponent("Tests/Fixtures/\(name)")))
    }

    /// A library with crambin in it, the fixture pathways, an image cache, and a token for alice.
    func service(tokenToRead: Bool = false) throws -> (MolshotService, token: String) {
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let db = scratch.appendingPathComponent("library.sqlite").path
        let lib = try MoleculeLibrary(path: db)
        _ = try lib.importBytes(try Self.fixture("1crn.pdb"), source: "1crn.pdb", name: "1crn", perception: try BondPerception.standard(),
                                owner: nil, isPrivate: false)
        let tokensFile = scratch.appendingPathComponent("tokens").path
        let token = try Tokens.add("alice", to: tokensFile)
        var c = ServiceConfiguration(database: db)
        c.pathways = Self.root.appendingPathComponent("Tests/Fixtures/pathways").path
        c.cache = scratch.appendingPathComponent("cache").path
        c.tokens = try Tokens.load(tokensFile)
        c.tokenToRead = tokenToRead
        let service = try MolshotService(configuration: c)
        addTeardownBlock { service.close() }
        return (service, token)
    }

    /// A path of the table's route with each parameter filled in.
    static func example(_ route: ServiceRoute) -> String {
        route.path.split(separator: "/").map { part -> String in
            switch part {
            case ":y": return "0.png"
            case ":z", ":x": return "0"
            case ":name": return "0000000000000000-00000000-spacefill.png"
            default: return part.hasPrefix(":") ? "1" : String(part)
            }
        }.reduce("") { $0 + "/" + $1 }
    }

    func testEveryRouteTheTableGuardsAsksForATokenBeforeItsHandlerRuns() async throws {
        let (s, token) = try service(tokenToRead: true)
        let guarded = s.table.routes.filter { $0.access != .open }
        XCTAssertTrue(guarded.contains { $0.path == "/metrics" } && guarded.contains { $0.path == "/v1/render" } && guarded.contains { $0.path == "/v1/replay" })
        try await Application(router: s.router()).test(.router) { client in
            for route in s.table.routes {
                let path = Self.example(route)
                let anonymous = try await client.execute(uri: path, method: route.method, body: ByteBuffer(string: "x"))
                if route.access == .open {
                    XCTAssertNotEqual(anonymous.status, .unauthorized, "\(route.method) \(path) is open")
                } else {
                    XCTAssertEqual(anonymous.status, .unauthorized, "\(route.method) \(path) without a token")
                    XCTAssertEqual(anonymous.headers[.wwwAuthenticate], "Bearer")
                }
                let stranger = try await client.execute(uri: path, method: route.method, headers: [.authorization: "Bearer not-a-token"],
                                                        body: ByteBuffer(string: "x"))
                if route.access != .open { XCTAssertEqual(stranger.status, .forbidden, "\(route.method) \(path) with a token of no one") }
                let known = try await client.execute(uri: path, method: route.method, headers: [.authorization: "Bearer \(token)"],
                                                     body: ByteBuffer(string: "x"))
                let answer = String(buffer: known.body)
                XCTAssertFalse(answer.contains("bearer token") || answer.contains("not one this server knows"),
                               "\(route.method) \(path) with alice's token: \(known.status) \(answer)")
            }
            // Pathway images, replays and renders: what anonymous callers reached before.
            for (method, path) in [(HTTPRequest.Method.get, "/v1/pathways"), (.get, "/v1/pathways/sbgn_glycolysis/image?size=64"), (.post, "/v1/render"),
                                   (.post, "/v1/replay"), (.get, "/metrics"), (.get, "/v1/sessions?pathway=sbgn_glycolysis")] {
                let r = try await client.execute(uri: path, method: method, body: ByteBuffer(bytes: try Self.fixture("Caffeine.pdb")))
                XCTAssertEqual(r.status, .unauthorized, "\(method) \(path)")
            }
        }
    }

    func testWritesNeedATokenWhereReadsAreOpen() async throws {
        let (s, _) = try service()
        try await Application(router: s.router()).test(.router) { client in
            for route in s.table.routes where route.access == .write {
                let r = try await client.execute(uri: Self.example(route), method: route.method, body: ByteBuffer(string: "x"))
                XCTAssertEqual(r.status, .unauthorized, "\(route.method) \(route.path)")
            }
            let read = try await client.execute(uri: "/v1/molecules", method: .get)
            XCTAssertEqual(read.status, .ok)
        }
    }

    func testMethodsAPathDoesNotTakeAre405WithAllowAndHEADAnswersWhereGETDoes() async throws {
        let (s, _) = try service()
        try await Application(router: s.router()).test(.router) { client in
            let put = try await client.execute(uri: "/v1/molecules", method: .put)
            XCTAssertEqual(put.status, .methodNotAllowed)
            XCTAssertEqual(put.headers[.allow], "GET, POST, HEAD")
            let head = try await client.execute(uri: "/v1/molecules/1", method: .head)
            XCTAssertEqual(head.status, .ok)
            XCTAssertEqual(head.body.readableBytes, 0)
            let nowhere = try await client.execute(uri: "/v1/nowhere", method: .get)
            XCTAssertEqual(nowhere.status, .notFound)
            let nul = try await client.execute(uri: "/v1/pathways/sbgn%00glycolysis", method: .get)
            XCTAssertEqual(nul.status, .notFound)
            let file = try await client.execute(uri: "/index.html%00.png", method: .get)
            XCTAssertEqual(file.status, .notFound, "a NUL does not cut a viewer file's name short")
            let page = try await client.execute(uri: "/index.html", method: .get)
            XCTAssertEqual(page.status, .ok)
        }
    }

    /// Numbers that once stopped the process (an infinite or NaN Double made an Int) are 400s
    /// that name the parameter, and the server answers the next request.
    func testHostileNumbersAre400sNamingTheParameterAndTheServerStaysUp() async throws {
        let (s, _) = try service()
        try await Application(router: s.router()).test(.router) { client in
            let hostile = ["scale=1e20", "scale=1e20&size=64", "scale=inf", "scale=nan", "scale=-1", "scale=0", "scale=1e-30&size=64",
                           "region=0,0,1e308,1e308&size=64", "region=-1e308,0,1e308,1e308", "region=0,0,1e308,1e308", "region=nan,0,1,1",
                           "size=1e308", "size=-5", "size=99999999999999999999", "region=0,0,0,0"]
            for q in hostile {
                let r = try await client.execute(uri: "/v1/pathways/sbgn_glycolysis/image?\(q)", method: .get)
                XCTAssertEqual(r.status, .badRequest, q)
                let message = String(buffer: r.body)
                XCTAssertTrue(message.contains("scale") || message.contains("region") || message.contains("size"), "\(q): \(message)")
            }
            for path in ["/v1/pathways/sbgn_glycolysis/node?x=1e308&y=-1e308&tolerance=1e308", "/v1/pathways/sbgn_glycolysis/node?x=nan&y=0",
                         "/v1/pathways/sbgn_glycolysis/tiles/99999999999999999999/0/0.png", "/v1/pathways/sbgn_glycolysis/tiles/3/-1/0.png",
                         "/v1/molecules/1/image?size=1e308", "/v1/molecules/1/image?zoom=1e308&size=32", "/v1/molecules/1/image?rotate=1e308,0,0&size=32",
                         "/v1/molecules?limit=1e308", "/v1/molecules?offset=-1"] {
                let r = try await client.execute(uri: path, method: .get)
                XCTAssertTrue([.ok, .badRequest, .notFound].contains(r.status), "\(path): \(r.status)")
            }
            let fine = try await client.execute(uri: "/v1/pathways/sbgn_glycolysis/image?size=64", method: .get)
            XCTAssertEqual(fine.status, .ok)
        }
    }

    /// Every route that draws a molecule reads its picture options alike (`renderRequest`): a
    /// size over `--max-side` and two modes at once are 400s that say so, on each of them.
    func testPictureRoutesRefuseOversizeAndTwoModesAlike() async throws {
        let (s, token) = try service()
        let events = Array((#"{"type":"header","version":1,"viewport":{"width":100,"height":100}}"# + "\n").utf8)
        try await Application(router: s.router()).test(.router) { client in
            for (method, path, body) in [(HTTPRequest.Method.get, "/v1/molecules/1/image", [UInt8]()),
                                         (.post, "/v1/render", try Self.fixture("Caffeine.pdb")), (.post, "/v1/replay", events)] {
                for (query, says) in [("size=5000", "larger than this server's 4096 pixels a side"), ("mode=ball-and-stick,spacefill", "mode")] {
                    let r = try await client.execute(uri: "\(path)?\(query)", method: method, headers: [.authorization: "Bearer \(token)"],
                                                     body: ByteBuffer(bytes: body))
                    XCTAssertEqual(r.status, .badRequest, "\(path)?\(query)")
                    XCTAssertTrue(String(buffer: r.body).contains(says), "\(path)?\(query): \(String(buffer: r.body))")
                }
            }
        }
    }

    /// `load` in a replayed event file names a structure file on the server's disk: refused at
    /// its line, and the file is never read (1crn from the fixtures would draw).
    func testAGestureLoadReadsNoFileOfTheServer() async throws {
        let (s, _) = try service()
        let file = Self.root.appendingPathComponent("Tests/Fixtures/1crn.pdb").path
        let events = """
            {"type":"header","version":1,"viewport":{"width":100,"height":100}}
            {"t":0,"type":"load","source":"\(file)"}
            {"t":0.1,"type":"frame"}
            """
        try await Application(router: s.router()).test(.router) { client in
            let r = try await client.execute(uri: "/v1/replay?size=32", method: .post, body: ByteBuffer(string: events))
            XCTAssertEqual(r.status, .badRequest)
            let message = String(buffer: r.body)
            XCTAssertTrue(message.contains("events:2: load") && message.contains("reads no files"), message)
            let relative = events.replacingOccurrences(of: file, with: "../../Tests/Fixtures/1crn.pdb")
            let again = try await client.execute(uri: "/v1/replay?size=32", method: .post, body: ByteBuffer(string: relative))
            XCTAssertEqual(again.status, .badRequest)
        }
    }

    /// Random names in paths are counted under their route's pattern: the metrics text does not
    /// grow with what strangers send.
    func testMetricsHaveOneLabelPerRouteWhateverThePaths() async throws {
        let (s, _) = try service()
        try await Application(router: s.router()).test(.router) { client in
            for i in 0..<300 {
                let name = UUID().uuidString
                let path = ["/v1/thumbnails/\(name).png", "/v1/molecules/\(name)", "/v1/\(name)/\(i)", "/\(name)", "/v1/pathways/\(name)/node"][i % 5]
                _ = try await client.execute(uri: path, method: .get)
            }
            let metrics = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
            XCTAssertFalse(metrics.contains("-"), "no random name is a label")
            let labels = Set(metrics.split(separator: "\n").compactMap { line -> Substring? in
                guard let r = line.range(of: "route=\"") else { return nil }
                return line[r.upperBound...].prefix { $0 != "\"" }
            })
            XCTAssertLessThanOrEqual(labels.count, s.table.routes.count + 2, "\(labels)")
            XCTAssertTrue(labels.contains("/v1/thumbnails/{name}") && labels.contains("unrouted"), "\(labels)")
        }
    }

    /// An error's body is counted as sent: the log and `molshot_response_bytes_total` had 0 for
    /// every error reply, body or not.
    func testErrorRepliesCountTheirBodies() async throws {
        let (s, _) = try service()
        try await Application(router: s.router()).test(.router) { client in
            // The total so far (not counting the answer that says it), and that answer's size.
            func sent() async throws -> (total: Int, answer: Int) {
                let body = try await client.execute(uri: "/metrics", method: .get).body
                let line = try XCTUnwrap(String(buffer: body).split(separator: "\n").first { $0.hasPrefix("molshot_response_bytes_total ") })
                return (try XCTUnwrap(Int(line.split(separator: " ")[1])), body.readableBytes)
            }
            let before = try await sent()
            let missing = try await client.execute(uri: "/v1/molecules/nothing-by-this-name", method: .get)
            XCTAssertEqual(missing.status, .notFound)
            XCTAssertGreaterThan(missing.body.readableBytes, 10)
            let after = try await sent()
            XCTAssertEqual(after.total - before.total, before.answer + missing.body.readableBytes)
        }
    }

    /// Two uploads with the same FNV-1a checksum (caffeine and crambin, each with a REMARK line
    /// found by a cycle search for a 64-bit collision): each gets the picture of its own atoms.
    /// Before, the second was answered with the first's cached picture.
    func testUploadsWithOneFNVChecksumGetTheirOwnPictures() async throws {
        let (s, _) = try service()
        let caffeine = try Self.fixture("Caffeine.pdb") + Array("REMARK 903 \(Self.collision.caffeine)\n".utf8)
        let crambin = try Self.fixture("1crn.pdb") + Array("REMARK 903 \(Self.collision.crambin)\n".utf8)
        XCTAssertEqual(FNV1a.hash(caffeine), FNV1a.hash(crambin), "the fixture is a collision")
        try await Application(router: s.router()).test(.router) { client in
            let first = try await client.execute(uri: "/v1/render?size=64", method: .post, body: ByteBuffer(bytes: crambin))
            XCTAssertEqual(first.status, .ok)
            let second = try await client.execute(uri: "/v1/render?size=64", method: .post, body: ByteBuffer(bytes: caffeine))
            XCTAssertEqual(second.status, .ok)
            XCTAssertNotEqual(Array(buffer: first.body), Array(buffer: second.body), "caffeine is not served crambin's picture")
            // The library's crambin (the same atoms as the upload, less the REMARK) has a cache entry of its own too.
            let library = try await client.execute(uri: "/v1/molecules/1/image?size=64", method: .get)
            XCTAssertEqual(library.status, .ok)
        }
    }

    /// Smaller things a stranger finds: image URLs of entity answers do not take the request's
    /// Host, a long search is a 400 and not SQLite's 500, a weak ETag is honoured.
    func testHostHeadersLongQueriesAndWeakETags() async throws {
        let (s, _) = try service()
        let thumbs = scratch.appendingPathComponent("thumbs")
        try FileManager.default.createDirectory(at: thumbs, withIntermediateDirectories: true)
        let name = "0123456789abcdef-00000000-spacefill.png"
        try Data("the bytes of a thumbnail".utf8).write(to: thumbs.appendingPathComponent(name))
        var c = s.configuration
        c.thumbnails = thumbs.path
        let served = try MolshotService(configuration: c)
        addTeardownBlock { served.close() }
        try await Application(router: served.router()).test(.router) { client in
            // The test client's requests say `localhost` as their authority (Host).
            let entities = try await client.execute(uri: "/v1/entities", method: .post,
                                                    body: ByteBuffer(string: #"{"requestKey":"DETAIL","entities":[{"PERM_ID":"MOLECULE:1"}]}"#))
            XCTAssertEqual(entities.status, .ok)
            let table = String(buffer: entities.body)
            XCTAssertFalse(table.contains("localhost"), table)
            XCTAssertTrue(table.contains("http://127.0.0.1:8080/v1/molecules/1/image"), table)
            let long = try await client.execute(uri: "/v1/molecules?query=" + String(repeating: "a", count: 50_000), method: .get)
            XCTAssertEqual(long.status, .badRequest)
            XCTAssertFalse(String(buffer: long.body).contains("SELECT"))
            let first = try await client.execute(uri: "/v1/thumbnails/\(name)", method: .get)
            XCTAssertEqual(first.status, .ok)
            let etag = try XCTUnwrap(first.headers[.eTag])
            let weak = try await client.execute(uri: "/v1/thumbnails/\(name)", method: .get, headers: [.ifNoneMatch: "W/\(etag)"])
            XCTAssertEqual(weak.status, .notModified)
        }
    }

    /// Bounds a flood cannot pass: a recording stops at its size, a slow client's backlog keeps
    /// one frame (the newest) and a bounded number of messages, imports and replays count atoms.
    func testRecordingsBacklogsAndAtomsAreBounded() async throws {
        var recording = EventRecording()
        let line = String(repeating: "x", count: 1000)
        for _ in 0..<(EventRecording.maxBytes / 1000 + 100) { recording.append(line) }
        XCTAssertTrue(recording.isFull)
        XCTAssertLessThanOrEqual(recording.text.utf8.count, EventRecording.maxBytes)

        let backlog = SendBacklog()
        func frame(_ n: Int) -> LiveOutput {
            .frame(LiveFrame(image: [UInt8(n)], events: n, time: Double(n), mode: "spacefill", caption: nil))
        }
        XCTAssertNotNil(backlog.admit(frame(1)))
        XCTAssertNil(backlog.admit(frame(2)), "a second frame takes the waiting one's place")
        XCTAssertNil(backlog.admit(frame(3)))
        guard case .frame(let sent) = backlog.take(frame(1)) else { return XCTFail() }
        XCTAssertEqual(sent.events, 3, "the newest frame is the one sent")
        let admitted = (0..<5000).filter { backlog.admit(.error(line: $0, message: "bad")) != nil }.count
        XCTAssertEqual(admitted, SendBacklog.messages)

        let (s, token) = try service()
        var c = s.configuration
        c.maxAtoms = 100
        let small = try MolshotService(configuration: c)
        addTeardownBlock { small.close() }
        try await Application(router: small.router()).test(.router) { client in
            let imported = try await client.execute(uri: "/v1/molecules?name=1hpv.pdb", method: .post, headers: [.authorization: "Bearer \(token)"],
                                                    body: ByteBuffer(bytes: try Self.fixture("1hpv.pdb")))
            XCTAssertEqual(imported.status, .badRequest)
            XCTAssertTrue(String(buffer: imported.body).contains("more than the 100 allowed"), String(buffer: imported.body))
            let events = #"{"type":"header","version":1,"viewport":{"width":100,"height":100}}"#
            let replay = try await client.execute(uri: "/v1/replay?molecule=1&size=32", method: .post, body: ByteBuffer(string: events))
            XCTAssertEqual(replay.status, .contentTooLarge, "crambin's 327 atoms are more than 100")
        }
    }

    /// Found by `Tests/Fixtures/fnv_collision.c` (a cycle search, 3 tries, minutes on one core):
    /// REMARK lines that give caffeine and crambin one FNV-1a 64.
    static let collision = (caffeine: "YWTKqQ4oqpA", crambin: "tWtTnloRBXF")
}

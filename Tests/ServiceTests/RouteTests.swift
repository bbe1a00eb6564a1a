import Core
import Foundation
import Hummingbird
import Library
import MoleculeView
@testable import Service
import Structure
import TestSupport
import XCTest

/// The service's routes in-process through its router (`app.test(.router)`), one behaviour a
/// test: molecules, images, uploads, replays, thumbnails, pathways, tokens and private molecules.
/// What needs a real socket (floods, slow clients, start-up, the binary) stays in ServeTests.
final class RouteTests: GLTestCase {
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("molshot-routes-\(UUID().uuidString)")
    var thumbs: URL { scratch.appendingPathComponent("thumbs") }

    override func tearDown() { try? FileManager.default.removeItem(at: scratch) }

    struct Served {
        let service: MolshotService
        let tokens: [String: String]
        func auth(_ who: String) -> HTTPFields { [.authorization: "Bearer \(tokens[who]!)"] }
    }

    /// A library of `files` (fixtures), the fixture pathways, an image cache, a thumbnails folder
    /// and tokens for alice and bob.
    func served(_ files: [String] = ["1crn.pdb", "TYR.sdf", "heme-site.pdb"], maxAtoms: Int? = nil, allowOrigin: String? = nil,
                tokenToRead: Bool = false) throws -> Served {
        try FileManager.default.createDirectory(at: thumbs, withIntermediateDirectories: true)
        let db = scratch.appendingPathComponent("library.sqlite").path
        let lib = try MoleculeLibrary(path: db)
        for f in files {
            _ = try lib.importBytes(try ServiceSafetyTests.fixture(f), source: f, name: (f as NSString).deletingPathExtension,
                                    perception: try BondPerception.standard(), owner: nil, isPrivate: false)
        }
        let tokensFile = scratch.appendingPathComponent("tokens").path
        var tokens: [String: String] = [:]
        for who in ["alice", "bob"] { tokens[who] = try Tokens.add(who, to: tokensFile) }
        var c = ServiceConfiguration(database: db)
        c.pathways = ServiceSafetyTests.root.appendingPathComponent("Tests/Fixtures/pathways").path
        c.cache = scratch.appendingPathComponent("cache").path
        c.thumbnails = thumbs.path
        c.tokens = try Tokens.load(tokensFile)
        if let maxAtoms { c.maxAtoms = maxAtoms }
        c.allowOrigin = allowOrigin
        c.tokenToRead = tokenToRead
        let service = try MolshotService(configuration: c)
        addTeardownBlock { service.close() }
        return Served(service: service, tokens: tokens)
    }

    func test(_ served: Served, _ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        try await Application(router: served.service.router()).test(.router, body)
    }

    static func json(_ r: TestResponse) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.body.readableBytesView)) as? [String: Any], String(buffer: r.body))
    }

    static func pngSize(_ r: TestResponse) -> (Int, Int)? {
        let d = Array(r.body.readableBytesView)
        guard d.count > 24, d.prefix(4) == [0x89, 0x50, 0x4E, 0x47] else { return nil }
        func be(_ o: Int) -> Int { d[o..<(o + 4)].reduce(0) { $0 << 8 | Int($1) } }
        return (be(16), be(20))
    }

    /// A thumbnail file as `molshot thumbnails` names it, for the file with this checksum.
    func thumbnail(checksum: String = "0123456789abcdef", bytes: String = "the bytes of a thumbnail") throws -> String {
        try Self.thumbnail(in: thumbs, checksum: checksum, bytes: bytes)
    }

    static func thumbnail(in folder: URL, checksum: String, bytes: String = "the bytes of a thumbnail") throws -> String {
        let name = "\(checksum)-00000000-spacefill.png"
        try Data(bytes.utf8).write(to: folder.appendingPathComponent(name))
        return name
    }

    // MARK: Molecules

    func testHealthzTheViewerAndTheOpenAPIDocument() async throws {
        try await test(try served([])) { client in
            let health = try await client.execute(uri: "/healthz", method: .get)
            XCTAssertEqual(String(buffer: health.body), "ok\n")
            let page = try await client.execute(uri: "/", method: .get)
            XCTAssertTrue(String(buffer: page.body).contains("<title>Molshot</title>"), "the web viewer is at /")
            let script = try await client.execute(uri: "/app.js", method: .get)
            XCTAssertTrue(script.headers[.contentType]?.contains("javascript") == true)
            let api = try await client.execute(uri: "/openapi.yaml", method: .get)
            let text = String(buffer: api.body)
            XCTAssertTrue(text.hasPrefix("openapi: 3.1.0"))
            // Versioned with the binary; every picture setting (but the CLI's file limit) is a parameter of the image route.
            XCTAssertTrue(text.contains("\n  version: \(MolshotVersion.current)\n"), String(text.prefix(200)))
            let route = try XCTUnwrap(text.components(separatedBy: "  /v1/molecules/{id}/image:").last?.components(separatedBy: "responses:").first)
            for field in RenderRequest.fields where field.name != "max-bytes" {
                XCTAssertTrue(text.contains("    \(field.name): {name: \(field.name), in: query"), field.name)
                XCTAssertTrue(route.contains("#/components/parameters/\(field.name)\""), field.name)
            }
        }
    }

    func testTheMoleculeListPagesAsTheSampleBrowserDid() async throws {
        try await test(try served()) { client in
            let page = try Self.json(try await client.execute(uri: "/v1/molecules?offset=1&limit=1", method: .get))
            XCTAssertEqual(page["total"] as? Int, 3)
            XCTAssertEqual((page["molecules"] as? [[String: Any]])?.map { $0["name"] as? String }, ["TYR"])
        }
    }

    func testMoleculeDetailsGiveAtomsChainsLigandsAndTitle() async throws {
        try await test(try served()) { client in
            let one = try Self.json(try await client.execute(uri: "/v1/molecules/1crn", method: .get))
            XCTAssertEqual(one["atoms"] as? Int, 327)
            let chains = one["chainList"] as? [[String: Any]]
            XCTAssertEqual(chains?.first?["id"] as? String, "A")
            XCTAssertEqual(chains?.first?["residues"] as? Int, 46)
            XCTAssertTrue(((one["metadata"] as? [String: String])?["title"] ?? "").hasPrefix("WATER STRUCTURE"))
            let heme = try Self.json(try await client.execute(uri: "/v1/molecules/heme-site", method: .get))
            XCTAssertEqual((heme["ligands"] as? [[String: Any]])?.map { $0["name"] as? String }, ["HEM"])
        }
    }

    func testAnUnknownMoleculeIs404AndALimitOf0Is400() async throws {
        try await test(try served()) { client in
            let none = try await client.execute(uri: "/v1/molecules/99", method: .get)
            XCTAssertEqual(none.status, .notFound)
            let limit = try await client.execute(uri: "/v1/molecules?limit=0", method: .get)
            XCTAssertEqual(limit.status, .badRequest)
        }
    }

    func testListingsNameEachMoleculesThumbnailAndTakeAnOrder() async throws {
        let s = try served()
        let crambin = try XCTUnwrap(try MoleculeLibrary(path: s.service.configuration.database, create: false).record(id: 1)?.checksum)
        let spacefill = try thumbnail(checksum: crambin)
        let preferred = "\(crambin)-00000000-ball-and-stick.png"
        try Data("b".utf8).write(to: thumbs.appendingPathComponent(preferred))
        try await test(s) { client in
            let byName = try Self.json(try await client.execute(uri: "/v1/molecules?sort=name", method: .get))
            let molecules = try XCTUnwrap(byName["molecules"] as? [[String: Any]])
            XCTAssertEqual(molecules.map { $0["name"] as? String }, ["1crn", "heme-site", "TYR"])
            XCTAssertEqual(molecules[0]["thumbnail"] as? String, "/v1/thumbnails/\(preferred)", "ball-and-stick before \(spacefill)")
            XCTAssertNil(molecules[1]["thumbnail"], "no file, no thumbnail")
            let largest = try Self.json(try await client.execute(uri: "/v1/molecules?sort=atoms", method: .get))
            XCTAssertEqual((largest["molecules"] as? [[String: Any]])?.map { $0["name"] as? String }, ["1crn", "TYR", "heme-site"])
            // Full-text search: authors (AUTHOR), keywords (KEYWDS), ligand names, all words in one molecule.
            for (query, names) in [("teeter", ["1crn"]), ("plant%20seed", ["1crn"]), ("HEM", ["heme-site"]), ("hendrickson%20HEM", [])] {
                let found = try Self.json(try await client.execute(uri: "/v1/molecules?query=\(query)", method: .get))
                XCTAssertEqual((found["molecules"] as? [[String: Any]])?.map { $0["name"] as? String }, names, query)
            }
            let bad = try await client.execute(uri: "/v1/molecules?sort=size", method: .get)
            XCTAssertEqual(bad.status, .badRequest)
            XCTAssertTrue(String(buffer: bad.body).contains("parameter sort must be one of id, name, atoms, newest"), String(buffer: bad.body))
        }
    }

    /// Browser tickets: a token buys one for a path and minutes; it reads there as the token would
    /// (an image under --token-to-read), and nowhere else, not after it expires, not altered.
    func testTicketsLetABrowserReadWhereItCannotSendAHeader() async throws {
        let served = try served(tokenToRead: true)
        let alice = try XCTUnwrap(served.tokens["alice"])
        try await test(served) { client in
            let anonymous = try await client.execute(uri: "/v1/tickets?scope=/v1/molecules/1", method: .post)
            XCTAssertEqual(anonymous.status, .unauthorized)
            let made = try await client.execute(uri: "/v1/tickets?scope=/v1/molecules/1&seconds=60", method: .post,
                                                headers: [.authorization: "Bearer \(alice)"])
            XCTAssertEqual(made.status, .ok)
            let ticket = try XCTUnwrap(try Self.json(made)["ticket"] as? String)
            let without = try await client.execute(uri: "/v1/molecules/1/image?size=64", method: .get)
            XCTAssertEqual(without.status, .unauthorized)
            let with = try await client.execute(uri: "/v1/molecules/1/image?size=64&ticket=\(ticket)", method: .get)
            XCTAssertEqual(with.status, .ok)
            XCTAssertNotNil(Self.pngSize(with))
            let elsewhere = try await client.execute(uri: "/v1/molecules/2/image?size=64&ticket=\(ticket)", method: .get)
            XCTAssertEqual(elsewhere.status, .forbidden)
            XCTAssertTrue(String(buffer: elsewhere.body).contains("the ticket is for"), String(buffer: elsewhere.body))
            var altered = Array(ticket)
            altered[altered.count - 3] = altered[altered.count - 3] == "A" ? "B" : "A"
            let forged = try await client.execute(uri: "/v1/molecules/1/image?size=64&ticket=\(String(altered))", method: .get)
            XCTAssertEqual(forged.status, .forbidden)
            let old = served.service.tickets.issue(name: "alice", scope: "/v1/", seconds: 5, now: Date().timeIntervalSince1970 - 60).ticket
            let expired = try await client.execute(uri: "/v1/molecules/1/image?size=64&ticket=\(old)", method: .get)
            XCTAssertEqual(expired.status, .forbidden)
            XCTAssertTrue(String(buffer: expired.body).contains("expired"), String(buffer: expired.body))
            // Not on routes that write.
            let write = try await client.execute(uri: "/v1/molecules/1?ticket=\(ticket)", method: .delete)
            XCTAssertEqual(write.status, .unauthorized)
            let tooLong = try await client.execute(uri: "/v1/tickets?seconds=99999", method: .post, headers: [.authorization: "Bearer \(alice)"])
            XCTAssertEqual(tooLong.status, .badRequest)
            // A molecule's ticket, asked for by name: that molecule by id and by name, and its live
            // view and replay by either; not another molecule, nor another's live view.
            let record = try Self.json(try await client.execute(uri: "/v1/molecules/1", method: .get, headers: [.authorization: "Bearer \(alice)"]))
            let name = try XCTUnwrap(record["name"] as? String)
            let byName = try await client.execute(uri: "/v1/tickets?scope=/v1/molecules/\(name)&seconds=60", method: .post,
                                                  headers: [.authorization: "Bearer \(alice)"])
            XCTAssertEqual(byName.status, .ok)
            let molecule = try XCTUnwrap(try Self.json(byName)["ticket"] as? String)
            for uri in ["/v1/molecules/1/image?size=64", "/v1/molecules/\(name)/image?size=64", "/v1/molecules/1"] {
                let r = try await client.execute(uri: uri + (uri.contains("?") ? "&" : "?") + "ticket=\(molecule)", method: .get)
                XCTAssertEqual(r.status, .ok, uri + " " + String(buffer: r.body))
            }
            let replay = try await client.execute(uri: "/v1/replay?molecule=\(name)&size=32&ticket=\(molecule)", method: .post,
                                                  body: ByteBuffer(string: "{\"type\":\"header\",\"version\":1,\"viewport\":{\"width\":100,\"height\":100}}\n"))
            XCTAssertEqual(replay.status, .ok, String(buffer: replay.body))
            let other = try await client.execute(uri: "/v1/replay?molecule=2&size=32&ticket=\(molecule)", method: .post, body: ByteBuffer(string: ""))
            XCTAssertEqual(other.status, .forbidden)
            let otherImage = try await client.execute(uri: "/v1/molecules/2/image?size=64&ticket=\(molecule)", method: .get)
            XCTAssertEqual(otherImage.status, .forbidden)
            let spaced = try await client.execute(uri: "/v1/tickets?scope=/v1/molecules/1%20/v1/", method: .post, headers: [.authorization: "Bearer \(alice)"])
            XCTAssertEqual(spaced.status, .badRequest)
        }
        // A molecule's name in a ticket: encoded as a path has it, decoded as a query's molecule= has it.
        XCTAssertEqual(Tickets.moleculeScopes(id: 7, name: "a%b"), ["/v1/molecules/7", "/v1/molecules/a%25b", "molecule=7", "molecule=a%b"])
        // A token taken out of the tokens file: its tickets stop.
        let tickets = Tickets()
        let t = tickets.issue(name: "carol", scope: "/v1/", seconds: 60).ticket
        XCTAssertThrowsError(try tickets.name(of: t, path: "/v1/molecules", tokens: Tokens()))
        // Replicas given one key file take each other's tickets; a key rotated in the file (the
        // new first, the old kept below) keeps the old tickets good and signs with the new; the
        // old key removed, its tickets end. The file is followed while the servers run.
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("molshot-keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let keyFile = dir.appendingPathComponent("ticket.key").path
        let old = String(repeating: "a1", count: 32), new = String(repeating: "b2", count: 32)
        try AtomicFile.write(Array("# replicas' ticket key\n\(old)\n".utf8), to: keyFile)
        let one = try Tickets.load(keyFile: keyFile), two = try Tickets.load(keyFile: keyFile)
        defer { one.stopWatching(); two.stopWatching() }
        let known = Tokens(names: ["h": "carol"])
        let fromOne = one.issue(name: "carol", scope: "/v1/", seconds: 600).ticket
        XCTAssertEqual(try two.name(of: fromOne, path: "/v1/molecules", tokens: known), "carol")
        XCTAssertThrowsError(try Tickets().name(of: fromOne, path: "/v1/molecules", tokens: known), "another key refuses it")
        try AtomicFile.write(Array("\(new)\n\(old)\n".utf8), to: keyFile)
        func eventually(_ done: () -> Bool) { for _ in 0..<40 where !done() { usleep(100_000) } }
        eventually { one.issue(name: "carol", scope: "/v1/", seconds: 60).ticket != Tickets(keys: [Array(old.utf8)]).issue(name: "carol", scope: "/v1/", seconds: 60).ticket }
        let rotated = one.issue(name: "carol", scope: "/v1/", seconds: 600).ticket
        XCTAssertEqual(try Tickets(keys: [Array(new.utf8)]).name(of: rotated, path: "/v1/x", tokens: known), "carol", "signed with the new key")
        XCTAssertEqual(try two.name(of: fromOne, path: "/v1/x", tokens: known), "carol", "the old key's tickets still good")
        try AtomicFile.write(Array("\(new)\n".utf8), to: keyFile)
        eventually { (try? two.name(of: fromOne, path: "/v1/x", tokens: known)) == nil }
        XCTAssertThrowsError(try two.name(of: fromOne, path: "/v1/x", tokens: known), "the old key removed: its tickets end")
        XCTAssertEqual(try two.name(of: rotated, path: "/v1/x", tokens: known), "carol")
        // A short key or an empty file is refused naming the file and line.
        try AtomicFile.write(Array("short\n".utf8), to: keyFile)
        XCTAssertThrowsError(try Tickets.load(keyFile: keyFile)) { XCTAssertTrue("\($0)".contains("\(keyFile):1: a key is 32"), "\($0)") }
        // HMAC-SHA256 against RFC 4231, test case 2.
        XCTAssertEqual(Tickets.hmac(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8)).map { String(format: "%02x", $0) }.joined(),
                       "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    /// A parameter a route does not read is a 400 naming it, with the nearest it takes.
    func testUnknownParametersAreRefusedByName() async throws {
        try await test(try served()) { client in
            let colour = try await client.execute(uri: "/v1/molecules/1/image?size=64&colour=rainbow", method: .get)
            XCTAssertEqual(colour.status, .badRequest)
            XCTAssertTrue(String(buffer: colour.body).contains("takes no parameter colour (did you mean color?)"), String(buffer: colour.body))
            let limit = try await client.execute(uri: "/v1/molecules?limt=3", method: .get)
            XCTAssertEqual(limit.status, .badRequest)
            XCTAssertTrue(String(buffer: limit.body).contains("(did you mean limit?)"), String(buffer: limit.body))
            let none = try await client.execute(uri: "/v1/molecules/1?x=1", method: .get)
            XCTAssertEqual(none.status, .badRequest)
            XCTAssertTrue(String(buffer: none.body).contains("takes no parameter x"), String(buffer: none.body))
            let fine = try await client.execute(uri: "/v1/molecules/1/image?size=64&color=rainbow&assembly=model", method: .get)
            XCTAssertEqual(fine.status, .ok)
            // An unknown path outside /v1/ (the viewer's files) is a JSON error too.
            let nowhere = try await client.execute(uri: "/nowhere.html", method: .get)
            XCTAssertEqual(nowhere.status, .notFound)
            XCTAssertTrue(String(buffer: nowhere.body).contains("no such file or route"), String(buffer: nowhere.body))
        }
    }

    /// A molecule's picture has a strong ETag naming what it draws and Cache-Control; If-None-Match
    /// with it is a 304 with no body; other settings are another ETag.
    func testMoleculeImagesHaveETagsAnd304() async throws {
        try await test(try served()) { client in
            let first = try await client.execute(uri: "/v1/molecules/1/image?size=64", method: .get)
            XCTAssertEqual(first.status, .ok)
            let etag = try XCTUnwrap(first.headers[.eTag])
            XCTAssertTrue(etag.hasPrefix("\"") && etag.hasSuffix("\"") && etag.count == 34, etag)
            XCTAssertEqual(first.headers[.cacheControl], "public, max-age=300")
            let again = try await client.execute(uri: "/v1/molecules/1/image?size=64", method: .get, headers: [.ifNoneMatch: etag])
            XCTAssertEqual(again.status, .notModified)
            XCTAssertEqual(again.body.readableBytes, 0)
            XCTAssertEqual(again.headers[.eTag], etag)
            let listed = try await client.execute(uri: "/v1/molecules/1/image?size=64", method: .get, headers: [.ifNoneMatch: "\"x\", W/\(etag)"])
            XCTAssertEqual(listed.status, .notModified)
            let other = try await client.execute(uri: "/v1/molecules/1/image?size=64&mode=spacefill", method: .get, headers: [.ifNoneMatch: etag])
            XCTAssertEqual(other.status, .ok)
            XCTAssertNotEqual(other.headers[.eTag], etag)
            let head = try await client.execute(uri: "/v1/molecules/1/image?size=64", method: .head)
            XCTAssertEqual(head.status, .ok)
            XCTAssertEqual(head.headers[.eTag], etag)
            // Without --allow-origin no page of another origin may read it.
            let foreign = try await client.execute(uri: "/v1/molecules/1/image?size=64", method: .get, headers: [.origin: "https://example.org"])
            XCTAssertNil(foreign.headers[.accessControlAllowOrigin])
        }
    }

    /// Every JSON answer to a GET has a strong ETag of its bytes and `no-cache`; asked again with it,
    /// 304 with no body; when the library changes, the list's ETag changes with it. HEAD alike.
    func testJSONAnswersHaveETagsAnd304() async throws {
        try await test(try served()) { client in
            for uri in ["/v1/molecules", "/v1/molecules/1", "/v1/molecules/1/sequence", "/v1/pathways", "/healthz"] {
                let first = try await client.execute(uri: uri, method: .get)
                XCTAssertEqual(first.status, .ok, uri)
                guard first.headers[.contentType]?.hasPrefix("application/json") == true else { continue }
                let etag = try XCTUnwrap(first.headers[.eTag], uri)
                XCTAssertEqual(etag.count, 18, etag)
                XCTAssertEqual(first.headers[.cacheControl], "public, no-cache", uri)
                let again = try await client.execute(uri: uri, method: .get, headers: [.ifNoneMatch: etag])
                XCTAssertEqual(again.status, .notModified, uri)
                XCTAssertEqual(again.body.readableBytes, 0, uri)
                let head = try await client.execute(uri: uri, method: .head)
                XCTAssertEqual(head.headers[.eTag], etag, uri)
                let changed = try await client.execute(uri: uri, method: .get, headers: [.ifNoneMatch: "\"0000000000000000\""])
                XCTAssertEqual(changed.status, .ok, uri)
                XCTAssertEqual(changed.body, first.body, uri)
            }
        }
    }

    /// --allow-origin: the origin's pages may read answers (errors too), preflights are answered
    /// before any token is asked for, other origins get no CORS headers.
    func testCrossOriginReadsWhereAllowed() async throws {
        try await test(try served(allowOrigin: "https://viewer.example")) { client in
            let image = try await client.execute(uri: "/v1/molecules/1/image?size=64", method: .get, headers: [.origin: "https://viewer.example"])
            XCTAssertEqual(image.headers[.accessControlAllowOrigin], "https://viewer.example")
            XCTAssertTrue(image.headers[.vary]?.contains("Origin") ?? false, image.headers[.vary] ?? "")
            XCTAssertTrue(image.headers[.accessControlExposeHeaders]?.contains("ETag") ?? false)
            let missing = try await client.execute(uri: "/v1/molecules/99/image", method: .get, headers: [.origin: "https://viewer.example"])
            XCTAssertEqual(missing.status, .notFound)
            XCTAssertEqual(missing.headers[.accessControlAllowOrigin], "https://viewer.example")
            let preflight = try await client.execute(uri: "/v1/molecules", method: .options,
                                                     headers: [.origin: "https://viewer.example", .accessControlRequestMethod: "POST",
                                                               .accessControlRequestHeaders: "authorization"])
            XCTAssertEqual(preflight.status, .noContent)
            XCTAssertEqual(preflight.headers[.accessControlAllowMethods], "GET, POST, HEAD, OPTIONS")
            XCTAssertTrue(preflight.headers[.accessControlAllowHeaders]?.contains("Authorization") ?? false)
            let stranger = try await client.execute(uri: "/v1/molecules/1/image?size=64", method: .get, headers: [.origin: "https://evil.example"])
            XCTAssertNil(stranger.headers[.accessControlAllowOrigin])
        }
        try await test(try served(allowOrigin: "*")) { client in
            let any = try await client.execute(uri: "/v1/molecules", method: .get, headers: [.origin: "https://anywhere.example"])
            XCTAssertEqual(any.headers[.accessControlAllowOrigin], "*")
            XCTAssertFalse(any.headers[.vary]?.contains("Origin") ?? false, "* varies by no origin")
        }
    }

    /// 1A8O (BinaryCIF) is a dimer by its assembly 1: the details list it, pictures draw it by
    /// default and the model on request, an unknown id is a 400 and an assembly past max-atoms a 413.
    func testAssembliesInDetailsAndPictures() async throws {
        try await test(try served(["bcif/1A8O.bcif.gz"])) { client in
            let detail = try Self.json(try await client.execute(uri: "/v1/molecules/1", method: .get))
            let assemblies = try XCTUnwrap(detail["assemblies"] as? [[String: Any]])
            XCTAssertEqual(assemblies.first?["atoms"] as? Int, 1288)
            XCTAssertEqual((detail["modifiedResidues"] as? [[String: Any]])?.first?["name"] as? String, "MSE")
            XCTAssertEqual((detail["entities"] as? [[String: Any]])?.first?["description"] as? String, "HIV CAPSID")
            XCTAssertEqual((detail["chainList"] as? [[String: Any]])?.first?["entity"] as? String, "1")
            XCTAssertTrue((detail["ligands"] as? [Any])?.isEmpty ?? false, "MSE is no ligand")
            let dimer = try await client.execute(uri: "/v1/molecules/1/image?size=96&mode=spacefill", method: .get)
            let model = try await client.execute(uri: "/v1/molecules/1/image?size=96&mode=spacefill&assembly=model", method: .get)
            XCTAssertEqual(dimer.status, .ok)
            XCTAssertEqual(model.status, .ok)
            XCTAssertNotEqual(Array(dimer.body.readableBytesView), Array(model.body.readableBytesView))
            let missing = try await client.execute(uri: "/v1/molecules/1/image?size=96&assembly=9", method: .get)
            XCTAssertEqual(missing.status, .badRequest)
            XCTAssertTrue(String(buffer: missing.body).contains("has no assembly 9"), String(buffer: missing.body))
        }
        try await test(try served(["bcif/1A8O.bcif.gz"], maxAtoms: 1000)) { client in
            let large = try await client.execute(uri: "/v1/molecules/1/image?size=96", method: .get)
            XCTAssertEqual(large.status, .contentTooLarge)
            XCTAssertTrue(String(buffer: large.body).contains("1288 atoms"), String(buffer: large.body))
            let model = try await client.execute(uri: "/v1/molecules/1/image?size=96&assembly=model", method: .get)
            XCTAssertEqual(model.status, .ok)
        }
    }

    /// The entry's image set: each image's caption with a link to the image route, which draws it.
    func testTheImageSetListsCaptionsWithLinksThatDraw() async throws {
        try await test(try served(["1hpv.pdb"])) { client in
            let answer = try Self.json(try await client.execute(uri: "/v1/molecules/1/images?size=96", method: .get))
            XCTAssertEqual(answer["entry"] as? String, "1hpv")
            let images = try XCTUnwrap(answer["images"] as? [[String: Any]])
            XCTAssertEqual(Set(images.compactMap { $0["kind"] as? String }), ["entry", "entity", "ligand", "bfactor"])
            let ligand = try XCTUnwrap(images.first { $0["kind"] as? String == "ligand" })
            XCTAssertEqual(ligand["ligand"] as? String, "478")
            for image in images {
                let link = try XCTUnwrap(image["image"] as? String)
                XCTAssertTrue(link.hasPrefix("/v1/molecules/1/image?") && link.contains("size=96x96"), link)
                let drawn = try await client.execute(uri: link, method: .get)
                XCTAssertEqual(drawn.status, .ok, "\(link): \(String(buffer: drawn.body))")
                XCTAssertEqual(Array(drawn.body.readableBytesView.prefix(4)), [0x89, 0x50, 0x4E, 0x47])
            }
            let bad = try await client.execute(uri: "/v1/molecules/1/images?size=99999", method: .get)
            XCTAssertEqual(bad.status, .badRequest)
        }
    }

    func testASequenceHasOneLetterAResidueWithItsSecondaryStructure() async throws {
        try await test(try served(["1crn.pdb"])) { client in
            let answer = try Self.json(try await client.execute(uri: "/v1/molecules/1crn/sequence", method: .get))
            let chain = try XCTUnwrap((answer["chains"] as? [[String: Any]])?.first)
            XCTAssertEqual(chain["chain"] as? String, "A")
            XCTAssertEqual(chain["first"] as? Int, 1)
            XCTAssertEqual(chain["letters"] as? String, "TTCCPSIVARSNFNVCRLPGTPEAICATYTGCIIIPGATCPGDYAN")
            // The file's two helices (HELIX 1: 7-19, HELIX 2: 23-30) and its sheet's strands (1-4, 32-35), as the
            // library keeps them (entry_facts); before schema 6 a library molecule had DSSP's assignment instead.
            XCTAssertEqual(chain["structure"] as? String, "EEEE--HHHHHHHHHHHHH---HHHHHHHH-EEEE-----------")
        }
    }

    // MARK: Images

    func testAMoleculeImageIsAPNGOfTheAskedSize() async throws {
        try await test(try served()) { client in
            let image = try await client.execute(uri: "/v1/molecules/1/image?size=200x120&mode=spacefill", method: .get)
            XCTAssertEqual(image.status, .ok)
            XCTAssertEqual(image.headers[.contentType], "image/png")
            XCTAssertTrue(Self.pngSize(image)! == (200, 120))
        }
    }

    func testBadImageParametersAre400sNamingTheParameter() async throws {
        try await test(try served()) { client in
            let size = try await client.execute(uri: "/v1/molecules/1/image?size=abc", method: .get)
            XCTAssertEqual(size.status, .badRequest)
            XCTAssertTrue(String(buffer: size.body).contains("parameter size"), String(buffer: size.body))
            let mode = try await client.execute(uri: "/v1/molecules/1/image?mode=cartoonish", method: .get)
            XCTAssertEqual(mode.status, .badRequest)
            let show = try await client.execute(uri: "/v1/molecules/heme-site/image?show=ribbon:%20all", method: .get)
            XCTAssertEqual(show.status, .badRequest)
            XCTAssertTrue(String(buffer: show.body).contains("parameter show must start with a representation"), String(buffer: show.body))
        }
    }

    func testShowDrawsRepresentationsOnSelections() async throws {
        try await test(try served()) { client in
            let uri = "/v1/molecules/heme-site/image?size=64&show=spacefill%20red:%20elem%20Fe&show=sticks:%20not%20elem%20Fe"
            let shown = try await client.execute(uri: uri, method: .get)
            XCTAssertEqual(shown.status, .ok, String(buffer: shown.body))
            let plain = try await client.execute(uri: "/v1/molecules/heme-site/image?size=64&mode=sticks", method: .get)
            XCTAssertNotEqual(Array(shown.body.readableBytesView), Array(plain.body.readableBytesView), "the red iron sphere is drawn")
        }
    }

    func testTheSameImageAgainComesFromTheCacheAndMetricsCountIt() async throws {
        let s = try served()
        try await test(s) { client in
            let first = try await client.execute(uri: "/v1/molecules/1/image?size=200x120&mode=spacefill", method: .get)
            let again = try await client.execute(uri: "/v1/molecules/1/image?size=200x120&mode=spacefill", method: .get)
            XCTAssertEqual(Array(again.body.readableBytesView), Array(first.body.readableBytesView))
            let cached = try FileManager.default.contentsOfDirectory(atPath: s.service.configuration.cache!).filter { $0.hasSuffix(".png") }
            XCTAssertEqual(cached.count, 1)
            let metrics = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
            XCTAssertTrue(metrics.contains("molshot_image_cache_total{result=\"hit\"} 1"), metrics)
            XCTAssertTrue(metrics.contains("molshot_requests_total{route=\"/v1/molecules/{id}/image\",status=\"200\"} 2"), metrics)
            XCTAssertTrue(metrics.contains("molshot_render_queue_depth"))
        }
    }

    // MARK: Uploads and replays

    func testAnUploadGivesAPNGAndTheOpenBISBase64FormOfTheSameBytes() async throws {
        try await test(try served([])) { client in
            let caffeine = ByteBuffer(bytes: try ServiceSafetyTests.fixture("Caffeine.pdb"))
            let png = try await client.execute(uri: "/v1/render?name=caffeine.pdb&size=128", method: .post, body: caffeine)
            XCTAssertEqual(png.status, .ok)
            XCTAssertTrue(Self.pngSize(png)! == (128, 128))
            let json = try await client.execute(uri: "/v1/render?name=caffeine.pdb&size=128", method: .post,
                                                headers: [.accept: "application/json"], body: caffeine)
            let data = try Self.json(json)["DATA"] as? [String: Any]
            XCTAssertEqual(data?["FORMAT"] as? String, "PNG")
            XCTAssertEqual(Data(base64Encoded: data?["BASE64"] as? String ?? ""), Data(png.body.readableBytesView))
        }
    }

    func testABrokenUploadIs400NamingTheFileAndAnEmptyOneIs400() async throws {
        try await test(try served([])) { client in
            let garbage = try await client.execute(uri: "/v1/render?name=broken.pdb", method: .post, body: ByteBuffer(string: "ATOM  garbage\n"))
            XCTAssertEqual(garbage.status, .badRequest)
            XCTAssertTrue(String(buffer: garbage.body).contains("broken.pdb"), String(buffer: garbage.body))
            let empty = try await client.execute(uri: "/v1/render", method: .post)
            XCTAssertEqual(empty.status, .badRequest)
        }
    }

    func testAReplayGivesAnAnimatedPNGWithAFrameForEachFrameEvent() async throws {
        try await test(try served(["1crn.pdb"])) { client in
            let events = """
                {"type":"header","version":1,"viewport":{"width":100,"height":100}}
                {"type":"rotate","t":0.1,"dx":30,"dy":0}
                {"type":"frame","t":0.2}
                {"type":"rotate","t":0.3,"dx":30,"dy":0}
                {"type":"frame","t":0.4}
                """
            let replay = try await client.execute(uri: "/v1/replay?molecule=1crn&size=64", method: .post, body: ByteBuffer(string: events))
            XCTAssertEqual(replay.status, .ok, String(buffer: replay.body))
            let bytes = Data(replay.body.readableBytesView)
            let actl = try XCTUnwrap(bytes.range(of: Data("acTL".utf8)))
            XCTAssertEqual(bytes[actl.upperBound..<(actl.upperBound + 4)].reduce(0) { $0 << 8 | Int($1) }, 3, "two frame events and the final view")
        }
    }

    func testFiguresAreDrawnOnPicturesAndRefusedOnReplays() async throws {
        try await test(try served(["1crn.pdb"])) { client in
            let plain = try await client.execute(uri: "/v1/molecules/1crn/image?size=128&mode=cartoon", method: .get)
            XCTAssertEqual(plain.status, .ok, String(buffer: plain.body))
            let label = "resi%2010%20and%20name%20CA%3A%20%25resn%25resi"
            let labelled = try await client.execute(uri: "/v1/molecules/1crn/image?size=128&mode=cartoon&label=\(label)&scale-bar=true", method: .get)
            XCTAssertEqual(labelled.status, .ok, String(buffer: labelled.body))
            XCTAssertNotEqual(Data(plain.body.readableBytesView), Data(labelled.body.readableBytesView), "the label and bar are drawn")
            let nothing = try await client.execute(uri: "/v1/molecules/1crn/image?size=128&label=resn%20HEM%3A%20x", method: .get)
            XCTAssertEqual(nothing.status, .badRequest)
            XCTAssertTrue(String(buffer: nothing.body).contains("label"), String(buffer: nothing.body))
            let events = "{\"type\":\"header\",\"version\":1,\"viewport\":{\"width\":9,\"height\":9}}\n"
            let replay = try await client.execute(uri: "/v1/replay?molecule=1crn&size=64&label=\(label)", method: .post, body: ByteBuffer(string: events))
            XCTAssertEqual(replay.status, .badRequest)
            XCTAssertTrue(String(buffer: replay.body).contains("parameter label"), String(buffer: replay.body))
        }
    }

    /// `site=` is the binding-site figure on pictures; on a replay (a view's frames) it is drawn
    /// without the labels frames never carry; a site of nothing is a 400 naming it.
    func testASiteIsOneParameterOnPicturesAndReplays() async throws {
        try await test(try served(["1hpv.pdb"])) { client in
            let plain = try await client.execute(uri: "/v1/molecules/1hpv/image?size=256&focus=resn%20478", method: .get)
            let site = try await client.execute(uri: "/v1/molecules/1hpv/image?size=256&site=resn%20478", method: .get)
            XCTAssertEqual(site.status, .ok, String(buffer: site.body))
            XCTAssertEqual(site.headers[.contentType], "image/png")
            XCTAssertNotEqual(Data(plain.body.readableBytesView), Data(site.body.readableBytesView))
            let nothing = try await client.execute(uri: "/v1/molecules/1hpv/image?size=256&site=resn%20XYZ", method: .get)
            XCTAssertEqual(nothing.status, .badRequest)
            XCTAssertTrue(String(buffer: nothing.body).contains("site"), String(buffer: nothing.body))
            let events = "{\"type\":\"header\",\"version\":1,\"viewport\":{\"width\":9,\"height\":9}}\n"
            let replay = try await client.execute(uri: "/v1/replay?molecule=1hpv&size=64&site=resn%20478", method: .post, body: ByteBuffer(string: events))
            XCTAssertEqual(replay.status, .ok, String(buffer: replay.body))
        }
    }

    func testAReplayCanBeAMovie() async throws {
        try await test(try served(["1crn.pdb"])) { client in
            var events = "{\"type\":\"header\",\"version\":1,\"viewport\":{\"width\":100,\"height\":100}}\n"
            for i in 1..<10 { events += "{\"type\":\"rotate\",\"t\":\(Double(i) / 10),\"dx\":20,\"dy\":0}\n" }
            let mp4 = try await client.execute(uri: "/v1/replay?molecule=1crn&size=64&fps=10&format=mp4", method: .post, body: ByteBuffer(string: events))
            XCTAssertEqual(mp4.status, .ok, String(buffer: mp4.body))
            XCTAssertEqual(mp4.headers[.contentType], "video/mp4")
            let bytes = Data(mp4.body.readableBytesView)
            XCTAssertEqual(bytes[4..<8], Data("ftyp".utf8), "an MP4 file")
            let gif = try await client.execute(uri: "/v1/replay?molecule=1crn&size=64&fps=10&format=gif", method: .post, body: ByteBuffer(string: events))
            XCTAssertEqual(gif.status, .ok, String(buffer: gif.body))
            XCTAssertEqual(gif.headers[.contentType], "image/gif")
            XCTAssertEqual(Data(gif.body.readableBytesView).prefix(6), Data("GIF89a".utf8))
            let bad = try await client.execute(uri: "/v1/replay?molecule=1crn&size=64&format=avi", method: .post, body: ByteBuffer(string: events))
            XCTAssertEqual(bad.status, .badRequest)
            XCTAssertTrue(String(buffer: bad.body).contains("format"), String(buffer: bad.body))
            let fast = try await client.execute(uri: "/v1/replay?molecule=1crn&size=64&fps=60&format=gif", method: .post, body: ByteBuffer(string: events))
            XCTAssertEqual(fast.status, .badRequest)
        }
    }

    func testABadEventIs400NamingItsLine() async throws {
        try await test(try served(["1crn.pdb"])) { client in
            let events = "{\"type\":\"header\",\"version\":1,\"viewport\":{\"width\":9,\"height\":9}}\n{\"type\":\"spin\",\"t\":0}\n"
            let bad = try await client.execute(uri: "/v1/replay?molecule=1crn", method: .post, body: ByteBuffer(string: events))
            XCTAssertEqual(bad.status, .badRequest)
            XCTAssertTrue(String(buffer: bad.body).contains("events:2"), String(buffer: bad.body))
        }
    }

    // MARK: Thumbnails

    func testAThumbnailIsTheFileWithAnETagAnImmutableLifeAnd304() async throws {
        let s = try served([])
        let name = try thumbnail()
        try await test(s) { client in
            let first = try await client.execute(uri: "/v1/thumbnails/\(name)", method: .get)
            XCTAssertEqual(first.status, .ok)
            XCTAssertEqual(String(buffer: first.body), "the bytes of a thumbnail")
            XCTAssertEqual(first.headers[.contentType], "image/png")
            XCTAssertTrue(first.headers[.cacheControl]?.contains("immutable") == true)
            let etag = try XCTUnwrap(first.headers[.eTag])
            let same = try await client.execute(uri: "/v1/thumbnails/\(name)", method: .get, headers: [.ifNoneMatch: etag])
            XCTAssertEqual(same.status, .notModified)
            let other = try await client.execute(uri: "/v1/thumbnails/\(name)", method: .get, headers: [.ifNoneMatch: "\"other\""])
            XCTAssertEqual(other.status, .ok)
        }
    }

    func testThumbnailRangesFromTheStartFromTheEndAndPastIt() async throws {
        let s = try served([])
        let name = try thumbnail(bytes: "0123456789abcdefghij")
        try await test(s) { client in
            let head = try await client.execute(uri: "/v1/thumbnails/\(name)", method: .get, headers: [.range: "bytes=0-9"])
            XCTAssertEqual(head.status, .partialContent)
            XCTAssertEqual(String(buffer: head.body), "0123456789")
            XCTAssertEqual(head.headers[.contentRange], "bytes 0-9/20")
            let tail = try await client.execute(uri: "/v1/thumbnails/\(name)", method: .get, headers: [.range: "bytes=-4"])
            XCTAssertEqual(String(buffer: tail.body), "ghij", "a suffix range is the last bytes")
            let past = try await client.execute(uri: "/v1/thumbnails/\(name)", method: .get, headers: [.range: "bytes=999999-"])
            XCTAssertEqual(past.status, .rangeNotSatisfiable)
            XCTAssertEqual(past.headers[.contentRange], "bytes */20")
            let onlyHead = try await client.execute(uri: "/v1/thumbnails/\(name)", method: .head)
            XCTAssertEqual(onlyHead.status, .ok)
            XCTAssertEqual(onlyHead.body.readableBytes, 0)
        }
    }

    func testThumbnailNamesOutsideTheFolderOrAbsentAre404() async throws {
        let s = try served([])
        try Data("not a thumbnail".utf8).write(to: scratch.appendingPathComponent("secret.png"))
        try await test(s) { client in
            for path in ["nothing.png", "..%2Flibrary.sqlite", "..%2Fsecret.png", "%2E%2E%2Fsecret.png", ".hidden.png"] {
                let r = try await client.execute(uri: "/v1/thumbnails/\(path)", method: .get)
                XCTAssertEqual(r.status, .notFound, path)
            }
        }
    }

    // MARK: Pathways

    func testPathwaysAreListedDrawnAndTiled() async throws {
        try await test(try served([])) { client in
            let list = try Self.json(try await client.execute(uri: "/v1/pathways", method: .get))
            XCTAssertTrue((list["pathways"] as? [[String: Any]])?.contains { $0["id"] as? String == "sbgn_glycolysis" } == true)
            let map = try await client.execute(uri: "/v1/pathways/sbgn_glycolysis/image?size=300", method: .get)
            XCTAssertEqual(map.status, .ok)
            XCTAssertEqual(Self.pngSize(map)?.0, 300)
            let tile = try await client.execute(uri: "/v1/pathways/sbgn_glycolysis/tiles/1/0/0.png", method: .get)
            XCTAssertTrue(Self.pngSize(tile)! == (256, 256))
            // Strong ETags naming the map file's bytes and what is drawn of it; 304 before drawing.
            for (uri, response) in [("/v1/pathways/sbgn_glycolysis/tiles/1/0/0.png", tile), ("/v1/pathways/sbgn_glycolysis/image?size=300", map)] {
                let etag = try XCTUnwrap(response.headers[.eTag], uri)
                XCTAssertEqual(response.headers[.cacheControl], "public, max-age=3600")
                let again = try await client.execute(uri: uri, method: .get, headers: [.ifNoneMatch: etag])
                XCTAssertEqual(again.status, .notModified, uri)
                XCTAssertEqual(again.body.readableBytes, 0, uri)
            }
            let other = try await client.execute(uri: "/v1/pathways/sbgn_glycolysis/tiles/1/1/0.png", method: .get)
            XCTAssertNotEqual(other.headers[.eTag], tile.headers[.eTag])
            let bigger = try await client.execute(uri: "/v1/pathways/sbgn_glycolysis/image?size=400", method: .get,
                                                  headers: [.ifNoneMatch: map.headers[.eTag] ?? ""])
            XCTAssertEqual(bigger.status, .ok)
        }
    }

    func testPathwayErrorsAre404ForWhatIsNotThereAnd400ForBadValues() async throws {
        try await test(try served([])) { client in
            for (path, status) in [("/v1/pathways/sbgn_glycolysis/tiles/1/9/0.png", HTTPResponse.Status.notFound),
                                   ("/v1/pathways/none/image", .notFound), ("/v1/pathways/sbgn_glycolysis/image?region=1,2", .badRequest),
                                   ("/v1/pathways/sbgn_glycolysis/node?x=-100000&y=0", .notFound),
                                   ("/v1/pathways/sbgn_glycolysis/node?x=abc&y=0", .badRequest),
                                   ("/v1/pathways/sbgn_glycolysis/image?size=100&relations=maybe", .badRequest),
                                   ("/v1/pathways/sbgn_glycolysis/image?size=100&relations=true", .ok)] {
                let r = try await client.execute(uri: path, method: .get)
                XCTAssertEqual(r.status, status, path)
            }
        }
    }

    func testAPathwayGivesItsTilePyramidAndWhatATapHits() async throws {
        try await test(try served([])) { client in
            let info = try Self.json(try await client.execute(uri: "/v1/pathways/sbgn_glycolysis", method: .get))
            let levels = try XCTUnwrap(info["levels"] as? [[String: Any]])
            XCTAssertEqual(levels.first?["columns"] as? Int, 1)
            XCTAssertEqual((levels[1]["scale"] as? Double ?? 0) / (levels[0]["scale"] as? Double ?? 1), 2, accuracy: 1e-9)
            // DHA-P's glyph: bbox x 960, y 40, 60 x 60; its center.
            let node = try Self.json(try await client.execute(uri: "/v1/pathways/sbgn_glycolysis/node?x=990&y=70", method: .get))
            XCTAssertEqual(node["id"] as? String, "glyph5")
            XCTAssertEqual(node["kind"] as? String, "metabolite")
        }
    }

    func testNodesAreFoundByNameAndATappedNodesNeighboursAreNamed() async throws {
        try await test(try served([])) { client in
            let found = try Self.json(try await client.execute(uri: "/v1/pathways/sbgn_glycolysis/nodes?query=GLUCOSE&limit=2", method: .get))
            let nodes = try XCTUnwrap(found["nodes"] as? [[String: Any]])
            XCTAssertEqual(nodes.map { $0["id"] as? String }, ["glyph0", "glyph1"], "names that begin with the text, in name order")
            XCTAssertEqual(nodes.first?["x"] as? Double, 120)
            let none = try await client.execute(uri: "/v1/pathways/sbgn_glycolysis/nodes", method: .get)
            XCTAssertEqual(none.status, .badRequest)
            let tapped = try Self.json(try await client.execute(uri: "/v1/pathways/sbgn_glycolysis/node?x=990&y=70", method: .get))
            let linked = try XCTUnwrap(tapped["linked"] as? [[String: Any]])
            XCTAssertEqual(linked.map { $0["kind"] as? String }, ["reaction", "reaction"])
            XCTAssertTrue(linked.allSatisfy { ($0["name"] as? String ?? "").contains("DHA-P") }, "a nameless reaction is read by its species: \(linked)")
        }
    }

    /// An Escher metabolite's neighbours are the reactions its segments belong to, by name, not
    /// the markers those segments meet at ("1577021 (marker)").
    func testAnEscherMetabolitesNeighboursAreItsReactions() async throws {
        try await test(try served([])) { client in
            // D-Erythrose 4-phosphate (e4p_c) at (1460, 930).
            let tapped = try Self.json(try await client.execute(uri: "/v1/pathways/escher_recon1_glycolysis_tca_ppp/node?x=1460&y=930", method: .get))
            XCTAssertEqual(tapped["label"] as? String, "e4p_c")
            let linked = try XCTUnwrap(tapped["linked"] as? [[String: Any]])
            XCTAssertFalse(linked.isEmpty)
            XCTAssertTrue(linked.allSatisfy { $0["kind"] as? String == "reaction" }, "\(linked)")
            XCTAssertTrue(linked.allSatisfy { !($0["name"] as? String ?? "").allSatisfy(\.isNumber) }, "named, not an id: \(linked)")
        }
    }

    // MARK: Tokens and private molecules

    func testAWriteNeedsAKnownToken() async throws {
        let s = try served([])
        try await test(s) { client in
            let crambin = ByteBuffer(bytes: try ServiceSafetyTests.fixture("1crn.pdb"))
            let none = try await client.execute(uri: "/v1/molecules?name=1crn.pdb", method: .post, body: crambin)
            XCTAssertEqual(none.status, .unauthorized)
            let wrong = try await client.execute(uri: "/v1/molecules?name=1crn.pdb", method: .post, headers: [.authorization: "Bearer nonsense"], body: crambin)
            XCTAssertEqual(wrong.status, .forbidden)
            let alice = try await client.execute(uri: "/v1/molecules?name=1crn.pdb", method: .post, headers: s.auth("alice"), body: crambin)
            XCTAssertEqual(alice.status, .created, String(buffer: alice.body))
            let twice = try await client.execute(uri: "/v1/molecules?name=1crn.pdb", method: .post, headers: s.auth("alice"), body: crambin)
            XCTAssertEqual(twice.status, .ok, "the same file again is the molecule already there")
        }
    }

    func testAPrivateMoleculeAndItsThumbnailsAreSeenOnlyByItsOwner() async throws {
        let s = try served([])
        let thumbs = self.thumbs
        try await test(s) { client in
            let crambin = ByteBuffer(bytes: try ServiceSafetyTests.fixture("1crn.pdb"))
            let added = try await client.execute(uri: "/v1/molecules?name=1crn.pdb&private=true", method: .post, headers: s.auth("alice"), body: crambin)
            let id = try XCTUnwrap(try Self.json(added)["id"] as? Int)
            let checksum = try XCTUnwrap(try MoleculeLibrary(path: s.service.configuration.database, create: false).record(id: id)?.checksum)
            let name = try Self.thumbnail(in: thumbs, checksum: checksum)
            for (who, seen) in [(nil, false), ("bob", false), ("alice", true)] as [(String?, Bool)] {
                let headers = who.map { s.auth($0) } ?? [:]
                let list = try Self.json(try await client.execute(uri: "/v1/molecules", method: .get, headers: headers))
                XCTAssertEqual(list["total"] as? Int, seen ? 1 : 0, "listed and counted for \(who ?? "anonymous")")
                for path in ["/v1/molecules/\(id)", "/v1/molecules/\(id)/image?size=64", "/v1/molecules/1crn", "/v1/thumbnails/\(name)"] {
                    let r = try await client.execute(uri: path, method: .get, headers: headers)
                    XCTAssertEqual(r.status, seen ? .ok : .notFound, "\(path) for \(who ?? "anonymous")")
                }
            }
        }
    }

    /// A token taken out of the tokens file of a running server is refused from then on, bearer
    /// and the tickets it made alike; the tokens left still work.
    func testATokenRemovedFromTheFileIsRefusedWhileTheServerRuns() async throws {
        let s = try served(tokenToRead: true)
        let tokensFile = scratch.appendingPathComponent("tokens").path
        try await test(s) { client in
            let made = try await client.execute(uri: "/v1/tickets?scope=/v1/molecules/1&seconds=60", method: .post, headers: s.auth("alice"))
            let ticket = try XCTUnwrap(try Self.json(made)["ticket"] as? String)
            let before = try await client.execute(uri: "/v1/molecules", method: .get, headers: s.auth("alice"))
            XCTAssertEqual(before.status, .ok)
            // The file without alice's line, written whole and renamed, as an operator's tool would.
            let kept = try String(contentsOfFile: tokensFile, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("alice ") }
            try AtomicFile.write(Array((kept.joined(separator: "\n") + "\n").utf8), to: tokensFile)
            var status = HTTPResponse.Status.ok
            for _ in 0..<40 where status == .ok {
                try await Task.sleep(nanoseconds: 100_000_000)
                status = try await client.execute(uri: "/v1/molecules", method: .get, headers: s.auth("alice")).status
            }
            XCTAssertEqual(status, .forbidden, "alice's token still read after its line went")
            let byTicket = try await client.execute(uri: "/v1/molecules/1/image?size=64&ticket=\(ticket)", method: .get)
            XCTAssertEqual(byTicket.status, .forbidden)
            let delete = try await client.execute(uri: "/v1/molecules/1", method: .delete, headers: s.auth("alice"))
            XCTAssertEqual(delete.status, .forbidden)
            XCTAssertTrue(String(buffer: delete.body).contains("token"), String(buffer: delete.body))
            let bob = try await client.execute(uri: "/v1/molecules", method: .get, headers: s.auth("bob"))
            XCTAssertEqual(bob.status, .ok, "the tokens left still work")
        }
    }

    /// A private molecule's picture is the owner's, in no shared cache, fetched by token or ticket;
    /// a public one's is public. Where one origin is allowed, every answer varies by Origin.
    func testPrivatePicturesAreNotForSharedCachesAndAnswersVaryByOrigin() async throws {
        let s = try served(["TYR.sdf"], allowOrigin: "https://viewer.example")
        try await test(s) { client in
            let added = try await client.execute(uri: "/v1/molecules?name=1crn.pdb&private=true", method: .post, headers: s.auth("alice"),
                                                 body: ByteBuffer(bytes: try ServiceSafetyTests.fixture("1crn.pdb")))
            let id = try XCTUnwrap(try Self.json(added)["id"] as? Int)
            let own = try await client.execute(uri: "/v1/molecules/\(id)/image?size=64", method: .get, headers: s.auth("alice"))
            XCTAssertEqual(own.status, .ok)
            XCTAssertEqual(own.headers[.cacheControl], "private, max-age=300")
            let made = try await client.execute(uri: "/v1/tickets?scope=/v1/molecules/\(id)&seconds=60", method: .post, headers: s.auth("alice"))
            let ticket = try XCTUnwrap(try Self.json(made)["ticket"] as? String)
            let byTicket = try await client.execute(uri: "/v1/molecules/\(id)/image?size=64&ticket=\(ticket)", method: .get)
            XCTAssertEqual(byTicket.status, .ok)
            XCTAssertEqual(byTicket.headers[.cacheControl], "private, max-age=300")
            var again = s.auth("alice")
            again[.ifNoneMatch] = try XCTUnwrap(own.headers[.eTag])
            let notModified = try await client.execute(uri: "/v1/molecules/\(id)/image?size=64", method: .get, headers: again)
            XCTAssertEqual(notModified.status, .notModified)
            XCTAssertEqual(notModified.headers[.cacheControl], "private, max-age=300")
            let open = try await client.execute(uri: "/v1/molecules/1/image?size=64", method: .get)
            XCTAssertEqual(open.headers[.cacheControl], "public, max-age=300")
            for origin in [nil, "https://viewer.example", "https://evil.example"] as [String?] {
                let r = try await client.execute(uri: "/v1/molecules/1/image?size=64", method: .get, headers: origin.map { [.origin: $0] } ?? [:])
                let vary = r.headers[.vary] ?? ""
                XCTAssertTrue(vary.contains("Origin") && vary.contains("Authorization"), "\(origin ?? "no origin"): Vary \(vary)")
                let list = try await client.execute(uri: "/v1/molecules", method: .get, headers: origin.map { [.origin: $0] } ?? [:])
                XCTAssertTrue(list.headers[.vary]?.contains("Origin") ?? false, "\(origin ?? "no origin"): list Vary \(list.headers[.vary] ?? "")")
            }
        }
    }

    /// A library damaged in a middle page: the routes that read it say so, naming the library,
    /// with a 500 (the server's fault, not the request's); the damage is logged once.
    func testADamagedLibraryIsNamedNotABare500() async throws {
        let db = scratch.appendingPathComponent("damaged.sqlite").path
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        do {
            let lib = try MoleculeLibrary(path: db)
            _ = try lib.importBytes(try ServiceSafetyTests.fixture("1hpv.pdb"), source: "1hpv.pdb", name: "1hpv",
                                    perception: try BondPerception.standard(), owner: nil, isPrivate: false)
            try lib.database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            // The pages of the stored files and compact models (SQLite's dbstat), not the schema's.
            let pages = try lib.database.statement("SELECT pageno FROM dbstat WHERE name IN ('originals', 'compact_models') AND pagetype != 'internal'").all { $0.int(0) }
            XCTAssertGreaterThan(pages.count, 2)
            let pageSize = try lib.database.statement("PRAGMA page_size").all { $0.int(0) }[0]
            let handle = try XCTUnwrap(FileHandle(forUpdatingAtPath: db))
            for page in pages {
                try handle.seek(toOffset: UInt64((page - 1) * pageSize))
                handle.write(Data(repeating: 0x41, count: pageSize))
            }
            try handle.close()
        }
        var c = ServiceConfiguration(database: db)
        c.cache = nil
        let service = try MolshotService(configuration: c)
        addTeardownBlock { service.close() }
        try await Application(router: service.router()).test(.router) { client in
            for path in ["/v1/molecules/1/sequence", "/v1/molecules/1/image?size=64", "/v1/molecules/1"] {
                let r = try await client.execute(uri: path, method: .get)
                XCTAssertEqual(r.status, .internalServerError, "\(path): \(String(buffer: r.body))")
                XCTAssertTrue(String(buffer: r.body).contains("molecule library is damaged"), "\(path): \(String(buffer: r.body))")
            }
        }
    }

    func testTheSameBytesFromTwoOwnersAreTwoMoleculesEachFindingTheirOwn() async throws {
        let s = try served([])
        try await test(s) { client in
            let crambin = ByteBuffer(bytes: try ServiceSafetyTests.fixture("1crn.pdb"))
            var ids: [String: Int] = [:]
            for who in ["alice", "bob"] {
                let r = try await client.execute(uri: "/v1/molecules?name=1crn.pdb&private=true", method: .post, headers: s.auth(who), body: crambin)
                XCTAssertEqual(r.status, .created, "\(who): \(String(buffer: r.body))")
                ids[who] = try XCTUnwrap(try Self.json(r)["id"] as? Int)
            }
            XCTAssertNotEqual(ids["alice"], ids["bob"])
            for who in ["alice", "bob"] {
                let found = try Self.json(try await client.execute(uri: "/v1/molecules/1crn", method: .get, headers: s.auth(who)))
                XCTAssertEqual(found["id"] as? Int, ids[who])
            }
        }
    }

    func testOnlyTheOwnerRemovesAMoleculeAndItsThumbnailsGoWithIt() async throws {
        let s = try served([])
        let thumbs = self.thumbs
        try await test(s) { client in
            let added = try await client.execute(uri: "/v1/molecules?name=1crn.pdb&private=true", method: .post, headers: s.auth("alice"),
                                                 body: ByteBuffer(bytes: try ServiceSafetyTests.fixture("1crn.pdb")))
            let id = try XCTUnwrap(try Self.json(added)["id"] as? Int)
            let checksum = try XCTUnwrap(try MoleculeLibrary(path: s.service.configuration.database, create: false).record(id: id)?.checksum)
            let name = try Self.thumbnail(in: thumbs, checksum: checksum)
            let bobs = try await client.execute(uri: "/v1/molecules/\(id)", method: .delete, headers: s.auth("bob"))
            XCTAssertEqual(bobs.status, .notFound, "bob cannot see it, so cannot remove it")
            let tyr = try await client.execute(uri: "/v1/molecules?name=TYR.sdf", method: .post, headers: s.auth("bob"),
                                               body: ByteBuffer(bytes: try ServiceSafetyTests.fixture("TYR.sdf")))
            XCTAssertEqual(tyr.status, .created)
            let alicesTry = try await client.execute(uri: "/v1/molecules/TYR", method: .delete, headers: s.auth("alice"))
            XCTAssertEqual(alicesTry.status, .forbidden, "bob's public molecule is seen by alice but not hers to remove")
            let removed = try await client.execute(uri: "/v1/molecules/\(id)", method: .delete, headers: s.auth("alice"))
            XCTAssertEqual(removed.status, .noContent)
            XCTAssertFalse(FileManager.default.fileExists(atPath: thumbs.appendingPathComponent(name).path),
                           "a removed private molecule's thumbnails do not become everyone's")
        }
    }

    func testARemovedNewestIdIsNotGivenAgain() async throws {
        let s = try served([])
        try await test(s) { client in
            let tyr = ByteBuffer(bytes: try ServiceSafetyTests.fixture("TYR.sdf"))
            let first = try await client.execute(uri: "/v1/molecules?name=TYR.sdf", method: .post, headers: s.auth("bob"), body: tyr)
            let id = try XCTUnwrap(try Self.json(first)["id"] as? Int)
            let gone = try await client.execute(uri: "/v1/molecules/\(id)", method: .delete, headers: s.auth("bob"))
            XCTAssertEqual(gone.status, .noContent)
            let again = try await client.execute(uri: "/v1/molecules?name=TYR.sdf", method: .post, headers: s.auth("bob"), body: tyr)
            XCTAssertEqual(try Self.json(again)["id"] as? Int, id + 1)
        }
    }

    /// No route does blocking work (disk, SQLite, pipes, hashing megabytes) on a thread of Swift's
    /// cooperative pool: every request below goes through the router, and debug builds note any
    /// such call (`BlockingCheck`). The check itself can fail: a file read from this test's task is noted.
    func testNoRouteBlocksACooperativeThread() async throws {
        let served = try served()
        let name = try thumbnail()
        let token = served.tokens["alice"]!
        BlockingCheck.noted.withLock { $0 = [] }
        _ = try FileInput.readAll(path: ServiceSafetyTests.root.appendingPathComponent("Tests/Fixtures/1crn.pdb").path)
        XCTAssertEqual(BlockingCheck.noted.withLock { $0 }.count, 1, "a read on a task's thread is noted")
        BlockingCheck.noted.withLock { $0 = [] }
        let upload = try ServiceSafetyTests.fixture("1crn.pdb"), heme = try ServiceSafetyTests.fixture("Heme.sdf")
        try await test(served) { client in
            for uri in ["/healthz", "/openapi.yaml", "/metrics", "/v1/molecules", "/v1/molecules/1crn", "/v1/molecules/1crn/sequence",
                        "/v1/molecules/1crn/images", "/v1/molecules/1crn/image?size=64", "/v1/molecules/1crn/image?size=64",
                        "/v1/thumbnails/\(name)", "/v1/pathways", "/v1/pathways/sbgn_glycolysis", "/v1/pathways/sbgn_glycolysis/image?size=64",
                        "/v1/pathways/sbgn_glycolysis/tiles/0/0/0.png"] {
                let r = try await client.execute(uri: uri, method: .get)
                XCTAssertEqual(r.status, .ok, uri)
            }
            let rendered = try await client.execute(uri: "/v1/render?size=64&name=1crn.pdb", method: .post, body: ByteBuffer(bytes: upload))
            XCTAssertEqual(rendered.status, .ok)
            let imported = try await client.execute(uri: "/v1/molecules?name=Heme.sdf", method: .post,
                                                    headers: [.authorization: "Bearer \(token)"], body: ByteBuffer(bytes: heme))
            XCTAssertEqual(imported.status, .created, String(buffer: imported.body))
            let id = try XCTUnwrap(try Self.json(imported)["id"] as? Int)
            let removed = try await client.execute(uri: "/v1/molecules/\(id)", method: .delete, headers: [.authorization: "Bearer \(token)"])
            XCTAssertEqual(removed.status, .noContent)
            let entities = try await client.execute(uri: "/v1/entities", method: .post, body: ByteBuffer(string: #"{"requestKey": "CATEGORIES"}"#))
            XCTAssertEqual(entities.status, .ok)
            let events = "{\"type\":\"header\",\"version\":1,\"viewport\":{\"width\":9,\"height\":9}}\n"
            let replay = try await client.execute(uri: "/v1/replay?molecule=1crn&size=32", method: .post, body: ByteBuffer(string: events))
            XCTAssertEqual(replay.status, .ok, String(buffer: replay.body))
        }
        XCTAssertEqual(BlockingCheck.noted.withLock { $0 }, [], "blocking calls on a cooperative thread")
    }

    /// The file a molecule was read from comes back as it was, typed, with its checksum as the ETag;
    /// a private molecule's is as absent as the molecule.
    func testAMoleculesFileIsTheFileItWasReadFrom() async throws {
        let served = try served()
        let token = served.tokens["alice"]!
        let crambin = try ServiceSafetyTests.fixture("1crn.pdb")
        try await test(served) { client in
            let file = try await client.execute(uri: "/v1/molecules/1crn/file", method: .get)
            XCTAssertEqual(file.status, .ok)
            XCTAssertEqual(Array(file.body.readableBytesView), crambin)
            XCTAssertEqual(file.headers[.contentType], "chemical/x-pdb")
            XCTAssertNil(file.headers[.contentDisposition])
            let etag = try XCTUnwrap(file.headers[.eTag])
            let again = try await client.execute(uri: "/v1/molecules/1crn/file", method: .get, headers: [.ifNoneMatch: etag])
            XCTAssertEqual(again.status, .notModified)
            let saved = try await client.execute(uri: "/v1/molecules/TYR/file?download=true", method: .get)
            XCTAssertEqual(saved.headers[.contentDisposition], "attachment; filename=\"TYR.sdf\"")
            XCTAssertEqual(saved.headers[.contentType], "chemical/x-mdl-sdfile")
            let bad = try await client.execute(uri: "/v1/molecules/1crn/file?download=maybe", method: .get)
            XCTAssertEqual(bad.status, .badRequest)
            XCTAssertTrue(String(buffer: bad.body).contains("download"), String(buffer: bad.body))
            let heme = try ServiceSafetyTests.fixture("Heme.sdf")
            let imported = try await client.execute(uri: "/v1/molecules?name=Heme.sdf&private=true", method: .post,
                                                    headers: [.authorization: "Bearer \(token)"], body: ByteBuffer(bytes: heme))
            let id = try XCTUnwrap(try Self.json(imported)["id"] as? Int)
            let anonymous = try await client.execute(uri: "/v1/molecules/\(id)/file", method: .get)
            XCTAssertEqual(anonymous.status, .notFound)
            let owner = try await client.execute(uri: "/v1/molecules/\(id)/file", method: .get, headers: [.authorization: "Bearer \(token)"])
            XCTAssertEqual(Array(owner.body.readableBytesView), heme)
            XCTAssertTrue(owner.headers[.cacheControl]?.hasPrefix("private") == true)
        }
    }
}

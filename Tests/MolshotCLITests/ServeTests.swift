import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Glibc
import TestSupport
import XCTest

/// A `molshot serve` started for real on 127.0.0.1 (a free port) over a scratch folder, stopped
/// and removed by `stop`.
final class ServeHarness {
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("molshot-serve-\(UUID().uuidString)")
    var servers: [Process] = []

    init() throws { try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true) }

    func stop() {
        for s in servers where s.isRunning {
            s.terminate()
            s.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: scratch)
    }

    var db: String { scratch.appendingPathComponent("library.sqlite").path }

    /// A harness whose library holds crambin (library id 1), as the session and hostile-load tests start.
    static func withCrambin() throws -> ServeHarness {
        let harness = try ServeHarness()
        let r = try MolshotBinary.run(["library", "import", "Tests/Fixtures/1crn.pdb", "--db", harness.db])
        XCTAssertEqual(r.status, 0, r.stderr)
        return harness
    }

    /// Starts a server and gives its base URL; with `addressSpaceMB`, under that address-space
    /// limit (prlimit), which its render processes inherit as their ceiling.
    func start(_ extra: [String] = [], addressSpaceMB: Int? = nil) throws -> String {
        // serve opens only a library that is there: make an empty one first.
        if !FileManager.default.fileExists(atPath: db) { _ = try MolshotBinary.run(["library", "create", "--db", db]) }
        let p = Process()
        p.executableURL = TestBinary.molshot
        p.arguments = ["serve", "--port", "0", "--db", db, "--pathways", "Tests/Fixtures/pathways"] + extra
        if let addressSpaceMB {
            // prlimit sets the limit and then becomes molshot (exec): the pid is the server's.
            p.arguments = ["--as=\(addressSpaceMB << 20)", TestBinary.molshot.path] + p.arguments!
            p.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
        }
        p.currentDirectoryURL = InfoCommandTests.root
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try p.run()
        servers.append(p)
        var line = Data()
        while !line.contains(0x0A) {
            let chunk = out.fileHandleForReading.availableData
            guard !chunk.isEmpty else { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self)
        let port = try XCTUnwrap(Int(text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ":").last ?? ""), text)
        return "http://127.0.0.1:\(port)"
    }
}

/// `molshot serve` started for real on 127.0.0.1 (a free port) and asked over HTTP.
final class ServeTests: GLTestCase {
    var harness: ServeHarness!

    override func setUpWithError() throws {
        try super.setUpWithError()
        harness = try ServeHarness()
    }

    override func tearDown() { harness.stop() }

    var scratch: URL { harness.scratch }
    var db: String { harness.db }
    var thumbs: String { scratch.appendingPathComponent("thumbs").path }

    func start(_ extra: [String] = []) throws -> String { try harness.start(extra) }

    /// A tokens file with a token for each name (`molshot serve token add`), and the tokens.
    func tokens(_ names: [String]) throws -> (file: String, tokens: [String: String]) {
        let file = scratch.appendingPathComponent("tokens.txt").path
        var token: [String: String] = [:]
        for who in names {
            let r = try MolshotBinary.run(["serve", "token", "add", who, "--tokens", file])
            XCTAssertEqual(r.status, 0, r.stderr)
            token[who] = r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return (file, token)
    }

    struct Answer {
        var status: Int
        var headers: [String: String]
        var body: Data
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    func call(_ url: String, method: String = "GET", body: Data? = nil, headers: [String: String] = [:]) throws -> Answer {
        try ServeTests.call(url, method: method, body: body, headers: headers)
    }

    static func call(_ url: String, method: String = "GET", body: Data? = nil, headers: [String: String] = [:]) throws -> Answer {
        var request = URLRequest(url: URL(string: url)!, timeoutInterval: 60)
        request.httpMethod = method
        request.httpBody = body
        for (k, v) in headers { request.setValue(v, forHTTPHeaderField: k) }
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: Answer?
        nonisolated(unsafe) var failure: Error?
        // A session of its own: no shared per-host connection limit holds requests back.
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        session.dataTask(with: request) { data, response, error in
            if let error { failure = error } else if let r = response as? HTTPURLResponse {
                var h: [String: String] = [:]
                for (k, v) in r.allHeaderFields { h[String(describing: k).lowercased()] = String(describing: v) }
                result = Answer(status: r.statusCode, headers: h, body: data ?? Data())
            }
            done.signal()
        }.resume()
        done.wait()
        if let failure { throw failure }
        guard let result else { throw URLError(.badServerResponse) }
        return result
    }

    func pngSize(_ d: Data) -> (Int, Int)? { Self.pngSizeOf(d) }

    static func pngSizeOf(_ d: Data) -> (Int, Int)? {
        guard d.count > 24, d.prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]) else { return nil }
        func be(_ o: Int) -> Int { d[o..<(o + 4)].reduce(0) { $0 << 8 | Int($1) } }
        return (be(16), be(20))
    }

    /// What the routes do is tested in-process (ServiceTests/RouteTests); here the binary itself
    /// answers over TCP: its options reach the service, a library image, an upload with a token
    /// from `serve token add` (which keeps only hashes), a thumbnail `molshot thumbnails` made.
    func testTheBinaryServesImagesUploadsAndThumbnailsOverTCP() throws {
        XCTAssertEqual(try MolshotBinary.run(["library", "import", "Tests/Fixtures/1crn.pdb", "--db", db]).status, 0)
        let made = try MolshotBinary.run(["thumbnails", "Tests/Fixtures/1crn.pdb", "-o", thumbs, "--size", "64"])
        XCTAssertEqual(made.status, 0, made.stderr)
        let name = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: thumbs).first { $0.hasSuffix(".png") && !$0.hasPrefix("contact") })
        let (tokensFile, token) = try tokens(["alice"])
        XCTAssertFalse(try String(contentsOfFile: tokensFile, encoding: .utf8).contains(token["alice"]!), "only hashes are kept")
        let base = try start(["--tokens", tokensFile, "--thumbnails", thumbs, "--cache", scratch.appendingPathComponent("cache").path])
        XCTAssertEqual(try call("\(base)/healthz").text, "ok\n")
        let image = try call("\(base)/v1/molecules/1/image?size=200x120&mode=spacefill")
        XCTAssertEqual(image.status, 200)
        XCTAssertTrue(pngSize(image.body)! == (200, 120))
        XCTAssertEqual(try call("\(base)/v1/molecules/1/image?size=200x120&mode=spacefill").body, image.body, "again, from the cache")
        let tyr = try Data(contentsOf: InfoCommandTests.root.appendingPathComponent("Tests/Fixtures/TYR.sdf"))
        XCTAssertEqual(try call("\(base)/v1/molecules?name=TYR.sdf", method: "POST", body: tyr).status, 401)
        XCTAssertEqual(try call("\(base)/v1/molecules?name=TYR.sdf", method: "POST", body: tyr,
                                headers: ["Authorization": "Bearer \(token["alice"]!)"]).status, 201)
        let thumbnail = try call("\(base)/v1/thumbnails/\(name)")
        XCTAssertEqual(thumbnail.body, try Data(contentsOf: URL(fileURLWithPath: "\(thumbs)/\(name)")))
        XCTAssertEqual(try call("\(base)/v1/thumbnails/\(name)", headers: ["If-None-Match": thumbnail.headers["etag"] ?? ""]).status, 304)
        XCTAssertTrue(pngSize(try call("\(base)/v1/pathways/sbgn_glycolysis/tiles/1/0/0.png").body)! == (256, 256))
    }

    /// Thumbnails made of 1crn (`modes`, 64 px) and their names, in the modes' order.
    func thumbnailNames(_ modes: String = "ball-and-stick,spacefill") throws -> [String] {
        let made = try MolshotBinary.run(["thumbnails", "Tests/Fixtures/1crn.pdb", "-o", thumbs, "--size", "64", "--mode", modes])
        XCTAssertEqual(made.status, 0, made.stderr)
        let names = try FileManager.default.contentsOfDirectory(atPath: thumbs).filter { $0.hasSuffix(".png") && !$0.hasPrefix("contact") }
        return modes.split(separator: ",").compactMap { mode in names.first { $0.hasSuffix("-\(mode).png") } }
    }

    /// How many requests the event loop answered itself, from /metrics.
    func eventLoopAnswers(_ base: String) throws -> Int {
        let port = UInt16(try XCTUnwrap(URL(string: base)?.port))
        let line = try XCTUnwrap(try Self.exchange(port, ["GET /metrics"]).answers.first).text.split(separator: "\n").first { $0.hasPrefix("molshot_event_loop_answers_total ") }
        return Int(try XCTUnwrap(line).split(separator: " ").last ?? "") ?? -1
    }

    /// A thumbnail in memory asked for with no token, ticket or query is answered on the event
    /// loop (`ReadyThumbnails`): byte for byte the answer the router gives the same request with
    /// `?try=1` (which the event loop leaves to it), Date aside, for conditional, range, HEAD and
    /// cross-origin requests; in order among pipelined requests the router answers; and a
    /// `Connection: close` is left to the router, which closes.
    func testThumbnailsAnsweredOnTheEventLoopAreTheRoutersAnswers() throws {
        XCTAssertEqual(try MolshotBinary.run(["library", "import", "Tests/Fixtures/1crn.pdb", "--db", db]).status, 0)
        let names = try thumbnailNames()
        XCTAssertEqual(names.count, 2)
        let files = try names.map { try Data(contentsOf: URL(fileURLWithPath: "\(thumbs)/\($0)")) }
        XCTAssertNotEqual(files[0].count, files[1].count, "the pipelined answers below are told apart by their lengths")
        let base = try start(["--thumbnails", thumbs, "--allow-origin", "https://example.org"])
        let port = UInt16(try XCTUnwrap(URL(string: base)?.port))
        // Read once by the router: then in memory.
        for name in names { XCTAssertEqual(try Self.exchange(port, ["GET /v1/thumbnails/\(name)?try=1"]).answers.first?.body, files[names.firstIndex(of: name)!]) }
        let etag = try XCTUnwrap(try Self.exchange(port, ["GET /v1/thumbnails/\(names[0])?try=1"]).answers.first?.headers["etag"])
        let before = try eventLoopAnswers(base)
        let variants: [(method: String, headers: [String])] = [
            ("GET", []), ("GET", ["If-None-Match: \(etag)"]), ("GET", ["If-None-Match: W/\(etag)"]), ("GET", ["If-None-Match: \"other\""]),
            ("GET", ["Range: bytes=0-9"]), ("GET", ["Range: bytes=-4"]), ("GET", ["Range: bytes=999999-"]), ("GET", ["Range: bytes=0-9", "If-Range: \"other\""]),
            ("GET", ["Range: bytes=0-9", "If-Range: \(etag)"]), ("GET", ["Origin: https://example.org"]), ("GET", ["Origin: https://other.example"]),
            ("GET", ["Connection: keep-alive"]), ("HEAD", []), ("HEAD", ["If-None-Match: \(etag)"]),
        ]
        for v in variants {
            let routed = try XCTUnwrap(try Self.exchange(port, [([v.method + " /v1/thumbnails/\(names[0])?try=1"] + v.headers).joined(separator: "\r\n")]).answers.first)
            let shortcut = try XCTUnwrap(try Self.exchange(port, [([v.method + " /v1/thumbnails/\(names[0])"] + v.headers).joined(separator: "\r\n")]).answers.first)
            XCTAssertEqual(shortcut.status, routed.status, "\(v)")
            XCTAssertEqual(shortcut.headers.filter { $0.key != "date" }, routed.headers.filter { $0.key != "date" }, "\(v)")
            XCTAssertEqual(shortcut.body, routed.body, "\(v)")
            let dates = [shortcut, routed].compactMap { $0.headers["date"].flatMap(Self.httpDate.date(from:)) }
            XCTAssertEqual(dates.count, 2, "both Dates are IMF-fixdates: \(shortcut.headers["date"] ?? "none")")
            if dates.count == 2 { XCTAssertLessThan(abs(dates[0].timeIntervalSince(dates[1])), 3) }
        }
        XCTAssertEqual(try eventLoopAnswers(base) - before, variants.count, "each request without ?try= answered on the event loop, and none with it")
        // Pipelined, one write: the router's answer between two of the event loop's, in order.
        let beforePipe = try eventLoopAnswers(base)
        let piped = try Self.exchange(port, ["GET /v1/thumbnails/\(names[0])", "GET /v1/thumbnails/\(names[1])?try=1", "GET /v1/thumbnails/\(names[0])",
                                             "GET /v1/molecules/1/image?size=32", "GET /v1/thumbnails/\(names[1])"], waitForClose: true)
        XCTAssertEqual(piped.answers.map(\.status), [200, 200, 200, 200, 200])
        XCTAssertEqual(piped.answers.map(\.body), [files[0], files[1], files[0], piped.answers[3].body, files[1]])
        XCTAssertEqual(piped.answers[3].headers["content-type"], "image/png")
        XCTAssertFalse(piped.closed)
        XCTAssertGreaterThanOrEqual(try eventLoopAnswers(base) - beforePipe, 1, "the first, at least, answered on the event loop")
        let closing = try Self.exchange(port, ["GET /v1/thumbnails/\(names[0])\r\nConnection: close"], waitForClose: true)
        XCTAssertEqual(closing.answers.first?.body, files[0])
        XCTAssertTrue(closing.closed, "closed after the answer, as asked")
    }

    /// A private molecule's thumbnail in memory (its owner read it) is still not found for anyone
    /// else: the event loop leaves it to the router, which says 404.
    func testAPrivateThumbnailInMemoryIsNotAnsweredOnTheEventLoop() throws {
        let (tokensFile, token) = try tokens(["alice"])
        let name = try XCTUnwrap(try thumbnailNames("ball-and-stick").first)
        let base = try start(["--tokens", tokensFile, "--thumbnails", thumbs])
        let crambin = try Data(contentsOf: InfoCommandTests.root.appendingPathComponent("Tests/Fixtures/1crn.pdb"))
        XCTAssertEqual(try call("\(base)/v1/molecules?name=1crn.pdb&private=true", method: "POST", body: crambin,
                                headers: ["Authorization": "Bearer \(token["alice"]!)"]).status, 201)
        let port = UInt16(try XCTUnwrap(URL(string: base)?.port))
        XCTAssertEqual(try Self.exchange(port, ["GET /v1/thumbnails/\(name)\r\nAuthorization: Bearer \(token["alice"]!)"]).answers.first?.status, 200)
        for _ in 0..<3 { XCTAssertEqual(try Self.exchange(port, ["GET /v1/thumbnails/\(name)"]).answers.first?.status, 404) }
        XCTAssertEqual(try eventLoopAnswers(base), 0)
    }

    /// A client that pipelines thumbnail requests for three seconds and reads none of the answers
    /// leaves the server's memory as it was, and the server answering: the server stops reading
    /// (measured: after about 11,600 requests, with or without the shortcut's writability check).
    func testAClientThatPipelinesAndNeverReadsDoesNotFillTheServersMemory() throws {
        XCTAssertEqual(try MolshotBinary.run(["library", "import", "Tests/Fixtures/1crn.pdb", "--db", db]).status, 0)
        let name = try XCTUnwrap(try thumbnailNames("ball-and-stick").first)
        let base = try start(["--thumbnails", thumbs])
        let port = UInt16(try XCTUnwrap(URL(string: base)?.port))
        let pid = try XCTUnwrap(harness.servers.last?.processIdentifier)
        func residentMB() throws -> Int { try Self.residentKB(pid) / 1024 }
        for _ in 0..<3 { XCTAssertEqual(try Self.exchange(port, ["GET /v1/thumbnails/\(name)"]).answers.first?.status, 200) }
        let warm = try residentMB()
        let fd = Self.connection(port)
        var timeout = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let one = Array("GET /v1/thumbnails/\(name) HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        let batch = Array((0..<1000).map { _ in one }.joined())
        // Requests for three seconds, or until the server reads no more (it stops once its answers wait).
        let until = Date().addingTimeInterval(3)
        var sent = 0
        while Date() < until {
            let n = batch.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, batch.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { break }
            sent += n
        }
        let held = try residentMB()
        close(fd)
        XCTAssertLessThan(held - warm, 40, "resident \(warm) MB warm, \(held) MB with \(sent / one.count) requests' answers unread")
        XCTAssertEqual(try Self.exchange(port, ["GET /v1/thumbnails/\(name)"]).answers.first?.status, 200, "still answering")
    }

    /// A process's resident memory in KB (VmRSS, from /proc).
    static func residentKB(_ pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try XCTUnwrap(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
        return try XCTUnwrap(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
    }

    static let httpDate: DateFormatter = {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "GMT")
        f.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return f
    }()

    /// A TCP connection to 127.0.0.1:`port` (its descriptor, for the caller to close), its reads
    /// timing out after `seconds`.
    static func connection(_ port: UInt16, seconds: Int = 20) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        XCTAssertEqual(connected, 0)
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    /// Sends `requests` (each its request line and header lines, without the blank line) in one
    /// write on one connection, pipelined, and reads their answers in order (lowercased header
    /// names); `closed`, with `waitForClose`: whether the server closed the connection after the
    /// last within a second.
    static func exchange(_ port: UInt16, _ requests: [String], waitForClose: Bool = false) throws -> (answers: [Answer], closed: Bool) {
        let fd = connection(port)
        defer { close(fd) }
        let text = requests.map { r in
            let lines = r.split(separator: "\r\n", omittingEmptySubsequences: false)
            return ([lines[0] + " HTTP/1.1", "Host: 127.0.0.1"] + lines.dropFirst()).joined(separator: "\r\n") + "\r\n\r\n"
        }.joined()
        let bytes = Array(text.utf8)
        XCTAssertEqual(bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, bytes.count, Int32(MSG_NOSIGNAL)) }, bytes.count)
        var got: [UInt8] = [], answers: [Answer] = [], closed = false
        var chunk = [UInt8](repeating: 0, count: 65536)
        func more() -> Bool {
            let n = recv(fd, &chunk, chunk.count, 0)
            if n <= 0 { closed = n == 0; return false }
            got += chunk.prefix(n)
            return true
        }
        for request in requests {
            var end: Int?
            while true {
                end = got.indices.dropLast(3).first { got[$0] == 13 && got[$0 + 1] == 10 && got[$0 + 2] == 13 && got[$0 + 3] == 10 }
                if end != nil || !more() { break }
            }
            guard let headEnd = end else { return (answers, closed) }
            let lines = String(decoding: got[..<headEnd], as: UTF8.self).components(separatedBy: "\r\n")
            let status = Int(lines[0].split(separator: " ")[1]) ?? 0
            var headers: [String: String] = [:]
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            let length = request.hasPrefix("HEAD ") || status == 304 ? 0 : Int(headers["content-length"] ?? "0") ?? 0
            while got.count < headEnd + 4 + length, more() {}
            answers.append(Answer(status: status, headers: headers, body: Data(got[(headEnd + 4)..<min(got.count, headEnd + 4 + length)])))
            got.removeFirst(min(got.count, headEnd + 4 + length))
        }
        if !closed && waitForClose {
            var short = timeval(tv_sec: 1, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &short, socklen_t(MemoryLayout<timeval>.size))
            closed = recv(fd, &chunk, chunk.count, 0) == 0
        }
        return (answers, closed)
    }

    func testEntityProtocolRoundTripOverHTTPKeepsPrivateMoleculesPrivate() throws {
        let (tokensFile, token) = try tokens(["alice", "bob"])
        XCTAssertEqual(try MolshotBinary.run(["library", "import", "Tests/Fixtures/1crn.pdb", "--db", db]).status, 0)
        let base = try start(["--tokens", tokensFile])
        func auth(_ who: String) -> [String: String] { ["Authorization": "Bearer \(token[who]!)", "Content-Type": "application/json"] }
        let caffeine = try Data(contentsOf: InfoCommandTests.root.appendingPathComponent("Tests/Fixtures/Caffeine.pdb"))
        XCTAssertEqual(try call("\(base)/v1/molecules?name=Caffeine.pdb&private=true", method: "POST", body: caffeine, headers: auth("alice")).status, 201)
        func ask(_ body: String, _ who: String) throws -> (status: Int, columns: [String], rows: [[String]]) {
            let a = try call("\(base)/v1/entities", method: "POST", body: Data(body.utf8), headers: auth(who))
            let o = try JSONSerialization.jsonObject(with: a.body) as? [String: Any]
            return (a.status, o?["columns"] as? [String] ?? [], o?["rows"] as? [[String]] ?? [])
        }
        func children(_ who: String) throws -> [String] {
            let c = try ask(#"{"requestKey":"CATEGORIES"}"#, who)
            XCTAssertEqual(c.status, 200)
            let k = try XCTUnwrap(c.columns.firstIndex(of: "CHILDREN"))
            return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(c.rows[0][k].utf8)) as? [String])
        }
        XCTAssertEqual(try children("bob").count, 1, "bob sees crambin only")
        let mine = try children("alice")
        XCTAssertEqual(mine.count, 2)
        let privateId = mine[1]
        let root = try ask(#"{"requestKey":"ROOT"}"#, "bob")
        XCTAssertFalse(root.rows.contains { $0.contains(privateId) })
        let drill = try ask(#"{"requestKey":"DRILL","entities":[{"PERM_ID":"\#(mine[0])","REFCON":"{}"}]}"#, "bob")
        XCTAssertEqual(drill.status, 200)
        XCTAssertTrue(drill.rows.contains { $0[0].hasPrefix("CHAIN:") })
        let detail = try ask(#"{"requestKey":"DETAIL","IMAGES":"URL","entities":[{"PERM_ID":"\#(privateId)","REFCON":"{}"}]}"#, "alice")
        XCTAssertEqual(detail.status, 200)
        let images = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(detail.rows[0][detail.columns.firstIndex(of: "IMAGES")!].utf8)) as? [String: Any])
        let url = try XCTUnwrap((images["MARQUEE"] as? [String: String])?["URL"])
        XCTAssertTrue(url.hasPrefix(base), url)
        // The URL gives the image to its owner, and nothing to anyone else.
        let image = try call(url, headers: auth("alice"))
        XCTAssertEqual(image.status, 200)
        XCTAssertEqual(pngSize(image.body)?.0, 512)
        XCTAssertEqual(try call(url, headers: auth("bob")).status, 404)
        XCTAssertEqual(try ask(#"{"requestKey":"DETAIL","entities":[{"PERM_ID":"\#(privateId)","REFCON":"{}"}]}"#, "bob").status, 404)
        XCTAssertEqual(try ask(#"{"requestKey":"SOMETHING"}"#, "bob").status, 400)
    }

    func testAFloodGets503AndAnOversizeBody413() throws {
        // Limits from a config file; a wrong key is named.
        let config = scratch.appendingPathComponent("serve.json").path
        try #"{"renderQueue": 1, "maxBody": 1000}"#.write(toFile: config, atomically: true, encoding: .utf8)
        let wrong = scratch.appendingPathComponent("wrong.json").path
        try #"{"renderQ": 1}"#.write(toFile: wrong, atomically: true, encoding: .utf8)
        let refused = try MolshotBinary.run(["serve", "--config", wrong, "--port", "0"])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("wrong.json: renderQ: not a setting"), refused.stderr)
        // A cut short or malformed file is refused with the place; a Boolean is not a number, nor a number a Boolean.
        for (text, message) in [("{\"renderQueue\": 1,\n", "not valid JSON (line 2, column 1: cut short inside an object)"),
                                ("{\"tokenToRead\": 1}", "tokenToRead: must be true or false"),
                                ("{\"maxSide\": true}", "maxSide: must be a whole number from 1 to 8192")] {
            try text.write(toFile: wrong, atomically: true, encoding: .utf8)
            let bad = try MolshotBinary.run(["serve", "--config", wrong, "--port", "0"])
            XCTAssertEqual(bad.status, 1)
            XCTAssertTrue(bad.stderr.contains("wrong.json: \(message)"), bad.stderr)
        }
        let base = try start(["--config", config])
        let caffeine = try Data(contentsOf: InfoCommandTests.root.appendingPathComponent("Tests/Fixtures/Caffeine.pdb"))
        XCTAssertGreaterThan(caffeine.count, 1000)
        XCTAssertEqual(try call("\(base)/v1/render?name=c.pdb", method: "POST", body: caffeine).status, 413)
        final class Seen: @unchecked Sendable {
            let lock = NSLock()
            var statuses: [Int] = []
            var retries = 0
        }
        let seen = Seen()
        let threads = (0..<12).map { _ in
            Thread {
                // A call that fails outright counts as status 0, and fails the test below.
                let a = try? ServeTests.call("\(base)/v1/pathways/sbgn_glycolysis/image?size=4000")
                seen.lock.withLock {
                    seen.statuses.append(a?.status ?? 0)
                    if a?.headers["retry-after"] != nil { seen.retries += 1 }
                }
            }
        }
        threads.forEach { $0.start() }
        while seen.lock.withLock({ seen.statuses.count }) < 12 && threads.contains(where: { !$0.isFinished }) { usleep(20_000) }
        let all = seen.statuses
        XCTAssertEqual(all.count, 12)
        XCTAssertFalse(all.contains(0), "every call was answered: \(all)")
        XCTAssertTrue(all.contains(200), "\(all)")
        XCTAssertTrue(all.contains(503), "\(all)")
        XCTAssertEqual(seen.retries, all.filter { $0 == 503 }.count, "every 503 says when to come back")
        XCTAssertEqual(try call("\(base)/healthz").status, 200, "still answering")
        // A picture that takes longer than the render time limit is a 503 too.
        let hurried = try start(["--render-seconds", "0.001"])
        let late = try call("\(hurried)/v1/pathways/sbgn_glycolysis/image?size=2000")
        XCTAssertEqual(late.status, 503)
        XCTAssertTrue(late.text.contains("took longer"), late.text)
    }

    /// Start-up faults are one line and exit 1: a busy port, a mistyped --db, a file that is not a
    /// library. A read-only library is served read-only.
    func testStartUpFaultsAreOneLineAndReadOnlyLibrariesAreServed() throws {
        let base = try start()
        let port = try XCTUnwrap(URL(string: base)?.port)
        // 50 times: it once crashed 3 starts in 11 on the way out.
        for _ in 0..<50 {
            let busy = try MolshotBinary.run(["serve", "--port", "\(port)", "--db", db])
            XCTAssertEqual(busy.status, 1)
            XCTAssertEqual(busy.stderr, "molshot: error: port \(port) is in use; choose another with --port\n")
        }
        let typo = try MolshotBinary.run(["serve", "--port", "0", "--db", db + "x"])
        XCTAssertEqual(typo.status, 1)
        XCTAssertTrue(typo.stderr.hasPrefix("molshot: error: no library at \(db)x"), typo.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: db + "x"), "nothing was made")
        let text = scratch.appendingPathComponent("notes.txt").path
        try Data("not a library\n".utf8).write(to: URL(fileURLWithPath: text))
        let notLibrary = try MolshotBinary.run(["serve", "--port", "0", "--db", text])
        XCTAssertEqual(notLibrary.status, 1)
        XCTAssertTrue(notLibrary.stderr.contains("is not a Molshot library"), notLibrary.stderr)
        XCTAssertEqual(notLibrary.stderr.split(separator: "\n").count, 1, notLibrary.stderr)
    }

    /// Connections that trickle, never send their body, or send what is not HTTP are answered and
    /// closed by their deadlines, and the server goes on answering.
    func testSlowAndMalformedConnectionsAreAnsweredAndClosed() throws {
        let base = try start(["--head-seconds", "1", "--body-seconds", "1", "--render-seconds", "1"])
        let port = UInt16(try XCTUnwrap(URL(string: base)?.port))
        func exchange(_ send: [UInt8], trickle: Bool = false) throws -> String {
            let fd = Self.connection(port, seconds: 10)
            defer { close(fd) }
            if trickle {
                for b in send.prefix(8) { _ = [b].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, 1, Int32(MSG_NOSIGNAL)) }; usleep(300_000) }
            } else {
                _ = send.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, send.count, Int32(MSG_NOSIGNAL)) }
            }
            var answer = [UInt8](repeating: 0, count: 512)
            let n = recv(fd, &answer, answer.count, 0)
            return n > 0 ? String(decoding: answer.prefix(n), as: UTF8.self) : ""
        }
        XCTAssertTrue(try exchange(Array("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n".utf8), trickle: true).hasPrefix("HTTP/1.1 408"))
        XCTAssertTrue(try exchange(Array("POST /v1/render HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000000000\r\n\r\n".utf8)).hasPrefix("HTTP/1.1 413"))
        XCTAssertTrue(try exchange(Array("POST /v1/render HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nabc".utf8)).hasPrefix("HTTP/1.1 408"))
        // As nginx answers them, at once: a version this server does not speak 505, a head too long
        // 431, a request line too long 414, Content-Length beside Transfer-Encoding 400; the rest 400.
        for (bad, status) in [("GET / HTTP/2.0\r\nHost: x\r\n\r\n", "505"), ("GET /\0 HTTP/1.1\r\nHost: x\r\n\r\n", "400"),
                              ("FOO /healthz HTTP/1.1\r\nHost: x\r\n\r\n", "400"),
                              ("GET /healthz HTTP/1.1\r\nX: " + String(repeating: "a", count: 90_000) + "\r\n\r\n", "431"),
                              ("GET /" + String(repeating: "a", count: 20_000) + " HTTP/1.1\r\n\r\n", "414"),
                              ("POST /v1/render HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", "400")] {
            XCTAssertTrue(try exchange(Array(bad.utf8)).hasPrefix("HTTP/1.1 \(status)"), String(bad.prefix(30)))
        }
        XCTAssertTrue(try exchange([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00]).hasPrefix("HTTP/1.1 408"), "a TLS hello")
        XCTAssertEqual(try call("\(base)/healthz").status, 200, "still answering")
    }

    /// The stranger's requests against the real server: each refused up front with a 4xx that
    /// names its limit, the server answering after each, and its memory back within 10% of what it
    /// held warmed up (resident pages, from /proc).
    func testHostileRequestsAreRefusedUpFrontAndLeaveMemoryAsItWas() throws {
        XCTAssertEqual(try MolshotBinary.run(["library", "import", "Tests/Fixtures/1crn.pdb", "--db", db]).status, 0)
        let base = try start(["--render-threads", "1"])
        let pid = try XCTUnwrap(harness.servers.last?.processIdentifier)
        func residentKB() throws -> Int { try Self.residentKB(pid) }
        func q(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! }
        let header = #"{"type":"header","version":1,"viewport":{"width":100,"height":100}}"#
        // Warmed up: every kind of work the hostile requests reach, done once for real.
        for _ in 0..<2 {
            XCTAssertEqual(try call("\(base)/v1/molecules/1/image?size=256&show=\(q("cartoon: polymer"))").status, 200)
            XCTAssertEqual(try call("\(base)/v1/replay?molecule=1&size=64&fps=10", method: "POST",
                                    body: Data((header + "\n" + #"{"type":"rotate","t":0.5,"dx":1,"dy":0}"#).utf8)).status, 200)
            XCTAssertEqual(try call("\(base)/v1/entities", method: "POST",
                                    body: Data(#"{"requestKey":"DETAIL","IMAGES":"DATA","entities":[{"PERM_ID":"MOLECULE:1","REFCON":"{}"}]}"#.utf8)).status, 200)
        }
        let warm = try residentKB()
        let entities = (0...150).map { #"{"PERM_ID":"CHAIN:1:\#($0)","REFCON":"{}"}"# }.joined(separator: ",")
        let hostile: [(String, String, Data?, Int, String)] = [
            ("GET", "/v1/molecules/1/image?size=64&show=" + q("cartoon: " + String(repeating: "(", count: 2500) + "all" + String(repeating: ")", count: 2500)),
             nil, 400, "longer than"),
            ("GET", "/v1/molecules/1/image?size=64&show=" + q("cartoon: " + (0..<40).reduce("all") { s, _ in "(\(s) around 1)" }), nil, 400, "nested more than"),
            ("POST", "/v1/replay?molecule=1&fps=60&size=32", Data((header + "\n" + #"{"type":"rotate","t":1e300,"dx":1,"dy":0}"#).utf8), 413, "frames"),
            ("GET", "/v1/molecules/1/image?size=4096&antialias=4&occlusion=1&outline=16", nil, 413, "picture samples"),
            ("POST", "/v1/entities", Data(#"{"requestKey":"DETAIL","IMAGES":"DATA","entities":[\#(entities)]}"#.utf8), 413, "entities"),
        ]
        for (method, path, body, status, says) in hostile {
            let answer = try call(base + path, method: method, body: body)
            XCTAssertEqual(answer.status, status, "\(path.prefix(60)): \(answer.text)")
            XCTAssertTrue(answer.text.contains(says), "\(path.prefix(60)): \(answer.text)")
            XCTAssertLessThan(answer.body.count, 2000, "an excerpt, not the request")
            XCTAssertEqual(try call("\(base)/healthz").status, 200, "alive after \(path.prefix(60))")
            let now = try residentKB()
            XCTAssertLessThanOrEqual(Double(now), Double(warm) * 1.1, "\(path.prefix(60)): \(now) KB resident against \(warm) KB warmed up")
        }
    }

    /// A short run of the HTTP fuzz harness (`bench/run httpfuzz` makes 100,000 requests): every
    /// route with hostile values; no crash, no 5xx but 503, memory bounded.
    func testAShortHTTPFuzzRunLeavesTheServerUpWithNoUnexpected5xx() throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "bench/httpfuzz.py", "--molshot", TestBinary.molshot.path,
                       "--root", ".", "--requests", "1000", "--seed", "7"]
        p.currentDirectoryURL = InfoCommandTests.root
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let printed = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let complaints = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0, printed + complaints)
        XCTAssertTrue(printed.contains("requests=1000 ") && printed.contains("crashes=0 unexpected5xx=0"), printed + complaints)
    }
}

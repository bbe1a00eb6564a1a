import Core
import Foundation
import LiveClient
import TestSupport
import XCTest

/// The requests that once ended the whole server (issue 95), sent to a real `molshot serve` on
/// 127.0.0.1 under a 2 GiB address-space limit, as a stranger would send them: each is refused
/// naming its limit or made within it, and the server, and other clients' sessions, stay up.
final class HostileLoadTests: GLTestCase {
    var serve: ServeHarness!
    static let header = #"{"type":"header","version":1,"viewport":{"width":100,"height":100}}"#

    override func setUpWithError() throws {
        try super.setUpWithError()
        serve = try ServeHarness.withCrambin()
    }

    override func tearDown() { serve.stop() }

    func start(_ extra: [String] = []) throws -> String { try serve.start(["--render-threads", "1"] + extra, addressSpaceMB: 2048) }

    func alive(_ base: String, _ after: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(try? ServeTests.call("\(base)/healthz").status, 200, "the server is up after \(after)", file: file, line: line)
        XCTAssertTrue(serve.servers.last?.isRunning ?? false, "the server process is running after \(after)", file: file, line: line)
    }

    func replay(_ base: String, _ query: String, _ lines: [String]) throws -> ServeTests.Answer {
        try ServeTests.call("\(base)/v1/replay?\(query)", method: "POST", body: Data(lines.joined(separator: "\n").utf8))
    }

    /// A header and 24 MiB of newlines was split into 24 million lines (a gigabyte) before the
    /// first was read, and aborted the server: the lines are counted first, and refused.
    func testAnEventFileOfMillionsOfLinesIsRefusedBeforeAnyIsRead() throws {
        let base = try start()
        var body = Data((Self.header + "\n").utf8)
        body.append(Data(repeating: 0x0A, count: 24 << 20))
        let answer = try ServeTests.call("\(base)/v1/replay?molecule=1&size=32", method: "POST", body: body)
        XCTAssertEqual(answer.status, 413, answer.text)
        XCTAssertTrue(answer.text.contains("replay lines"), answer.text)
        alive(base, "24 MiB of newlines")
        // One line past the event message bytes is refused the same way.
        let long = try replay(base, "molecule=1&size=32", [Self.header, String(repeating: " ", count: (1 << 20) + 1)])
        XCTAssertEqual(long.status, 413, long.text)
        XCTAssertTrue(long.text.contains("event message bytes"), long.text)
        // A real replay is still made, in a render process.
        let ok = try replay(base, "molecule=1&size=48&fps=10", [Self.header, #"{"type":"rotate","t":0.3,"dx":5,"dy":0}"#])
        XCTAssertEqual(ok.status, 200, ok.text)
        XCTAssertEqual(ServeTests.pngSizeOf(ok.body)?.0, 48)
    }

    /// `size=4096&format=mp4` aborted the server (the encoder's memory was not budgeted), and a
    /// resize to 4096 after heavy settings did too: both are refused before they are drawn, and a
    /// resize past --max-side draws at --max-side.
    func testReplaySizesAndMoviesAreBoundedBeforeTheFirstFrame() throws {
        let base = try start(["--max-side", "4096"])
        let frames = [Self.header] + (1...3).map { #"{"type":"frame","t":\#(Double($0) / 10)}"# }
        for format in ["mp4", "webm"] {
            let movie = try replay(base, "molecule=1&size=4096&format=\(format)", frames)
            XCTAssertEqual(movie.status, 413, "\(format): \(movie.text)")
            XCTAssertTrue(movie.text.contains("movie pixels"), movie.text)
            alive(base, "a 4096 px \(format)")
        }
        let heavy = try replay(base, "molecule=1&size=16&antialias=4&occlusion=1&outline=16",
                               [Self.header, #"{"type":"frame","t":0.1}"#, #"{"type":"resize","t":0.2,"width":4096,"height":4096}"#, #"{"type":"frame","t":0.3}"#])
        XCTAssertEqual(heavy.status, 413, heavy.text)
        XCTAssertTrue(heavy.text.contains("picture samples") && heavy.text.contains(":3:"), "names the limit and the resize's line: \(heavy.text)")
        alive(base, "a resize to 4096 with heavy settings")
        // A movie at a size within the limit is made.
        let small = try replay(base, "molecule=1&size=64&format=mp4", frames)
        XCTAssertEqual(small.status, 200, small.text)
        XCTAssertGreaterThan(small.body.count, 100)
    }

    func testAResizePastMaxSideIsDrawnAtMaxSide() throws {
        let base = try start(["--max-side", "128"])
        let answer = try replay(base, "molecule=1&size=64&fps=10", [Self.header, #"{"type":"resize","t":0,"width":8192,"height":8192}"#,
                                                                    #"{"type":"rotate","t":0.3,"dx":5,"dy":0}"#])
        XCTAssertEqual(answer.status, 200, answer.text)
        let size = try XCTUnwrap(ServeTests.pngSizeOf(answer.body))
        XCTAssertEqual(size.0, 128, "frames at --max-side: \(size)")
        // A resize after the first frame cannot be one animation: said, not a failure of the server's.
        let later = try replay(base, "molecule=1&size=64&fps=10", [Self.header, #"{"type":"rotate","t":0.15,"dx":5,"dy":0}"#,
                                                                   #"{"type":"resize","t":0.2,"width":300,"height":300}"#, #"{"type":"rotate","t":0.3,"dx":5,"dy":0}"#])
        XCTAssertEqual(later.status, 400, later.text)
        XCTAssertTrue(later.text.contains("after a resize event"), later.text)
    }

    /// Three sessions sending megabyte messages of tiny lines queued every line without a bound
    /// and aborted the server after 51 MiB: lines past the bound are dropped and said to be, the
    /// server's memory stays bounded, and a session opened after them still draws.
    func testFloodsOfTinyLinesAreDroppedAndTheServerStaysUp() throws {
        let base = try start()
        let ws = base.replacingOccurrences(of: "http://", with: "ws://")
        let pid = try XCTUnwrap(serve.servers.last?.processIdentifier)
        var clients: [WebSocketClient] = []
        for _ in 0..<3 {
            let c = try WebSocketClient(ws + "/v1/sessions?molecule=1&size=64")
            XCTAssertEqual(try c.receiveJSON()["type"] as? String, "session")
            try c.send(text: Self.header)
            clients.append(c)
        }
        let flood = String(repeating: "x\n", count: (1 << 20) / 2 - 8)
        for _ in 0..<20 { for c in clients { try c.send(text: flood) } }
        // Each flooding client is told its lines were dropped (among the bad lines' errors).
        for c in clients {
            var told = false
            for _ in 0..<3000 {
                guard case .text(let t) = try c.receive(timeout: 120) else { continue }
                if t.contains("session lines waiting") { told = true; break }
            }
            XCTAssertTrue(told, "a flooding session is told its lines were dropped")
        }
        alive(base, "three sessions' floods")
        XCTAssertLessThan(try ServeTests.residentKB(pid), 1 << 20, "the server's memory stays under 1 GiB")
        let fresh = try WebSocketClient(ws + "/v1/sessions?molecule=1&size=64")
        XCTAssertEqual(try fresh.receiveJSON()["type"] as? String, "session")
        try fresh.send(text: Self.header)
        try fresh.send(text: #"{"type":"frame","t":0.1}"#)
        var sawFrame = false
        for _ in 0..<20 {
            if case .text(let t) = try fresh.receive(timeout: 120), t.contains("\"frame\"") { sawFrame = true; break }
        }
        XCTAssertTrue(sawFrame, "a session opened after the floods draws")
    }

    /// One stranger's session with heavy settings asked for a 4096 px frame and aborted its render
    /// process, ending every other session on it: the resize is refused in that session alone.
    func testAHeavyResizeInOneSessionLeavesItsNeighboursFrames() throws {
        let base = try start()
        let ws = base.replacingOccurrences(of: "http://", with: "ws://")
        func open(_ query: String) throws -> WebSocketClient {
            let c = try WebSocketClient(ws + "/v1/sessions?molecule=1&" + query)
            XCTAssertEqual(try c.receiveJSON()["type"] as? String, "session")
            try c.send(text: Self.header)
            return c
        }
        func next(_ c: WebSocketClient, _ type: String) throws -> [String: Any] {
            for _ in 0..<50 {
                if case .text(let t) = try c.receive(timeout: 120), let o = try JSONSerialization.jsonObject(with: Data(t.utf8)) as? [String: Any],
                   o["type"] as? String == type { return o }
            }
            throw WebSocketClient.Failure(description: "no \(type) message")
        }
        let neighbour = try open("size=64")
        _ = try next(neighbour, "frame")
        let stranger = try open("size=16&antialias=4&occlusion=1&outline=16")
        try stranger.send(text: #"{"type":"resize","t":0.1,"width":4096,"height":4096}"#)
        let error = try next(stranger, "error")
        XCTAssertTrue("\(error["message"] ?? "")".contains("picture samples"), "\(error)")
        try neighbour.send(text: #"{"type":"rotate","t":0.2,"dx":10,"dy":0}"#)
        try neighbour.send(text: #"{"type":"frame","t":0.3}"#)
        XCTAssertEqual(try next(neighbour, "frame")["type"] as? String, "frame", "the neighbour's session keeps its frames")
        alive(base, "a heavy resize in a session")
    }

    /// A gzip upload that inflates past its limit says which setting of `serve` bounds it (it said
    /// "see --max-bytes", an option of the command line that `serve` does not have).
    func testAGzipBombNamesTheServersSetting() throws {
        let base = try start(["--max-body", "100000"])
        let line = "ATOM      1  CA  ALA A   1       1.000   2.000   3.000  1.00 10.00           C  \n"
        let text = String(repeating: line, count: 20_000)
        let gzip = Process(), input = Pipe(), output = Pipe()
        gzip.executableURL = URL(fileURLWithPath: "/bin/gzip")
        gzip.arguments = ["-c"]
        gzip.standardInput = input
        gzip.standardOutput = output
        try gzip.run()
        input.fileHandleForWriting.write(Data(text.utf8))
        try input.fileHandleForWriting.close()
        let bomb = output.fileHandleForReading.readDataToEndOfFile()
        gzip.waitUntilExit()
        XCTAssertLessThan(bomb.count, 100_000)
        let answer = try ServeTests.call("\(base)/v1/render?size=32&name=bomb.pdb.gz", method: "POST", body: bomb)
        XCTAssertEqual(answer.status, 400, answer.text)
        XCTAssertTrue(answer.text.contains("--max-body") && !answer.text.contains("--max-bytes"), answer.text)
        alive(base, "a gzip bomb")
    }

    /// A checkerboard map of `n`^3 grid points (0 and 1 alternating), as CCP4/MRC mode 2: at
    /// level 0.5 every cube of it is cut, four triangles a cube.
    static func checkerboard(_ n: Int) -> Data {
        var header = [UInt8](repeating: 0, count: 1024)
        func put<T>(_ value: T, at offset: Int) { withUnsafeBytes(of: value) { for (k, b) in $0.enumerated() { header[offset + k] = b } } }
        for k in 0..<3 { put(Int32(n), at: 4 * k); put(Int32(n), at: 28 + 4 * k); put(Float(n), at: 40 + 4 * k); put(Float(90), at: 52 + 4 * k) }
        put(Int32(2), at: 12)
        for k in 0..<3 { put(Int32(k + 1), at: 64 + 4 * k) }
        header.replaceSubrange(208..<212, with: Array("MAP ".utf8))
        header.replaceSubrange(212..<216, with: [0x44, 0x44, 0, 0])
        var values = [Float](repeating: 0, count: n * n * n)
        for z in 0..<n { for y in 0..<n { for x in 0..<n where (x + y + z) % 2 == 1 { values[(z * n + y) * n + x] = 1 } } }
        return Data(header) + values.withUnsafeBytes { Data($0) }
    }

    /// A small map whose surface would take more memory than the process has ended in SIGABRT
    /// with a stack trace (the CLI) or in two aborted render processes before a 422 naming a limit
    /// the process did not have (the service): its triangles are bounded by the memory budget
    /// before they are built, an error naming the file and the real limit, exit 1.
    func testAMapWhoseSurfacePassesTheMemoryIsAnErrorNamingTheLimit() throws {
        let map = serve.scratch.appendingPathComponent("checkerboard.map")
        try Self.checkerboard(96).write(to: map)
        let p = Process(), err = Pipe()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
        p.arguments = ["--as=\(1 << 30)", TestBinary.molshot.path, "render", map.path, "--level", "0.5", "--size", "64",
                       "-o", serve.scratch.appendingPathComponent("map.png").path]
        p.standardError = err
        p.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        try p.run()
        let said = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        XCTAssertEqual(p.terminationReason, .exit, "an error, not a signal: \(said)")
        XCTAssertEqual(p.terminationStatus, 1, said)
        XCTAssertTrue(said.contains("checkerboard.map") && said.contains("address space of 1024 MiB") && said.contains("give a higher level"), said)
        // The service, under 2 GiB: a 4xx naming the real limit, the server up.
        let base = try start()
        let answer = try ServeTests.call("\(base)/v1/render?size=64&level=0.5&name=checkerboard.map", method: "POST", body: Self.checkerboard(130))
        XCTAssertTrue((400..<500).contains(answer.status), "\(answer.status): \(answer.text)")
        XCTAssertTrue(answer.text.contains("2048 MiB") && !answer.text.contains("4096"), answer.text)
        alive(base, "a map past the memory")
    }

    /// 100,000 atoms at one point held a render process for minutes (every pair in one cell of
    /// bond perception, then every sphere filling the picture): now perceived in linear time and
    /// refused before a sphere is cast, and 16 of them at once leave a real picture drawn.
    func testAPileOfAtomsAtOnePointIsRefusedQuicklyAndLeavesOthersDrawn() throws {
        let base = try start()
        var text = ""
        for i in 0..<100_000 { text += "HETATM\(String(format: "%5d", i % 100_000))  C   LIG A   1       1.000   2.000   3.000  1.00  0.00           C\n" }
        let pile = Data(text.utf8)
        let answers = Locked<[Int]>([])
        DispatchQueue.concurrentPerform(iterations: 16) { _ in
            let status = (try? ServeTests.call("\(base)/v1/render?size=256&name=pile.pdb", method: "POST", body: pile).status) ?? -1
            answers.withLock { $0.append(status) }
        }
        let statuses = answers.withLock { $0 }
        XCTAssertTrue(statuses.allSatisfy { $0 == 400 || $0 == 503 }, "each refused (or shed while the others were read): \(statuses)")
        XCTAssertTrue(statuses.contains(400), "\(statuses)")
        let one = try ServeTests.call("\(base)/v1/render?size=256&name=pile.pdb", method: "POST", body: pile)
        XCTAssertEqual(one.status, 400, one.text)
        XCTAssertTrue(one.text.contains("on top of one another"), one.text)
        let real = try ServeTests.call("\(base)/v1/molecules/1/image?size=128")
        XCTAssertEqual(real.status, 200, real.text)
        alive(base, "16 piles of atoms")
    }

    /// Pictures asked for at once by 16 threads as one client (`X-Forwarded-For`), their statuses.
    func burst(_ base: String, client: String, count: Int = 16) -> [Int] {
        let statuses = Locked<[Int]>([])
        let threads = (0..<count).map { n in
            Thread {
                let answer = try? ServeTests.call("\(base)/v1/molecules/1/image?size=384&occlusion=1&rotate=\(n * 7),\(n),0", headers: ["X-Forwarded-For": client])
                statuses.withLock { $0.append(answer?.status ?? -1) }
                if let answer, answer.status == 429 { XCTAssertEqual(answer.headers["retry-after"], "1", "a 429 says when to try again") }
            }
        }
        threads.forEach { $0.start() }
        while statuses.withLock({ $0.count }) < count { usleep(10_000) }
        return statuses.withLock { $0 }
    }

    /// One client asking for many pictures at once had every place in the render queue while
    /// others waited or were refused: while another client uses the server, it has its share
    /// (the queue over the active clients) and past it 429 with Retry-After, and the other's
    /// pictures are drawn. Behind a proxy named by --trusted-proxy, the client is the one
    /// X-Forwarded-For names; from anywhere else the header is ignored.
    func testAGreedyClientHasItsShareOfTheRenderQueueAndNoMore() throws {
        let base = try start(["--trusted-proxy", "127.0.0.1", "--render-queue", "2"])
        func picture(_ client: String) throws -> ServeTests.Answer {
            try ServeTests.call("\(base)/v1/molecules/1/image?size=128", headers: ["X-Forwarded-For": client])
        }
        // 192.0.2.2 has just drawn a picture: two clients are active, a share of two places each.
        XCTAssertEqual(try picture("192.0.2.2").status, 200)
        let greedy = burst(base, client: "192.0.2.1")
        XCTAssertTrue(greedy.allSatisfy { $0 == 200 || $0 == 429 }, "the greedy client is answered or told its share: \(greedy)")
        XCTAssertGreaterThan(greedy.filter { $0 == 429 }.count, 0, "sixteen at once are more than its share: \(greedy)")
        XCTAssertGreaterThanOrEqual(greedy.filter { $0 == 200 }.count, 2, "its share is drawn: \(greedy)")
        XCTAssertEqual(try picture("192.0.2.2").status, 200, "the other client is drawn")
        alive(base, "a greedy client")

        // Without --trusted-proxy the header is not believed: the same requests are one client's,
        // alone, held by the queue only (503 past it), never by a share.
        let plain = try start(["--render-queue", "2"])
        XCTAssertEqual(try ServeTests.call("\(plain)/v1/molecules/1/image?size=128", headers: ["X-Forwarded-For": "192.0.2.2"]).status, 200)
        let alone = burst(plain, client: "192.0.2.1")
        XCTAssertFalse(alone.contains(429), "a header from an untrusted peer named the client: \(alone)")
        XCTAssertTrue(alone.allSatisfy { $0 == 200 || $0 == 503 }, "\(alone)")
    }
}

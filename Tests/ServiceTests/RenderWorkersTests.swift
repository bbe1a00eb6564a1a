import Foundation
import Gestures
import Graphics
import Imaging
import Hummingbird
import Library
import MoleculeView
@testable import Service
import Structure
import TestSupport
import XCTest

/// The service's render workers: pictures to the least loaded, sessions to the one with fewest,
/// and render processes (the real `molshot serve render-process`) that draw what the service's own
/// render thread draws, byte for byte, answer errors as it does, and are started again when one
/// ends under a request.
final class RenderWorkersTests: GLTestCase {
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("molshot-workers-\(UUID().uuidString)")

    override func tearDown() { try? FileManager.default.removeItem(at: scratch) }

    /// The molshot executable the tests run (`TestBinary`).
    func molshot() throws -> URL {
        let exe = TestBinary.molshot
        guard FileManager.default.isExecutableFile(atPath: exe.path) else { throw XCTSkip("no molshot executable beside the tests") }
        return exe
    }

    /// A library with crambin (id 1) and 1hpv (id 2).
    func library() throws -> String {
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let db = scratch.appendingPathComponent("library.sqlite").path
        let lib = try MoleculeLibrary(path: db)
        for name in ["1crn", "1hpv"] {
            _ = try lib.importBytes(try ServiceSafetyTests.fixture("\(name).pdb"), source: "\(name).pdb", name: name,
                                    perception: try BondPerception.standard(), owner: nil, isPrivate: false)
        }
        return db
    }

    /// A gzip of 2 MB that says it holds 500 MB of blanks: reading it asks for 500 MB at once.
    func gzipBomb() throws -> [UInt8] {
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let bomb = scratch.appendingPathComponent("spaces.pdb.gz").path
        let make = Process()
        make.executableURL = URL(fileURLWithPath: "/bin/bash")
        make.arguments = ["-c", "head -c 500000000 /dev/zero | tr '\\0' ' ' | gzip -1 > '\(bomb)'"]
        try make.run()
        make.waitUntilExit()
        let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: bomb)))
        XCTAssertLessThan(bytes.count, 4 << 20)
        return bytes
    }

    func process(_ db: String, maxAtoms: Int = 2_000_000) throws -> RenderProcess {
        let p = RenderProcess(executable: try molshot(), arguments: ["serve", "render-process", db, "100000000", String(maxAtoms)],
                              environment: ["LP_NUM_THREADS": "0"])
        addTeardownBlock { p.close() }
        return p
    }

    func testSendingToAPipeWhoseReaderHasGoneIsFalseNotSIGPIPE() {
        // A render process killed between a request and its send: the write fails, and the
        // service (here the test process) goes on instead of dying of SIGPIPE.
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        close(fds[0])
        let worker = WorkerPipe(input: -1, output: fds[1])
        XCTAssertFalse(worker.send(ProcessOrder.event(session: "s"), [1, 2, 3]))
        close(fds[1])
    }

    /// The seam is typed: each order and answer crosses the pipe as its own case with its own
    /// payload, and an answer is checked before the service uses it (a status that is not an
    /// HTTP error, a frame larger than any picture, a time that is not a number are dropped;
    /// words are cut).
    func testOrdersAndAnswersCrossThePipeTypedAndAnswersAreCheckedAtTheBoundary() throws {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        let ends = WorkerPipe(input: fds[0], output: fds[1])
        defer { close(fds[0]); close(fds[1]) }
        let order = ProcessOrder.replay(id: 7, .init(settings: [["size", "64"]], fps: 10, movie: "mp4", maxSide: 512, seconds: 30, library: 3))
        XCTAssertTrue(ends.send(order, Array("events".utf8)))
        let (back, blob) = try XCTUnwrap(ends.receive(ProcessOrder.self))
        guard case .replay(let id, let job) = back else { return XCTFail("\(back)") }
        XCTAssertEqual(id, 7)
        XCTAssertEqual(job.settings, [["size", "64"]])
        XCTAssertEqual(job.movie, "mp4")
        XCTAssertEqual(job.library, 3)
        XCTAssertEqual(blob, Array("events".utf8))

        let frame = ProcessAnswer.FrameHead(events: 3, time: 0.5, mode: "cartoon", format: "png", facts: FrameFacts(width: 64, height: 64), moving: false)
        XCTAssertNotNil(ProcessAnswer.frame(session: "s", frame).checked())
        var huge = frame
        huge.facts = FrameFacts(width: 1 << 30, height: 64)
        XCTAssertNil(ProcessAnswer.frame(session: "s", huge).checked(), "a frame past any side")
        var late = frame
        late.time = .nan
        XCTAssertNil(ProcessAnswer.frame(session: "s", late).checked(), "a time that is not a number")
        XCTAssertNil(ProcessAnswer.failed(id: 1, status: 200, message: "ok").checked(), "a failure must be an HTTP error")
        XCTAssertNil(ProcessAnswer.tap(session: "s", .init(time: 0, line: 1, x: .infinity, y: 0, hover: false)).checked())
        guard case .failed(_, 422, let words)? = ProcessAnswer.failed(id: 1, status: 422, message: String(repeating: "é", count: 10_000)).checked() else {
            return XCTFail("a long refusal is kept, cut")
        }
        XCTAssertLessThanOrEqual(words.utf8.count, ProcessAnswer.messageBytes)
        // A head that is not an order is no message at all (the reader then ends the pipe).
        XCTAssertTrue(ends.send(ProcessAnswer.done(id: 1)))
        XCTAssertNil(ends.receive(ProcessOrder.self))
    }

    func testPicturesGoToTheLeastLoadedWorkerAndSessionsToTheOneWithFewest() throws {
        // Three render processes beside this process's render thread, which reads no molecule.
        let w = RenderWorkers(count: 3, executable: URL(fileURLWithPath: "/bin/false"), arguments: [])
        XCTAssertEqual(w.count, 4)
        XCTAssertEqual(try (0..<3).map { _ in try w.take(forSession: false, queued: 0, limit: 8) }, [1, 2, 3])
        w.done(2, session: false)
        XCTAssertEqual(try w.take(forSession: false, queued: 0, limit: 8), 2, "the worker that finished is the least loaded")
        // Sessions go by sessions first.
        XCTAssertEqual(try w.take(forSession: true, queued: 0, limit: 8), 1)
        XCTAssertEqual(try w.take(forSession: true, queued: 0, limit: 8), 2)
        // A picture now: every process has one thing or two; 3 has one. Past the limit: 503.
        XCTAssertEqual(try w.take(forSession: false, queued: 0, limit: 8), 3, "worker 3 has a picture and no session")
        XCTAssertEqual(RenderWorkers(count: 1, executable: URL(fileURLWithPath: "/bin/false"), arguments: []).count, 2,
                       "one render process at least, even on one core")
        XCTAssertThrowsError(try RenderWorkers(count: 1, executable: nil, arguments: []).take(forSession: false, queued: 8, limit: 8)) { error in
            XCTAssertEqual((error as? HTTPError)?.status, .serviceUnavailable)
        }
        XCTAssertEqual(RenderWorkers(count: 4, executable: nil, arguments: []).count, 1, "without an executable the service draws alone")
    }

    func testLlvmpipeThreadsShareTheCoresOutAmongTheWorkers() {
        XCTAssertEqual(RenderWorkers.rasterizerThreads(workers: 1, cores: 2), 2)
        XCTAssertEqual(RenderWorkers.rasterizerThreads(workers: 2, cores: 2), 0, "one core each: the drawing thread rasterizes")
        XCTAssertEqual(RenderWorkers.rasterizerThreads(workers: 4, cores: 16), 4)
        XCTAssertEqual(RenderWorkers.rasterizerThreads(workers: 16, cores: 16), 0)
    }

    func testARenderProcessDrawsThePictureTheServiceDrawsItself() async throws {
        let db = try library()
        let service = try MolshotService(configuration: ServiceConfiguration(database: db))
        addTeardownBlock { service.close() }
        let query = [("size", "200x150"), ("rotate", "30,10,0"), ("mode", "spacefill")]
        let own = try await Application(router: service.router()).test(.router) { client in
            let r = try await client.execute(uri: "/v1/molecules/2/image?size=200x150&rotate=30,10,0&mode=spacefill", method: .get)
            XCTAssertEqual(r.status, .ok)
            return Array(buffer: r.body)
        }
        let p = try process(db)
        let drawn = try await p.draw(settings: PictureMaker.pictureSettings(query, defaultSize: "512"), subject: .library(2))
        XCTAssertEqual(drawn.count, own.count)
        XCTAssertTrue(drawn == own, "the render process's PNG differs from the service's own")
        let upload = try await p.draw(settings: [("size", "96")], subject: .upload(try ServiceSafetyTests.fixture("1crn.pdb"), name: "1crn.pdb"))
        let file = scratch.appendingPathComponent("upload.png").path
        try Data(upload).write(to: URL(fileURLWithPath: file))
        let image = try PNGDecoder.read(file)
        XCTAssertEqual([image.width, image.height], [96, 96])
        let colours = Set(stride(from: 0, to: image.pixels.count, by: 4).map { (i: Int) -> Int in
            let r = Int(image.pixels[i]), g = Int(image.pixels[i + 1]), b = Int(image.pixels[i + 2])
            return r << 16 | g << 8 | b
        })
        XCTAssertGreaterThan(colours.count, 20, "an uploaded crambin drawn, not a blank picture")
    }

    func testARenderProcessAnswersBadFilesAndLargeMoleculesAsTheServiceDoes() async throws {
        let db = try library()
        let p = try process(db, maxAtoms: 500)
        do {
            _ = try await p.draw(settings: [("size", "64")], subject: .upload(Array("ATOM  garbage\n".utf8), name: "bad.pdb"))
            XCTFail("a bad file was drawn")
        } catch let e as HTTPError {
            XCTAssertEqual(e.status, .badRequest)
            XCTAssertTrue(e.body?.contains("bad.pdb") == true, e.body ?? "")
        }
        do {
            _ = try await p.draw(settings: [("size", "64")], subject: .library(2))
            XCTFail("1hpv drawn past a limit of 500 atoms")
        } catch let e as HTTPError {
            XCTAssertEqual(e.status, .contentTooLarge)
            XCTAssertTrue(e.body?.contains("500") == true, e.body ?? "")
        }
        // Still there after both.
        let png = try await p.draw(settings: [("size", "64")], subject: .library(1))
        XCTAssertEqual(Array(png.prefix(4)), [0x89, 0x50, 0x4E, 0x47])
    }

    /// An uploaded density map is read and contoured in the render process, as every upload:
    /// EMD-3197 (by its header, with no name to go by) at 1 sigma as a picture; hostile maps (2^31
    /// columns, mode 99, a truncated one) 400s naming the upload, and the process still draws after.
    func testARenderProcessDrawsAnUploadedMapAndRefusesHostileOnes() async throws {
        let db = try library()
        let p = try process(db)
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        let emd = try Array(Data(contentsOf: root.appendingPathComponent("Fixtures/maps/EMD-3197.map")))
        let png = try await p.draw(settings: [("size", "96"), ("level", "1s")], subject: .upload(emd, name: "upload"))
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let file = scratch.appendingPathComponent("map.png")
        try Data(png).write(to: file)
        let image = try PNGDecoder.read(file.path)
        var coloured = 0
        for y in 0..<image.height { for x in 0..<image.width { let c = image.pixel(x, y); if Int(c.b) > Int(c.r) + 30 { coloured += 1 } } }
        XCTAssertGreaterThan(coloured, 1000, "the map's surface drawn")
        var wide = emd, mode = emd, truncated = Array(emd.prefix(4000))
        wide[0] = 0xFF; wide[1] = 0xFF; wide[2] = 0xFF; wide[3] = 0x7F
        mode[12] = 99
        truncated[0] = 20
        for (bytes, says) in [(wide, "NC"), (mode, "mode 99"), (truncated, "truncated")] {
            do {
                _ = try await p.draw(settings: [("size", "64")], subject: .upload(bytes, name: "hostile.map"))
                XCTFail("a hostile map was drawn (\(says))")
            } catch let e as HTTPError {
                XCTAssertEqual(e.status, .badRequest)
                XCTAssertTrue(e.body?.contains("hostile.map") == true && e.body?.contains(says) == true, e.body ?? "")
            }
        }
        let after = try await p.draw(settings: [("size", "64")], subject: .library(1))
        XCTAssertEqual(Array(after.prefix(4)), [0x89, 0x50, 0x4E, 0x47])
    }

    func testAProcessThatEndsFailsItsRequestAndTheNextStartsAnother() async throws {
        let db = try library()
        let p = try process(db)
        _ = try await p.draw(settings: [("size", "64")], subject: .library(1))
        let first = try XCTUnwrap(p.pid)
        kill(first, SIGKILL)
        // The request under way when it ended, or the next, is told the process ended; a later one is drawn by another.
        var drawn = false
        for _ in 0..<20 where !drawn {
            do {
                _ = try await p.draw(settings: [("size", "64")], subject: .library(1))
                drawn = true
            } catch let e as RenderProcessEnded {
                XCTAssertTrue(e.description.contains("signal 9") || e.description.contains("started"), e.description)
                try await Task.sleep(nanoseconds: 50_000_000)
            }
        }
        XCTAssertTrue(drawn)
        XCTAssertNotEqual(p.pid, first)
    }

    /// The server never reads an uploaded file itself: an upload whose reading passes the render
    /// process's address space (a gzip that says it holds 500 MB) ends that process, is tried once
    /// more alone and answered 422 naming the limit, while the pictures asked for at the same time
    /// are drawn, and the server goes on with new processes. The hostile files of the readers'
    /// findings are answered 4xx within seconds.
    func testAFileThatEndsItsRenderProcessEndsOnlyThatProcess() async throws {
        let db = try library()
        let bombBytes = try gzipBomb()
        var c = ServiceConfiguration(database: db)
        c.renderProcess = try molshot().path
        c.renderThreads = 2
        c.renderProcessMegabytes = 768
        let service = try MolshotService(configuration: c)
        addTeardownBlock { service.close() }
        let overflow = try ServiceSafetyTests.fixture("one-atom.cif") + Array("""
            loop_
            _pdbx_struct_assembly.id
            1
            loop_
            _pdbx_struct_assembly_gen.assembly_id
            _pdbx_struct_assembly_gen.oper_expression
            _pdbx_struct_assembly_gen.asym_id_list
            1 '-9223372036854775808-0' A
            """.utf8)
        try await Application(router: service.router()).test(.router) { client in
            let first = try await client.execute(uri: "/v1/molecules/1/image?size=64", method: .get)
            XCTAssertEqual(first.status, .ok)
            let before = service.workers.processes.compactMap(\.pid)
            XCTAssertEqual(before.count, 1, "one process has drawn so far")
            let statuses = try await withThrowingTaskGroup(of: (String, HTTPResponse.Status, String).self) { group in
                group.addTask {
                    let r = try await client.execute(uri: "/v1/render?name=spaces.pdb.gz&size=64", method: .post, body: ByteBuffer(bytes: bombBytes))
                    return ("bomb", r.status, String(buffer: r.body))
                }
                for k in 0..<6 {
                    group.addTask {
                        let r = try await client.execute(uri: "/v1/molecules/\(k % 2 + 1)/image?size=64&rotate=\(k * 10),0,0", method: .get)
                        return ("picture \(k)", r.status, String(buffer: r.body))
                    }
                }
                var all: [(String, HTTPResponse.Status, String)] = []
                for try await answer in group { all.append(answer) }
                return all
            }
            for (what, status, body) in statuses {
                if what == "bomb" {
                    XCTAssertEqual(status, .unprocessableContent, body)
                    XCTAssertTrue(body.contains("the reader stopped") && body.contains("768 MiB"), body)
                } else {
                    XCTAssertEqual(status, .ok, "\(what): \(body)")
                }
            }
            // The readers' findings: 4xx, and the server goes on.
            let range = try await client.execute(uri: "/v1/render?name=x.cif&size=64&assembly=1", method: .post, body: ByteBuffer(bytes: overflow))
            XCTAssertEqual(range.status, .badRequest, String(buffer: range.body))
            XCTAssertTrue(String(buffer: range.body).contains("backwards or longer than 100000"), String(buffer: range.body))
            let rowCount: [UInt8] = [0x81, 0xAA] + Array("dataBlocks".utf8) + [0x91, 0x82, 0xA6] + Array("header".utf8) + [0xA1, 0x58, 0xAA] + Array("categories".utf8)
                + [0x91, 0x83, 0xA4] + Array("name".utf8) + [0xA2] + Array("_x".utf8) + [0xA8] + Array("rowCount".utf8) + [0xCF, 0, 0, 1, 0, 0, 0, 0, 0]
                + [0xA7] + Array("columns".utf8) + [0x90]
            let huge = try await client.execute(uri: "/v1/render?name=x.bcif&size=64", method: .post, body: ByteBuffer(bytes: rowCount))
            XCTAssertEqual(huge.status, .badRequest, String(buffer: huge.body))
            let after = try await client.execute(uri: "/v1/molecules/2/image?size=64", method: .get)
            XCTAssertEqual(after.status, .ok)
        }
    }

    /// An import over HTTP is read in a render process, which hands back the compact model: the
    /// library then holds what an import read here holds (record, rows, model, bonds, facts). A
    /// file that ends the process is answered 422 and nothing is stored.
    func testAnImportIsReadInARenderProcessAndStoredAsIfReadHere() async throws {
        let db = try library()
        let tokens = scratch.appendingPathComponent("tokens").path
        let token = try Tokens.add("alice", to: tokens)
        var c = ServiceConfiguration(database: db)
        c.renderProcess = try molshot().path
        c.renderThreads = 1
        c.renderProcessMegabytes = 768
        c.tokens = try Tokens.load(tokens)
        let service = try MolshotService(configuration: c)
        addTeardownBlock { service.close() }
        let bomb = try gzipBomb()
        let files = ["bcif/1A8O.bcif.gz", "1orc.pdb", "TYR.sdf"]
        try await Application(router: service.router()).test(.router) { client in
            for f in files {
                let r = try await client.execute(uri: "/v1/molecules?name=\((f as NSString).lastPathComponent)", method: .post,
                                                 headers: [.authorization: "Bearer \(token)"], body: ByteBuffer(bytes: try ServiceSafetyTests.fixture(f)))
                XCTAssertEqual(r.status, .created, "\(f): \(String(buffer: r.body))")
            }
            let stopped = try await client.execute(uri: "/v1/molecules?name=spaces.pdb.gz", method: .post, headers: [.authorization: "Bearer \(token)"],
                                                   body: ByteBuffer(bytes: bomb))
            XCTAssertEqual(stopped.status, .unprocessableContent, String(buffer: stopped.body))
            XCTAssertTrue(String(buffer: stopped.body).contains("the reader stopped"), String(buffer: stopped.body))
        }
        XCTAssertGreaterThan(service.workers.processes.count, 0)
        // The same files imported here, read in this process.
        let here = try MoleculeLibrary(path: scratch.appendingPathComponent("here.sqlite").path)
        let there = try MoleculeLibrary(path: db, create: false)
        XCTAssertEqual(try there.list(offset: 0, limit: 10, query: nil, order: .id, viewer: .reader("alice")).total, 2 + files.count, "the bomb stored nothing")
        for (k, f) in files.enumerated() {
            let name = (f as NSString).lastPathComponent
            _ = try here.importBytes(try ServiceSafetyTests.fixture(f), source: "upload:alice/\(name)", name: MoleculeLibrary.name(forPath: name),
                                     perception: try BondPerception.standard(), owner: "alice")
            let (a, sa) = try here.load(String(k + 1)), (b, sb) = try there.load(String(k + 3))
            XCTAssertEqual([a.name, a.checksum, a.format, a.pdbId ?? "", a.title ?? ""], [b.name, b.checksum, b.format, b.pdbId ?? "", b.title ?? ""], f)
            XCTAssertEqual([a.models, a.atoms, a.bonds, a.chains, a.residues, a.fileBytes], [b.models, b.atoms, b.bonds, b.chains, b.residues, b.fileBytes], f)
            XCTAssertEqual(sa.models[0].atoms.map(\.position), sb.models[0].atoms.map(\.position), f)
            XCTAssertEqual(sa.models[0].explicitBonds, sb.models[0].explicitBonds, f)
            XCTAssertEqual(sa.entities, sb.entities, f)
            XCTAssertEqual(sa.assemblies, sb.assemblies, f)
            XCTAssertEqual(sa.secondaryStructure, sb.secondaryStructure, f)
            XCTAssertEqual(try here.original(id: k + 1), try there.original(id: k + 3), f)
        }
    }

    func testASessionInARenderProcessSendsTheFramesOfASessionHereAndKeepsItsRecording() async throws {
        let db = try library()
        let lines = [#"{"type":"header","version":1,"viewport":{"width":160,"height":120}}"#,
                     #"{"t":0.1,"type":"rotate","dx":40,"dy":10}"#, #"{"t":0.2,"type":"frame"}"#, "not json", #"{"t":0.3,"type":"frame"}"#]
        let settings = PictureMaker.pictureSettings([("size", "160x120")], defaultSize: "512")
        // Here: a session on a render worker of this process.
        let worker = RenderWorker { try MoleculeRenderer() }
        let local = Outputs()
        var options = MoleculeDriver.Options()
        options.request = try RenderRequest(settings)
        let molecule = try PictureLimits(library: try LibraryConnections(path: db), maxBytes: 1 << 26, maxAtoms: 1 << 30).load(.library(1))
        let here = LiveSession(options: options, molecule: molecule, lane: RenderLane(worker), record: true, send: local.add)
        for line in lines { here.receive(line) }
        try await local.waitForFrame(events: 3)
        here.close()
        // There: the same lines to a render process.
        let p = try process(db)
        let remote = Outputs()
        let there = try await p.openSession("s1", library: 1, settings: settings, record: true, send: remote.add)
        for line in lines { there.receive(line) }
        try await remote.waitForFrame(events: 3)
        XCTAssertEqual(remote.errors, local.errors)
        XCTAssertEqual(remote.errors.count, 1, "the bad line is answered once: \(remote.errors)")
        XCTAssertTrue(remote.lastFrame == local.lastFrame, "the render process's frame differs from this process's")
        XCTAssertEqual(there.recording, here.recording)
        XCTAssertEqual(there.recording?.split(separator: "\n").count, 4, "header and three events; the bad line is not recorded")
        there.close()
        // A molecule past the process's limit does not open.
        let small = try process(db, maxAtoms: 10)
        do {
            _ = try await small.openSession("s2", library: 1, settings: settings, record: false, send: { _ in })
            XCTFail("a session opened past the atom limit")
        } catch let e as HTTPError { XCTAssertEqual(e.status, .contentTooLarge) }
    }
}

/// What a session sent, kept for a test.
final class Outputs: @unchecked Sendable {
    private let lock = NSLock()
    private var frames: [LiveFrame] = []
    private var errorLines: [String] = []

    var add: @Sendable (LiveOutput) -> Void {
        { [self] output in
            lock.withLock {
                switch output {
                case .frame(let f): frames.append(f)
                case .error(let line, let message): errorLines.append("\(line): \(message)")
                case .tapped: break
                }
            }
        }
    }

    var lastFrame: [UInt8]? { lock.withLock { frames.last?.image } }
    var errors: [String] { lock.withLock { errorLines } }

    func waitForFrame(events: Int) async throws {
        for _ in 0..<400 {
            if lock.withLock({ frames.last.map { $0.events >= events } ?? false }) { return }
            try await Task.sleep(nanoseconds: 25_000_000)
        }
        XCTFail("no frame showing \(events) events within 10 s")
    }
}

import Foundation
import XCTest

/// `search`, `fetch` and `pdb:` against a real HTTP server on 127.0.0.1 that speaks the RCSB
/// protocols on real files (Tests/Servers/pdb_server.py), misbehaving where asked.
final class PDBArchiveTests: XCTestCase {
    var server: Process!
    var input: Pipe!
    var port = 0
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("molshot-pdb-\(UUID().uuidString)")

    override func setUpWithError() throws {
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        server.arguments = ["python3", InfoCommandTests.root.appendingPathComponent("Tests/Servers/pdb_server.py").path]
        input = Pipe()
        let output = Pipe()
        server.standardInput = input
        server.standardOutput = output
        do { try server.run() } catch { throw XCTSkip("python3 is needed for the test server: \(error)") }
        var line = Data()
        while !line.contains(0x0A) {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { break }
            line.append(chunk)
        }
        port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines).dropFirst(5)) ?? 0
        XCTAssertGreaterThan(port, 0, "the test server did not start")
    }

    override func tearDown() {
        try? input.fileHandleForWriting.close()
        server.waitUntilExit()
        try? FileManager.default.removeItem(at: scratch)
    }

    var environment: [String: String] {
        ["MOLSHOT_PDB_MIRROR": "http://127.0.0.1:\(port)/files/{id}.{format}.gz",
         "MOLSHOT_PDB_SEARCH": "http://127.0.0.1:\(port)/search",
         "MOLSHOT_PDB_ENTRY": "http://127.0.0.1:\(port)/entry/{ID}",
         "MOLSHOT_DB": scratch.appendingPathComponent("library.sqlite").path,
         "MOLSHOT_HTTP_TIMEOUT": "1", "MOLSHOT_HTTP_ATTEMPTS": "2", "MOLSHOT_HTTP_BACKOFF": "0.1"]
    }

    func molshot(_ arguments: String...) throws -> MolshotBinary.Run { try MolshotBinary.run(arguments, environment: environment) }

    func molshot(_ arguments: [String], changing: [String: String]) throws -> MolshotBinary.Run {
        try MolshotBinary.run(arguments, environment: environment.merging(changing) { $1 })
    }

    func testSearchListsHitsWithTitleMethodAndResolution() throws {
        let run = try molshot("search", "crambin")
        XCTAssertEqual(run.status, 0, run.stderr)
        let lines = run.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 3, run.stdout)
        XCTAssertTrue(lines[0].hasPrefix("1CRN\tX-RAY DIFFRACTION\t1.50 Å\tWATER STRUCTURE"), String(lines[0]))
        XCTAssertEqual(lines[2], "2 of 2 entries")
        let json = try molshot("search", "crambin", "--limit", "1", "--json")
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(object["total"] as? Int, 2)
        XCTAssertEqual((object["hits"] as? [[String: Any]])?.map { $0["id"] as? String }, ["1CRN"])
    }

    func testAnEmptyResultAndAFailingSearch() throws {
        let none = try molshot("search", "nothing")
        XCTAssertEqual(none.status, 0, none.stderr)
        XCTAssertEqual(none.stdout, "0 of 0 entries\n")
        let broken = try molshot("search", "broken")
        XCTAssertEqual(broken.status, 2)
        XCTAssertTrue(broken.stderr.contains("failed 2 times, last: HTTP 500"), broken.stderr)
        XCTAssertTrue(broken.stderr.contains("search: http://127.0.0.1:\(port)/search: HTTP 500; trying again in 0.1 s (attempt 2 of 2)"),
                      broken.stderr)
        XCTAssertTrue(broken.stderr.contains("set MOLSHOT_PDB_MIRROR"), broken.stderr)
    }

    func testAnEmptySearchIsRefusedWithoutGoingToTheNetwork() throws {
        for text in ["", "  "] {
            let run = try molshot(["search", text], changing: ["MOLSHOT_PDB_SEARCH": "http://127.0.0.1:1/search"])
            XCTAssertEqual(run.status, 1)
            XCTAssertEqual(run.stderr.split(separator: "\n").first, "molshot: error: Give words to search for.")
        }
    }

    func testHitsAreListedWhenTheirDetailsCannotBeFetched() throws {
        let run = try molshot(["search", "crambin"], changing: ["MOLSHOT_PDB_ENTRY": "http://127.0.0.1:1/entry/{ID}"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stdout, "1CRN\t-\t-\t(details unavailable)\n1BNA\t-\t-\t(details unavailable)\n2 of 2 entries\n")
        XCTAssertTrue(run.stderr.hasPrefix("molshot: warning: the search answered but the entries' details could not be fetched"), run.stderr)
        let json = try molshot(["search", "crambin", "--json"], changing: ["MOLSHOT_PDB_ENTRY": "http://127.0.0.1:1/entry/{ID}"])
        XCTAssertTrue(json.stdout.contains("\"detailsMissing\""), json.stdout)
    }

    /// A host that does not resolve (a name under .invalid never does) or refuses the connection is
    /// said at once, with the URL and what to do offline: no retries, no waiting.
    func testNoNetworkFailsAtOnceAndSaysWhatToDo() throws {
        for (mirror, why) in [("http://no-such-host.invalid/{id}.{format}.gz", "no-such-host.invalid"),
                              ("http://127.0.0.1:1/{id}.{format}.gz", "127.0.0.1")] {
            // Four attempts a day apart: a retry would never end within the test run, and would say so.
            let run = try molshot(["fetch", "1crn"], changing: ["MOLSHOT_PDB_MIRROR": mirror, "MOLSHOT_HTTP_ATTEMPTS": "4", "MOLSHOT_HTTP_BACKOFF": "86400"])
            XCTAssertEqual(run.status, 2)
            XCTAssertTrue(run.stderr.contains("molshot: error: 1CRN: could not reach \(mirror.replacingOccurrences(of: "{id}", with: "1crn").replacingOccurrences(of: "{format}", with: "cif"))"), run.stderr)
            XCTAssertTrue(run.stderr.contains(why) && run.stderr.contains("no network? set MOLSHOT_PDB_MIRROR"), run.stderr)
            XCTAssertFalse(run.stderr.contains("trying again"), "not retried: \(run.stderr)")
        }
    }

    func testFetchImportsAndRendersFromTheLibrary() throws {
        let run = try molshot("fetch", "1crn")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.hasPrefix("fetched 1CRN as 1 (327 atoms)"), run.stdout)
        let again = try molshot("fetch", "1CRN")
        // Not downloaded again (the stand-in server gzips afresh each time, so a second download
        // would differ in its gzip header's time and not be caught as the same file).
        XCTAssertTrue(again.stdout.contains("already in the library as 1"), again.stdout + again.stderr)
        let info = try molshot("info", "lib:1CRN")
        XCTAssertTrue(info.stdout.contains("atoms:      327"), info.stdout)
        // pdb: uses the library's copy, or fetches on demand.
        let png = scratch.appendingPathComponent("bna.png").path
        let render = try molshot("render", "pdb:1bna", "-o", png, "--size", "32")
        XCTAssertEqual(render.status, 1, "1bna has no cif on this server")
        XCTAssertTrue(render.stderr.contains("the PDB has no entry 1BNA"), render.stderr)
        let crambin = try molshot("render", "pdb:1crn", "-o", png, "--size", "32")
        XCTAssertEqual(crambin.status, 0, crambin.stderr)
    }

    func testA404SaysTheEntryDoesNotExist() throws {
        let run = try molshot("fetch", "none")
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stderr.contains("the PDB has no entry NONE"), run.stderr)
    }

    func testA500IsTriedAgain() throws {
        let run = try molshot("fetch", "flky", "--format", "pdb")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.hasPrefix("fetched FLKY"), run.stdout)
    }

    func testAStalledServerTimesOutAndKeepsNothing() throws {
        let run = try molshot("fetch", "stal")
        XCTAssertEqual(run.status, 2)
        // Given up by its own timeout, not by an answer the server sent late.
        XCTAssertTrue(run.stderr.contains("failed 2 times, last: no answer within 1 s"), run.stderr)
        XCTAssertTrue(run.stderr.contains("molshot: STAL: http://127.0.0.1:\(port)/files/stal.cif.gz: no answer within 1 s; trying again in 0.1 s (attempt 2 of 2)"),
                      "a line for each retry: \(run.stderr)")
        XCTAssertTrue(try molshot("library", "list").stdout.hasSuffix("none of 0 molecules\n"))
    }

    func testATruncatedDownloadIsRefused() throws {
        let run = try molshot("fetch", "trun")
        XCTAssertEqual(run.status, 2)
        XCTAssertTrue(run.stderr.contains("the download of TRUN"), run.stderr)
        XCTAssertTrue(run.stderr.contains("is damaged"), run.stderr)
        XCTAssertTrue(try molshot("library", "list").stdout.hasSuffix("none of 0 molecules\n"))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { !$0.hasPrefix("library.sqlite") }
        XCTAssertEqual(leftovers, [])
    }
}

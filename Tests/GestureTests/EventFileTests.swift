import Foundation
import Gestures
import XCTest

final class EventFileTests: XCTestCase {
    let header = #"{"type":"header","version":1,"viewport":{"width":320,"height":480}}"#

    func error(_ lines: [String]) -> GestureFileError? {
        do {
            _ = try GestureEventReader.readAll(([header] + lines).joined(separator: "\n"), source: "e.jsonl")
            XCTFail("expected an error")
        } catch let e as GestureFileError {
            return e
        } catch {
            XCTFail("\(error)")
        }
        return nil
    }

    func testReadsHeaderTouchesAndCommands() throws {
        let (viewport, events) = try GestureEventReader.readAll([
            header,
            #"{"t":0,"type":"touch","phase":"began","id":1,"x":10,"y":20}"#,
            #"{"t":0.5,"type":"touch","phase":"ended","id":1,"x":10,"y":20,"tapCount":1}"#,
            #"{"t":0.5,"type":"rotate","dx":3,"dy":-4}"#,
            #"{"t":1,"type":"frame"}"#,
        ].joined(separator: "\n"), source: "e.jsonl")
        XCTAssertEqual(viewport.width, 320)
        XCTAssertEqual(events.map(\.line), [2, 3, 4, 5])
        XCTAssertEqual(events[2].kind, .command(.rotate(dx: 3, dy: -4)))
        XCTAssertEqual(events[3].kind, .frame)
    }

    func testMalformedLinesNameTheLine() {
        XCTAssertEqual(error([#"{"t":0,"type":"wiggle"}"#])?.description, #"e.jsonl:2: unknown event type "wiggle""#)
        XCTAssertEqual(error([#"{"t":0,"type":"pan","dx":1}"#])?.description, #"e.jsonl:2: pan: missing or non-numeric field "dy""#)
        XCTAssertEqual(error([#"{"t":1,"type":"frame"}"#, #"{"t":0.5,"type":"frame"}"#])?.line, 3)
        XCTAssertEqual(error([#"{"t":0,"type":"touch","phase":"moved","id":7,"x":1,"y":1}"#])?.message,
                       "touch 7 moved but never began")
        XCTAssertEqual(error(["not json"])?.message, "not a JSON object")
        XCTAssertEqual(error([#"{"t":0,"type":"pinch","scale":0}"#])?.message, "pinch: scale must be positive")
        do {
            _ = try GestureEventReader.readAll(#"{"t":0,"type":"frame"}"#, source: "e.jsonl")
            XCTFail("expected an error")
        } catch let e as GestureFileError {
            XCTAssertEqual(e.line, 1)
        } catch { XCTFail("\(error)") }
    }

    func testATouchIdTooLargeForAnIntegerIsAnErrorNotACrash() {
        // Found by the events fuzzer (fuzz/run events): an id past Int's range, converted to Int, traps.
        let e = error([#"{"t":0,"type":"touch","phase":"began","id":2222222222222222222222222222221,"x":1,"y":1}"#])
        XCTAssertEqual(e?.line, 2)
        XCTAssertTrue(e?.message.contains("\"id\" must be a whole number") ?? false, e?.message ?? "")
        XCTAssertNotNil(error([#"{"t":0,"type":"touch","phase":"began","id":1.5,"x":1,"y":1}"#]))
    }

    func testEveryFuzzFindingReadsOrFailsCleanly() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/fuzz-events")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        XCTAssertFalse(names.isEmpty, "the findings are there to read")
        for name in names {
            let text = String(decoding: try Data(contentsOf: folder.appendingPathComponent(name)), as: UTF8.self)
            var reader = GestureEventReader(source: name)
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            for line in lines {
                do { _ = try reader.read(String(line)) } catch let e as GestureFileError {
                    // Refused: named by its file and a line that is there.
                    XCTAssertEqual(e.file, name)
                    XCTAssertTrue((1...lines.count).contains(e.line), "\(name): line \(e.line)")
                    break
                }
            }
        }
    }
}

/// One rule for when a replay's frames fall, the command line's and the service's.
final class ReplayTimingTests: XCTestCase {
    func testAMovieTakesTheFrameEventsTheFolderTakes() throws {
        let events = try String(contentsOfFile: "Assets/samples/gestures.jsonl", encoding: .utf8)
        XCTAssertTrue(ReplayTiming.hasFrameEvents(events))
        XCTAssertNil(ReplayTiming.clock(fps: nil, movie: true, events: events), "frame events, as -o DIR")
        XCTAssertNil(ReplayTiming.clock(fps: nil, movie: false, events: events))
        XCTAssertEqual(ReplayTiming.clock(fps: 12, movie: true, events: events), 12)
        let none = events.split(separator: "\n").filter { !$0.contains("\"frame\"") }.joined(separator: "\n")
        XCTAssertFalse(ReplayTiming.hasFrameEvents(none))
        XCTAssertEqual(ReplayTiming.clock(fps: nil, movie: true, events: none), ReplayTiming.movieFPS, "no frame events: a clock")
        XCTAssertEqual(ReplayTiming.clock(fps: nil, movie: true, events: nil), ReplayTiming.movieFPS, "a stream: a clock")
        // A "frame" that is not an event's type does not count.
        XCTAssertFalse(ReplayTiming.hasFrameEvents("{\"t\":1,\"type\":\"touch\",\"note\":\"frame\"}\n{not json \"frame\""))
    }
}

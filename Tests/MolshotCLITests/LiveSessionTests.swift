import Foundation
import Graphics
import Imaging
import LiveClient
import TestSupport
import XCTest

/// Live sessions of `molshot serve` over real WebSockets on 127.0.0.1.
final class LiveSessionTests: GLTestCase {
    var serve: ServeHarness!

    override func setUpWithError() throws {
        try super.setUpWithError()
        serve = try ServeHarness.withCrambin()
    }

    override func tearDown() { serve.stop() }

    /// A session's client: sends lines, counts the events it sent, waits for frames.
    final class Session {
        let client: WebSocketClient
        let id: String
        var events = 0
        var sent: [String] = []

        init(_ base: String, query: String) throws {
            client = try WebSocketClient(base.replacingOccurrences(of: "http://", with: "ws://") + "/v1/sessions?" + query)
            let hello = try client.receiveJSON()
            XCTAssertEqual(hello["type"] as? String, "session")
            id = try XCTUnwrap(hello["id"] as? String)
        }

        static let header = #"{"type":"header","version":1,"viewport":{"width":320,"height":320}}"#

        func send(_ lines: [String]) throws {
            for line in lines {
                try client.send(text: line)
                sent.append(line)
                if line != Session.header { events += 1 }
            }
        }

        /// The frame that shows every event sent so far (frames of earlier states are skipped).
        func frame(timeout: Double = 60) throws -> (info: [String: Any], png: [UInt8]) {
            while true {
                let info = try client.receiveJSON(timeout: timeout)
                if info["type"] as? String == "error" { throw WebSocketClient.Failure(description: "error: \(info)") }
                XCTAssertEqual(info["type"] as? String, "frame")
                guard case .binary(let png) = try client.receive(timeout: timeout) else { throw WebSocketClient.Failure(description: "no PNG after \(info)") }
                XCTAssertEqual(info["bytes"] as? Int, png.count)
                if info["events"] as? Int == events { return (info, png) }
            }
        }
    }

    func image(_ png: [UInt8]) throws -> RGBAImage {
        let path = serve.scratch.appendingPathComponent("frame-\(UUID().uuidString).png").path
        try Data(png).write(to: URL(fileURLWithPath: path))
        return try PNGDecoder.read(path)
    }

    /// Pixels that are not the white background.
    func drawn(_ image: RGBAImage) -> Int {
        var n = 0
        for y in 0..<image.height { for x in 0..<image.width where image.pixel(x, y) != (255, 255, 255, 255) { n += 1 } }
        return n
    }

    func testADragTurnsTheMoleculeAsAReplayOfTheSameEventsDoesAndTheRecordingReplaysToTheSameFrames() throws {
        let base = try serve.start()
        let s = try Session(base, query: "molecule=1crn&size=96x96&background=white&record=1&mode=ball-and-stick")
        try s.send([Session.header])
        var live = [try image(s.frame().png)]
        XCTAssertEqual(live[0].width, 96)
        // One finger drags to the right in steps, asking for a frame after each.
        var lines: [String] = [#"{"t":0,"type":"touch","phase":"began","id":1,"x":100,"y":160}"#]
        try s.send(lines)
        for k in 1...4 {
            let step = [#"{"t":\#(Double(k) * 0.05),"type":"touch","phase":"moved","id":1,"x":\#(100 + 30 * k),"y":160}"#,
                        #"{"t":\#(Double(k) * 0.05),"type":"frame"}"#]
            try s.send(step)
            lines += step
            live.append(try image(s.frame().png))
        }
        XCTAssertFalse(live[0] == live[4], "the molecule turned")
        XCTAssertFalse(live[3] == live[4])

        // The same events replayed from a file: the frame at each `frame` event is the live one, pixel for pixel.
        let file = serve.scratch.appendingPathComponent("drag.jsonl")
        try ([Session.header] + lines).joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
        let out = serve.scratch.appendingPathComponent("replayed").path
        let r = try MolshotBinary.run(["replay", file.path, "--molecule", "Tests/Fixtures/1crn.pdb", "-o", out, "--size", "96x96", "--background", "white",
                                      "--mode", "ball-and-stick"])
        XCTAssertEqual(r.status, 0, r.stderr)
        for k in 1...4 {
            let replayed = try PNGDecoder.read("\(out)/frame-\(String(format: "%05d", k)).png")
            XCTAssertTrue(replayed == live[k], "frame \(k): the live frame is the replayed one")
        }

        // A pinch (two fingers moving apart) zooms in: more of the picture is molecule.
        let before = drawn(live[4])
        try s.send([#"{"t":1,"type":"touch","phase":"ended","id":1,"x":220,"y":160}"#,
                    #"{"t":1.1,"type":"touch","phase":"began","id":2,"x":150,"y":160}"#,
                    #"{"t":1.1,"type":"touch","phase":"began","id":3,"x":170,"y":160}"#])
        for k in 1...6 {
            let t = 1.1 + Double(k) * 0.05
            try s.send([#"{"t":\#(t),"type":"touch","phase":"moved","id":2,"x":\#(150 - 12 * k),"y":160}"#,
                        #"{"t":\#(t),"type":"touch","phase":"moved","id":3,"x":\#(170 + 12 * k),"y":160}"#])
        }
        try s.send([#"{"t":1.5,"type":"touch","phase":"ended","id":2,"x":78,"y":160}"#,
                    #"{"t":1.5,"type":"touch","phase":"ended","id":3,"x":242,"y":160}"#, #"{"t":1.5,"type":"frame"}"#])
        let pinched = try s.frame()
        XCTAssertGreaterThan(drawn(try image(pinched.png)), before * 3 / 2, "a pinch apart zooms in")

        // A double tap changes the mode.
        XCTAssertEqual(pinched.info["mode"] as? String, "ball-and-stick")
        try s.send([#"{"t":2,"type":"touch","phase":"began","id":4,"x":160,"y":160,"tapCount":2}"#,
                    #"{"t":2.05,"type":"touch","phase":"ended","id":4,"x":160,"y":160,"tapCount":2}"#, #"{"t":2.05,"type":"frame"}"#])
        let tapped = try s.frame()
        XCTAssertEqual(tapped.info["mode"] as? String, "spacefill")

        // The recording is the lines taken; replayed, its last frame is the session's last.
        let recording = try ServeTests.call("\(base)/v1/sessions/\(s.id)/events")
        XCTAssertEqual(recording.status, 200)
        XCTAssertEqual(recording.text, s.sent.joined(separator: "\n") + "\n")
        let recorded = serve.scratch.appendingPathComponent("recorded.jsonl")
        try recording.body.write(to: recorded)
        let again = serve.scratch.appendingPathComponent("again").path
        let r2 = try MolshotBinary.run(["replay", recorded.path, "--molecule", "Tests/Fixtures/1crn.pdb", "-o", again, "--size", "96x96", "--background", "white",
                                       "--mode", "ball-and-stick"])
        XCTAssertEqual(r2.status, 0, r2.stderr)
        let frames = try FileManager.default.contentsOfDirectory(atPath: again).filter { $0.hasSuffix(".png") }.sorted()
        XCTAssertTrue(try PNGDecoder.read("\(again)/\(frames.last!)") == image(tapped.png), "the recording replays to the same last frame")
        XCTAssertTrue(try PNGDecoder.read("\(again)/frame-00004.png") == live[4])
    }

    /// A frame in mode auto says what auto drew (a cartoon for crambin); a named mode says nothing more.
    func testAFrameSaysWhatAutoDrew() throws {
        let base = try serve.start()
        let auto = try Session(base, query: "molecule=1crn&size=64x64")
        try auto.send([Session.header])
        let frame = try auto.frame()
        XCTAssertEqual(frame.info["mode"] as? String, "auto")
        XCTAssertEqual(frame.info["drawn"] as? String, "cartoon")
        let named = try Session(base, query: "molecule=1crn&size=64x64&mode=spacefill")
        try named.send([Session.header])
        XCTAssertTrue(try named.frame().info["drawn"] is NSNull)
    }

    /// A tap on a molecule names the front-most atom under it (chain, residue, atom, position); a
    /// tap on the background names none; a drag is no tap.
    func testATapOnAMoleculePicksTheAtomUnderIt() throws {
        let base = try serve.start()
        let s = try Session(base, query: "molecule=1crn&size=160x160&mode=spacefill")
        try s.send([Session.header])
        _ = try s.frame()
        // The viewport is 320 points for 160 pixels: the middle is (160, 160), a corner (3, 3).
        try s.send([#"{"t":0.1,"type":"touch","phase":"began","id":1,"x":160,"y":160}"#,
                    #"{"t":0.15,"type":"touch","phase":"ended","id":1,"x":160,"y":160,"tapCount":1}"#,
                    #"{"t":0.3,"type":"touch","phase":"began","id":1,"x":3,"y":3}"#,
                    #"{"t":0.35,"type":"touch","phase":"ended","id":1,"x":3,"y":3,"tapCount":1}"#,
                    #"{"t":0.5,"type":"touch","phase":"began","id":1,"x":100,"y":160}"#,
                    #"{"t":0.55,"type":"touch","phase":"moved","id":1,"x":200,"y":160}"#,
                    #"{"t":0.6,"type":"touch","phase":"ended","id":1,"x":200,"y":160,"tapCount":1}"#,
                    #"{"t":0.7,"type":"frame"}"#])
        var taps: [[String: Any]] = []
        var frames = 0
        while frames < 1 || taps.count < 2 {
            let m = try s.client.receiveJSON()
            if m["type"] as? String == "tap" { taps.append(m) } else if m["type"] as? String == "frame" { _ = try s.client.receive(); frames += 1 }
        }
        XCTAssertEqual(taps.count, 2, "the drag is no tap")
        let atom = try XCTUnwrap(taps[0]["atom"] as? [String: Any], "\(taps[0])")
        XCTAssertEqual(atom["chain"] as? String, "A")
        XCTAssertNotNil(atom["name"] as? String)
        XCTAssertEqual((atom["position"] as? [Double])?.count, 3)
        XCTAssertTrue((1...46).contains(atom["number"] as? Int ?? 0), "\(atom)")
        XCTAssertNil(taps[1]["atom"], "a tap on the background picks nothing: \(taps[1])")
    }

    /// `frames=jpeg` and `frames=webp` send those formats (said in each frame's message), the same
    /// picture as the PNG frame to within lossy error; an unknown format or a bad quality is refused.
    func testFramesAsJPEGAndWebPShowThePNGFramesPicture() throws {
        let base = try serve.start()
        func first(_ query: String) throws -> (info: [String: Any], bytes: [UInt8]) {
            let s = try Session(base, query: "molecule=1crn&size=128x128&mode=spacefill&background=white" + query)
            try s.send([Session.header])
            let f = try s.frame()
            return (f.info, f.png)
        }
        let png = try first("")
        XCTAssertEqual(png.info["format"] as? String, "png")
        let exact = try image(png.bytes)
        let jpeg = try first("&frames=jpeg&quality=85"), webp = try first("&frames=webp")
        XCTAssertEqual(jpeg.info["format"] as? String, "jpeg")
        XCTAssertEqual(Array(jpeg.bytes.prefix(3)), [0xFF, 0xD8, 0xFF], "a JPEG file")
        XCTAssertEqual(webp.info["format"] as? String, "webp")
        XCTAssertEqual(Array(webp.bytes.prefix(4)), Array("RIFF".utf8))
        XCTAssertEqual(Array(webp.bytes[8..<12]), Array("WEBP".utf8))
        // Decoded by Python's PIL where it is here, compared with the PNG frame.
        for (name, bytes) in [("jpeg", jpeg.bytes), ("webp", webp.bytes)] {
            let path = serve.scratch.appendingPathComponent("frame.\(name)").path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let out = path + ".png"
            let p = try Python.run("import sys\ntry:\n from PIL import Image\nexcept ImportError: sys.exit(3)\nImage.open(sys.argv[1]).convert('RGBA').save(sys.argv[2])",
                                   [path, out])
            if p.status == 3 { continue }  // no PIL: the browser check decodes them
            XCTAssertEqual(p.status, 0)
            let decoded = try PNGDecoder.read(out)
            XCTAssertEqual(decoded.width, 128)
            var error = 0.0
            for y in 0..<128 { for x in 0..<128 {
                let a = decoded.pixel(x, y), b = exact.pixel(x, y)
                error += abs(Double(a.0) - Double(b.0)) + abs(Double(a.1) - Double(b.1)) + abs(Double(a.2) - Double(b.2))
            } }
            // Chroma subsampling on 128 px of small spheres costs ~8 a channel; a blank or shifted picture ~60.
            XCTAssertLessThan(error / Double(128 * 128 * 3), 14, "\(name) frame shows the PNG frame's picture")
        }
        for bad in ["frames=gif", "frames=jpeg&quality=0", "quality=50"] {
            let client = try WebSocketClient(base.replacingOccurrences(of: "http://", with: "ws://") + "/v1/sessions?molecule=1crn&" + bad)
            let m = try client.receiveJSON()
            XCTAssertEqual(m["type"] as? String, "error", bad)
            XCTAssertTrue((m["message"] as? String ?? "").contains(bad.hasPrefix("frames=gif") ? "frames" : "quality"), "\(m)")
        }
    }

    /// A `resize` event changes the frames' size (points times scale, capped at --max-side and
    /// keeping the shape) without a new session; the molecule fills the new picture alike.
    func testAResizeChangesTheFrameSizeInTheSameSession() throws {
        let base = try serve.start(["--max-side", "600"])
        let s = try Session(base, query: "molecule=1crn&size=320x320&mode=spacefill&background=white")
        try s.send([Session.header])
        let first = try s.frame()
        XCTAssertEqual(first.info["width"] as? Int, 320)
        try s.send([#"{"t":0.1,"type":"resize","width":200,"height":150,"scale":2}"#, #"{"t":0.2,"type":"frame"}"#])
        let sharp = try s.frame()
        let big = try image(sharp.png)
        XCTAssertEqual([big.width, big.height], [400, 300], "200 x 150 points at 2 pixels a point")
        XCTAssertEqual(sharp.info["width"] as? Int, 400)
        XCTAssertGreaterThan(drawn(big), drawn(try image(first.png)) / 2, "the molecule fills the larger picture")
        try s.send([#"{"t":0.3,"type":"resize","width":1000,"height":500,"scale":3}"#, #"{"t":0.4,"type":"frame"}"#])
        let capped = try image(s.frame().png)
        XCTAssertEqual([capped.width, capped.height], [600, 300], "shrunk to --max-side, same shape")
        try s.send([#"{"t":0.5,"type":"resize","width":-1,"height":5}"#])
        let m = try s.client.receiveJSON()
        XCTAssertEqual(m["type"] as? String, "error")
        XCTAssertTrue((m["message"] as? String ?? "").contains("resize"), "\(m)")
    }

    /// Each frame says where the camera is (`view`); a new session given that view with a `view`
    /// event draws the same picture, as a shared link restores it. Marked points come back as
    /// places in the viewport: a picked atom's place is where it was tapped.
    func testAFramesViewRestoresTheSamePictureAndMarksFollowTheAtoms() throws {
        let base = try serve.start()
        let s = try Session(base, query: "molecule=1crn&size=160x160&mode=spacefill&background=white")
        try s.send([Session.header, #"{"t":0.1,"type":"rotate","dx":40,"dy":-25}"#, #"{"t":0.2,"type":"pinch","scale":1.6}"#,
                    #"{"t":0.3,"type":"pan","dx":12,"dy":-8}"#, #"{"t":0.4,"type":"frame"}"#])
        let turned = try s.frame()
        let view = try XCTUnwrap(turned.info["view"] as? [Double])
        XCTAssertEqual(view.count, 7)
        let again = try Session(base, query: "molecule=1crn&size=160x160&mode=spacefill&background=white")
        let line = String(decoding: try JSONSerialization.data(withJSONObject: [
            "t": 0.1, "type": "view", "rotation": Array(view[0..<4]), "zoom": view[4], "pan": Array(view[5..<7])] as [String: Any]), as: UTF8.self)
        try again.send([Session.header, line, #"{"t":0.2,"type":"frame"}"#])
        let restored = try again.frame()
        let a = try image(turned.png), b = try image(restored.png)
        var differ = 0
        for y in 0..<160 { for x in 0..<160 where a.pixel(x, y) != b.pixel(x, y) { differ += 1 } }
        XCTAssertLessThan(differ, 160 * 160 / 200, "the restored view draws the same picture")
        // Tap the middle, mark the picked atom: its mark is where the tap was.
        try s.send([#"{"t":0.5,"type":"touch","phase":"began","id":1,"x":160,"y":160}"#,
                    #"{"t":0.55,"type":"touch","phase":"ended","id":1,"x":160,"y":160,"tapCount":1}"#])
        var atom: [String: Any]?
        while atom == nil {
            let m = try s.client.receiveJSON()
            if m["type"] as? String == "tap" { atom = m["atom"] as? [String: Any] } else if m["type"] as? String == "frame" { _ = try s.client.receive() }
        }
        let p = try XCTUnwrap(atom?["position"] as? [Double])
        let marks = String(decoding: try JSONSerialization.data(withJSONObject: ["t": 0.6, "type": "marks", "points": [p]] as [String: Any]), as: UTF8.self)
        try s.send([marks, #"{"t":0.7,"type":"frame"}"#])
        let marked = try s.frame()
        let place = try XCTUnwrap((marked.info["marks"] as? [[Double]])?.first)
        XCTAssertEqual(place[0], 160, accuracy: 12, "the mark is where the atom was tapped (viewport points)")
        XCTAssertEqual(place[1], 160, accuracy: 12)
        // A hover names what is under the pointer without selecting or drawing anything.
        try s.send([#"{"t":0.75,"type":"hover","x":160,"y":160}"#])
        let hover = try s.client.receiveJSON()
        XCTAssertEqual(hover["type"] as? String, "hover", "\(hover)")
        XCTAssertEqual((hover["atom"] as? [String: Any])?["chain"] as? String, "A")
        // Far outside the view: a hover over nothing, its point finite, not an empty message.
        try s.send([#"{"t":0.76,"type":"hover","x":-1e300,"y":1e300}"#])
        let far = try s.client.receiveJSON()
        XCTAssertEqual(far["type"] as? String, "hover", "\(far)")
        XCTAssertNil(far["atom"], "\(far)")
        try s.send([#"{"t":0.8,"type":"marks","points":[[1,2]]}"#])
        XCTAssertEqual(try s.client.receiveJSON()["type"] as? String, "error", "a point needs three numbers")
    }

    func testAPathwaySessionPansAndReportsTapsAsReplayDoes() throws {
        let base = try serve.start()
        let s = try Session(base, query: "pathway=sbgn_glycolysis&size=320x240&record=1")
        try s.send([Session.header])
        let first = try s.frame()
        XCTAssertEqual(first.info["mode"] as? String, "pathway")
        XCTAssertEqual(try image(first.png).width, 320)
        // Taps on a grid of points: each is answered with what it hit; some hit nodes.
        var lines: [String] = [], taps: [[String: Any]] = []
        var t = 0.0
        for y in stride(from: 40, through: 280, by: 40) {
            for x in stride(from: 20, through: 300, by: 20) {
                t += 0.1
                lines += [#"{"t":\#(t),"type":"touch","phase":"began","id":1,"x":\#(x),"y":\#(y)}"#,
                          #"{"t":\#(t + 0.05),"type":"touch","phase":"ended","id":1,"x":\#(x),"y":\#(y),"tapCount":1}"#]
            }
        }
        try s.send(lines)
        while taps.count < lines.count / 2 {
            let m = try s.client.receiveJSON()
            if m["type"] as? String == "tap" { taps.append(m) } else if m["type"] as? String == "frame" { _ = try s.client.receive() }
        }
        let hits = taps.compactMap { $0["node"] as? [String: Any] }
        XCTAssertGreaterThan(hits.count, 3, "some taps hit nodes")
        // The same events replayed with --log report the same taps.
        let file = serve.scratch.appendingPathComponent("taps.jsonl"), log = serve.scratch.appendingPathComponent("taps-log.jsonl")
        try ([Session.header] + lines).joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
        let r = try MolshotBinary.run(["replay", file.path, "--pathway", "Tests/Fixtures/pathways/sbgn_glycolysis.sbgn", "-o",
                                       serve.scratch.appendingPathComponent("pathway-frames").path, "--size", "320x240", "--log", log.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        let logged = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        XCTAssertEqual(logged.count, taps.count)
        for (a, b) in zip(taps, logged) {
            XCTAssertEqual((a["node"] as? [String: Any])?["id"] as? String, (b?["node"] as? [String: Any])?["id"] as? String)
        }
        // A two-finger pan moves the map: the frame after it differs, and is the replay's frame there.
        let pan = [#"{"t":100,"type":"pan","dx":40,"dy":0}"#, #"{"t":100,"type":"frame"}"#]
        try s.send(pan)
        let panned = try s.frame()
        XCTAssertNotEqual(panned.png, first.png)
        let recording = try ServeTests.call("\(base)/v1/sessions/\(s.id)/events")
        XCTAssertEqual(recording.text, s.sent.joined(separator: "\n") + "\n")
        let recorded = serve.scratch.appendingPathComponent("pathway-recorded.jsonl")
        try recording.body.write(to: recorded)
        let out = serve.scratch.appendingPathComponent("pathway-replayed").path
        let r2 = try MolshotBinary.run(["replay", recorded.path, "--pathway", "Tests/Fixtures/pathways/sbgn_glycolysis.sbgn", "-o", out, "--size", "320x240"])
        XCTAssertEqual(r2.status, 0, r2.stderr)
        XCTAssertTrue(try PNGDecoder.read("\(out)/frame-00001.png") == image(panned.png), "the live frame at the frame event is the replay's")
    }

    func testAFloodOfEventsIsCoalescedAndTwoSessionsKeepTheirOwnCameras() throws {
        let base = try serve.start()
        let a = try Session(base, query: "molecule=1crn&size=128x128")
        let b = try Session(base, query: "molecule=1crn&size=128x128")
        try a.send([Session.header])
        try b.send([Session.header])
        _ = try a.frame()
        let bFirst = try b.frame().png
        // 1,500 small turns as fast as they can be sent.
        let flood = (1...1500).map { #"{"t":\#(Double($0) * 0.001),"type":"rotate","dx":1,"dy":0.5}"# }
        for chunk in stride(from: 0, to: flood.count, by: 50) {
            try a.send(Array(flood[chunk..<min(chunk + 50, flood.count)]))
        }
        var frames = 0
        while true {
            let info = try a.client.receiveJSON()
            guard case .binary = try a.client.receive() else { return XCTFail("no PNG") }
            frames += 1
            if info["events"] as? Int == a.events { break }
        }
        XCTAssertLessThan(frames, 300, "frames are coalesced: far fewer frames than events (\(frames) for 1500)")
        // The other session's view did not move.
        try b.send([#"{"t":1,"type":"frame"}"#])
        XCTAssertEqual(try b.frame().png, bFirst, "session b's camera is its own")
    }

    func testABadLineGetsAnErrorAndTheSessionGoesOn() throws {
        let base = try serve.start()
        let s = try Session(base, query: "molecule=1crn&size=64x64")
        try s.send([Session.header])
        let first = try s.frame().png
        try s.client.send(text: "{not json")
        let error = try s.client.receiveJSON()
        XCTAssertEqual(error["type"] as? String, "error")
        XCTAssertEqual(error["line"] as? Int, 2)
        XCTAssertTrue((error["message"] as? String ?? "").contains("not a JSON object"), "\(error)")
        // A structure file the server could read (the fixture's absolute path): refused all the same.
        let file = InfoCommandTests.root.appendingPathComponent("Tests/Fixtures/1hpv.pdb").path
        try s.client.send(text: #"{"t":0,"type":"load","source":"\#(file)"}"#)
        let refused = try s.client.receiveJSON()
        XCTAssertEqual(refused["type"] as? String, "error")
        XCTAssertTrue((refused["message"] as? String ?? "").contains("reads no files"), "\(refused)")
        try s.send([#"{"t":0.1,"type":"rotate","dx":90,"dy":0}"#])
        XCTAssertNotEqual(try s.frame().png, first, "the session still turns")
    }

    func testRefusalsSessionLimitAndIdleTimeout() throws {
        let base = try serve.start(["--max-sessions", "1", "--session-idle-seconds", "1.5"])
        // A bad query gets an error message naming what is wrong, then a close with the reason.
        for (query, words) in [("molecule=nosuch", "no molecule nosuch"), ("molecule=1crn&size=0x5", "size"), ("size=64", "molecule is needed")] {
            let c = try WebSocketClient(base.replacingOccurrences(of: "http://", with: "ws://") + "/v1/sessions?" + query)
            let error = try c.receiveJSON()
            XCTAssertEqual(error["type"] as? String, "error")
            XCTAssertTrue((error["message"] as? String ?? "").contains(words), "\(error)")
            guard case .close(let code, let reason) = try c.receive() else { return XCTFail("expected a close") }
            XCTAssertEqual(code, 1008)
            XCTAssertTrue(reason.contains(words), reason)
        }
        let s = try Session(base, query: "molecule=1crn&size=64x64")
        // The second session is closed at once with the reason.
        let second = try WebSocketClient(base.replacingOccurrences(of: "http://", with: "ws://") + "/v1/sessions?molecule=1crn")
        guard case .close(let code, let reason) = try second.receive() else { return XCTFail("expected a close") }
        XCTAssertEqual(code, 1013)
        XCTAssertTrue(reason.contains("too many live sessions"), reason)
        // A silent session is closed after the idle time.
        var closed: (Int, String)?
        while closed == nil {
            if case .close(let c, let r) = try s.client.receive(timeout: 10) { closed = (c, r) }
        }
        XCTAssertEqual(closed?.0, 1001)
        XCTAssertTrue(closed?.1.contains("idle") == true, "\(String(describing: closed))")
    }

    /// 62 copies of crambin on a grid (20,274 atoms): at least `LevelOfDetail.minimumAtoms`.
    func writeLargeMolecule() throws -> String {
        let crambin = try String(contentsOfFile: "Tests/Fixtures/1crn.pdb", encoding: .utf8).split(separator: "\n")
            .filter { $0.hasPrefix("ATOM  ") }.map(Array.init)
        let chains = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        var lines: [String] = []
        for (k, chain) in chains.enumerated() {
            let shift = SIMD3<Double>(Double(k % 4), Double(k / 4 % 4), Double(k / 16)) * 40
            for var line in crambin {
                line[21] = chain
                for (axis, column) in [30, 38, 46].enumerated() {
                    let v = Double(String(line[column..<column + 8]).trimmingCharacters(in: .whitespaces))! + shift[axis]
                    line.replaceSubrange(column..<column + 8, with: Array(String(format: "%8.3f", v)))
                }
                lines.append(String(line))
            }
            lines.append("TER")
        }
        let path = serve.scratch.appendingPathComponent("crambins.pdb").path
        try (lines + ["END", ""]).joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func testALargeMoleculeMovesAtLessDetailAndSettlesOnTheReplayedFrame() throws {
        let file = try writeLargeMolecule()
        let r = try MolshotBinary.run(["library", "import", file, "--db", serve.db])
        XCTAssertEqual(r.status, 0, r.stderr)
        let base = try serve.start()
        let s = try Session(base, query: "molecule=crambins&size=512x512&background=white&mode=spacefill")
        try s.send([Session.header])
        let first = try s.frame()
        XCTAssertEqual(first.info["moving"] as? Bool, false, "the first frame is drawn in full")
        // Rotations one at a time, each frame waited for: each is drawn right after its event, while the view moves.
        var lines: [String] = []
        var moving: [String: Any]? = nil
        var movingPNG: [UInt8] = []
        for k in 1...6 {
            let line = #"{"t":\#(Double(k) * 0.02),"type":"rotate","dx":12,"dy":4}"#
            try s.send([line])
            lines.append(line)
            // Frames of these events: the coarse one first; the full one after the view is still.
            let f = try s.frame()
            if f.info["moving"] as? Bool == true {
                moving = f.info
                movingPNG = f.png
                break
            }
        }
        let coarse = try XCTUnwrap(moving, "a frame drawn while the view moved is marked moving")
        XCTAssertEqual(coarse["width"] as? Int, 512, "drawn at less detail, sent at the full size")
        // The same events' frame again, in full, once no event has come for LevelOfDetail.stillAfter.
        var settled: (info: [String: Any], png: [UInt8])
        repeat { settled = try s.frame() } while settled.info["moving"] as? Bool != false
        XCTAssertEqual(settled.info["events"] as? Int, coarse["events"] as? Int)
        let full = try image(settled.png), rough = try image(movingPNG)
        XCTAssertFalse(full == rough, "the still frame is not the coarse one")
        // The same view drawn coarser (residues as spheres, at a quarter of the pixels): the
        // molecules cover the same pixels (the white background's complement), and over 8 x 8
        // blocks the colours are near (each stand-in takes its atoms' mean colour).
        func covered(_ a: RGBAImage) -> [Bool] {
            (0..<(a.width * a.height)).map { i in let p = a.pixel(i % a.width, i / a.width); return min(p.0, p.1, p.2) < 250 }
        }
        let inFull = covered(full), inRough = covered(rough)
        let both = zip(inFull, inRough).filter { $0 && $1 }.count, either = zip(inFull, inRough).filter { $0 || $1 }.count
        XCTAssertGreaterThan(Double(both) / Double(max(either, 1)), 0.85, "the coarse frame covers what the full one does")
        func difference(_ a: RGBAImage, _ b: RGBAImage) -> Double {
            var sum = 0.0
            for y in 0..<a.height {
                for x in 0..<a.width {
                    let p = a.pixel(x, y), q = b.pixel(x, y)
                    sum += Double(abs(Int(p.0) - Int(q.0)) + abs(Int(p.1) - Int(q.1)) + abs(Int(p.2) - Int(q.2))) / 3
                }
            }
            return sum / Double(a.width * a.height)
        }
        XCTAssertLessThan(difference(full.shrunk(width: 64, height: 64), rough.shrunk(width: 64, height: 64)), 20, "the coarse frame shows the same view")
        // Turned the other way, the coarse frame would not: the measure tells views apart.
        try s.send([#"{"t":0.3,"type":"rotate","dx":-200,"dy":90}"#])
        var turned: (info: [String: Any], png: [UInt8])
        repeat { turned = try s.frame() } while turned.info["moving"] as? Bool != false
        XCTAssertGreaterThan(difference(full.shrunk(width: 64, height: 64), try image(turned.png).shrunk(width: 64, height: 64)), 20)

        // The settled frame is what a replay of the same lines draws, pixel for pixel.
        let events = serve.scratch.appendingPathComponent("turn.jsonl")
        try ([Session.header] + lines + [#"{"t":1,"type":"frame"}"#]).joined(separator: "\n").write(to: events, atomically: true, encoding: .utf8)
        let out = serve.scratch.appendingPathComponent("turned").path
        let replayed = try MolshotBinary.run(["replay", events.path, "--molecule", file, "-o", out, "--size", "512x512", "--background", "white",
                                             "--mode", "spacefill"])
        XCTAssertEqual(replayed.status, 0, replayed.stderr)
        XCTAssertTrue(try PNGDecoder.read("\(out)/frame-00001.png") == full, "the settled frame is the replayed one")
        XCTAssertEqual(Array(try Data(contentsOf: URL(fileURLWithPath: "\(out)/frame-00001.png"))), settled.png,
                       "byte for byte: the same picture, encoded alike")

        // A small molecule is always drawn in full.
        let small = try Session(base, query: "molecule=1crn&size=512x512&background=white&mode=spacefill")
        try small.send([Session.header])
        _ = try small.frame()
        try small.send([#"{"t":0.02,"type":"rotate","dx":12,"dy":4}"#])
        XCTAssertEqual(try small.frame().info["moving"] as? Bool, false)
    }
}

import Core
import Foundation
import Gestures
import Graphics
import Imaging
import MoleculeView
import Structure
import TestSupport
import XCTest

final class ReplayTests: XCTestCase {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")
    static let header = #"{"type":"header","version":1,"viewport":{"width":320,"height":320}}"#

    func replay(_ lines: [String], molecule: String? = "1bna.pdb", fps: Double? = nil, size: Int = 160,
                catalog: CombinationCatalog? = nil, mode: DrawMode = .ballAndStick) throws -> [RGBAImage] {
        var options = MoleculeDriver.Options()
        options.catalog = catalog
        options.request.modes = [mode]
        options.loader = .files(relativeTo: Self.fixtures)
        options.request.width = size
        options.request.height = size
        let structure = try molecule.map { try StructureFile.load(path: Self.fixtures.appendingPathComponent($0).path) }
        let r = Replay(source: "test.jsonl", options: options, molecule: structure, fps: fps)
        var frames: [RGBAImage] = []
        do {
            for line in [Self.header] + lines { try r.feed(line) { frame, _ in frames.append(try frame.finished()) } }
            try r.finish { frame, _ in frames.append(try frame.finished()) }
        } catch let e as GraphicsError {
            throw GLPolicy.refusal(e)
        }
        return frames
    }

    /// A replay that fails on a line (the service answers at once, 413 for a resize past its
    /// budget) leaves no frame of its own on a worker others share: `close` skips the frames not
    /// begun and returns once the worker holds none of them. Before, they were drawn after the
    /// answer, and a client asking again and again piled them up ahead of everyone's pictures.
    func testAFailedReplayLeavesNoFramesOnASharedWorker() throws {
        let worker = RenderWorker(capacity: 8) { try MoleculeRenderer() }
        defer { worker.close() }
        let lane = RenderLane(worker)
        // Another request's job holds the worker until the replay has failed.
        let held = DispatchSemaphore(value: 0)
        worker.submit({ _ in held.wait() }, failed: { _ in })
        var options = MoleculeDriver.Options()
        options.request.width = 64
        options.request.height = 64
        let structure = try StructureFile.load(path: Self.fixtures.appendingPathComponent("1crn.pdb").path)
        let replay = Replay(source: "test.jsonl", options: options, molecule: structure, fps: nil, lane: lane)
        let emitted = Locked(0)
        let emit: Replay<MoleculeDriver>.Emit = { _, _ in emitted.withLock { $0 += 1 } }
        try replay.feed(Self.header, emit: emit)
        for t in [0.1, 0.2, 0.3] { try replay.feed(#"{"t":\#(t),"type":"frame"}"#, emit: emit) }
        XCTAssertThrowsError(try replay.feed("not an event", emit: emit), "a line that is not JSON fails the replay")
        DispatchQueue.global().async { held.signal() }
        replay.close()
        let atClose = emitted.withLock { $0 }
        // Everything queued after the replay's frames has run: none of them was drawn later.
        _ = try lane.perform { _ in }
        XCTAssertEqual(emitted.withLock { $0 }, atClose, "frames of a closed replay were drawn after close returned")
    }

    func testTheSameFileGivesIdenticalFrames() throws {
        let lines = [
            #"{"t":0,"type":"touch","phase":"began","id":1,"x":100,"y":100}"#,
            #"{"t":0.1,"type":"touch","phase":"moved","id":1,"x":130,"y":90}"#,
            #"{"t":0.2,"type":"touch","phase":"ended","id":1,"x":130,"y":90}"#,
            #"{"t":0.2,"type":"frame"}"#,
            #"{"t":0.3,"type":"pinch","scale":0.8}"#,
        ]
        let a = try replay(lines), b = try replay(lines)
        XCTAssertEqual(a.count, 2, "one frame event and the final view")
        XCTAssertTrue(a == b, "two replays differ")
        XCTAssertEqual(try a.map { try PNGEncoder.fast.encode($0) }, try b.map { try PNGEncoder.fast.encode($0) })
    }

    func testADragRotatesExactlyLikeTheRotateCommand() throws {
        let dragged = try replay([
            #"{"t":0,"type":"touch","phase":"began","id":1,"x":100,"y":100}"#,
            #"{"t":0.1,"type":"touch","phase":"moved","id":1,"x":140,"y":125}"#,
            #"{"t":0.2,"type":"touch","phase":"ended","id":1,"x":140,"y":125}"#,
        ])
        let commanded = try replay([#"{"t":0,"type":"rotate","dx":40,"dy":25}"#])
        let still = try replay([])
        XCTAssertTrue(dragged.last == commanded.last, "the drag and the command differ")
        XCTAssertFalse(dragged.last == still.last, "and the drag did turn the view")
    }

    func testFramesAtAFixedRateOfEventTime() throws {
        let frames = try replay([#"{"t":0,"type":"rotate","dx":10,"dy":0}"#, #"{"t":1.0,"type":"rotate","dx":10,"dy":0}"#], fps: 4)
        XCTAssertEqual(frames.count, 6, "t = 0, 0.25, 0.5, 0.75, 1.0 and the final view")
    }

    func testDoubleTapSwitchesToSpacefill() throws {
        let frames = try replay([
            #"{"t":0,"type":"frame"}"#,
            #"{"t":0.1,"type":"touch","phase":"began","id":1,"x":50,"y":50}"#,
            #"{"t":0.15,"type":"touch","phase":"ended","id":1,"x":50,"y":50,"tapCount":2}"#,
        ])
        func covered(_ i: RGBAImage) -> Int { stride(from: 0, to: i.pixels.count, by: 4).filter { i.pixels[$0] < 200 }.count }
        XCTAssertGreaterThan(covered(frames[1]), covered(frames[0]) * 5 / 4)
    }

    /// Rows of the bottom eighth (where captions go) with dark pixels.
    func captionInk(_ image: RGBAImage) -> Int {
        var ink = 0
        for y in (image.height * 7 / 8)..<image.height {
            for x in 0..<image.width where image.pixel(x, y).r < 80 && image.pixel(x, y).g < 80 { ink += 1 }
        }
        return ink
    }

    func testChainsInContactCombineWithCongratulations() throws {
        // The two strands of B-DNA are paired: in contact.
        let frames = try replay([#"{"t":0,"type":"addPart","part":"A"}"#, #"{"t":0,"type":"addPart","part":"B"}"#,
                                 #"{"t":0.1,"type":"combine"}"#], size: 240)
        XCTAssertGreaterThan(captionInk(frames[0]), 40, "the caption is drawn")
        let none = try replay([], size: 240)
        XCTAssertEqual(captionInk(none[0]), 0)
        let model = try StructureFile.load(path: Self.fixtures.appendingPathComponent("1bna.pdb").path).models[0]
        XCTAssertEqual(Combination.judge(["A", "B"], in: model), .valid(caption: "Congratulations! A, B"))
    }

    func testPartsApartOrUnknownGiveSorryAndNothingElse() throws {
        let model = try StructureFile.load(path: Self.fixtures.appendingPathComponent("multimodel.pdb").path).models[0]
        XCTAssertEqual(Combination.judge(["A", "Z"], in: model), .invalid(caption: "Sorry! The combination of A, Z cannot be made"))
        // Two chains far apart: the same crambin moved 100 Å away as chain B.
        var far = try StructureFile.load(path: Self.fixtures.appendingPathComponent("1crn.pdb").path).models[0]
        let copy = far
        for var atom in copy.atoms {
            atom.position.x += 100
            atom.residue += Int32(copy.residues.count)
            far.atoms.append(atom)
        }
        for var r in copy.residues {
            r.atoms = (r.atoms.lowerBound + Int32(copy.atoms.count))..<(r.atoms.upperBound + Int32(copy.atoms.count))
            r.chain = 1
            far.residues.append(r)
        }
        far.chains.append(Chain(id: "B", residues: Int32(copy.residues.count)..<Int32(2 * copy.residues.count)))
        XCTAssertEqual(Combination.judge(["A", "B"], in: far), .invalid(caption: "Sorry! The combination of A, B cannot be made"))

        let frames = try replay([#"{"t":0,"type":"addPart","part":"A"}"#, #"{"t":0,"type":"addPart","part":"Q"}"#,
                                 #"{"t":0.1,"type":"combine"}"#], size: 240)
        let image = frames[0]
        XCTAssertGreaterThan(captionInk(image), 40, "the Sorry caption is drawn")
        // Nothing but the caption (two lines at this width): the upper three quarters are all background.
        var drawn = 0
        for y in 0..<(image.height * 3 / 4) { for x in 0..<image.width where image.pixel(x, y).r < 250 { drawn += 1 } }
        XCTAssertEqual(drawn, 0)
    }

    func testACatalogListsTheValidCombinationsAndTheirStructures() throws {
        let catalog = CombinationCatalog(entries: [.init(name: "crambin", parts: ["left", "right"], structure: "1crn.pdb")],
                                         directory: Self.fixtures)
        XCTAssertEqual(catalog.entry(for: ["right", "left"])?.name, "crambin", "parts in any order")
        XCTAssertNil(catalog.entry(for: ["left"]))
        let valid = try replay([#"{"t":0,"type":"addPart","part":"right"}"#, #"{"t":0,"type":"addPart","part":"left"}"#,
                                #"{"t":0.1,"type":"combine"}"#], molecule: nil, size: 240, catalog: catalog)
        let sorry = try replay([#"{"t":0,"type":"addPart","part":"left"}"#, #"{"t":0.1,"type":"combine"}"#],
                               molecule: nil, size: 240, catalog: catalog)
        func drawn(_ image: RGBAImage) -> Int {
            var n = 0
            for y in 0..<(image.height * 3 / 4) { for x in 0..<image.width where image.pixel(x, y).r < 250 { n += 1 } }
            return n
        }
        XCTAssertGreaterThan(drawn(valid[0]), 2000, "the catalog's structure is shown")
        XCTAssertGreaterThan(captionInk(valid[0]), 40)
        XCTAssertEqual(drawn(sorry[0]), 0)
        XCTAssertGreaterThan(captionInk(sorry[0]), 40)
    }

    func testAnimatedPNGHoldsEveryFrameWithItsDelay() throws {
        let frames = try replay([#"{"t":0,"type":"frame"}"#, #"{"t":0.5,"type":"rotate","dx":30,"dy":0}"#, #"{"t":0.5,"type":"frame"}"#])
        let pngs = try frames.map { try PNGEncoder.fast.encode($0) }
        let apng = try APNGWriter.make(frames: pngs, delays: [0.5, 0.25, 1])
        func chunks(_ type: String) -> [[UInt8]] {
            var out: [[UInt8]] = [], i = 8
            while i + 12 <= apng.count {
                let n = Int(apng[i]) << 24 | Int(apng[i + 1]) << 16 | Int(apng[i + 2]) << 8 | Int(apng[i + 3])
                if String(decoding: apng[(i + 4)..<(i + 8)], as: UTF8.self) == type { out.append(Array(apng[(i + 8)..<(i + 8 + n)])) }
                i += 12 + n
            }
            return out
        }
        XCTAssertEqual(chunks("acTL").first.map { Array($0[0..<4]) }, [0, 0, 0, 3])
        let controls = chunks("fcTL")
        XCTAssertEqual(controls.count, 3)
        XCTAssertEqual(controls.map { Int($0[20]) << 8 | Int($0[21]) }, [500, 250, 1000], "delays in milliseconds")
        // A viewer without APNG support shows the first frame: the file is a valid PNG.
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("molshot-\(UUID().uuidString).png")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data(apng).write(to: url)
        XCTAssertTrue(try PNGDecoder.read(url.path) == frames[0], "the default image is the first frame")
    }
}

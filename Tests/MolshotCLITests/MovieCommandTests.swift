import Foundation
import Imaging
import XCTest

/// Movies as a user makes them (`movie`, `replay -o NAME.mp4`), read back by FFmpeg's own tools
/// (ffprobe, and ffmpeg's psnr filter against the PNG frames of the same replay).
final class MovieCommandTests: XCTestCase {
    var folder: String!

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "molshot-movie-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: folder) }

    func molshot(_ arguments: String...) throws -> MolshotBinary.Run { try MolshotBinary.run(arguments) }
    func molshot(_ arguments: [String]) throws -> MolshotBinary.Run { try MolshotBinary.run(arguments) }

    /// One of FFmpeg's programs (Debian's ffmpeg package, which .ci/setup installs), with its output.
    func ffmpegTool(_ name: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let path = "/usr/bin/" + name
        guard FileManager.default.isExecutableFile(atPath: path) else {
            XCTFail("\(path) is needed to read movies back (apt install ffmpeg; .ci/setup installs it)")
            throw XCTSkip("no \(name)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// ffprobe's view of the first video stream, frames counted by decoding them.
    func probe(_ file: String) throws -> [String: String] {
        let run = try ffmpegTool("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0",
                                             "-show_entries", "stream=codec_name,width,height,r_frame_rate,nb_read_frames,pix_fmt",
                                             "-of", "default=noprint_wrappers=1", file])
        XCTAssertEqual(run.status, 0, run.output)
        var fields: [String: String] = [:]
        for line in run.output.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        return fields
    }

    func testATurntableIsAnH264MP4ThatPlaysEverywhere() throws {
        let movie = folder + "/turn.mp4"
        let run = try molshot("movie", "Assets/samples/1crn.pdb", "-o", movie, "--seconds", "2", "--size", "320x240", "--mode", "cartoon")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("60 frames at 30 a second"), run.stdout)
        let p = try probe(movie)
        XCTAssertEqual(p["codec_name"], "h264")
        XCTAssertEqual(p["pix_fmt"], "yuv420p")
        XCTAssertEqual(p["width"], "320")
        XCTAssertEqual(p["height"], "240")
        XCTAssertEqual(p["r_frame_rate"], "30/1")
        XCTAssertEqual(p["nb_read_frames"], "60")
        // faststart: the index (moov) before the pictures (mdat), so players start before the end arrives.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: movie))
        let moov = try XCTUnwrap(bytes.range(of: Data("moov".utf8))), mdat = try XCTUnwrap(bytes.range(of: Data("mdat".utf8)))
        XCTAssertLessThan(moov.lowerBound, mdat.lowerBound)
        // Nothing else is left beside it (the part written before the rename).
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder), ["turn.mp4"])
        // The turn shows other faces: the middle frame differs from the first.
        let frames = folder + "/decoded"
        try FileManager.default.createDirectory(atPath: frames, withIntermediateDirectories: true)
        let decode = try ffmpegTool("ffmpeg", ["-v", "error", "-i", movie, "-vf", "select=eq(n\\,0)+eq(n\\,30)", "-vsync", "0", frames + "/%d.png"])
        XCTAssertEqual(decode.status, 0, decode.output)
        let first = try PNGTestImage(path: frames + "/1.png"), middle = try PNGTestImage(path: frames + "/2.png")
        XCTAssertGreaterThan(first.meanDifference(middle), 5, "half a turn later the picture should differ")
    }

    func testAnOddSizeIsPaddedToEvenForH264AndTheGIFKeepsIt() throws {
        let mp4 = folder + "/odd.mp4", gif = folder + "/odd.gif"
        XCTAssertEqual(try molshot("movie", "Assets/samples/1crn.pdb", "-o", mp4, "--seconds", "0.5", "--size", "301x201").status, 0)
        let p = try probe(mp4)
        XCTAssertEqual([p["width"], p["height"]], ["302", "202"])
        let run = try molshot("movie", "Assets/samples/1crn.pdb", "-o", gif, "--rock", "y,40", "--seconds", "1", "--fps", "20", "--size", "301x201")
        XCTAssertEqual(run.status, 0, run.stderr)
        let g = try probe(gif)
        XCTAssertEqual(g["codec_name"], "gif")
        XCTAssertEqual([g["width"], g["height"]], ["301", "201"])
        XCTAssertEqual(g["nb_read_frames"], "20")
        XCTAssertEqual(g["r_frame_rate"], "20/1")
    }

    /// The same replay as a movie and as PNG frames is the same frames: the file's frame events
    /// (3, and the final view) for both, with no --fps given; and with --fps, its clock for both.
    func testReplayFramesAndTheirMP4AreTheSameFrames() throws {
        for fps in [nil, "30"] {
            let movie = folder + "/replay-\(fps ?? "events").mp4", frames = folder + "/frames-\(fps ?? "events")"
            let rate = fps.map { ["--fps", $0] } ?? []
            let a = try molshot(["replay", "Assets/samples/gestures.jsonl", "--molecule", "Assets/samples/1crn.pdb", "-o", movie] + rate)
            XCTAssertEqual(a.status, 0, a.stderr)
            let b = try molshot(["replay", "Assets/samples/gestures.jsonl", "--molecule", "Assets/samples/1crn.pdb", "-o", frames] + rate)
            XCTAssertEqual(b.status, 0, b.stderr)
            // Four frames far apart encode less well than a smooth 30 a second; a frame out of step
            // with its PNG measures about 18 dB.
            try agree(movie, frames, count: fps == nil ? 4 : nil, psnr: fps == nil ? 30 : 35)
        }
    }

    func agree(_ movie: String, _ frames: String, count: Int?, psnr minimum: Double) throws {
        let pngs = try FileManager.default.contentsOfDirectory(atPath: frames).filter { $0.hasSuffix(".png") }
        if let count { XCTAssertEqual(pngs.count, count) }
        let p = try probe(movie)
        XCTAssertEqual(p["nb_read_frames"], String(pngs.count))
        XCTAssertEqual(p["codec_name"], "h264")
        // PSNR in RGB, frame by frame, of the decoded movie against the PNG frames.
        let psnr = try ffmpegTool("ffmpeg", ["-hide_banner", "-i", movie, "-framerate", "30", "-start_number", "1", "-i", frames + "/frame-%05d.png",
                                             "-lavfi", "[0:v]format=gbrp[a];[1:v]format=gbrp[b];[a][b]psnr", "-f", "null", "-"])
        XCTAssertEqual(psnr.status, 0, psnr.output)
        let line = try XCTUnwrap(psnr.output.split(separator: "\n").last { $0.contains("PSNR") }, psnr.output)
        let average = try XCTUnwrap(line.split(separator: " ").first { $0.hasPrefix("average:") }.flatMap { Double($0.dropFirst(8)) }, String(line))
        XCTAssertGreaterThanOrEqual(average, minimum, String(line))
    }

    func testWebMIsVP9() throws {
        let movie = folder + "/turn.webm"
        let run = try molshot("movie", "Assets/samples/1crn.pdb", "-o", movie, "--seconds", "1", "--size", "256", "--fps", "24")
        XCTAssertEqual(run.status, 0, run.stderr)
        let p = try probe(movie)
        XCTAssertEqual(p["codec_name"], "vp9")
        XCTAssertEqual(p["nb_read_frames"], "24")
        XCTAssertEqual(p["r_frame_rate"], "24/1")
    }

    func testMoviesThatCannotBeMadeAreRefusedByName() throws {
        let gif = try molshot("movie", "Assets/samples/1crn.pdb", "-o", folder + "/fast.gif", "--fps", "60")
        XCTAssertNotEqual(gif.status, 0)
        XCTAssertTrue(gif.stderr.contains("--fps") && gif.stderr.contains("50"), gif.stderr)
        let axis = try molshot("movie", "Assets/samples/1crn.pdb", "-o", folder + "/a.mp4", "--turn", "q,30")
        XCTAssertNotEqual(axis.status, 0)
        XCTAssertTrue(axis.stderr.contains("turn") && axis.stderr.contains("AXIS,DEGREES"), axis.stderr)
        let long = try molshot("movie", "Assets/samples/1crn.pdb", "-o", folder + "/b.mp4", "--seconds", "100000")
        XCTAssertNotEqual(long.status, 0)
        XCTAssertTrue(long.stderr.contains("at most 36000"), long.stderr)
        // A length past any number of frames is refused as too long, not a crash.
        let endless = try molshot("movie", "Assets/samples/1crn.pdb", "-o", folder + "/e.mp4", "--seconds", "1e308")
        XCTAssertEqual(endless.status, 1, endless.stderr)
        XCTAssertTrue(endless.stderr.contains("at most 36000"), endless.stderr)
        let both = try molshot("replay", "Assets/samples/gestures.jsonl", "--molecule", "Assets/samples/1crn.pdb", "-o", folder + "/c.mp4",
                               "--apng", folder + "/c.png")
        XCTAssertNotEqual(both.status, 0)
        XCTAssertTrue(both.stderr.contains("--apng"), both.stderr)
        // A bad structure fails before a movie file appears.
        try Data("not a structure".utf8).write(to: URL(fileURLWithPath: folder + "/bad.pdb"))
        let bad = try molshot("movie", folder + "/bad.pdb", "-o", folder + "/d.mp4")
        XCTAssertNotEqual(bad.status, 0)
        XCTAssertFalse(try FileManager.default.contentsOfDirectory(atPath: folder).contains { $0.contains("d.mp4") })
    }
}

/// A PNG read for comparison.
struct PNGTestImage {
    let width: Int, height: Int, pixels: [UInt8]

    init(path: String) throws {
        let image = try PNGDecoder.read(path)
        width = image.width
        height = image.height
        pixels = image.pixels
    }

    /// Mean absolute difference of RGB over the pictures (same size), 0-255.
    func meanDifference(_ other: PNGTestImage) -> Double {
        guard width == other.width, height == other.height else { return 255 }
        var total = 0
        for i in 0..<(width * height) {
            for c in 0..<3 { total += abs(Int(pixels[4 * i + c]) - Int(other.pixels[4 * i + c])) }
        }
        return Double(total) / Double(width * height * 3)
    }
}

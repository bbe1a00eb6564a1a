import ArgumentParser
import Core
import Foundation
import Graphics
import Imaging
import MoleculeView
import Scene
import Structure

struct MovieCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "movie",
        abstract: "A turntable or rocking movie of a structure: MP4 (H.264), WebM (VP9), GIF, or numbered PNG frames.",
        discussion: """
            --turn AXIS,DEGREES turns the view about the screen's x, y or z axis (ChimeraX's turn, PyMOL's \
            movie.roll); --rock AXIS,DEGREES swings it to and fro over DEGREES (PyMOL's movie.rock), one swing a \
            --seconds. Without either, --turn y,360. A turn's last frame stops one step short of DEGREES, so a \
            360 degree turn loops without a repeated frame. The scale is fitted once for every frame, so \
            nothing is cropped and nothing jumps. Frames are encoded as they are drawn; memory does not grow \
            with the movie's length. Any picture option (--mode, --color, --size, --rotate for the start) applies.
            """
    )

    @Argument(help: "Structure file (PDB, PQR, mmCIF, BinaryCIF, SDF/MOL, MOL2, XYZ; plain or gzip), lib:ID, pdb:ID or sample:1crn; or a density map (CCP4/MRC).")
    var input: String

    @Option(name: [.short, .customLong("output")], help: "NAME.mp4 (H.264), NAME.webm (VP9), NAME.gif, or a folder for frame-NNNNN.png.")
    var output: String

    @Option(help: ArgumentHelp("Turn about the screen's AXIS (x, y or z) by DEGREES over the movie.", valueName: "AXIS,DEGREES"))
    var turn: String?

    @Option(help: ArgumentHelp("Rock about AXIS over DEGREES (from -DEGREES/2 to +DEGREES/2 and back), once over the movie.", valueName: "AXIS,DEGREES"))
    var rock: String?

    @Option(help: "Length in seconds (default 8 for a turn, 4 for a rock).")
    var seconds: Double?

    @Option(name: .customLong("fps"), help: "Frames a second (default 30; for a GIF 15, at most 50).")
    var fpsGiven: Double?

    /// A GIF for chat: 15 frames a second at 480 px unless asked (an 8 s turn of 1hpv, 4 MB; at 30
    /// and 1024 px it was 22 MB, more than chat services take).
    static let gifFPS = 15.0, gifSide = 480

    var fps: Double { fpsGiven ?? (MovieFormat(path: output) == .gif ? Self.gifFPS : 30) }

    @Option(help: "Movie quality from 1 to 100 (default: H.264 crf 18, VP9 crf 30).")
    var quality: Int?

    @Flag(help: "Replace frames an earlier movie left in the output folder.")
    var force = false

    @OptionGroup var picture: PictureOptions<MovieUse>

    @OptionGroup(title: "Figure options") var figure: AnnotationOptions

    @OptionGroup(title: "Density maps") var maps: MapOptions

    /// The most frames one movie makes (10 minutes at 60 frames a second).
    static let maxFrames = 36_000

    /// The motion asked for: axis (0 x, 1 y, 2 z), degrees, and whether it rocks.
    func motion() throws(RequestError) -> (axis: Int, degrees: Float, rocks: Bool) {
        let text = rock ?? turn ?? "y,360"
        let field = rock != nil ? "rock" : "turn"
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard parts.count == 2, let axis = ["x", "y", "z"].firstIndex(of: parts[0]), let degrees = Float(parts[1]), degrees.isFinite,
              abs(degrees) <= 36_000 else {
            throw RequestError(field: field, "must be AXIS,DEGREES with AXIS x, y or z and DEGREES a number up to 36000 (such as y,360), not \(text)")
        }
        return (axis, degrees, rock != nil)
    }

    var length: Double { seconds ?? (rock != nil ? 4 : 8) }

    var frameCount: Int { max(1, Int((length * fps).rounded())) }

    func validate() throws {
        guard turn == nil || rock == nil else { throw ValidationError("Give --turn or --rock, not both.") }
        let format = MovieFormat(path: output)
        do {
            _ = try motion()
            if format != nil { try OutputPath.checkFile(output, formats: MovieFormat.extensions.map(\.name)) } else { try OutputPath.checkFolder(output) }
        } catch { throw ValidationError(CLIFailure.message(error)) }
        guard fps.isFinite, fps > 0, fps <= (format?.maxFPS ?? 240) else {
            throw ValidationError("--fps must be in (0, \(Int(format?.maxFPS ?? 240))]" + (format == .gif ? " for a GIF" : "") + ".")
        }
        guard length.isFinite, length > 0 else { throw ValidationError("--seconds must be positive.") }
        guard length * fps <= Double(Self.maxFrames) else {
            // %.0f: the product may be past any Int (--seconds 1e308 trapped converting it).
            throw ValidationError("--seconds \(length) at --fps \(fps) makes \(String(format: "%.0f", length * fps)) frames; a movie makes at most \(Self.maxFrames).")
        }
        if let quality { guard (1...100).contains(quality) else { throw ValidationError("--quality must be from 1 to 100.") } }
        if format == nil && quality != nil { throw ValidationError("--quality is for movies (-o NAME.mp4, .webm or .gif).") }
        try picture.singleRotation()
        do { _ = try figure.applied(to: try picture.request()).singleMode() } catch { throw ValidationError(CLIFailure.message(error)) }
    }

    func run() throws {
        try CLIFailure.run {
            let format = MovieFormat(path: output)
            if format != nil, let reason = MovieWriter.unavailableReason() { throw CLIError(reason) }
            var request = try maps.applied(to: try figure.applied(to: try picture.request()))
            if format == .gif && picture.size == nil { (request.width, request.height) = (Self.gifSide, Self.gifSide) }
            let (axis, degrees, rocks) = try motion()
            let prepared = try maps.prepared(input, request: &request, input: picture.input)
            let n = frameCount
            let turns: [Float] = (0..<n).map { i in
                let t = Double(i) / Double(n)
                return rocks ? degrees / 2 * Float(sin(2 * Double.pi * t)) : degrees * Float(t)
            }
            let cameras = request.camera(for: prepared).turning(turns, axis: axis,
                                                                spheres: request.focus == nil ? prepared.geometry.extentSpheres : nil)
            let writer: FrameWriter
            if let format {
                writer = FrameWriter(.movie(MovieStream(path: output, format: format, fps: fps, quality: quality, matte: request.background.rgb)))
            } else {
                try FrameFolder.prepare(output, force: force, what: "movie")
                writer = FrameWriter(.folder(output, keep: false, encoder: request.pngEncoder))
            }
            let renderer = try MoleculeRenderer()
            Molshot.keepUntilExit(renderer)
            do {
                for (i, camera) in cameras.enumerated() {
                    let picture = MoleculePicture(prepared, request: request, camera: camera)
                    let drawn = try picture.draw(renderer, keepScene: true)
                    try writer.write(number: i + 1) { try picture.finish(drawn) }
                }
                _ = try writer.finish()
            } catch {
                writer.cancel()
                throw error
            }
            print("\(n) frames at \(String(format: "%g", fps)) a second in \(output)" + (format.map { " (\($0.rawValue.uppercased()))" } ?? ""))
        }
    }
}

enum MovieUse: PictureUse {
    static let size = "The frames' size (default 512x512, a GIF 480x480; H.264 and VP9 pad an odd size by one pixel)."
    static let mode = "Default \(BallAndStick.name)."
    static let rotate = " The view at the start."
}

/// A folder for numbered frames: made, and cleared of an earlier run's frames only with `force`.
enum FrameFolder {
    static func prepare(_ folder: String, force: Bool, what: String) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let earlier = try FileManager.default.contentsOfDirectory(atPath: folder).filter(FrameWriter.isFrameName).sorted()
        guard !earlier.isEmpty else { return }
        guard force else {
            throw CLIError("\(folder) holds \(earlier.count) frames of an earlier \(what) (\(earlier[0]) ...); "
                           + "give --force to replace them, or another folder")
        }
        for name in earlier { try FileManager.default.removeItem(atPath: (folder as NSString).appendingPathComponent(name)) }
    }
}

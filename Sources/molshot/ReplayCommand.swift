import PathwayModel
import ArgumentParser
import Core
import Foundation
import Gestures
import Graphics
import Imaging
import MoleculeView
import Pathways
import Structure

struct ReplayCommand: ParsableCommand {
    /// The tap log's lines: one JSON object a tap, keys sorted.
    static var tapEncoder: JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return e
    }

    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay a gesture event file (JSON Lines) into numbered PNG frames, an animated PNG, or a movie (MP4, WebM, GIF).",
        discussion: """
            Frames come at every "frame" event, or with --fps at N frames per second of event time, plus one of \
            the final view. With -o NAME.mp4, .webm or .gif the frames become a movie (H.264, VP9, or GIF with \
            one palette): the same frames as the folder gets (the file's frame events, or with --fps or where the \
            file has none a clock of --fps, 30 unless given, frames a second of event time), playing at --fps (30), encoded as they are drawn. EVENTS may be - to read a live stream from standard input; each frame is written as \
            soon as it is due. The same file and options give the same frames, byte for byte.

            The event file is JSON Lines: a header {"type":"header","version":1,"viewport":{"width":W,"height":H}}, \
            then events with "t" in seconds: touches {"type":"touch","phase":"began|moved|ended","id":N,"x":X,"y":Y} \
            (one finger turns, two pan and pinch, a double tap changes the mode) and commands (rotate, pan, pinch, \
            twist, mode, reset, load, addPart, combine, clear, frame). Assets/samples/gestures.jsonl is an example; \
            docs/replay.md has the whole format.
            """
    )

    @Argument(help: "Event file, or - for standard input.")
    var events: String

    @Option(help: "Structure shown from the start: a file, lib:ID, pdb:ID or sample:1crn (events can also load one).")
    var molecule: String?

    @Option(help: "Pathway map to browse instead of a molecule (KGML, Escher, SBGN-ML, GPML, Molshot JSON): fingers pan, a pinch zooms, a double tap zooms in, a tap selects a node.")
    var pathway: String?

    @Option(help: "With --pathway: write each tap as a JSON line here (time, point, and the node's id, name, kind and label, or null).")
    var log: String?

    @Option(name: [.short, .customLong("output")], help: "Folder for frame-NNNNN.png, or a movie: NAME.mp4 (H.264), NAME.webm (VP9) or NAME.gif.")
    var output: String

    @Option(help: "Movie quality from 1 to 100 (default: H.264 crf 18, VP9 crf 30).")
    var quality: Int?

    @Option(help: "Frames per second of event time instead of one per frame event.")
    var fps: Double?

    @Option(help: "Also write all frames as one animated PNG here.")
    var apng: String?

    @Option(help: "Combinations catalog (JSON): the part sets `combine` accepts and the structure each shows.")
    var catalog: String?

    @Flag(help: "Replace the frames an earlier replay left in the output folder.")
    var force = false

    @OptionGroup var picture: PictureOptions<ReplayUse>

    /// The movie -o names, if it names one.
    var movie: MovieFormat? { MovieFormat(path: output) }

    /// The rate a movie plays at: as given, or 30.
    var playbackRate: Double { fps ?? ReplayTiming.movieFPS }

    func validate() throws {
        guard output != "-" else { throw ValidationError("--output is a folder for the frames or a movie file; - (standard output) is not one.") }
        if let quality { guard (1...100).contains(quality) else { throw ValidationError("--quality must be from 1 to 100.") } }
        if let movie {
            if apng != nil { throw ValidationError("--apng goes with a folder of frames; \(output) is a movie (give one or the other).") }
            if let fps, fps > movie.maxFPS {
                throw ValidationError("--fps: a \(movie.rawValue.uppercased()) plays at most \(Int(movie.maxFPS)) frames a second.")
            }
        } else if quality != nil {
            throw ValidationError("--quality is for movies (-o NAME.mp4, .webm or .gif).")
        }
        do {
            if movie != nil { try OutputPath.checkFile(output, formats: MovieFormat.extensions.map(\.name)) } else { try OutputPath.checkFolder(output) }
            if let apng { try OutputPath.checkFile(apng, field: "apng") }
        } catch { throw ValidationError(CLIFailure.message(error)) }
        if let fps { guard fps > 0, fps <= Replay<MoleculeDriver>.maxFPS else { throw ValidationError("--fps must be in (0, \(Int(Replay<MoleculeDriver>.maxFPS))].") } }
        if pathway != nil && (molecule != nil || catalog != nil) { throw ValidationError("Give --pathway or --molecule (and --catalog), not both.") }
        if log != nil && pathway == nil { throw ValidationError("--log records taps on a --pathway.") }
        if let log { do { try OutputPath.checkFile(log, field: "log", formats: ["jsonl", "json", "log", "txt"]) } catch { throw ValidationError(CLIFailure.message(error)) } }
        // Without a structure every frame would be blank: an event file must load one.
        if pathway == nil && molecule == nil && events != "-", let text = try? String(contentsOfFile: events, encoding: .utf8),
           !text.split(separator: "\n").contains(where: Self.loadsAStructure) {
            throw ValidationError("\(events) shows no structure: give --molecule FILE (or lib:ID, pdb:ID), or put a "
                                  + "\"load\" (or, with --catalog, \"combine\") event in the event file")
        }
        try picture.singleRotation()
        do { _ = try picture.request().singleMode() } catch { throw ValidationError(CLIFailure.message(error)) }
    }

    func run() throws {
        try CLIFailure.run { try replay() }
    }

    private func replay() throws {
        var options = MoleculeDriver.Options()
        options.request = try picture.request()
        options.catalog = try catalog.map { try CombinationCatalog(contentsOf: URL(fileURLWithPath: $0)) }
        let structure = try molecule.map { try picture.input.source().load($0).structure }
        let base = events == "-" ? URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
            : URL(fileURLWithPath: events).deletingLastPathComponent()
        if movie != nil, let reason = MovieWriter.unavailableReason() { throw CLIError(reason) }
        // The file's frame events where it has them (a movie is the frames the folder would get), else a clock.
        let text = events == "-" ? nil : try readEvents()
        let fps = ReplayTiming.clock(fps: self.fps, movie: movie != nil, events: text)
        let writer: FrameWriter
        if let movie {
            writer = FrameWriter(.movie(MovieStream(path: output, format: movie, fps: playbackRate, quality: quality,
                                                    matte: options.request.background.rgb)))
        } else {
            writer = FrameWriter(.folder(output, keep: apng != nil, encoder: options.request.frameEncoder(map: pathway != nil)))
            try FrameFolder.prepare(output, force: force, what: "replay")
        }
        do {
            try replay(writer: writer, options: options, structure: structure, base: base, fps: fps, text: text)
        } catch {
            writer.cancel()
            throw error
        }
    }

    /// The event file's text, or an error naming it.
    private func readEvents() throws -> String {
        do { return try String(contentsOfFile: events, encoding: .utf8) } catch {
            let exists = FileManager.default.fileExists(atPath: events)
            throw InputFileError(file: events, message: exists ? "cannot read the event file (not UTF-8 text, or not readable)"
                                                               : "no such event file")
        }
    }

    private func replay(writer: FrameWriter, options: MoleculeDriver.Options, structure: Structure?, base: URL, fps: Double?, text: String?) throws {
        var options = options
        var logFile: FileHandle?
        if let log {
            _ = FileManager.default.createFile(atPath: log, contents: nil)
            guard let handle = FileHandle(forWritingAtPath: log) else { throw CLIError("cannot write the log \(log)") }
            logFile = handle
        }
        defer { try? logFile?.close() }
        let tapped: (Tap) throws -> Void = { tap in
            logFile?.write(try Self.tapEncoder.encode(tap) + Data("\n".utf8))
        }
        // Frames are finished, encoded and written on a queue of their own while the next one draws.
        let times = Locked<[Double]>([])
        let emit: (ReplayFrame, Double) throws -> Void = { image, time in
            let number = times.withLock { $0.append(time); return $0.count }
            try writer.write(image, number: number)
        }
        // A molecule's replay or a pathway's, fed alike.
        let source = events == "-" ? "<stdin>" : events
        let feed: (String) throws -> Void, finish: () throws -> Void, close: () -> Void
        if let pathway {
            let p = Replay(map: try PathwayFile.load(path: pathway), source: source, width: options.request.width,
                           height: options.request.height, theme: PathwayTheme(.standard), fps: fps)
            (feed, finish, close) = ({ try p.feed($0, emit: emit, tapped: tapped) }, { try p.finish(emit: emit) }, p.close)
        } else {
            options.loader = .files(relativeTo: base)
            let r = Replay(source: source, options: options, molecule: structure, fps: fps)
            (feed, finish, close) = ({ try r.feed($0, emit: emit) }, { try r.finish(emit: emit) }, r.close)
        }
        defer { close() }
        // A stream cannot be looked at ahead: whether it loads a structure is known at its end.
        var streamLoaded = events != "-"
        if events == "-" {
            while let line = readLine(strippingNewline: true) {
                if !streamLoaded && Self.loadsAStructure(line[...]) { streamLoaded = true }
                try feed(line)
            }
        } else if let text {
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) { try feed(String(line)) }
        }
        try finish()
        if pathway == nil && structure == nil && !streamLoaded {
            CLIFailure.warn("no structure was shown (no --molecule, and no load event came on standard input): the frames are blank")
        }
        let frames = try writer.finish()
        let frameTimes = times.withLock { $0 }
        if let apng { try AtomicFile.write(try ReplayAnimation.make(frames: frames, times: frameTimes, fps: fps), to: apng) }
        if let movie {
            print("\(frameTimes.count) frames at \(String(format: "%g", playbackRate)) a second in \(output) (\(movie.rawValue.uppercased()))")
        } else {
            print("\(frameTimes.count) frames in \(output)" + (apng.map { ", animated in \($0)" } ?? ""))
        }
    }

    /// A line that is a `load` or `combine` event (what can bring a structure into an empty view).
    static func loadsAStructure(_ line: Substring) -> Bool {
        guard line.contains("\"load\"") || line.contains("\"combine\""),
              let object = (try? JSONText.parse(Array(line.utf8))) as? [String: Any], let type = object["type"] as? String else { return false }
        return type == "load" || type == "combine"
    }
}

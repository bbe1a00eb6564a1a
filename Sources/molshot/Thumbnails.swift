import ArgumentParser
import Foundation
import MoleculeView
import Thumbnails

struct ThumbnailsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumbnails",
        abstract: "Render thumbnails of whole collections: parallel, resumable, shardable.",
        discussion: """
            INPUT is a structure file, a folder (searched recursively) or @list.txt (one path a line). \
            PNGs are named CHECKSUM-SETTINGS-MODE.png from the file's content and the render settings, and \
            DIR/index.jsonl maps each source to its checksum, settings, outputs, atoms, time and status. \
            A second run skips what is up to date; a run that was killed finishes the job when started again. \
            --shard K/N takes a stable part of the inputs (by a hash of each path), so that N machines split a \
            collection without talking to each other.
            """
    )

    @Argument(help: "Files, folders or @list files.")
    var inputs: [String]

    @Option(name: [.short, .customLong("output")], help: "Folder for the PNGs and index.jsonl.")
    var output: String

    @Option(help: "N or WxH.")
    var size = "256"

    @Option(help: "Comma-separated modes.")
    var modes = "ball-and-stick,spacefill"

    @Option(help: "Degrees about the screen's x, y and z axes: X,Y,Z.")
    var rotate = "0,0,0"

    @OptionGroup var look: RenderLook

    @Option(help: "Reader and encoder threads (default: all cores).")
    var jobs = ProcessInfo.processInfo.activeProcessorCount

    @Option(help: "Take part K of N of the inputs, like 2/8.")
    var shard = "1/1"

    @Flag(help: "Render again what is up to date.")
    var force = false

    @Option(help: "Also write pages of labelled thumbnails, COLSxROWS a page (like 3x3).")
    var contactSheet: String?

    func validate() throws {
        _ = try RenderOptionParsing.size(size)
        _ = try RenderOptionParsing.triple(rotate, "--rotate")
        for mode in modes.split(separator: ",") where Representations.named(String(mode)) == nil {
            throw ValidationError("--modes: unknown mode \(mode); known: \(Representations.names.joined(separator: ", ")).")
        }
        guard !modes.isEmpty else { throw ValidationError("--modes must name at least one mode.") }
        guard Shard(shard) != nil else { throw ValidationError("--shard must be K/N with 1 <= K <= N (got \(shard)).") }
        guard jobs >= 1 else { throw ValidationError("--jobs must be at least 1.") }
        if let contactSheet, ContactSheet.Layout(contactSheet) == nil {
            throw ValidationError("--contact-sheet must be COLSxROWS, each 1 to 100 (got \(contactSheet)).")
        }
    }

    func run() throws {
        var job = ThumbnailJob(inputs: inputs, outputDirectory: output)
        (job.settings.width, job.settings.height) = try RenderOptionParsing.size(size)
        job.settings.modes = modes.split(separator: ",").map(String.init)
        job.settings.color = look.color
        let bg = try RenderOptionParsing.background(look.background)
        job.settings.background = [bg.x, bg.y, bg.z, bg.w]
        job.settings.hydrogens = look.hydrogens
        job.settings.waters = look.waters
        job.settings.antialias = look.antialias
        let r = try RenderOptionParsing.triple(rotate, "--rotate")
        job.settings.rotate = [r.x, r.y, r.z]
        job.settings.zoom = look.zoom
        job.settings.perspective = look.perspective
        job.settings.depthCue = look.depthCue
        job.jobs = jobs
        job.shard = Shard(shard)!
        job.force = force
        job.maxBytes = look.maxBytes
        job.contactSheet = contactSheet.flatMap(ContactSheet.Layout.init)

        let run = ThumbnailRun(job)
        let progress = ProgressReporter { run.progress }
        progress.start()
        let summary: ThumbnailSummary
        do {
            summary = try run.run()
        } catch {
            progress.stop()
            throw reportFailure("\(error)")
        }
        progress.stop()
        for failure in summary.failures {
            FileHandle.standardError.write(Data("molshot: failed: \(failure.error)\n".utf8))
        }
        print(summary.line)
        if !summary.sheets.isEmpty { print("contact sheets: " + summary.sheets.joined(separator: ", ")) }
        if summary.failed > 0 { throw ExitCode(1) }
    }
}

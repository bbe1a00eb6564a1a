import ArgumentParser
import Core
import Library
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

    @Argument(help: "Files, folders, @list files, lib:ID or pdb:ID.")
    var inputs: [String] = []

    @Flag(help: "Also render every molecule of the library (--db).")
    var library = false

    @Option(name: [.short, .customLong("output")], help: "Folder for the PNGs and index.jsonl.")
    var output: String

    @OptionGroup var picture: PictureOptions<ThumbnailsUse>

    @Option(name: .customLong("jobs"), help: "Reader and encoder threads (default: all cores).")
    var jobsGiven: Int?
    var jobs: Int { jobsGiven ?? Cores.active }

    @Option(help: "Take part K of N of the inputs, like 2/8.")
    var shard = "1/1"

    @Flag(help: "Render again what is up to date.")
    var force = false

    @Option(help: "Also write pages of labelled thumbnails, COLSxROWS a page (like 3x3).")
    var contactSheet: String?

    @Option(name: .customLong("processes"), help: "Rendering processes (default: 1 on up to two cores, where one keeps both busy; 2 on more).")
    var processesGiven: Int?
    var processes: Int { processesGiven ?? (Cores.active <= 2 ? 1 : 2) }

    @Option(help: .hidden) var part: String?
    @Flag(help: .hidden) var report = false

    @OptionGroup(title: "Density maps (CCP4/MRC inputs)") var maps: MapLookOptions

    func validate() throws {
        guard !inputs.isEmpty || library else { throw ValidationError("Give structure files, folders, @list files, or --library.") }
        try picture.singleRotation()
        do { try OutputPath.checkFolder(output) } catch { throw ValidationError(CLIFailure.message(error)) }
        guard Shard(shard) != nil else { throw ValidationError("--shard must be K/N with 1 <= K <= N (got \(shard)).") }
        guard jobs >= 1 else { throw ValidationError("--jobs must be at least 1.") }
        guard (1...16).contains(processes) else { throw ValidationError("--processes must be 1 to 16.") }
        if let part, Shard(part) == nil { throw ValidationError("--part must be K/N.") }
        if let contactSheet, ContactSheet.Layout(contactSheet) == nil {
            throw ValidationError("--contact-sheet must be COLSxROWS, each 1 to 100 (got \(contactSheet)).")
        }
    }

    func run() throws {
        let source: MoleculeSource
        var all = inputs
        do {
            source = try picture.input.source()
            if library {
                let lib = try picture.input.existingLibrary()
                all += try lib.list(offset: 0, limit: Int.max).molecules.map { "lib:\($0.id)" }
            }
        } catch { throw CLIFailure.report(error) }
        var job = ThumbnailJob(inputs: all, outputDirectory: output)
        job.entries = { spec in
            let (structure, checksum) = try source.load(spec)
            return (checksum, structure)
        }
        do { job.request = try maps.applied(to: try picture.request(.thumbnails)) } catch { throw CLIFailure.report(error) }
        ProcessTuning.choosePages(pixels: job.request.width * job.request.height)
        job.jobs = jobs
        job.shard = Shard(shard)!
        job.force = force
        job.contactSheet = contactSheet.flatMap(ContactSheet.Layout.init)

        if let part {
            // A part process: do one part quietly, say how it goes on standard output.
            job.part = Shard(part)!
            job.isPartProcess = true
            job.contactSheet = nil
            try ThumbnailProcesses.runPart(job)
            return
        }
        let run = try ThumbnailProcesses(job: job, processes: processes, executable: ResourceLocator.executable, arguments: Array(CommandLine.arguments.dropFirst()))
        let progress = ProgressReporter { run.progress }
        progress.start()
        // Part processes end with this one (they watch it), so the counts here are the run's.
        Interruption.report("done") { let p = run.progress; return (p.done, p.total) }
        let summary: ThumbnailSummary
        do {
            summary = try run.finish()
        } catch {
            progress.stop()
            throw CLIFailure.report(error)
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

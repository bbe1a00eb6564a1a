import ArgumentParser
import Core
import Foundation
import Graphics
import Imaging
import Library
import MoleculeView
import Structure
import Thumbnails

/// `molshot images ENTRY OUTDIR`: an entry's image set as an archive publishes it (EntryImages).
struct ImagesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "images",
        abstract: "An entry's image set, as PDBe's pdb-images makes it: model and assemblies by chain and by entity, entities, ligands, modified residues, B-factors, AlphaFold confidence.",
        discussion: """
            ENTRY is a structure file, pdb:ID or lib:ID, or a folder of structure files or a text file listing \
            entries one a line (each drawn in turn; --shard K/N takes every Nth, and an entry whose ID.json is \
            in OUTDIR already is skipped unless --force). Per image: ID_KIND[_KEY]_VIEW_WxH.png for each size \
            and ID_KIND[_KEY]_VIEW.caption.json; per entry ID.json (every caption) and ID_filelist.
            """
    )

    @Argument(help: "A structure file, pdb:ID, lib:ID, a folder of structure files, or a text file of entries.")
    var entry: String

    @Argument(help: "Folder for the images (made when missing).")
    var outdir: String

    @Option(name: .customLong("type"), help: "Kinds to make, comma-separated: entry, assembly, entity, ligand, modres, bfactor, plddt, or all (the default: all that apply).")
    var types = "all"

    @Option(help: "front, all (front, side and top) or auto (front).")
    var view = "auto"

    @Option(name: .customLong("size"), parsing: .upToNextOption, help: "Sizes WxH (or N), the largest drawn and the rest shrunk from it (default 800x800).")
    var sizes: [String] = []

    @Flag(help: "Draw each size anew instead of shrinking the largest.")
    var renderEachSize = false

    @Flag(help: "No axis arrows in the corner of pictures drawn in several views.")
    var noAxes = false

    @Flag(help: "A white background instead of a transparent one.")
    var opaqueBackground = false

    @Option(help: ArgumentHelp(RenderRequest.help("look")))
    var look: String?

    @Option(parsing: .unconditional, help: ArgumentHelp(RenderRequest.help("antialias")))
    var antialias: String?

    @Option(help: "K/N: only the entries of shard K of N (by each entry's name), for arrays of jobs.")
    var shard: String?

    @Flag(help: "Draw entries whose ID.json exists already.")
    var force = false

    @Option(name: .customLong("processes"), help: "Drawing processes for many entries (default: 1 on up to two cores, where Mesa's threads keep both busy; 2 on more).")
    var processesGiven: Int?
    var processes: Int { processesGiven ?? (Cores.active <= 2 ? 1 : 2) }

    @Option(help: .hidden) var part: String?

    @Option(help: ArgumentHelp("A folder of EMDB maps (emd_NNNN.map.gz, or EMDB's EMD-NNNN/map/ and header/): an EM entry whose file names its map "
                               + "(mmCIF _pdbx_database_related, PDB REMARK 900) gets the map with its model by chain and alone by radius, at the "
                               + "header's recommended contour.", valueName: "DIR"))
    var maps: String?

    @Option(help: ArgumentHelp("Also a binding-site figure of this selection in each entry that has it (ID_site_front_WxH.png): "
                               + RenderRequest.help("site") + " Its caption carries the figure's sentence, parts, interactions and labels.",
                               valueName: "selection"))
    var site: String?

    @OptionGroup var input: InputOptions

    func options() throws -> EntryImages.Options {
        var o = EntryImages.Options()
        if types.lowercased() != "all" {
            var kinds = Set<EntryImages.Kind>()
            for word in types.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }) {
                guard let k = EntryImages.Kind(rawValue: word) else {
                    throw ValidationError("--type: unknown kind \(Excerpt.of(word))\(NearMiss.hint(for: word, among: EntryImages.Kind.allCases.map(\.rawValue))); known: "
                                          + EntryImages.Kind.allCases.map(\.rawValue).joined(separator: ", ") + ", all")
                }
                kinds.insert(k)
            }
            o.kinds = kinds
        }
        switch view.lowercased() {
        case "front", "auto": o.views = [.front]
        case "all": o.views = EntryImages.View.allCases
        default: throw ValidationError("--view must be front, all or auto (got \(Excerpt.of(view)))")
        }
        if !sizes.isEmpty {
            o.sizes = try sizes.map { text in
                do { return try ValueText.size(text, field: "size", maximumSide: PictureBounds.maximumSide) } catch {
                    throw ValidationError(CLIFailure.message(error))
                }
            }
        }
        o.renderEachSize = renderEachSize
        if let site {
            do { _ = try RenderRequest([("site", site)]) } catch { throw ValidationError(CLIFailure.message(error)) }
            o.site = site
        }
        o.maps = maps
        o.axes = !noAxes
        do {
            if opaqueBackground { try o.base.set("background", "white") }
            if let look { try o.base.set("look", look) }
            if let antialias { try o.base.set("antialias", antialias) }
            if let maxBytes = input.maxBytes { try o.base.set("max-bytes", maxBytes) }
        } catch { throw ValidationError(CLIFailure.message(error)) }
        return o
    }

    func validate() throws {
        _ = try options()
        if let shard, Shard(shard) == nil { throw ValidationError("--shard must be K/N with 1 <= K <= N (got \(Excerpt.of(shard)))") }
        guard (1...16).contains(processes) else { throw ValidationError("--processes must be 1 to 16.") }
        if let part, Shard(part) == nil { throw ValidationError("--part must be K/N.") }
    }

    /// The entries ENTRY names: itself, a folder's structure files, or a list file's lines.
    func entries() throws -> [String] {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: entry, isDirectory: &isFolder), isFolder.boolValue {
            let names = try FileManager.default.contentsOfDirectory(atPath: entry).filter { !$0.hasPrefix(".") }.sorted()
            let known = [".cif", ".cif.gz", ".bcif", ".bcif.gz", ".pdb", ".pdb.gz", ".ent", ".ent.gz", ".mmcif", ".sdf", ".mol2", ".xyz"]
            return names.filter { n in known.contains { n.lowercased().hasSuffix($0) } }.map { (entry as NSString).appendingPathComponent($0) }
        }
        if entry.lowercased().hasSuffix(".txt") || entry.lowercased().hasSuffix(".list") {
            let text = try String(contentsOfFile: entry, encoding: .utf8)
            return text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("#") }
        }
        return [entry]
    }

    func run() throws {
        try CLIFailure.run {
            let options = try options()
            let sharded = shard.flatMap(Shard.init) ?? .whole
            try FileManager.default.createDirectory(atPath: outdir, withIntermediateDirectories: true)
            let source = try input.source()
            // The shard's entries, in turn among the processes: this one takes part 1 (or the part
            // it was given), copies of the same command the others.
            let mine = Shard(part ?? "") ?? Shard(index: 1, count: processes)
            if part != nil { ThumbnailProcesses.exitWithParent() }
            let all = try entries().filter { sharded.contains($0) }
            var others: [Process] = []
            if part == nil, processes > 1, all.count > 1 {
                for k in 2...processes {
                    let p = Process()
                    p.executableURL = ResourceLocator.executable
                    p.environment = ThumbnailProcesses.helperEnvironment
                    p.arguments = Array(CommandLine.arguments.dropFirst()) + ["--part", "\(k)/\(processes)"]
                    try p.run()
                    others.append(p)
                }
            }
            let renderer = try MoleculeRenderer()
            Molshot.keepUntilExit(renderer)
            let perception = try BondPerception.standard()
            var made = 0, skipped = 0, failed = 0
            var drawnFrom: [String: String] = [:]
            for (offset, item) in all.enumerated() where offset % mine.count == mine.index - 1 {
                do {
                    let structure = try source.load(item).structure
                    let id = EntryImages.entryID(structure, source: item)
                    // Two files of one entry (1crn.pdb, 1CRN.cif): the first drawn, the other said.
                    if let first = drawnFrom[id] {
                        FileHandle.standardError.write(Data("molshot: \(item): entry \(id) was drawn from \(first) in this run; skipped\n".utf8))
                        skipped += 1
                        continue
                    }
                    drawnFrom[id] = item
                    if !force && FileManager.default.fileExists(atPath: (outdir as NSString).appendingPathComponent("\(id).json")) {
                        skipped += 1
                        continue
                    }
                    let summary = try EntryImages.make(structure, source: item, id: id, options: options, into: outdir,
                                                       renderer: renderer, perception: perception)
                    made += 1
                    print("\(id): \(summary.images.count) images")
                } catch {
                    // One bad entry of many is said and the run goes on; alone, it is the command's failure.
                    failed += 1
                    FileHandle.standardError.write(Data("molshot: \(item): \(CLIFailure.message(error))\n".utf8))
                }
            }
            var partsFailed = false
            for p in others {
                p.waitUntilExit()
                if p.terminationStatus != 0 { partsFailed = true }
            }
            if part == nil, others.isEmpty, made + skipped + failed > 1 { print("\(made) entries drawn, \(skipped) already there, \(failed) failed") }
            if part == nil, !others.isEmpty { print("\(all.count) entries in \(processes) processes: this one drew \(made), skipped \(skipped), \(failed) failed") }
            if failed > 0 || partsFailed { throw ExitCode(1) }
        }
    }
}

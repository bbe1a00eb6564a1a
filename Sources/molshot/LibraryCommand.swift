import ArgumentParser
import Core
import Foundation
import Library
import Structure

struct LibraryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "library",
        abstract: "Keep molecules in a SQLite library: import, list, show, remove, rescan, stats.",
        discussion: """
            The library is one SQLite file (--db, else $MOLSHOT_DB, else the XDG data folder's molshot/library.sqlite) \
            with tables molecules, metadata, atoms and bonds that the sqlite3 shell can query. Every command that \
            takes a structure also takes lib:ID or lib:NAME.
            """,
        subcommands: [Create.self, Import.self, List.self, Show.self, Remove.self, Rescan.self, Stats.self, Snapshot.self]
    )

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "create", abstract: "Make an empty library (import and fetch make one too); one already there is left as it is.")

        @OptionGroup var input: InputOptions

        func run() throws {
            try CLIFailure.run {
                let library = try input.library()
                print(library.wasCreated ? "made a new library at \(library.path)" : "a library is already at \(library.path)")
            }
        }
    }

    struct Snapshot: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "snapshot",
            abstract: "Write a consistent copy of the library to a new file while it is in use (VACUUM INTO).",
            discussion: """
                The copy is what the library held at one moment, compacted, in one file with no WAL: what read-only \
                service replicas are fed from while one writer imports. It is written beside OUT and renamed into place.
                """)

        @Argument(help: "The copy's path (must not exist).") var output: String
        @OptionGroup var input: InputOptions

        func run() throws {
            try CLIFailure.run {
                let library = try input.existingLibrary()
                let bytes = try library.snapshot(to: output)
                print("snapshot of \(library.path) at \(output): \(bytes) bytes")
            }
        }
    }

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Import structure files; files already there are skipped, other files of a structure there are listed as its sources.",
            discussion: """
                Files are read and parsed on every core and stored in input order, 64 to a transaction. A file with the \
                PDB id and the atoms of a molecule already there (1crn.pdb after 1CRN.cif.gz) becomes one of its sources \
                rather than a molecule of its own, unless --separate. Makes the library where there is none, and says so.
                """)

        @Argument(help: "Files, folders (searched recursively) or @list.txt files.")
        var inputs: [String]

        @Flag(help: "Keep every file a molecule of its own, even another file of a structure already there.")
        var separate = false

        @Option(help: "Threads that read and parse (default: cores).")
        var workers: Int?

        @OptionGroup var input: InputOptions

        func validate() throws {
            if let workers, workers < 1 { throw ValidationError("--workers must be 1 or more (got \(workers)).") }
        }

        func run() throws {
            try CLIFailure.run {
                let library = try input.library()
                if library.wasCreated { FileHandle.standardError.write(Data("molshot: made a new library at \(library.path)\n".utf8)) }
                let perception = try BondPerception.standard()
                var added = 0, present = 0, sources = 0, failed = 0
                let paths = try StructureInputs.collect(inputs, pdbIDs: false)
                let done = Locked(0)
                Interruption.report("files imported") { (done.withLock { $0 }, paths.count) }
                try library.importFiles(paths, workers: workers ?? Cores.active, maxBytes: try input.limit(),
                                        perception: perception, separate: separate) { path, result in
                    defer { done.withLock { $0 += 1 } }
                    switch result {
                    case .success(.added(let r)):
                        added += 1
                        print("added \(r.id) \(r.name) (\(r.atoms) atoms) from \(path)")
                    case .success(.duplicate(let r)):
                        present += 1
                        print("already there: \(path) is \(r.id) \(r.name)")
                    case .success(.anotherSource(let r)):
                        sources += 1
                        print("another file of \(r.id) \(r.name): \(path)")
                    case .failure(let error):
                        failed += 1
                        _ = CLIFailure.report(error)
                    }
                }
                print("\(added) added, \(sources) another file of a molecule there, \(present) already there, \(failed) failed; library \(library.path)")
                if failed > 0 { throw ExitCode(1) }
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List molecules, a page at a time, with the total count.")

        @Flag(help: "Print {\"total\": N, \"molecules\": [...]}.") var json = false
        @Option(help: "Molecules to skip.") var offset = 0
        @Option(help: "Molecules to list at most.") var limit = 50
        @Option(help: "Words to find in names, PDB ids, titles, authors, keywords, ligand names and source paths (all of them, any case, as words or their starts).")
        var query: String?
        @OptionGroup var input: InputOptions

        func validate() throws {
            guard offset >= 0 else { throw ValidationError("--offset must be 0 or more (got \(offset)).") }
            guard limit >= 0 else { throw ValidationError("--limit must be 0 or more (got \(limit)).") }
        }

        func run() throws {
            try CLIFailure.run {
                let (total, molecules) = try input.existingLibrary().list(offset: offset, limit: limit, query: query)
                if json {
                    struct Page: Encodable { var total: Int; var molecules: [MoleculeRecord] }
                    print(try jsonText(Page(total: total, molecules: molecules)))
                    return
                }
                for m in molecules {
                    let title = m.title.map { $0.count > 50 ? String($0.prefix(49)) + "…" : $0 } ?? ""
                    print("\(m.id)\t\(m.name)\t\(m.format)\t\(m.atoms) atoms\t\(m.source)\t\(title)")
                }
                let shown = molecules.isEmpty ? "none" : "\(offset + 1)-\(offset + molecules.count)"
                print("\(shown) of \(total) molecule\(total == 1 ? "" : "s")" + (query.map { " matching \"\($0)\"" } ?? ""))
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "Show one molecule: its record, metadata, chains and ligands.")

        @Argument(help: "The molecule's id or name.") var molecule: String
        @Flag(help: "Print JSON.") var json = false
        @OptionGroup var input: InputOptions

        func run() throws {
            try CLIFailure.run {
                let library = try input.existingLibrary()
                let (record, structure) = try library.load(molecule)
                let bonds = try BondPerception.standard().bonds(of: structure.models[0])
                let summary = StructureSummary(file: "lib:\(record.id)", structure: structure, bonds: bonds)
                let metadata = try library.metadata(id: record.id)
                if json {
                    struct Source: Encodable { var path: String; var format: String; var checksum: String; var bytes: Int }
                    struct Shown: Encodable {
                        var molecule: MoleculeRecord
                        var sources: [Source]
                        var metadata: [String: String]
                        var summary: StructureSummary
                    }
                    let sources = try library.sources(of: record.id).map { Source(path: $0.path, format: $0.format, checksum: $0.checksum, bytes: $0.bytes) }
                    print(try jsonText(Shown(molecule: record, sources: sources,
                                             metadata: Dictionary(metadata.map { ($0.key, $0.value) }, uniquingKeysWith: { a, _ in a }),
                                             summary: summary)))
                    return
                }
                print("id:         \(record.id)")
                print("name:       \(record.name)")
                for (i, s) in try library.sources(of: record.id).enumerated() {
                    print((i == 0 ? "source:     " : "            ") + "\(s.path) (\(s.format), \(s.bytes) bytes)")
                }
                print("checksum:   \(record.checksum)")
                print("added:      \(record.added)")
                print(summary.text)
                for (key, value) in metadata where !["id", "title", "method", "resolution"].contains(key) {
                    print("\(key): \(value)")
                }
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove a molecule and everything stored for it.")

        @Argument(help: "The molecule's id or name (a name several molecules share is refused, listing them).") var molecule: String
        @OptionGroup var input: InputOptions

        func run() throws {
            try CLIFailure.run {
                let r = try input.library(create: false).remove(molecule)
                print("removed \(r.id) \(r.name)")
            }
        }
    }

    struct Rescan: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rescan", abstract: "Read every kept original again (after a schema or reader change).")

        @OptionGroup var input: InputOptions

        func run() throws {
            try CLIFailure.run {
                let (done, failed) = try input.library(create: false).rescan(perception: try BondPerception.standard())
                for (record, error) in failed { _ = CLIFailure.report(LibraryError(error.faultKind, "\(record.id) \(record.name): \(CLIFailure.message(error))")) }
                print("\(done) rescanned, \(failed.count) failed")
                if !failed.isEmpty { throw ExitCode(1) }
            }
        }
    }

    struct Stats: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "stats", abstract: "Count molecules, atoms and bonds; sizes of the files and the database.")

        @Flag(help: "Print JSON.") var json = false
        @OptionGroup var input: InputOptions

        func run() throws {
            try CLIFailure.run {
                let library = try input.existingLibrary()
                let s = try library.stats()
                if json {
                    print(try jsonText(s))
                    return
                }
                print("library:    \(library.path) (schema \(s.schemaVersion))")
                print("molecules:  \(s.molecules)" + (s.formats.isEmpty ? "" : " (" + s.formats.sorted { $0.key < $1.key }
                    .map { "\($0.value) \($0.key)" }.joined(separator: ", ") + ")"))
                print("atoms:      \(s.atoms)")
                print("bonds:      \(s.bonds)")
                print("files:      \(s.fileBytes) bytes as imported")
                print("database:   \(s.databaseBytes) bytes")
            }
        }
    }
}

/// One JSON object on one line, keys sorted, slashes plain.
func jsonText<T: Encodable>(_ value: T) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try encoder.encode(value), as: UTF8.self)
}

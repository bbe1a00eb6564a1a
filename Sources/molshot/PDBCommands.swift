import ArgumentParser
import Foundation
import Library
import Structure

struct Search: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Search the Protein Data Bank by text: id, title, method and resolution of each hit.",
        discussion: "Asks the RCSB Search API ($MOLSHOT_PDB_SEARCH changes the endpoint) and the RCSB Data API for titles ($MOLSHOT_PDB_ENTRY)."
    )

    @Argument(help: "Words to look for.") var text: [String]
    @Option(help: "Hits to list at most.") var limit = 10
    @Flag(help: "Print {\"total\": N, \"hits\": [{\"id\", \"title\", \"method\", \"resolution\"}]}.") var json = false

    func validate() throws {
        guard !text.joined().trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { throw ValidationError("Give words to search for.") }
        guard (1...1000).contains(limit) else { throw ValidationError("--limit must be 1 to 1000 (got \(limit)).") }
    }

    func run() throws {
        try CLIFailure.run {
            let (total, hits) = try PDBArchive.fromEnvironment().search(text.joined(separator: " "), limit: limit)
            if json {
                struct Found: Encodable { var total: Int; var hits: [PDBArchive.Hit] }
                print(try jsonText(Found(total: total, hits: hits)))
                return
            }
            if let why = hits.lazy.compactMap(\.detailsMissing).first {
                CLIFailure.warn("the search answered but the entries' details could not be fetched (\(why)); those hits are listed by id alone")
            }
            for h in hits {
                let resolution = h.resolution.map { String(format: "%.2f Å", $0) } ?? "-"
                print("\(h.id)\t\(h.method ?? "-")\t\(resolution)\t\(h.detailsMissing == nil ? h.title ?? "" : "(details unavailable)")")
            }
            print("\(hits.count) of \(total) entries")
        }
    }
}

struct Fetch: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Download PDB entries (gzip'd) into the molecule library.",
        discussion: """
            Each file is checked to inflate and parse, then imported; nothing half-downloaded is kept. The mirror is \
            $MOLSHOT_PDB_MIRROR, a URL with {id} (lower case), {ID} (upper case) and {format}; by default the RCSB's \
            https://files.rcsb.org/download/{ID}.{format}.gz. Server errors and timeouts are retried with backoff.
            """
    )

    @Argument(help: "PDB ids, like 1CRN.") var ids: [String]
    @Option(help: "cif or pdb.") var format = "cif"
    @OptionGroup var input: InputOptions

    func validate() throws {
        guard !ids.isEmpty else { throw ValidationError("Give at least one PDB id.") }
        guard format == "cif" || format == "pdb" else { throw ValidationError("--format must be cif or pdb (got \(format)).") }
        for id in ids {
            do { _ = try PDBArchive.checkID(id) } catch { throw ValidationError(CLIFailure.message(error)) }
        }
    }

    func run() throws {
        try CLIFailure.run {
            let library = try input.library()
            if library.wasCreated { FileHandle.standardError.write(Data("molshot: made a new library at \(library.path)\n".utf8)) }
            let archive = PDBArchive.fromEnvironment()
            let perception = try BondPerception.standard()
            var failed: Int32 = 0
            for id in ids {
                do {
                    let (record, added) = try archive.fetch(id, format: format, into: library, perception: perception,
                                                            maxBytes: try input.limit())
                    print(added ? "fetched \(id.uppercased()) as \(record.id) (\(record.atoms) atoms)"
                                : "\(id.uppercased()) is already in the library as \(record.id)")
                } catch {
                    failed = max(failed, CLIFailure.report(error).rawValue)
                }
            }
            if failed > 0 { throw ExitCode(failed) }
        }
    }
}

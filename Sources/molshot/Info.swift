import ArgumentParser
import Foundation
import Structure

struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Describe structure files: title, method, resolution, models, atoms, chains, ligands, bonds.",
        discussion: "Reads PDB, mmCIF, SDF/MOL, MOL2 and XYZ, plain or gzip. With several files and --json, prints one JSON object a line."
    )

    @Argument(help: "Structure files, lib:ID or lib:NAME, or pdb:ID.")
    var files: [String]

    @Flag(help: "Print JSON instead of text.")
    var json = false

    @OptionGroup var input: InputOptions

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("Give at least one structure file.") }
    }

    func run() throws {
        let source = try input.source()
        var failed: Int32 = 0
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for (index, file) in files.enumerated() {
            do {
                let structure = try source.load(file).structure
                let perception = try BondPerception.standard()
                let bonds = perception.bonds(of: structure.models[0], embedded: structure.embeddedTemplates)
                let summary = StructureSummary(file: file, structure: structure, bonds: bonds)
                if json {
                    print(String(decoding: try encoder.encode(summary), as: UTF8.self))
                } else {
                    if index > 0 { print("") }
                    print(summary.text)
                }
            } catch {
                failed = max(failed, CLIFailure.report(error).rawValue)
            }
        }
        if failed > 0 { throw ExitCode(failed) }
    }
}

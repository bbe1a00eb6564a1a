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

    @Option(help: ArgumentHelp("Count the atoms of the first model a selection takes instead (chain A and resi 10-20, within 5 of resn HEM, ...).",
                               valueName: "EXPR"))
    var select: String?

    @OptionGroup var input: InputOptions

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("Give at least one structure file.") }
        if let select {
            do { _ = try Selection(parsing: select) } catch { throw ValidationError("--select: \(error)") }
        }
    }

    func run() throws {
        let source = try input.source()
        var failed: Int32 = 0
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for (index, file) in files.enumerated() {
            do {
                var structure = try source.load(file).structure
                // The file as it is, unless an assembly is asked for (its list is part of what is shown).
                if input.assembly != nil { structure = try structure.applying(try input.assemblyChoice(), source: file) }
                if let select {
                    let model = structure.models[0]
                    let atoms = try Selection(parsing: select).atoms(in: model)
                    let residues = Set(atoms.map { model.atoms[$0].residue })
                    var chains: [String] = []
                    for r in residues.sorted() {
                        let id = model.chains[Int(model.residues[Int(r)].chain)].id
                        if !chains.contains(id) { chains.append(id) }
                    }
                    if json {
                        let o: [String: Any] = ["file": file, "selection": select, "selected": atoms.count, "atoms": model.atoms.count,
                                                "residues": residues.count, "chains": chains]
                        print(String(decoding: try JSONSerialization.data(withJSONObject: o, options: [.sortedKeys, .withoutEscapingSlashes]), as: UTF8.self))
                    } else {
                        print("\(file): \(atoms.count) of \(model.atoms.count) atoms, \(residues.count) residues, chains \(chains.isEmpty ? "-" : chains.map(Model.shown(chain:)).joined(separator: ", "))")
                    }
                    continue
                }
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

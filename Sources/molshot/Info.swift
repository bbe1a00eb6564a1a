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

    @Option(help: ArgumentHelp("List the non-covalent interactions of a selection with the rest of the first model instead, as PLIP finds "
                               + "them: hydrogen bonds, hydrophobic contacts, salt bridges, pi-stacking, cation-pi, halogen bonds, metal "
                               + "coordination (resn 478, ligand, chain B, resn ZN).", valueName: "EXPR"))
    var interactions: String?

    @Option(help: ArgumentHelp("With --interactions, the atoms on the other side (default: every atom the selection does not take; "
                               + "protein: a DNA strand's contacts with its protein, not its other strand, as PLIP reports them).",
                               valueName: "EXPR"))
    var partners: String?

    @OptionGroup var input: InputOptions

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("Give at least one structure file.") }
        if let select {
            do { _ = try Selection(parsing: select) } catch { throw ValidationError("--select: \(error)") }
        }
        if let interactions {
            guard select == nil else { throw ValidationError("--interactions and --select cannot be given together.") }
            do { _ = try Selection(parsing: interactions) } catch { throw ValidationError("--interactions: \(error)") }
        }
        if let partners {
            guard interactions != nil else { throw ValidationError("--partners is given with --interactions.") }
            do { _ = try Selection(parsing: partners) } catch { throw ValidationError("--partners: \(error)") }
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
                if let interactions {
                    let model = structure.models[0]
                    let mask = try Selection(parsing: interactions).mask(in: model)
                    guard mask.contains(true) else {
                        throw ValidationError("--interactions \"\(interactions)\" selects no atoms in \(file)")
                    }
                    let others = try partners.map { try Selection(parsing: $0).mask(in: model) }
                    let found = try InteractionFinder().find(in: model, bonds: bonds, selected: mask, partners: others, dictionary: perception.dictionary)
                    let report = InteractionReport(selection: interactions, model: model, interactions: found)
                    if json {
                        print(String(decoding: try encoder.encode(report), as: UTF8.self))
                    } else {
                        if index > 0 { print("") }
                        print("\(file): interactions of \(interactions)")
                        print(report.text)
                    }
                    continue
                }
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

import ArgumentParser
import Density
import Foundation
import Structure

struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Describe structure files: title, method, resolution, models, atoms, chains, ligands, bonds; or density maps: grid, cell, axes, statistics.",
        discussion: "Reads PDB, mmCIF, SDF/MOL, MOL2 and XYZ, and CCP4/MRC maps, plain or gzip. With several files and --json, prints one JSON object a line."
    )

    @Argument(help: "Structure files, lib:ID or lib:NAME, pdb:ID, or sample:1crn (a sample shipped with molshot).")
    var files: [String]

    @Flag(help: "Print JSON instead of text.")
    var json = false

    @Option(help: ArgumentHelp("Count the atoms of the first model a selection takes instead (chain A and resi 10-20, within 5 of resn HEM, ...).",
                               valueName: "EXPR"))
    var select: String?

    @Option(help: ArgumentHelp("List the non-covalent interactions of a selection with the rest of the first model instead, as PLIP finds "
                               + "them: hydrogen bonds, hydrophobic contacts, salt bridges, pi-stacking, cation-pi, halogen bonds, metal "
                               + "coordination, water bridges (resn 478, ligand, chain B, resn ZN).", valueName: "EXPR"))
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
                if DensityMap.isMapPath(file) {
                    let map = try DensityMap.load(path: file, limits: DensityLimits(maxBytes: try input.limit()))
                    if json {
                        print(String(decoding: try JSONSerialization.data(withJSONObject: Info.mapSummary(map, file: file),
                                                                          options: [.sortedKeys, .withoutEscapingSlashes]), as: UTF8.self))
                    } else {
                        if index > 0 { print("") }
                        print(Info.mapText(map, file: file))
                    }
                    continue
                }
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

extension Info {
    /// A map's header and statistics, as `molshot info MAP --json` prints them.
    static func mapSummary(_ map: DensityMap, file: String) -> [String: Any] {
        let h = map.header
        func triple(_ v: SIMD3<Int>) -> [Int] { [v.x, v.y, v.z] }
        func length(_ v: SIMD3<Double>) -> Double { (v * v).sum().squareRoot() }
        return [
            "file": file,
            "kind": "density map",
            "mode": h.mode,
            "grid": triple(h.counts),
            "size": triple(map.size),
            "start": triple(h.starts),
            "sampling": triple(h.sampling),
            "axes": triple(h.axes),
            "cell": ["a": h.cell.lengths.x, "b": h.cell.lengths.y, "c": h.cell.lengths.z,
                     "alpha": h.cell.angles.x, "beta": h.cell.angles.y, "gamma": h.cell.angles.z],
            "voxel": [length(map.steps.x), length(map.steps.y), length(map.steps.z)],
            "origin": [map.origin.x, map.origin.y, map.origin.z],
            "spaceGroup": h.spaceGroup,
            "byteOrder": h.bigEndian ? "big-endian" : "little-endian",
            "statistics": ["min": map.statistics.minimum, "max": map.statistics.maximum, "mean": map.statistics.mean, "rms": map.statistics.rms],
            "header": ["min": h.minimum, "max": h.maximum, "mean": h.mean, "rms": h.rms],
            "labels": h.labels,
        ].merging(recommended(file).map { ["recommendedLevel": $0.level, "recommendedBy": $0.source] } ?? [:]) { a, _ in a }
    }

    /// The contour level the EMDB header beside the map recommends, where there is one.
    static func recommended(_ file: String) -> (level: Double, source: String)? {
        guard let (path, header) = try? EMDBHeader.beside(file), let level = header.recommendedLevel else { return nil }
        return (level, "\((path as NSString).lastPathComponent)" + (header.levelSource.map { " (\($0.lowercased()))" } ?? ""))
    }

    static func mapText(_ map: DensityMap, file: String) -> String {
        let h = map.header, s = map.statistics
        func f(_ v: Double) -> String { String(format: "%.6g", v) }
        let voxel = [map.steps.x, map.steps.y, map.steps.z].map { f(($0 * $0).sum().squareRoot()) }.joined(separator: " x ")
        return """
            \(file): density map, mode \(h.mode), \(map.size.x) x \(map.size.y) x \(map.size.z) grid points (X, Y, Z; stored in axis order \(h.axes.x), \(h.axes.y), \(h.axes.z))
            cell \(f(h.cell.lengths.x)) \(f(h.cell.lengths.y)) \(f(h.cell.lengths.z)) Å, \(f(h.cell.angles.x)) \(f(h.cell.angles.y)) \(f(h.cell.angles.z))°, sampled \(h.sampling.x) x \(h.sampling.y) x \(h.sampling.z); voxel \(voxel) Å; space group \(h.spaceGroup)
            origin \(f(map.origin.x)), \(f(map.origin.y)), \(f(map.origin.z)) Å (start \(h.starts.x), \(h.starts.y), \(h.starts.z))
            values: min \(f(s.minimum)), max \(f(s.maximum)), mean \(f(s.mean)), rms \(f(s.rms))
            """ + (recommended(file).map { "\nrecommended level \(f($0.level)) (\($0.source))" } ?? "")
    }
}

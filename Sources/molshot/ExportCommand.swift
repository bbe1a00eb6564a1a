import ArgumentParser
import Density
import Core
import Foundation
import Graphics
import MoleculeView
import Structure

/// `molshot export`: what `render` draws, as a triangle mesh file.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export a structure as a mesh (glTF .glb/.gltf, Collada .dae, OBJ + .mtl, STL) or its coordinates (mmCIF .cif, PDB .pdb).",
        discussion: """
            Coordinates (-o x.cif or x.pdb) are written for what --assembly, --select and --model choose: mmCIF with \
            author and label ids, entities, the assemblies of what was written and the file's helices and strands; PDB \
            where it fits (refused by name past 99,999 atoms, for chain ids longer than one character, residue names \
            longer than three). 
            The representation and colors are those of render (--mode or --show, --color, --hydrogens, --waters), in \
            Ångström, one node or object per chain, vertex colors (a material per color in OBJ; STL has none). \
            --parts keeps only those chains, as combination building shows them. Files are written whole to a \
            temporary name, then renamed.
            """
    )

    @Argument(help: "Structure file (PDB, PQR, mmCIF, SDF/MOL, MOL2, XYZ; plain or gzip), lib:ID or lib:NAME, pdb:ID, or sample:1crn (a sample shipped with molshot).")
    var input: String

    @Option(name: [.short, .customLong("output")], help: "The file to write: .glb, .gltf, .dae, .obj, .stl (a mesh) or .cif, .pdb (coordinates).")
    var output: String

    @Option(help: ArgumentHelp("Coordinates: only the atoms this selection takes (chain A, polymer, not water, entity 1, ...).", valueName: "EXPR"))
    var select: String?

    @Option(help: "Coordinates: only this model (by number; default every model).")
    var model: Int?

    @Option(help: ArgumentHelp(RenderRequest.help("mode") + " Default \(BallAndStick.name).")) var mode: String?
    @Option(help: ArgumentHelp(RenderRequest.help("show"))) var show: [String] = []
    @Option(help: ArgumentHelp(RenderRequest.help("color"))) var color: String?
    @Flag(help: ArgumentHelp(RenderRequest.help("hydrogens"))) var hydrogens = false
    @Flag(help: ArgumentHelp(RenderRequest.help("waters"))) var waters = false
    @Option(help: "How finely spheres and cylinders are cut: low (12-vertex spheres, 6-sided bonds), medium (42, 10), high (162, 16); auto: medium up to 10,000 atoms and bonds, low past it.")
    var detail: String = "auto"
    @Option(help: "Only these chains (comma separated), as combination building combines them.") var parts: String?
    @Option(help: ArgumentHelp("With a density map as the input (CCP4/MRC), its isosurface is written. " + RenderRequest.help("level"),
                               valueName: "LEVEL")) var level = "1.5s"
    @OptionGroup var mapHeader: MapHeaderOption
    @OptionGroup var inputOptions: InputOptions

    func request() throws -> RenderRequest {
        var pairs: [(String, String)] = []
        if let mode { pairs.append(("mode", mode)) }
        pairs += show.map { ("show", $0) }
        if let color { pairs.append(("color", color)) }
        if hydrogens { pairs.append(("hydrogens", "true")) }
        if waters { pairs.append(("waters", "true")) }
        return try RenderRequest(pairs)
    }

    func validate() throws {
        if CoordinateWriter.Format(path: output) != nil {
            if let select {
                do { _ = try Selection(parsing: select) } catch { throw ValidationError("--select: \(error)") }
            }
            do { try OutputPath.checkFile(output, field: "output", formats: ["cif", "pdb"]) } catch { throw ValidationError(CLIFailure.message(error)) }
            return
        }
        guard MeshFormat(path: output) != nil else {
            throw ValidationError("-o must end in .glb, .gltf, .dae, .obj, .stl, .cif or .pdb (got \(output)).")
        }
        guard MoleculeMesh.Detail(rawValue: detail) != nil else { throw ValidationError("--detail must be auto, low, medium or high (got \(detail)).") }
        do {
            try OutputPath.checkFile(output, field: "output", formats: MeshFormat.allCases.map(\.rawValue))
            _ = try request().singleMode()
        } catch { throw ValidationError(CLIFailure.message(error)) }
    }

    func run() throws {
        try CLIFailure.run {
            if DensityMap.isMapPath(input) {
                // A map: its isosurface over the map's stored block, in Å.
                guard let format = MeshFormat(path: output) else {
                    throw RequestError(field: "output", "a map's isosurface is written as .glb, .gltf, .dae, .obj or .stl")
                }
                var look = try RenderRequest([("level", level)]).map
                let asked = look.level
                let map = try DensityMap.load(path: input, limits: DensityLimits(maxBytes: try inputOptions.limit()))
                // The level's value found once (an enclosed volume is a selection over every voxel).
                look.level = try asked.resolved(in: map, header: try mapHeader.header(for: input, level: asked), file: input)
                let value = look.level.value(in: map)
                let mesh = try look.mesh(map, file: input)
                try format.write([mesh], path: output)
                FileHandle.standardError.write(Data("molshot: wrote \(output): the isosurface at \(value) (\(asked)), \(mesh.positions.count) vertices, \(mesh.triangleCount) triangles\n".utf8))
                return
            }
            var request = try request()
            request.assembly = try inputOptions.assemblyChoice()
            var structure = try request.molecule(try inputOptions.source().load(input).structure, source: input)
            if let format = CoordinateWriter.Format(path: output) {
                try writeCoordinates(structure, format)
                return
            }
            if let parts, let model = structure.models.first {
                let wanted = parts.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                let missing = wanted.filter { !model.chainIDs.contains($0) }
                guard missing.isEmpty, !wanted.isEmpty else {
                    throw RequestError(field: "parts", "names chains the structure does not have: \(missing.map(Model.shown(chain:)).joined(separator: ", ")) (it has \(model.chainIDs.map(Model.shown(chain:)).joined(separator: ", ")))")
                }
                structure.models = [model.selecting(chains: Set(wanted))]
            }
            let prepared = try PreparedMolecule(structure, mode: try request.singleMode(), request: request, perception: try BondPerception.standard(),
                                                fixedView: false)
            let meshes = MoleculeMesh.meshes(prepared, detail: MoleculeMesh.Detail(rawValue: detail)!)
            let format = MeshFormat(path: output)!
            try format.write(meshes, path: output)
            let vertices = meshes.reduce(0) { $0 + $1.positions.count }, triangles = meshes.reduce(0) { $0 + $1.triangleCount }
            FileHandle.standardError.write(Data("molshot: wrote \(output): \(meshes.count) \(meshes.count == 1 ? "mesh" : "meshes"), \(vertices) vertices, \(triangles) triangles\n".utf8))
        }
    }

    /// The models (or the one `--model` names), each cut to `--select`, as mmCIF or PDB.
    func writeCoordinates(_ structure: Structure, _ format: CoordinateWriter.Format) throws {
        var out = structure
        if let model {
            guard let m = structure.models.first(where: { $0.number == model }) else {
                throw RequestError(field: "model", "the structure has no model \(model) (it has \(structure.models.map { String($0.number) }.prefix(20).joined(separator: ", ")))")
            }
            out.models = [m]
        }
        if let select {
            let selection = try Selection(parsing: select)
            out.models = out.models.map { $0.keeping(atoms: selection.mask(in: $0)) }
            guard out.models.contains(where: { !$0.atoms.isEmpty }) else { throw RequestError(field: "select", "takes no atoms") }
        }
        let bytes = try CoordinateWriter.write(out, as: format)
        try AtomicFile.write(bytes, to: output)
        let atoms = out.models.reduce(0) { $0 + $1.atoms.count }
        FileHandle.standardError.write(Data("molshot: wrote \(output): \(atoms) atoms in \(out.models.count) model\(out.models.count == 1 ? "" : "s")\n".utf8))
    }
}

import ArgumentParser
import Core
import Density
import Foundation
import MoleculeView
import Structure

/// A density map beside (or instead of) a structure: the options of the commands that draw one.
struct MapOptions: ParsableArguments {
    @Option(help: ArgumentHelp("A density map (CCP4/MRC: .map, .mrc, .ccp4, plain or gzip) drawn with the structure.", valueName: "FILE"))
    var map: String?

    @Option(help: ArgumentHelp("With a map as the input, a model drawn with it (any structure file).", valueName: "FILE"))
    var model: String?

    @OptionGroup var look: MapLookOptions

    @OptionGroup var header: MapHeaderOption

    @Option(help: ArgumentHelp("Draw only the map within --carve-radius of the atoms this selection takes (a ligand's density: resn HEM, ligand).",
                               valueName: "EXPR"))
    var carve: String?

    @Option(help: ArgumentHelp("With --carve, how far from the atoms the map is kept, Å.", valueName: "Å"))
    var carveRadius = 2.0

    @Option(help: ArgumentHelp("Draw the map in a box around the atoms this selection takes, --box-margin beyond them.", valueName: "EXPR"))
    var box: String?

    @Option(help: ArgumentHelp("With --box, how far the box reaches beyond the atoms, Å.", valueName: "Å"))
    var boxMargin = 5.0

    func applied(to request: RenderRequest) throws(RequestError) -> RenderRequest { try look.applied(to: request) }

    func validate() throws {
        for (name, text) in [("carve", carve), ("box", box)] {
            guard let text else { continue }
            do { _ = try Selection(parsing: text) } catch { throw ValidationError("--\(name): \(error)") }
        }
        guard carveRadius > 0 && carveRadius <= 50 else { throw ValidationError("--carve-radius \(carveRadius): give a distance from 0 to 50 Å") }
        guard boxMargin >= 0 && boxMargin <= 100 else { throw ValidationError("--box-margin \(boxMargin): give a distance from 0 to 100 Å") }
        if (carve != nil || box != nil) && model == nil && map == nil {
            throw ValidationError("--carve and --box select atoms of a model: give the map with its model (--model FILE, or a structure with --map FILE)")
        }
    }

    /// What `input` draws: a structure, a map, or both (a map with `--model`, a structure with
    /// `--map`). A model drawn with a map is drawn as deposited unless an assembly is asked for
    /// (the map lies over the deposited coordinates).
    func prepared(_ input: String, request: inout RenderRequest, input options: InputOptions) throws -> PreparedMolecule {
        let (mapFile, structureFile) = files(input: input)
        var prepared: PreparedMolecule
        if let structureFile {
            if mapFile != nil && options.assembly == nil { request.assembly = .model }
            let structure = try request.molecule(try options.source().load(structureFile).structure, source: structureFile)
            prepared = try PreparedMolecule(structure, mode: try request.singleMode(), request: request, perception: try BondPerception.standard())
        } else {
            prepared = PreparedMolecule(meshes: [])
        }
        if let mapFile {
            prepared.geometry.meshes.append(try mesh(mapFile: mapFile, look: request.map, maxBytes: request.maxBytes,
                                                     model: structureFile == nil ? nil : prepared.model, atomColors: prepared.atomColors))
        }
        return prepared
    }

    /// The map's mesh for the picture: the whole stored block, or the part around the model (a
    /// map over its whole cell, around every atom, 3 Å beyond), the box, or the carved region.
    func mesh(mapFile: String, look given: MapLook, maxBytes: Int, model: Model?, atomColors: [UInt32]) throws -> Mesh {
        let map = try DensityMap.load(path: mapFile, limits: DensityLimits(maxBytes: maxBytes))
        // An enclosed volume counts over the whole map, whatever part is drawn.
        var look = given
        look.level = try look.level.resolved(in: map, header: try header.header(for: mapFile, level: look.level), file: mapFile)
        var part: DensityMap? = map
        var carved: (points: [SIMD3<Float>], radius: Float)? = nil
        func atoms(_ expression: String, _ option: String) throws -> [SIMD3<Float>] {
            guard let model else { return [] }
            let picked = try Selection(parsing: expression).atoms(in: model).map { model.atoms[$0].position }
            guard !picked.isEmpty else { throw RequestError(field: option, "\"\(expression)\" takes no atoms of the model") }
            return picked
        }
        if let carve {
            let points = try atoms(carve, "carve")
            carved = (points, Float(carveRadius))
            part = try map.around(points, margin: carveRadius + 1, file: mapFile)
        } else if let box {
            part = try map.around(try atoms(box, "box"), margin: boxMargin, file: mapFile)
        } else {
            part = try MapLook.part(of: map, around: model, file: mapFile)
        }
        guard let part else {
            var empty = Mesh(name: "map")
            empty.opacity = look.style == .transparent ? 0.5 : 1
            return empty
        }
        return try look.mesh(part, statistics: map.statistics, model: model, atomColors: atomColors, carve: carved, file: mapFile)
    }

    /// The map and the structure of a command's input: a map path as the input takes `--model`
    /// as its structure; a structure as the input takes `--map`.
    func files(input: String) -> (map: String?, structure: String?) {
        DensityMap.isMapPath(input) ? (input, model) : (map, input)
    }
}

/// Where `--level recommended` finds a map's EMDB header.
struct MapHeaderOption: ParsableArguments {
    @Option(help: ArgumentHelp("The map's EMDB header (emd-NNNN-v30.xml, or the entry API's JSON), for --level recommended. "
                               + "Without it, one is looked for beside the map (its folder, ../header/).", valueName: "FILE"))
    var mapHeader: String?

    /// The EMDB header for `--level recommended`: `--map-header`, else the one beside the map.
    func header(for mapFile: String, level: MapLevel) throws -> EMDBHeader? {
        guard case .recommended = level else { return nil }
        if let mapHeader { return try EMDBHeader.load(path: mapHeader) }
        return try EMDBHeader.beside(mapFile)?.header
    }
}

/// How a density map is drawn (level, style, colour): the request's fields, for every command
/// that draws maps (render, thumbnails).
struct MapLookOptions: ParsableArguments {
    @Option(help: ArgumentHelp(RenderRequest.help("level"), valueName: "LEVEL")) var level: String?
    @Option(help: ArgumentHelp(RenderRequest.help("map-style"), valueName: "STYLE")) var mapStyle: String?
    @Option(help: ArgumentHelp(RenderRequest.help("map-color"), valueName: "COLOR")) var mapColor: String?

    /// The request with the map's level, style and colour set.
    func applied(to request: RenderRequest) throws(RequestError) -> RenderRequest {
        var r = request
        if let level { try r.set("level", level) }
        if let mapStyle { try r.set("map-style", mapStyle) }
        if let mapColor { try r.set("map-color", mapColor) }
        return r
    }

    func validate() throws {
        do { _ = try applied(to: RenderRequest()) } catch { throw ValidationError(CLIFailure.message(error)) }
    }
}

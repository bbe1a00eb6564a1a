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

    @Option(help: ArgumentHelp("The map's contour level: in standard deviations above its mean (1.5s, 1.5sigma) or absolute (0.02).",
                               valueName: "LEVEL"))
    var level = "1.5s"

    @Option(help: ArgumentHelp("How the map is drawn: surface, mesh (lines, as PyMOL's isomesh) or transparent.", valueName: "STYLE"))
    var mapStyle = "surface"

    @Option(help: ArgumentHelp("The map's colour: a name or #RRGGBB, radial (by distance from its centre, as EMDB's pictures), "
                               + "or zone (each part in the colour of the nearest atom of the model within 5 Å, as ChimeraX's color zone).",
                               valueName: "COLOR"))
    var mapColor: String?

    @Option(help: ArgumentHelp("Draw only the map within --carve-radius of the atoms this selection takes (a ligand's density: resn HEM, ligand).",
                               valueName: "EXPR"))
    var carve: String?

    @Option(help: ArgumentHelp("With --carve, how far from the atoms the map is kept, Å.", valueName: "Å"))
    var carveRadius = 2.0

    @Option(help: ArgumentHelp("Draw the map in a box around the atoms this selection takes, --box-margin beyond them.", valueName: "EXPR"))
    var box: String?

    @Option(help: ArgumentHelp("With --box, how far the box reaches beyond the atoms, Å.", valueName: "Å"))
    var boxMargin = 5.0

    func look() throws -> MapLook {
        var look = MapLook()
        guard let level = MapLevel(self.level) else {
            throw ValidationError("--level \(self.level): give a number (0.02) or a number of standard deviations (1.5s)")
        }
        look.level = level
        guard let style = MapLook.Style(rawValue: mapStyle.lowercased()) else {
            throw ValidationError("--map-style \(mapStyle): give surface, mesh or transparent")
        }
        look.style = style
        switch mapColor?.lowercased() {
        case nil: look.coloring = .single(style == .mesh ? MapLook.meshColor : MapLook.defaultColor)
        case "radial": look.coloring = .radial
        case "zone": look.coloring = .zone(5)
        case let text?:
            guard let c = Color(parsing: text) else { throw ValidationError("--map-color \(text): give a colour name, #RRGGBB, radial or zone") }
            look.coloring = .single(c.rgb)
        }
        return look
    }

    func validate() throws {
        _ = try look()
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

    /// The map's mesh for the picture: the whole stored block, or the part around the model (a
    /// map over its whole cell, around every atom, 3 Å beyond), the box, or the carved region.
    func mesh(mapFile: String, model: Model?, atomColors: [UInt32]) throws -> Mesh {
        let map = try DensityMap.load(path: mapFile)
        let look = try look()
        var part: DensityMap? = map
        var carved: (points: [SIMD3<Float>], radius: Float)? = nil
        func atoms(_ expression: String, _ option: String) throws -> [SIMD3<Float>] {
            guard let model else { return [] }
            let picked = try Selection(parsing: expression).atoms(in: model).map { model.atoms[$0].position }
            guard !picked.isEmpty else { throw RequestError(field: option, "\"\(expression)\" takes no atoms of the model") }
            return picked
        }
        func around(_ points: [SIMD3<Float>], _ margin: Double) throws -> DensityMap? {
            var lo = SIMD3<Double>(repeating: .infinity), hi = -lo
            for p in points { lo = pointwiseMin(lo, SIMD3<Double>(p)); hi = pointwiseMax(hi, SIMD3<Double>(p)) }
            return try map.region(from: lo - margin, to: hi + margin, file: mapFile)
        }
        if let carve {
            let points = try atoms(carve, "carve")
            carved = (points, Float(carveRadius))
            part = try around(points, carveRadius + 1)
        } else if let box {
            part = try around(try atoms(box, "box"), boxMargin)
        } else if let model, !model.atoms.isEmpty, !map.coversCell.contains(false) {
            part = try around(model.atoms.map(\.position), 3)
        }
        guard let part else {
            var empty = Mesh(name: "map")
            empty.opacity = look.style == .transparent ? 0.5 : 1
            return empty
        }
        return look.mesh(part, statistics: map.statistics, model: model, atomColors: atomColors, carve: carved)
    }

    /// The map and the structure of a command's input: a map path as the input takes `--model`
    /// as its structure; a structure as the input takes `--map`.
    func files(input: String) -> (map: String?, structure: String?) {
        DensityMap.isMapPath(input) ? (input, model) : (map, input)
    }
}

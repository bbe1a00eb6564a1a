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

    func validate() throws { _ = try look() }

    /// The map and the structure of a command's input: a map path as the input takes `--model`
    /// as its structure; a structure as the input takes `--map`.
    func files(input: String) -> (map: String?, structure: String?) {
        DensityMap.isMapPath(input) ? (input, model) : (map, input)
    }
}

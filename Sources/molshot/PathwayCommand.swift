import PathwayModel
import ArgumentParser
import Core
import Foundation
import Graphics
import Imaging
import Pathways

struct PathwayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pathway",
        abstract: "Render a pathway map (KGML, Escher, SBGN-ML, GPML, Molshot JSON; plain or gzip) to PNG.",
        discussion: """
            The whole map is fitted to the picture, centered, nothing cropped, or only --region. Labels \
            smaller than 6 pixels are left out rather than smeared, and a label that would cover another \
            is moved a little or left out.
            """
    )

    @Argument(help: "Pathway file.") var input: String
    @Option(name: [.short, .customLong("output")], help: "PNG file to write; - writes to standard output. A name ending in .json gets the map as Molshot pathway JSON instead (every node's place and size, every edge's points), as read or as laid out.")
    var output: String?
    @Flag(help: "Lay the map out anew as a graph (top to bottom, as for a file without positions), leaving out the file's own positions, compartments and free text.")
    var relayout = false
    @Option(help: "Write a z/x/y pyramid of tiles into this folder (DIR/z/x/y.png and DIR/tiles.json) instead of one picture.")
    var tiles: String?
    @Option(help: "Tile side in pixels, 64 to 1024.") var tileSize = 256
    @Option(help: "Levels of the pyramid, 1 to 12; by default enough that the deepest shows about a pixel per map unit.")
    var levels: Int?
    @Option(help: ArgumentHelp(PathwayRequest.help["size"]!)) var size: String?
    @Option(help: ArgumentHelp(PathwayRequest.help["scale"]!)) var scale: Double?
    @Option(help: ArgumentHelp(PathwayRequest.help["region"]!)) var region: String?
    @Option(help: ArgumentHelp(PathwayRequest.help["theme"]!)) var theme = "standard"
    @Option(help: "Background color (name, #RRGGBB, or transparent); the theme's when not given.") var background: String?
    @Option(help: ArgumentHelp(PathwayRequest.help["samples"]!)) var samples = 1
    @Flag(help: ArgumentHelp(PathwayRequest.help["relations"]!)) var relations = false
    @Option(help: "Currency metabolites for the layout of a graph without positions (drawn as a small copy beside each reaction): names separated by commas, or @FILE with one or more a line. Default: ATP, ADP, AMP, NAD(P)(H), FAD, H2O, H+, CO2, Pi, PPi, CoA, O2, NH3/NH4+ (also as BiGG _c ids).")
    var currency: String?
    @Option(help: "Values per reaction (CSV id,value or a JSON object): its edges colored and widened on a scale, with a legend.")
    var reactionData: String?
    @Option(help: "Values per metabolite (CSV id,value or a JSON object): its node filled and sized on a scale, with a legend.")
    var metaboliteData: String?

    func request() throws -> PathwayRequest {
        var r = PathwayRequest()
        r.size = size
        r.scale = scale
        r.region = region
        guard let name = PathwayTheme.Name(rawValue: theme) else {
            throw RequestError(field: "theme", "must be one of \(PathwayTheme.Name.allCases.map(\.rawValue).joined(separator: ", ")) (got \(theme))")
        }
        r.theme = PathwayTheme(name)
        if let background {
            guard let c = Color(parsing: background) else {
                throw RequestError(field: "background", "must be a color name, #RRGGBB or transparent (got \(background))")
            }
            r.theme.background = c
        }
        guard (1...4).contains(samples) else { throw RequestError(field: "samples", "must be a whole number from 1 to 4 (got \(samples))") }
        r.samples = samples
        r.relations = relations
        return r
    }

    func validate() throws {
        guard (output == nil) != (tiles == nil) else { throw ValidationError("Give an output file with -o OUT.png, or --tiles DIR.") }
        guard (64...1024).contains(tileSize) else { throw ValidationError("--tile-size must be a whole number from 64 to 1024 (got \(tileSize)).") }
        if let levels, !(1...12).contains(levels) { throw ValidationError("--levels must be a whole number from 1 to 12 (got \(levels)).") }
        do {
            if let output, output != "-" { try OutputPath.checkFile(output, formats: ["png", "json"]) }
            if let tiles { try OutputPath.checkFolder(tiles, field: "tiles") }
            _ = try request()
        } catch { throw ValidationError(CLIFailure.message(error)) }
    }

    func run() throws {
        try CLIFailure.run {
            let request = try request()
            var layout = PathwayLayout()
            if let currency {
                let text = currency.hasPrefix("@") ? try String(contentsOfFile: String(currency.dropFirst()), encoding: .utf8) : currency
                layout = PathwayLayout(currency: PathwayLayout.currency(from: text))
            }
            let chosenLayout = layout
            // The map and its data are read, and a single picture's triangles and labels made, on
            // another thread while this one starts the graphics device and compiles its shaders,
            // which take about as long.
            let (input, reactionData, metaboliteData, tiles, relayout) = (input, reactionData, metaboliteData, tiles, relayout)
            if let output, output.lowercased().hasSuffix(".json") {
                // The map as JSON: no picture, no graphics device.
                var map = try PathwayFile.load(path: input, layout: chosenLayout, relayout: relayout)
                PathwayCommand.warn(map)
                if request.relations { map = map.showingRelations() }
                try AtomicFile.write([UInt8](try PathwayJSONWriter.data(map, file: input)), to: output)
                return
            }
            let loading = Background { () throws -> (PathwayMap, [DataOverlay], PathwayPicture?) in
                var map = try PathwayFile.load(path: input, layout: chosenLayout, relayout: relayout)
                PathwayCommand.warn(map)
                if request.relations { map = map.showingRelations() }
                trace("pathway: read")
                var overlays: [DataOverlay] = []
                if let reactionData { overlays.append(try DataOverlay.load(path: reactionData, target: .reactions)) }
                if let metaboliteData { overlays.append(try DataOverlay.load(path: metaboliteData, target: .metabolites)) }
                for overlay in overlays {
                    if overlay.matches(in: map) == 0 {
                        FileHandle.standardError.write(Data("molshot: warning: no \(overlay.target.rawValue) of \(input) match an id in \(overlay.file)\n".utf8))
                    }
                    map = overlay.applied(to: map)
                }
                guard tiles == nil else { return (map, overlays, nil) }
                let picture = try PathwayPicture(map, request: request)
                PathwayCommand.noteUnreadable(map, request: request, input: input)
                trace("pathway: triangles and labels made")
                return (map, overlays, picture)
            }
            let renderer = try PathwayRenderer()
            Molshot.keepUntilExit(renderer)
            trace("pathway: renderer ready")
            if tiles == nil { try renderer.warmUp(theme: request.theme) }
            trace("pathway: warmed up")
            let (map, overlays, picture) = try loading.value()
            if let tiles {
                renderer.samples = request.samples
                let pyramid = TilePyramid(map: map, tileSize: tileSize, levels: levels)
                try pyramid.write(map, to: tiles, renderer: renderer, theme: request.theme)
                print("\(pyramid.tileCount) tiles in \(pyramid.levels) levels in \(tiles)")
                return
            }
            guard let output, let picture else { return }
            var image = try picture.draw(renderer)
            trace("pathway: drawn and labelled")
            try renderer.drawLegend(overlays, into: &image, theme: request.theme)
            let png = try picture.png(image)
            if output == "-" {
                FileHandle.standardOutput.write(Data(png))
            } else {
                try AtomicFile.write(png, to: output)
            }
            trace("pathway: PNG written")
        }
    }

    /// Warnings printed for one map; past these, how many more.
    static let warningsShown = 20

    /// What the reader left out of the file, on stderr: the first `warningsShown`, then how many more.
    static func warn(_ map: PathwayMap) {
        for w in map.warnings.prefix(warningsShown) { FileHandle.standardError.write(Data("molshot: warning: \(w)\n".utf8)) }
        if map.warnings.count > warningsShown {
            FileHandle.standardError.write(Data("molshot: warning: and \(map.warnings.count - warningsShown) more left out of the map\n".utf8))
        }
    }

    /// Says on stderr when no node label of the picture can be read (all under the theme's
    /// smallest size, so left out), and what `--size auto` would make instead.
    static func noteUnreadable(_ map: PathwayMap, request: PathwayRequest, input: String) {
        guard request.size?.lowercased() != "auto", request.region == nil, let frame = try? request.frame(for: map),
              PathwayRequest.labelsUnreadable(map, theme: request.theme, scale: frame.view.scale) else { return }
        var auto = request
        auto.size = "auto"
        auto.scale = nil
        let bigger = (try? auto.frame(for: map)).map { " --size auto draws it \($0.width)x\($0.height)." } ?? ""
        FileHandle.standardError.write(Data("molshot: note: at \(frame.width)x\(frame.height) every label of \(input) is under \(Int(request.theme.smallestLabel)) px and left out;\(bigger)\n".utf8))
    }
}

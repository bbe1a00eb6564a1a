import ArgumentParser
import Core
import Foundation
import Graphics
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
    @Option(name: [.short, .customLong("output")], help: "PNG file to write; - writes to standard output.") var output: String
    @Option(help: ArgumentHelp(PathwayRequest.help["size"]!)) var size: String?
    @Option(help: ArgumentHelp(PathwayRequest.help["scale"]!)) var scale: Double?
    @Option(help: ArgumentHelp(PathwayRequest.help["region"]!)) var region: String?
    @Option(help: ArgumentHelp(PathwayRequest.help["theme"]!)) var theme = "standard"
    @Option(help: "Background color (name, #RRGGBB, or transparent); the theme's when not given.") var background: String?
    @Option(help: ArgumentHelp(PathwayRequest.help["samples"]!)) var samples = 3

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
        return r
    }

    func validate() throws {
        do {
            if output != "-" { try OutputPath.checkFile(output) }
            _ = try request()
        } catch { throw ValidationError(CLIFailure.message(error)) }
    }

    func run() throws {
        try CLIFailure.run {
            let request = try request()
            let map = try PathwayFile.load(path: input)
            let (view, width, height) = try request.frame(for: map)
            let renderer = try PathwayRenderer()
            renderer.samples = request.samples
            let image = try renderer.render(map, view: view, width: width, height: height, theme: request.theme)
            let encoder = PNGEncoder.fast
            if output == "-" {
                FileHandle.standardOutput.write(Data(try encoder.encode(image)))
            } else {
                try encoder.write(image, to: output)
            }
        }
    }
}

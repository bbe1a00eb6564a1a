import ArgumentParser

@main
struct Molshot: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "molshot",
        abstract: "Headless 3D molecule renderer.",
        subcommands: [Info.self, Render.self, ThumbnailsCommand.self, ReplayCommand.self, MeasureParse.self, MeasureRender.self]
    )
}

import ArgumentParser
import Core
import Library
import MoleculeView
import Structure

/// The options that choose a picture, declared once for every command that renders; each
/// help text is the request field's own, so it reads the same everywhere. Values stay text
/// here and are parsed by `RenderRequest`, the one parser the service shares. Options that
/// take numbers take negative ones as given (`--rotate -90,0,0`). What differs between the
/// commands (defaults, several modes, one rotation per output) `Use` says, so each command's help
/// speaks of that command only.
struct PictureOptions<Use: PictureUse>: ParsableArguments {
    @Option(help: ArgumentHelp(RenderRequest.help("size") + " " + Use.size))
    var size: String?

    @Option(name: [.customLong("mode"), .customLong("modes")], help: ArgumentHelp(RenderRequest.help("mode") + " " + Use.mode))
    var mode: String?

    @Option(help: ArgumentHelp(RenderRequest.help("show")))
    var show: [String] = []

    @Option(help: ArgumentHelp(RenderRequest.help("view")))
    var view: String?

    @Option(help: ArgumentHelp(RenderRequest.help("focus"), valueName: "selection"))
    var focus: String?

    @Option(parsing: .unconditional, help: ArgumentHelp(RenderRequest.help("clip"), valueName: "near,far"))
    var clip: String?

    @Option(help: ArgumentHelp(RenderRequest.help("slab"), valueName: "width|none"))
    var slab: String?

    @Option(help: ArgumentHelp(RenderRequest.help("highlight"), valueName: "selection"))
    var highlight: String?

    @Option(help: ArgumentHelp(RenderRequest.help("site"), valueName: "selection"))
    var site: String?

    @Option(parsing: .unconditionalSingleValue, help: ArgumentHelp(RenderRequest.help("rotate") + Use.rotate))
    var rotate: [String] = []

    @Option(parsing: .unconditional, help: ArgumentHelp(RenderRequest.help("zoom")))
    var zoom: String?

    @Option(parsing: .unconditional, help: ArgumentHelp(RenderRequest.help("pan")))
    var pan: String?

    @Flag(help: ArgumentHelp(RenderRequest.help("perspective")))
    var perspective = false

    @Option(help: ArgumentHelp(RenderRequest.help("color")))
    var color: String?

    @Option(help: ArgumentHelp(RenderRequest.help("background")))
    var background: String?

    @Flag(help: ArgumentHelp(RenderRequest.help("hydrogens")))
    var hydrogens = false

    @Flag(help: ArgumentHelp(RenderRequest.help("waters")))
    var waters = false

    @Option(parsing: .unconditional, help: ArgumentHelp(RenderRequest.help("antialias")))
    var antialias: String?

    @Flag(help: ArgumentHelp(RenderRequest.help("depth-cue")))
    var depthCue = false

    @Option(help: ArgumentHelp(RenderRequest.help("look")))
    var look: String?

    @Option(parsing: .unconditional, help: ArgumentHelp(RenderRequest.help("outline")))
    var outline: String?

    @Option(parsing: .unconditional, help: ArgumentHelp(RenderRequest.help("occlusion")))
    var occlusion: String?

    @Option(help: ArgumentHelp(RenderRequest.help("occlusion-method")))
    var occlusionMethod: String?

    @Option(help: ArgumentHelp(RenderRequest.help("transparency")))
    var transparency: String?

    @Option(parsing: .unconditional, help: ArgumentHelp(RenderRequest.help("png-level")))
    var pngLevel: String?

    @OptionGroup var input: InputOptions

    /// The fields given, as (name, text), in the request's field order.
    private var given: [(String, String)] {
        var v: [(String, String)] = []
        if let size { v.append(("size", size)) }
        if let mode { v.append(("mode", mode)) }
        v += show.map { ("show", $0) }
        if let view { v.append(("view", view)) }
        if let focus { v.append(("focus", focus)) }
        if let clip { v.append(("clip", clip)) }
        if let slab { v.append(("slab", slab)) }
        if let highlight { v.append(("highlight", highlight)) }
        if let site { v.append(("site", site)) }
        if let r = rotate.first { v.append(("rotate", r)) }
        if let zoom { v.append(("zoom", zoom)) }
        if let pan { v.append(("pan", pan)) }
        if perspective { v.append(("perspective", "true")) }
        if let color { v.append(("color", color)) }
        if let background { v.append(("background", background)) }
        if hydrogens { v.append(("hydrogens", "true")) }
        if waters { v.append(("waters", "true")) }
        if let antialias { v.append(("antialias", antialias)) }
        if let look { v.append(("look", look)) }
        if depthCue { v.append(("depth-cue", "true")) }
        if let outline { v.append(("outline", outline)) }
        if let occlusion { v.append(("occlusion", occlusion)) }
        if let occlusionMethod { v.append(("occlusion-method", occlusionMethod)) }
        if let pngLevel { v.append(("png-level", pngLevel)) }
        if let transparency { v.append(("transparency", transparency)) }
        if let maxBytes = input.maxBytes { v.append(("max-bytes", maxBytes)) }
        if let assembly = input.assembly { v.append(("assembly", assembly)) }
        return v
    }

    /// The request these options make over a command's `defaults`.
    func request(_ defaults: RenderRequest = RenderRequest()) throws(RequestError) -> RenderRequest {
        try RenderRequest(given, defaults: defaults)
    }

    /// Each `--rotate` given, parsed.
    func rotations() throws(RequestError) -> [SIMD3<Float>] {
        var out: [SIMD3<Float>] = []
        for r in rotate { out.append(try ValueText.triple(r, field: "rotate")) }
        return out
    }

    /// Refuses a repeated --rotate, for commands that draw one view.
    func singleRotation() throws {
        guard rotate.count <= 1 else {
            throw ValidationError("--rotate is given \(rotate.count) times; this command takes one view (render takes one per -o).")
        }
    }

    func validate() throws {
        do {
            _ = try request()
            _ = try rotations()
        } catch {
            throw ValidationError(CLIFailure.message(error))
        }
    }
}

/// What a command's picture options say of it alone.
protocol PictureUse {
    /// The default size, as the help says it.
    static var size: String { get }
    /// How many modes it takes, and its default.
    static var mode: String { get }
    /// Said after --rotate's help.
    static var rotate: String { get }
}

enum RenderUse: PictureUse {
    static let size = "Default 512x512."
    static let mode = "Default \(BallAndStick.name)."
    static let rotate = " Repeatable, one per -o."
}

enum ThumbnailsUse: PictureUse {
    static let size = "Default 256."
    static let mode = "Several, comma-separated, make a thumbnail each (default \(Representations.thumbnailModes.map(\.name).joined(separator: ",")))."
    static let rotate = ""
}

enum ReplayUse: PictureUse {
    static let size = "The frames' size (default 512x512)."
    static let mode = "The mode at the start (default \(BallAndStick.name)); a double tap changes it."
    static let rotate = " The view at the start."
}

/// Options about reading input: the size limit, and the molecule library that `lib:ID`,
/// `lib:NAME` and `pdb:ID` inputs come from.
struct InputOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: ArgumentHelp(RenderRequest.help("max-bytes")))
    var maxBytes: String?

    @Option(help: "The molecule library (default: $MOLSHOT_DB, else the XDG data folder's molshot/library.sqlite).")
    var db: String?

    @Option(help: ArgumentHelp(RenderRequest.help("assembly"), valueName: "auto|model|ID"))
    var assembly: String?

    @Option(help: ArgumentHelp(RenderRequest.help("altloc"), valueName: "first|occupancy|all|ID"))
    var altloc: String?

    /// The alternate locations asked for, or the first.
    func altlocChoice() throws(RequestError) -> AltLocChoice {
        try RenderRequest(altloc.map { [("altloc", $0)] } ?? []).altloc
    }

    /// The assembly asked for, or `fallback` where none was given.
    func assemblyChoice(default fallback: AssemblyChoice = .auto) throws(RequestError) -> AssemblyChoice {
        guard let assembly else { return fallback }
        return try RenderRequest([("assembly", assembly)]).assembly
    }

    /// The limit given, or the default.
    func limit() throws(RequestError) -> Int {
        try RenderRequest(maxBytes.map { [("max-bytes", $0)] } ?? []).maxBytes
    }

    var libraryPath: String { db ?? MoleculeLibrary.defaultPath() }

    /// The library for a command that writes (made where there is none: `import`, `fetch`).
    func library(create: Bool = true) throws -> MoleculeLibrary { try MoleculeLibrary(path: libraryPath, create: create) }

    /// The library for a command that only reads: opened read-only, never made.
    func existingLibrary() throws -> MoleculeLibrary { try MoleculeLibrary(path: libraryPath, readOnly: true) }

    /// Where structures named by path, `lib:` or `pdb:` come from.
    func source() throws -> MoleculeSource {
        MoleculeSource(libraryPath: libraryPath, maxBytes: try limit(), archive: PDBArchive.fromEnvironment(), altloc: try altlocChoice())
    }

    func validate() throws {
        do {
            _ = try limit()
            _ = try assemblyChoice()
            _ = try altlocChoice()
        } catch { throw ValidationError(CLIFailure.message(error)) }
    }
}

/// Labels, distances, angles, a colour key and a scale bar: the figure options of the commands
/// that draw them (render, movie), declared once; their help is the request fields' own.
struct AnnotationOptions: ParsableArguments {
    @Option(help: ArgumentHelp(RenderRequest.help("label"), valueName: "selection: format"))
    var label: [String] = []

    @Option(help: ArgumentHelp(RenderRequest.help("interactions"), valueName: "selection"))
    var interactions: String?

    @Option(help: ArgumentHelp(RenderRequest.help("interactions-with"), valueName: "selection"))
    var interactionsWith: String?

    @Option(help: ArgumentHelp(RenderRequest.help("distance"), valueName: "sel1, sel2"))
    var distance: [String] = []

    @Option(help: ArgumentHelp(RenderRequest.help("angle"), valueName: "sel1, sel2, sel3"))
    var angle: [String] = []

    @Option(help: ArgumentHelp(RenderRequest.help("label-size"), valueName: "points"))
    var labelSize: String?

    @Flag(help: ArgumentHelp(RenderRequest.help("legend")))
    var legend = false

    @Flag(help: ArgumentHelp(RenderRequest.help("scale-bar")))
    var scaleBar = false

    /// `request` with these options set.
    func applied(to request: RenderRequest) throws(RequestError) -> RenderRequest {
        var r = request
        for v in label { try r.set("label", v) }
        if let interactions { try r.set("interactions", interactions) }
        if let interactionsWith { try r.set("interactions-with", interactionsWith) }
        for v in distance { try r.set("distance", v) }
        for v in angle { try r.set("angle", v) }
        if let labelSize { try r.set("label-size", labelSize) }
        if legend { try r.set("legend", "true") }
        if scaleBar { try r.set("scale-bar", "true") }
        // A site's parts follow what these options changed (its partners narrowed by --interactions-with).
        try r.refreshSite()
        return r
    }
}

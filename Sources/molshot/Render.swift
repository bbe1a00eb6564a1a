import ArgumentParser
import Foundation
import Graphics
import MoleculeView
import Scene
import Structure

struct Render: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Render a structure to PNG offscreen, in ball-and-stick or spacefill.",
        discussion: """
            The view starts fitted to the structure, centered, nothing cropped. --rotate turns about the \
            screen's x, y and z axes in degrees; --zoom 2 doubles the size; --pan moves the picture by pixels \
            (x right, y down). Several -o give several pictures from one load: with as many --rotate values \
            they are paired in order, otherwise every picture gets the same view.
            """
    )

    @Argument(help: "Structure file (PDB, mmCIF, SDF/MOL, MOL2, XYZ; plain or gzip).")
    var input: String

    @Option(name: [.short, .customLong("output")], help: "PNG file to write (repeatable).")
    var outputs: [String] = []

    @Option(help: "ball-and-stick or spacefill.")
    var mode = "ball-and-stick"

    @Option(help: "WxH or N for a square, up to 8192 per side.")
    var size = "512x512"

    @Option(help: "Degrees about the screen's x, y and z axes: X,Y,Z (repeatable, one per -o).")
    var rotate: [String] = []

    @Option(help: "Shift in pixels: DX,DY (x right, y down).")
    var pan = "0,0"

    @OptionGroup var look: RenderLook

    @Option(help: "PNG compression level 0-9 (1 is fast, 9 small).")
    var pngLevel = 1

    func validate() throws {
        guard !outputs.isEmpty else { throw ValidationError("Give an output file with -o OUT.png.") }
        _ = try RenderOptionParsing.size(size)
        guard Representations.named(mode) != nil else {
            throw ValidationError("--mode must be one of: \(Representations.names.joined(separator: ", ")).")
        }
        for r in rotate { _ = try RenderOptionParsing.triple(r, "--rotate") }
        guard rotate.count <= 1 || rotate.count == outputs.count else {
            throw ValidationError("Give one --rotate for all pictures or one per -o (\(outputs.count)).")
        }
        _ = try RenderOptionParsing.pair(pan, "--pan")
        guard (0...9).contains(pngLevel) else { throw ValidationError("--png-level must be 0 to 9.") }
    }

    func run() throws {
        do { try renderAll() } catch let error as CLIError { throw reportFailure(error.description) }
    }

    private func renderAll() throws {
        let (width, height) = try RenderOptionParsing.size(size)
        var options = StructureFile.Options()
        options.maxBytes = look.maxBytes
        let structure: Structure
        let prepared: PreparedMolecule
        do {
            structure = try StructureFile.load(path: input, options: options)
            prepared = try PreparedMolecule(structure, mode: mode, color: ColorTheme(rawValue: look.color)!,
                                            filter: AtomFilter(hydrogens: look.hydrogens, waters: look.waters),
                                            perception: try BondPerception.standard())
        } catch let error as StructureError {
            throw CLIError(error.description)
        }
        let style = try look.style()
        let encoder = PNGEncoder(level: pngLevel, filter: pngLevel <= 1 ? .up : .adaptive)
        do {
            let renderer = try MoleculeRenderer()
            let scene = renderer.makeScene(prepared.geometry, atomColors: prepared.atomColors)
            let shift = try RenderOptionParsing.pair(pan, "--pan")
            for (i, output) in outputs.enumerated() {
                var camera = prepared.fittedCamera
                if look.perspective { camera.projection = .perspective(fieldOfView: 30) }
                camera.zoom = look.zoom
                camera.pan = shift
                if !rotate.isEmpty {
                    let r = try RenderOptionParsing.triple(rotate[rotate.count == 1 ? 0 : i], "--rotate")
                    camera.rotate(degreesX: r.x, degreesY: r.y, degreesZ: r.z)
                }
                let image = try renderer.render(scene, camera: camera, width: width, height: height, style: style)
                try encoder.write(image, to: output)
            }
        } catch let error as GraphicsError {
            throw CLIError(error.description)
        }
    }
}

/// The options every rendering command shares: what is shown and how it looks.
struct RenderLook: ParsableArguments {
    @Option(help: "Zoom factor; 2 is twice as large.")
    var zoom: Float = 1

    @Option(help: "element, chain, residue or bfactor.")
    var color = "element"

    @Option(help: "white, black, #RRGGBB or transparent.")
    var background = "white"

    @Flag(help: "Show hydrogens.")
    var hydrogens = false

    @Flag(help: "Show waters.")
    var waters = false

    @Option(help: "0 off; 1 edge smoothing (fast, the default); 2 to 4 draws N x N samples a pixel.")
    var antialias = 1

    @Flag(help: "Perspective projection instead of orthographic.")
    var perspective = false

    @Flag(help: "Fade far atoms toward the background.")
    var depthCue = false

    @Option(help: "Refuse files larger than this many bytes once inflated.")
    var maxBytes = FileInput.defaultLimit

    /// The picture's looks these options ask for.
    func style() throws -> RenderStyle {
        var style = RenderStyle()
        style.background = try RenderOptionParsing.background(background)
        style.antialias = antialias
        style.depthCue = depthCue
        return style
    }

    func validate() throws {
        guard ColorTheme(rawValue: color) != nil else {
            throw ValidationError("--color must be one of: \(ColorTheme.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        _ = try RenderOptionParsing.background(background)
        guard zoom > 0, zoom.isFinite else { throw ValidationError("--zoom must be a positive number.") }
        guard (0...4).contains(antialias) else { throw ValidationError("--antialias must be 0 to 4.") }
        guard maxBytes > 0 else { throw ValidationError("--max-bytes must be positive.") }
    }
}

/// Parsing of the render options' small formats, shared by the commands that render.
enum RenderOptionParsing {
    static func size(_ text: String) throws -> (Int, Int) {
        let parts = text.lowercased().split(separator: "x").map { Int($0) }
        let values: [Int?] = parts.count == 1 ? [parts[0], parts[0]] : parts
        guard values.count == 2, let w = values[0], let h = values[1] else {
            throw ValidationError("--size must be WxH or N, like 512x384 or 256 (got \(text)).")
        }
        guard w >= 1, h >= 1 else { throw ValidationError("--size must be at least 1x1 (got \(text)).") }
        guard w <= MoleculeRenderer.maximumSide, h <= MoleculeRenderer.maximumSide else {
            throw ValidationError("--size \(text) is too large: at most \(MoleculeRenderer.maximumSide) pixels per side.")
        }
        return (w, h)
    }

    static func background(_ text: String) throws -> SIMD4<Float> {
        switch text.lowercased() {
        case "white": return SIMD4(1, 1, 1, 1)
        case "black": return SIMD4(0, 0, 0, 1)
        case "transparent", "none": return SIMD4(0, 0, 0, 0)
        default:
            var hex = Substring(text)
            if hex.hasPrefix("#") { hex = hex.dropFirst() }
            guard hex.count == 6, let v = UInt32(hex, radix: 16) else {
                throw ValidationError("--background must be white, black, transparent or #RRGGBB (got \(text)).")
            }
            return SIMD4(Float(v >> 16 & 0xFF) / 255, Float(v >> 8 & 0xFF) / 255, Float(v & 0xFF) / 255, 1)
        }
    }

    static func triple(_ text: String, _ option: String) throws -> SIMD3<Float> {
        let v = text.split(separator: ",").map { Float($0.trimmingCharacters(in: .whitespaces)) }
        guard v.count == 3, let x = v[0], let y = v[1], let z = v[2], x.isFinite, y.isFinite, z.isFinite else {
            throw ValidationError("\(option) must be X,Y,Z in degrees (got \(text)).")
        }
        return SIMD3(x, y, z)
    }

    static func pair(_ text: String, _ option: String) throws -> SIMD2<Float> {
        let v = text.split(separator: ",").map { Float($0.trimmingCharacters(in: .whitespaces)) }
        guard v.count == 2, let x = v[0], let y = v[1], x.isFinite, y.isFinite else {
            throw ValidationError("\(option) must be DX,DY (got \(text)).")
        }
        return SIMD2(x, y)
    }
}

/// An error already phrased for the user: printed as "molshot: error: ..." with exit status 1.
struct CLIError: Error, CustomStringConvertible {
    var description: String
    init(_ message: String) { description = message }
}

/// Prints the way every command reports a failure and gives the exit status for it.
func reportFailure(_ message: String) -> ExitCode {
    FileHandle.standardError.write(Data("molshot: error: \(message)\n".utf8))
    return ExitCode(1)
}

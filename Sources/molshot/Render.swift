import ArgumentParser
import Core
import Density
import Foundation
import Graphics
import MoleculeView
import Structure

struct Render: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render a structure to PNG offscreen: ball-and-stick, spacefill, sticks, lines, cartoon, putty, surface, or several on selections (--show).",
        discussion: """
            The view starts fitted to the structure, centered, nothing cropped. --rotate turns about the \
            screen's x, y and z axes in degrees; --zoom 2 doubles the size; --pan moves the picture by pixels \
            (x right, y down). Several -o give several pictures from one load: with as many --rotate values \
            they are paired in order, otherwise every picture gets the same view.
            """
    )

    @Argument(help: "Structure file (PDB, PQR, mmCIF, SDF/MOL, MOL2, XYZ; plain or gzip), lib:ID or lib:NAME, pdb:ID, or sample:1crn (a sample shipped with molshot); or a density map (CCP4/MRC).")
    var input: String

    @Option(name: [.short, .customLong("output")], help: "PNG file to write (repeatable); - writes to standard output.")
    var outputs: [String] = []

    @Option(help: ArgumentHelp("Write what the figure shows as JSON to this file: the camera (eye, target, up, Å in the file's "
                               + "coordinates), each part drawn with the serial numbers of the atoms it stands on, the interactions with the "
                               + "atoms at each end, the labels set, and a sentence a legend can start from (with several -o, of the first).",
                               valueName: "file.json"))
    var caption: String?

    @OptionGroup var picture: PictureOptions<RenderUse>

    @OptionGroup(title: "Figure options") var figure: AnnotationOptions

    @OptionGroup(title: "Density maps") var maps: MapOptions

    func validate() throws {
        guard !outputs.isEmpty else { throw ValidationError("Give an output file with -o OUT.png.") }
        guard outputs.filter({ $0 == "-" }).count <= 1 else { throw ValidationError("Give -o - (standard output) once at most.") }
        do {
            for output in outputs where output != "-" { try OutputPath.checkFile(output) }
            if let caption { try OutputPath.checkFile(caption, field: "caption", formats: ["json"]) }
        } catch { throw ValidationError(CLIFailure.message(error)) }
        guard picture.rotate.count <= 1 || picture.rotate.count == outputs.count else {
            throw ValidationError("Give one --rotate for all pictures or one per -o (\(outputs.count)).")
        }
        do { _ = try figure.applied(to: try picture.request()).singleMode() } catch { throw ValidationError(CLIFailure.message(error)) }
    }

    func run() throws {
        try CLIFailure.run {
            var request = try maps.applied(to: try figure.applied(to: try picture.request()))
            let rotations = try picture.rotations()
            let prepared = try maps.prepared(input, request: &request, input: picture.input)
            let renderer = try MoleculeRenderer()
            Molshot.keepUntilExit(renderer)
            for (i, output) in outputs.enumerated() {
                var view = request
                if rotations.count > 1 { view.rotate = rotations[i] }
                let picture = MoleculePicture(prepared, request: view)
                try picture.checkCost(source: input)
                let drawn = try picture.draw(renderer, keepScene: true)
                let png: [UInt8]
                if let caption, i == 0 {
                    let (image, labels) = try picture.finishLabelled(drawn)
                    png = try view.pngEncoder.encode(image)
                    try AtomicFile.write(try FigureCaption(picture, labels: labels).json(), to: caption)
                } else {
                    png = try picture.png(drawn)
                }
                if output == "-" {
                    FileHandle.standardOutput.write(Data(png))
                } else {
                    try AtomicFile.write(png, to: output)
                }
            }
        }
    }
}

import ArgumentParser
import Foundation
import Graphics
import MoleculeView
import Scene
import Structure
import Thumbnails

/// Internal, for `bench/run render` (hidden from help): renders thumbnails of many files in one process, as a collection
/// job would, and prints the time of each stage.
struct MeasureRender: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "measure-render",
        abstract: "Render thumbnails of many files and print stage times (for bench/run).",
        shouldDisplay: false
    )

    @Argument var files: [String]
    @Option var size = 256
    @Option var modes = "ball-and-stick,spacefill"
    @Option(help: "Folder for the PNGs; none are written without it.") var output: String?
    @Option var antialias = 1
    @Option(help: "auto, plain or illustrated.") var look = "auto"
    @Flag(help: "Print the draw time of every image.") var perImage = false
    @Option(name: .customLong("set"), help: "NAME=VALUE: any other picture option (repeatable), as --set occlusion-method=atoms.")
    var settings: [String] = []

    func run() throws {
        func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
        var stages: [String: Double] = ["parse": 0, "geometry": 0, "upload": 0, "draw": 0, "readback": 0, "finish": 0, "png": 0]
        ProcessTuning.choosePages(pixels: size * size) // as `thumbnails` does
        let start = now()
        let renderer = try MoleculeRenderer()
        let setup = now() - start
        let perception = try BondPerception.standard()
        var request = RenderRequest()
        try request.set("size", String(size))
        try request.set("mode", modes)
        try request.set("antialias", String(antialias))
        try request.set("look", look)
        for s in settings {
            guard let eq = s.firstIndex(of: "=") else { throw ValidationError("--set takes NAME=VALUE (got \(s))") }
            try request.set(String(s[..<eq]), String(s[s.index(after: eq)...]))
        }
        var images = 0
        let begin = now()
        for file in files {
            var t = now()
            // Read as `molshot thumbnails` reads.
            let structure = try StructureFile.load(path: file, options: ThumbnailJob.structureOptions(request))
            stages["parse"]! += now() - t
            for mode in request.modes {
                t = now()
                let picture = try MoleculePicture(structure, mode: mode, request: request, perception: perception)
                stages["geometry"]! += now() - t
                t = now()
                let drawn: DrawnPicture
                var drawTime: Double
                if let cast = picture.cast() {
                    // Ray-cast on the CPU: all of it is drawing.
                    drawn = cast
                    drawTime = now() - t
                } else {
                    drawn = try picture.draw(renderer)
                    // Uploading is what the call took besides drawing and reading back.
                    stages["upload"]! += now() - t - renderer.lastTimings.draw - renderer.lastTimings.readback
                    drawTime = renderer.lastTimings.draw
                    stages["readback"]! += renderer.lastTimings.readback
                }
                stages["draw"]! += drawTime
                if perImage {
                    print("image\t\(file)\t\(mode)\t\(picture.prepared.geometry.sphereCount)\t\(drawTime)")
                }
                t = now()
                let image = drawn.finished()
                stages["finish"]! += now() - t
                t = now()
                let png = try picture.request.pngEncoder.encode(image)
                if let output {
                    let name = URL(fileURLWithPath: file).lastPathComponent + "." + mode.name + ".png"
                    try Data(png).write(to: URL(fileURLWithPath: output).appendingPathComponent(name))
                }
                stages["png"]! += now() - t
                images += 1
            }
        }
        let total = now() - begin
        print("structures\t\(files.count)")
        print("images\t\(images)")
        print("setup\t\(setup)")
        print("total\t\(total)")
        for (k, v) in stages.sorted(by: { $0.key < $1.key }) { print("stage.\(k)\t\(v)") }
    }
}

import ArgumentParser
import Core
import Foundation
import Structure

/// Internal, for `bench/run parse` (hidden from help): loads each file repeatedly in this process and prints the median
/// time, so that start-up and the bond dictionary do not count against parsing.
struct MeasureParse: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "measure-parse",
        abstract: "Print median load time per file (for bench/run).",
        shouldDisplay: false
    )

    @Argument var files: [String]
    @Option var repeats = 5
    @Flag(help: "Also perceive bonds of the first model.") var bonds = false
    @Flag(help: "Only read and inflate the file.") var inflateOnly = false

    func run() throws {
        let perception = bonds ? try BondPerception.standard() : nil
        for file in files {
            var times: [Double] = []
            var atoms = 0, bytes = 0
            for _ in 0..<max(repeats, 1) {
                let start = DispatchTime.now().uptimeNanoseconds
                if inflateOnly {
                    _ = try FileInput.read(path: file)
                } else {
                    let structure = try StructureFile.load(path: file)
                    if let perception { _ = perception.bonds(of: structure.models[0], embedded: structure.embeddedTemplates) }
                    atoms = structure.models.reduce(0) { $0 + $1.atoms.count }
                }
                times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            }
            bytes = try FileInput.read(path: file).count
            times.sort()
            print("\(file)\t\(bytes)\t\(atoms)\t\(times[times.count / 2])")
        }
        // Peak resident memory of this process (not inherited across exec, unlike ru_maxrss).
        if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
           let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) {
            print("peak-kb\t" + line.split(separator: " ").dropFirst().first.map(String.init)!)
        }
    }
}

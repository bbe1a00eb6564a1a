import ArgumentParser
import Dispatch
import Library
import Structure

/// Internal, for `bench/run library` (hidden from help): the median time to load every given
/// file with its bonds, parsed from the file and from the library (`--db`, where each file was
/// imported), in this process.
struct MeasureLoad: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "measure-load", abstract: "Time loads from files and from a library.",
                                                    shouldDisplay: false)

    @Option var db: String
    @Option var repeats = 5
    @Argument var files: [String]

    func run() throws {
        try CLIFailure.run {
            let perception = try BondPerception.standard()
            let library = try MoleculeLibrary(path: db)
            // The library's entry for each file, by its checksum.
            let ids = try files.map { file -> Int in
                guard case .duplicate(let r) = try library.importFile(file, perception: perception) else {
                    throw CLIError("\(file) was not in the library \(db) before")
                }
                return r.id
            }
            func median(_ body: () throws -> Void) rethrows -> Double {
                var times: [Double] = []
                for _ in 0..<max(1, repeats) {
                    let t = DispatchTime.now().uptimeNanoseconds
                    try body()
                    times.append(Double(DispatchTime.now().uptimeNanoseconds - t) / 1e9)
                }
                return times.sorted()[times.count / 2]
            }
            var atoms = 0
            let fromFiles = try median {
                atoms = 0
                for file in files {
                    let s = try StructureFile.load(path: file)
                    atoms += perception.bonds(of: s.models[0], embedded: s.embeddedTemplates).count
                }
            }
            var stored = 0
            let fromLibrary = try median {
                stored = 0
                for id in ids {
                    let s = try library.load(String(id)).structure
                    stored += perception.bonds(of: s.models[0]).count
                }
            }
            print("structures\t\(files.count)")
            print("bonds\t\(atoms)\t\(stored)")
            print("files\t\(fromFiles)")
            print("library\t\(fromLibrary)")
        }
    }
}

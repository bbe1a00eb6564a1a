// libFuzzer target for every reader, one binary for all: MOLSHOT_FUZZ_TARGET names which reads
// the bytes. Structure formats (pdb mmcif sdf mol2 xyz pqr; gzip inflates first; bcif reads
// BinaryCIF; assembly reads whatever the bytes are and builds every assembly they declare)
// perceive the first model's bonds and find its hetero residues' interactions; pathway formats (pathway: told apart by content; comp and
// celldesigner: the same reader, seeded with SBML comp and CellDesigner files) work out the
// map's extent; catalog reads a combination catalog (JSON) and looks up each of its entries; map
// reads a CCP4/MRC density map (at most 2 million voxels) and contours it at 1 sigma; emdb reads
// an EMDB header (XML or the entry API's JSON) for its recommended contour level.
// Any error thrown is fine; a crash, a leak or a hang is not.
import Foundation

enum Target: String, CaseIterable {
    case pdb, mmcif, sdf, mol2, xyz, pqr, gzip, bcif, assembly, pathway, comp, celldesigner, catalog, map, emdb
}

let target: Target = {
    guard let name = ProcessInfo.processInfo.environment["MOLSHOT_FUZZ_TARGET"], let t = Target(rawValue: name) else {
        fputs("readers: set MOLSHOT_FUZZ_TARGET to one of \(Target.allCases.map(\.rawValue).joined(separator: " "))\n", stderr)
        exit(2)
    }
    return t
}()

let perception = try! BondPerception.standard()

func structure(_ bytes: [UInt8]) throws -> Structure {
    switch target {
    case .pdb: return try StructureFile.parse(bytes, source: "fuzz", format: .pdb)
    case .mmcif, .bcif: return try StructureFile.parse(bytes, source: "fuzz", format: .mmcif)
    case .sdf: return try StructureFile.parse(bytes, source: "fuzz", format: .sdf)
    case .mol2: return try StructureFile.parse(bytes, source: "fuzz", format: .mol2)
    case .xyz: return try StructureFile.parse(bytes, source: "fuzz", format: .xyz)
    case .pqr: return try StructureFile.parse(bytes, source: "fuzz", format: .pqr)
    case .assembly: return try StructureFile.parse(bytes, source: "fuzz")
    default:
        var options = StructureFile.Options()
        options.maxBytes = 4 << 20
        // Read as it inflates (whatever its size) and inflated first: the same structure or the same error.
        let streamed = Result { try StructureFile.decode(bytes, source: "fuzz.pdb.gz", options: options, streaming: .always) }
        let whole = Result { try StructureFile.decode(bytes, source: "fuzz.pdb.gz", options: options, streaming: .never) }
        requireSame(streamed, whole, "read as it inflated")
        return try streamed.get()
    }
}

/// Two ways of reading the same input gave the same atoms and residues, or the same error.
func requireSame(_ one: Result<Structure, Error>, _ other: Result<Structure, Error>, _ way: String) {
    switch (one, other) {
    case (.success(let a), .success(let b)):
        precondition(a.models.map(\.atoms) == b.models.map(\.atoms) && a.models.map(\.residues) == b.models.map(\.residues),
                     "\(way), the structure differs")
    case (.failure(let a), .failure(let b)): precondition("\(a)" == "\(b)", "\(way), the error differs")
    default: preconditionFailure("\(way), one way read the input and the other refused it")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    switch target {
    case .catalog:
        let bytes = Data(UnsafeBufferPointer(start: data, count: size))
        if let catalog = try? CombinationCatalog(data: bytes, source: URL(fileURLWithPath: "/fuzz/catalog.json")) {
            for entry in catalog.entries { _ = catalog.entry(for: entry.parts) }
        }
    case .emdb:
        _ = (try? EMDBHeader.parse(Array(UnsafeBufferPointer(start: data, count: size)), file: "fuzz.xml"))?.recommendedLevel
    case .map:
        if let map = try? DensityMap.parse(Array(UnsafeBufferPointer(start: data, count: size)), file: "fuzz.map",
                                           limits: DensityLimits(maxVoxels: 2_000_000)) {
            _ = (try? Isosurface.make(map, level: MapLevel.sigma(1).value(in: map.statistics), maxTriangles: 2_000_000))?.area
        }
    case .pathway, .comp, .celldesigner:
        if let map = try? PathwayFile.parse(Data(UnsafeBufferPointer(start: data, count: size)), file: "/fuzz/map") { _ = map.bounds }
    case .pdb:
        // The atom lines read ahead on the other cores (whatever the input's size) give what one
        // thread reading every line gives, or the same error.
        let bytes = UnsafeBufferPointer(start: data, count: size)
        let ahead = Result { try PDBReader.read(bytes, source: "fuzz", readAhead: .always) }
        let alone = Result { try PDBReader.read(bytes, source: "fuzz", readAhead: .never) }
        requireSame(ahead, alone, "read ahead")
        fallthrough
    case .mmcif:
        // The first model read alone (as thumbnails read) is the full read's first, wherever the full read succeeds.
        let whole = Array(UnsafeBufferPointer(start: data, count: size))
        if let full = try? structure(whole) {
            guard let first = try? StructureFile.parse(whole, source: "fuzz", format: target == .pdb ? .pdb : .mmcif, firstModelOnly: true) else {
                preconditionFailure("the first model alone was refused where the whole file was read")
            }
            precondition(first.models.count == min(1, full.models.count) && first.models.first?.atoms == full.models.first?.atoms
                         && first.models.first?.residues == full.models.first?.residues, "the first model alone differs from the full read's first")
        }
        fallthrough
    default:
        guard let s = try? structure(Array(UnsafeBufferPointer(start: data, count: size))) else { return 0 }
        if target == .assembly || target == .bcif {
            for a in s.assemblies where a.problem == nil {
                _ = try? AssemblyBuilder.build(a, from: s, source: "fuzz", maxAtoms: 100_000)
            }
        }
        if let model = s.models.first, model.atoms.count < 200_000 {
            let bonds = perception.bonds(of: model, embedded: s.embeddedTemplates)
            // The interactions of its hetero residues (else its first residue) with the rest: what a
            // picture's interactions= finds in an uploaded file.
            var selected = model.atoms.map { model.residues[Int($0.residue)].isHetero }
            if !selected.contains(true), !model.atoms.isEmpty { selected = model.atoms.map { $0.residue == model.atoms[0].residue } }
            _ = try? InteractionFinder().find(in: model, bonds: bonds, selected: selected, dictionary: perception.dictionary)
        }
    }
    return 0
}

// libFuzzer target for one structure reader, chosen at build time by -D FORMAT_<NAME>: the bytes
// are parsed as that format (or, for gzip, decoded as a gzip file), and the first model's bonds
// are perceived. Any error thrown is fine; a crash, a leak or a hang is not.
import Foundation

#if FORMAT_PDB
let format: Structure.Format? = .pdb
#elseif FORMAT_MMCIF
let format: Structure.Format? = .mmcif
#elseif FORMAT_SDF
let format: Structure.Format? = .sdf
#elseif FORMAT_MOL2
let format: Structure.Format? = .mol2
#elseif FORMAT_XYZ
let format: Structure.Format? = .xyz
#elseif FORMAT_PQR
let format: Structure.Format? = .pqr
#else
let format: Structure.Format? = nil  // gzip: the name decides after inflating
#endif

let perception = try! BondPerception.standard()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    do {
        let structure: Structure
        if let format {
            structure = try StructureFile.parse(bytes, source: "fuzz", format: format)
        } else {
            var options = StructureFile.Options()
            options.maxBytes = 4 << 20
            structure = try StructureFile.decode(bytes, source: "fuzz.pdb.gz", options: options)
        }
        if let model = structure.models.first, model.atoms.count < 200_000 {
            _ = perception.bonds(of: model, embedded: structure.embeddedTemplates)
        }
    } catch {}
    return 0
}

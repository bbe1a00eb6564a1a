// libFuzzer target for combination catalogs (JSON).
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    if let catalog = try? CombinationCatalog(data: bytes, source: URL(fileURLWithPath: "/fuzz/catalog.json")) {
        for entry in catalog.entries { _ = catalog.entry(for: entry.parts) }
    }
    return 0
}

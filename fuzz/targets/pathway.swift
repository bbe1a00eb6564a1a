// libFuzzer target for the pathway readers (KGML, Escher, SBGN-ML, GPML, SBML layout, Molshot
// JSON, told apart by content) and the layout of graphs without positions.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    if let map = try? PathwayFile.parse(bytes, file: "/fuzz/map") { _ = map.bounds }
    return 0
}

// libFuzzer target for gesture event files: each line read in order, as `molshot replay` reads them.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    var reader = GestureEventReader(source: "fuzz.jsonl")
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
        do { _ = try reader.read(String(line)) } catch { break }
    }
    return 0
}

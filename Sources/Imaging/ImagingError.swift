import Core

/// A picture that could not be encoded or decoded (libpng's or zlib's failure, a frame of the
/// wrong size for its animation).
public struct ImagingError: Fault, Sendable {
    public var kind: FaultKind { .machine }
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The text of a NUL-terminated C buffer.
func text(of buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

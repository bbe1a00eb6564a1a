import Core

/// A picture that could not be encoded or decoded (libpng's or zlib's failure, a frame of the
/// wrong size for its animation).
public struct ImagingError: Fault, Sendable {
    public var kind: FaultKind { .machine }
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

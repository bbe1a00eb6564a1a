import Core

/// A failure of the graphics layer: no context, a shader that does not compile, a size too large.
public struct GraphicsError: Fault, Sendable {
    public var kind: FaultKind { .machine }
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

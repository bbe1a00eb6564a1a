/// A failure of the graphics layer: no context, a shader that does not compile, a size too large.
public struct GraphicsError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

import Core
import Foundation
import Structure

/// What `molshot serve` serves and its limits; every limit can be set.
public struct ServiceConfiguration: Sendable {
    public var host = "127.0.0.1"
    /// 0 takes any free port (printed when listening).
    public var port = 8080
    /// The molecule library.
    public var database: String
    /// Thumbnails as `molshot thumbnails` wrote them (served by name), if any.
    public var thumbnails: String?
    /// Pathway maps served by file name without extension, if any.
    public var pathways: String?
    /// Largest request body (413 past it).
    public var maxBodyBytes = 64 << 20
    /// Largest picture side (400 past it).
    public var maxSide = 4096
    /// Most atoms in a structure rendered (413 past it).
    public var maxAtoms = 2_000_000
    /// Requests that may wait for the render thread; past it, 503 with Retry-After.
    public var renderQueue = 8
    /// Rendered images kept here, keyed by checksum and settings, if set.
    public var cache: String?
    /// Most bytes the cache holds; the oldest images go first.
    public var cacheBytes = 1 << 30
    /// Bearer tokens for writes (and for private molecules).
    public var tokens = Tokens()
    /// Reads need a token too.
    public var tokenToRead = false

    public init(database: String) { self.database = database }
}

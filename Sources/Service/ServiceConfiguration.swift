import Core
import Foundation
import Structure

/// What `molshot serve` serves and its limits; every limit can be set. The settings' names, keys,
/// ranges and help are `ServiceSettings.all`'s.
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
    /// What a file's inflated limit (8 x `maxBodyBytes`) is called in its errors.
    public static let inflateLimitSetting = "--max-body: an upload may inflate to 8 times it"
    /// Largest picture side (400 past it).
    public var maxSide = 4096
    /// Most atoms in a structure rendered (413 past it).
    public var maxAtoms = 2_000_000
    /// Requests that may wait for each render worker; past it, 503 with Retry-After.
    public var renderQueue = 8
    /// Render processes, each with a GL context of its own (`renderProcess` started as `molshot
    /// serve render-process`), that read and draw every molecule file; this process draws maps.
    public var renderThreads = Cores.active
    /// The `molshot` executable render processes run; without one, this process draws alone.
    public var renderProcess: String?
    /// Address space of each render process, in MiB (`setrlimit` when it starts).
    public var renderProcessMegabytes = 4096
    /// Seconds a request waits for its picture; past it, 503.
    public var renderSeconds = 30.0
    /// Rendered images kept here, keyed by checksum and settings, if set.
    public var cache: String?
    /// Most bytes the cache holds; the oldest images go first.
    public var cacheBytes = 1 << 30
    /// Bearer tokens for writes (and for private molecules).
    public var tokens = Tokens()
    /// Signs and checks browser tickets: a key of this process's own, or a key file's shared by replicas.
    public var tickets = Tickets()
    /// Where a writer publishes read-only snapshots of its library for replicas, if set.
    public var publish: String?
    /// Seconds between looks for changes to publish.
    public var publishSeconds = 60.0
    /// Reads need a token too.
    public var tokenToRead = false
    /// Live sessions open at once; a new one past it is closed at once with the reason.
    public var maxSessions = 16
    /// Seconds a live session may go without a message before it is closed.
    public var sessionIdleSeconds = 300.0

    /// Connections open at once; past it, new ones wait to be accepted.
    public var maxConnections = 1000
    /// Seconds a connection may send nothing between requests before it is closed.
    public var idleSeconds = 60.0
    /// Seconds a connection's first request head may take to arrive whole (408 and closed past it).
    public var headSeconds = 30.0
    /// Seconds a request's body may take to arrive whole (408 past it).
    public var bodySeconds = 60.0

    /// The address clients reach the server at (behind a proxy, say), for the image URLs of
    /// entity answers; its own host and port when nil.
    public var publicURL: String?
    /// Web pages of this origin (or any, `*`) may read the answers: CORS headers, preflights answered.
    public var allowOrigin: String?
    /// Proxies whose X-Forwarded-For names the client a request counts against (`RequestClient`).
    public var trustedProxies: [String] = []

    public init(database: String) { self.database = database }

    /// The settings of a JSON config file over `self` (`ServiceSettings.read`).
    public mutating func read(configFile path: String) throws {
        try ServiceSettings.read(configFile: path, into: &self)
    }

    /// The IP addresses of a comma-separated list, each checked; a `RequestError` naming `setting`
    /// and the first that is not one.
    static func addresses(_ list: String, setting: String) throws -> [String] {
        let items = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        for item in items {
            var v4 = in_addr(), v6 = in6_addr()
            guard inet_pton(AF_INET, item, &v4) == 1 || inet_pton(AF_INET6, item, &v6) == 1 else {
                throw RequestError(field: setting, "\(Excerpt.of(item)) is not an IP address")
            }
        }
        return items
    }
}

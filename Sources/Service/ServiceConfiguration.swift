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
    /// Requests that may wait for each render worker; past it, 503 with Retry-After.
    public var renderQueue = 8
    /// Render workers, each with a GL context of its own: this process's render thread and
    /// `renderThreads - 1` render processes (`renderProcess` started as `molshot serve render-process`).
    public var renderThreads = ProcessInfo.processInfo.activeProcessorCount
    /// The `molshot` executable render processes run; without one, this process draws alone.
    public var renderProcess: String?
    /// Seconds a request waits for its picture; past it, 503.
    public var renderSeconds = 30.0
    /// Rendered images kept here, keyed by checksum and settings, if set.
    public var cache: String?
    /// Most bytes the cache holds; the oldest images go first.
    public var cacheBytes = 1 << 30
    /// Bearer tokens for writes (and for private molecules).
    public var tokens = Tokens()
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

    public init(database: String) { self.database = database }

    /// The settings of a JSON file, over `self`: `{"db", "host", "port", "thumbnails", "pathways",
    /// "cache", "cacheBytes", "tokens", "tokenToRead", "maxBody", "maxSide", "maxAtoms", "renderQueue",
    /// "renderThreads", "renderSeconds", "maxSessions", "sessionIdleSeconds", "maxConnections", "idleSeconds", "headSeconds", "bodySeconds", "publicURL"}`
    /// (any of them). An unknown key or a value of the wrong kind is an error naming the key.
    public mutating func read(configFile path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw InputFileError(file: path, message: FileManager.default.fileExists(atPath: path) ? "cannot read the config file" : "no such config file")
        }
        let json: Any
        do { json = try JSONText.parse([UInt8](data)) } catch {
            throw InputFileError(file: path, message: "not valid JSON (\(error))")
        }
        guard let object = json as? [String: Any] else {
            throw InputFileError(file: path, message: "a config file is a JSON object")
        }
        func fail(_ key: String, _ what: String) -> InputFileError { InputFileError(file: path, message: "\(key): must be \(what)") }
        func text(_ key: String) throws -> String {
            guard let v = object[key] as? String else { throw fail(key, "a string") }
            return v
        }
        func number(_ key: String, _ range: ClosedRange<Int>) throws -> Int {
            guard let n = JSONText.number(object[key]), let v = Int(exactly: n), range.contains(v) else {
                throw fail(key, "a whole number from \(range.lowerBound) to \(range.upperBound)")
            }
            return v
        }
        for key in object.keys.sorted() {
            switch key {
            case "db": database = try text(key)
            case "host": host = try text(key)
            case "port": port = try number(key, 0...65535)
            case "thumbnails": thumbnails = try text(key)
            case "pathways": pathways = try text(key)
            case "cache": cache = try text(key)
            case "cacheBytes": cacheBytes = try number(key, 1...Int.max)
            case "tokens": tokens = try Tokens.load(try text(key))
            case "tokenToRead":
                guard let b = object[key] as? Bool else { throw fail(key, "true or false") }
                tokenToRead = b
            case "maxBody": maxBodyBytes = try number(key, 1...Int.max)
            case "maxSide": maxSide = try number(key, 1...8192)
            case "maxAtoms": maxAtoms = try number(key, 1...Int.max)
            case "renderQueue": renderQueue = try number(key, 1...100_000)
            case "renderThreads": renderThreads = try number(key, 1...1024)
            case "renderSeconds":
                guard let n = JSONText.number(object[key]), n > 0, n.isFinite else { throw fail(key, "a positive number of seconds") }
                renderSeconds = n
            case "maxSessions": maxSessions = try number(key, 1...100_000)
            case "publicURL": publicURL = try text(key)
            case "maxConnections": maxConnections = try number(key, 1...1_000_000)
            case "idleSeconds", "headSeconds", "bodySeconds":
                guard let n = JSONText.number(object[key]), n > 0, n <= 86_400 else { throw fail(key, "a number of seconds from 0 to 86400") }
                if key == "idleSeconds" { idleSeconds = n } else if key == "headSeconds" { headSeconds = n } else { bodySeconds = n }
            case "sessionIdleSeconds":
                guard let n = JSONText.number(object[key]), n > 0, n.isFinite else { throw fail(key, "a positive number of seconds") }
                sessionIdleSeconds = n
            default: throw InputFileError(file: path, message: "\(key): not a setting (db, host, port, thumbnails, pathways, cache, cacheBytes, tokens, tokenToRead, maxBody, maxSide, maxAtoms, renderQueue, renderThreads, renderSeconds, maxSessions, sessionIdleSeconds, maxConnections, idleSeconds, headSeconds, bodySeconds, publicURL)")
            }
        }
    }
}

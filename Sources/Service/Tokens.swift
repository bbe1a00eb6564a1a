import Core
import Foundation

/// The service's bearer tokens: a file of `NAME SHA256-HEX` lines (`#` starts a comment), so
/// only hashes are stored. A request's token is hashed and looked up; its name is who it is.
/// Tokens loaded from a file follow it: the file is looked at four times a second and read
/// again when it changes (size, time or inode, so an edit in place and a rename both count),
/// so a line removed refuses that token, and the tickets made with it, from then on. A file
/// that cannot be read or parsed any more leaves no token valid until it is mended (logged).
public struct Tokens: Sendable {
    /// The names by hash, shared with the watcher where the tokens came from a file.
    private let current: Locked<[String: String]>
    /// Set when the service that holds these tokens stops: the watcher ends.
    private let stopped = Locked(false)

    public init() { current = Locked([:]) }

    init(names: [String: String]) { current = Locked(names) }

    /// Ends the watching of the tokens file (the tokens stay as they are).
    public func stopWatching() { stopped.withLock { $0 = true } }

    /// Names by token hash, as the file says now.
    public var names: [String: String] { current.withLock { $0 } }

    /// Seconds between looks at the tokens file.
    static let watchInterval = 0.25

    public static func load(_ path: String) throws -> Tokens {
        let tokens = Tokens(names: try parse(path))
        // The watcher holds the names weakly: it ends when no configuration holds these tokens.
        FileFollower.follow(path, every: watchInterval, name: "molshot-tokens", holding: tokens.current, until: tokens.stopped) { names in
            do {
                let read = try parse(path)
                names.withLock { $0 = read }
            } catch {
                names.withLock { $0 = [:] }
                LogWriter.shared.write("error: \(error); no token is accepted until the tokens file is mended\n")
            }
        }
        return tokens
    }

    static func parse(_ path: String) throws -> [String: String] {
        var names: [String: String] = [:]
        for (number, line) in try commentedLines(path, what: "tokens file") {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count == 2, fields[1].count == 64, fields[1].allSatisfy(\.isHexDigit) else {
                throw InputFileError(file: path, line: number, message: "expected NAME SHA256-HEX (64 hex digits)")
            }
            names[fields[1].lowercased()] = String(fields[0])
        }
        return names
    }

    /// The name a token belongs to, if it is one of these.
    public func name(of token: String) -> String? {
        let hash = SHA256.hex(Array(token.utf8))
        return current.withLock { $0[hash] }
    }

    /// Whether some token of the file now belongs to `name`.
    public func knows(name: String) -> Bool { current.withLock { $0.values.contains(name) } }

    /// Makes a new token for `name`, adds its hash to the file (written whole, then renamed) and
    /// returns the token, which is shown this once.
    public static func add(_ name: String, to path: String) throws -> String {
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || "._-@".contains($0) }) else {
            throw RequestError(field: "name", "must be letters, digits and ._-@ (got \(name))")
        }
        var text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        var generator = SystemRandomNumberGenerator()
        let token = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
        if !text.isEmpty && !text.hasSuffix("\n") { text += "\n" }
        text += "\(name) \(SHA256.hex(Array(token.utf8)))\n"
        try AtomicFile.write(Array(text.utf8), to: path)
        return token
    }
}

/// The lines of a file of settings a line (the tokens file, the ticket key file), numbered from 1,
/// with `#` comments and the blanks round them taken off and empty lines left out; a file that
/// cannot be read is an error naming it as `what`.
func commentedLines(_ path: String, what: String) throws -> [(number: Int, text: String)] {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
        throw InputFileError(file: path, message: FileManager.default.fileExists(atPath: path) ? "cannot read the \(what)" : "no such \(what)")
    }
    return text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap { i, raw in
        let line = (raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? "").trimmingCharacters(in: .whitespaces)
        return line.isEmpty ? nil : (i + 1, line)
    }
}

import Core
import Foundation

/// The service's bearer tokens: a file of `NAME SHA256-HEX` lines (`#` starts a comment), so
/// only hashes are stored. A request's token is hashed and looked up; its name is who it is.
public struct Tokens: Sendable {
    public private(set) var names: [String: String] = [:]  // hash -> name

    public init() {}

    public static func load(_ path: String) throws -> Tokens {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw InputFileError(file: path, message: FileManager.default.fileExists(atPath: path) ? "cannot read the tokens file" : "no such tokens file")
        }
        var tokens = Tokens()
        for (i, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            if fields.isEmpty { continue }
            guard fields.count == 2, fields[1].count == 64, fields[1].allSatisfy(\.isHexDigit) else {
                throw InputFileError(file: path, line: i + 1, message: "expected NAME SHA256-HEX (64 hex digits)")
            }
            tokens.names[fields[1].lowercased()] = String(fields[0])
        }
        return tokens
    }

    /// The name a token belongs to, if it is one of these.
    public func name(of token: String) -> String? { names[SHA256.hex(Array(token.utf8))] }

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

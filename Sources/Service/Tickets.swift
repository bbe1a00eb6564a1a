import Core
import Foundation
import Hummingbird

/// Short-lived credentials a browser can put where it cannot put a header (an `<img src>`, a
/// WebSocket's address): `POST /v1/tickets` with a bearer token gives one for a path prefix and a few
/// minutes, accepted as `?ticket=` on reading routes under that prefix, as Jupyter and Grafana do.
/// A ticket is `v1.NAME.SCOPE.EXPIRY.MAC` in base64url, the MAC an HMAC-SHA256 under a key drawn at
/// random when the server starts (tickets end with it), or under the key of a file every replica is
/// given (`--ticket-key`: a ticket one replica makes is taken by the others); it is checked for its
/// MAC, its expiry, its scope and that its token's name is still one the server knows.
///
/// The key file: one key a line (at least 32 characters: `openssl rand -hex 32`), `#` comments.
/// The first signs; the others are still accepted, so a key is rotated without failing a ticket
/// in flight: put the new key first, keep the old one below it for an hour (the longest a ticket
/// lives), then remove it. The file is followed as the tokens file is (four looks a second).
public final class Tickets: Sendable {
    /// The signing key first, then keys still accepted.
    private let keys: Locked<[[UInt8]]>
    private let stopped = Locked(false)
    /// The longest a ticket may live.
    public static let maxSeconds = 3600
    /// The shortest key line a key file may hold.
    public static let minimumKeyLength = 32

    public init() {
        var generator = SystemRandomNumberGenerator()
        keys = Locked([(0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }])
    }

    init(keys: [[UInt8]]) { self.keys = Locked(keys) }

    /// Tickets under the keys of `path`, followed as it changes. A file that cannot be read or
    /// holds no key any more leaves the keys it last held (logged), so a bad edit does not end
    /// every ticket.
    public static func load(keyFile path: String) throws -> Tickets {
        let tickets = Tickets(keys: try parse(keyFile: path))
        FileFollower.follow(path, every: Tokens.watchInterval, name: "molshot-ticket-key", holding: tickets.keys, until: tickets.stopped) { keys in
            do {
                let read = try parse(keyFile: path)
                keys.withLock { $0 = read }
            } catch {
                LogWriter.shared.write("error: \(error); tickets keep the keys the file held before\n")
            }
        }
        return tickets
    }

    /// Ends the following of the key file.
    public func stopWatching() { stopped.withLock { $0 = true } }

    static func parse(keyFile path: String) throws -> [[UInt8]] {
        var keys: [[UInt8]] = []
        for (number, line) in try commentedLines(path, what: "ticket key file") {
            guard line.utf8.count >= minimumKeyLength, line.utf8.count <= 4096 else {
                throw InputFileError(file: path, line: number, message: "a key is \(minimumKeyLength) to 4096 characters (openssl rand -hex 32 makes one); this one is \(line.utf8.count)")
            }
            keys.append(Array(line.utf8))
        }
        guard !keys.isEmpty else { throw InputFileError(file: path, message: "holds no key: give one a line (openssl rand -hex 32 makes one)") }
        return keys
    }

    /// A ticket for `name` to read under `scope` until `now + seconds`.
    public func issue(name: String, scope: String, seconds: Int, now: Double = Date().timeIntervalSince1970) -> (ticket: String, expires: Int) {
        let expires = Int(now) + seconds
        let body = [name, scope, String(expires)].map { Tickets.encode(Array($0.utf8)) }.joined(separator: ".")
        return ("v1." + body + "." + Tickets.encode(mac(body)), expires)
    }

    /// The scopes of one molecule's ticket: its addresses by id and by name, and the routes that
    /// take it as `molecule=` (a live view, a replay), by either.
    /// Paths take the name percent-encoded, as a request's path comes; `molecule=` takes it as a
    /// query's value comes, decoded.
    public static func moleculeScopes(id: Int, name: String) -> [String] {
        var paths = [String(id)], values = [String(id)]
        if !name.isEmpty, name != String(id), !name.contains(" "), let escaped = name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) {
            paths.append(escaped)
            values.append(name)
        }
        return paths.map { "/v1/molecules/\($0)" } + values.map { "molecule=\($0)" }
    }

    /// The routes a `molecule=` scope admits: those that read the molecule it names.
    static let moleculeRoutes: Set<String> = ["/v1/sessions", "/v1/replay"]

    /// Whether `scope` (one path prefix, or `molecule=REF`) admits `path` with `molecule` (its query's).
    static func admits(_ scope: String, path: String, molecule: String?) -> Bool {
        if scope.hasPrefix("molecule=") {
            return moleculeRoutes.contains(path) && molecule.map { "molecule=" + $0 == scope } == true
        }
        return path == scope || path.hasPrefix(scope.hasSuffix("/") ? scope : scope + "/") || scope == "/v1/"
    }

    /// The token name a ticket stands for on `path` (with its query's `molecule`), or an error saying why it does not.
    public func name(of ticket: String, path: String, molecule: String? = nil, tokens: Tokens, now: Double = Date().timeIntervalSince1970) throws -> String {
        let parts = ticket.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0] == "v1", ticket.utf8.count <= 2048 else { throw HTTPError(.forbidden, message: "the ticket is not one this server made") }
        let body = parts[1...3].joined(separator: ".")
        guard let given = Tickets.decode(parts[4]), keys.withLock({ $0 }).contains(where: { Tickets.same(given, Tickets.hmac(key: $0, message: Array(body.utf8))) }) else {
            throw HTTPError(.forbidden, message: "the ticket is not one this server made (or the server has restarted or its key has changed since)")
        }
        guard let name = Tickets.decode(parts[1]).map({ String(decoding: $0, as: UTF8.self) }),
              let scope = Tickets.decode(parts[2]).map({ String(decoding: $0, as: UTF8.self) }),
              let expires = Tickets.decode(parts[3]).flatMap({ Int(String(decoding: $0, as: UTF8.self)) }) else {
            throw HTTPError(.forbidden, message: "the ticket is not one this server made")
        }
        guard Double(expires) > now else { throw HTTPError(.forbidden, message: "the ticket has expired: ask for a new one") }
        // Scopes are separated by spaces (a molecule's ticket has several); a path has none.
        guard scope.split(separator: " ").contains(where: { Tickets.admits(String($0), path: path, molecule: molecule) }) else {
            throw HTTPError(.forbidden, message: "the ticket is for \(Excerpt.of(scope, length: 80)), not \(Excerpt.of(path, length: 80))")
        }
        guard tokens.knows(name: name) else { throw HTTPError(.forbidden, message: "the ticket's token is no longer one this server knows") }
        return name
    }

    /// The MAC under the signing key.
    private func mac(_ body: String) -> [UInt8] { Tickets.hmac(key: keys.withLock { $0[0] }, message: Array(body.utf8)) }

    /// HMAC-SHA256 (RFC 2104).
    static func hmac(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var k = key.count > 64 ? SHA256.hash(key) : key
        k += [UInt8](repeating: 0, count: 64 - k.count)
        let inner = SHA256.hash(k.map { $0 ^ 0x36 } + message)
        return SHA256.hash(k.map { $0 ^ 0x5C } + inner)
    }

    /// Compares in time that does not depend on where they differ.
    static func same(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    static func encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ text: Substring) -> [UInt8]? {
        var s = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while s.count % 4 != 0 { s += "=" }
        return Data(base64Encoded: s).map(Array.init)
    }
}

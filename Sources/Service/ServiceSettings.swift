import Core
import Foundation

/// One setting of `molshot serve`, declared once: its option name (`--max-body`), its key in a
/// config file (`maxBody`), what values it takes, its help, where it goes in a
/// `ServiceConfiguration`, and, for a limit, the status a request past it gets. The command's
/// options, the config file's reader, the validation of both, the `--help` text and docs/serve.md's
/// limits table all come from `ServiceSettings.all`, as `RenderRequest.fields` does for pictures.
public struct ServiceSetting: Sendable {
    /// What a setting takes.
    public enum Kind: Sendable {
        case text
        /// A folder that must exist.
        case folder
        case integer(ClosedRange<Int>)
        case seconds(ClosedRange<Double>)
        case flag
    }

    /// A setting's value once read and checked.
    public enum Value: Sendable {
        case text(String)
        case integer(Int)
        case seconds(Double)
        case flag(Bool)
    }

    /// The option's name, without `--`.
    public let name: String
    /// The config file's key.
    public let key: String
    public let kind: Kind
    /// What it is, for `--help`; the default is added from `ServiceConfiguration`.
    public let help: String
    /// The default as said where it depends on the machine ("the cores").
    let defaultNote: String?
    /// For a limit: the status a request past it gets and what it bounds (docs/serve.md's table).
    public let limit: (status: Int, unit: String, bounds: String)?
    let set: @Sendable (inout ServiceConfiguration, Value) throws -> Void
    let get: @Sendable (ServiceConfiguration) -> Value?

    init(_ name: String, key: String? = nil, _ kind: Kind, _ help: String, limit: (status: Int, unit: String, bounds: String)? = nil,
         defaultNote: String? = nil, set: @escaping @Sendable (inout ServiceConfiguration, Value) throws -> Void,
         get: @escaping @Sendable (ServiceConfiguration) -> Value?) {
        self.name = name
        // max-body -> maxBody
        self.key = key ?? name.split(separator: "-").enumerated().map { $0.offset == 0 ? String($0.element) : $0.element.capitalized }.joined()
        self.kind = kind
        self.help = help
        self.limit = limit
        self.defaultNote = defaultNote
        self.set = set
        self.get = get
    }

    /// The default, as `--help` shows it.
    public var defaultText: String? {
        if let defaultNote { return defaultNote }
        guard let v = get(ServiceConfiguration(database: "")) else { return nil }
        switch v {
        case .text(let t): return t.isEmpty ? nil : t
        case .integer(let n): return String(n)
        case .seconds(let s): return Self.number(s)
        case .flag(let b): return b ? "on" : nil
        }
    }

    /// The help line: what it is, its default and the values it takes.
    public var helpText: String {
        var text = help
        var notes: [String] = []
        if let d = defaultText { notes.append("default \(d)") }
        switch kind {
        case .integer(let r): notes.append(r.upperBound == .max ? "at least \(r.lowerBound)" : "\(r.lowerBound) to \(r.upperBound)")
        case .seconds(let r): notes.append("seconds, over \(Self.number(r.lowerBound))" + (r.upperBound.isFinite ? " up to \(Self.number(r.upperBound))" : ""))
        default: break
        }
        if !notes.isEmpty { text += " (" + notes.joined(separator: "; ") + ")" }
        return text + "."
    }

    static func number(_ d: Double) -> String { d == d.rounded() ? String(Int(d)) : String(d) }

    /// What the values must be, for errors.
    var must: String {
        switch kind {
        case .text: "a string"
        case .folder: "a folder's path"
        case .integer(let r): r.upperBound == .max ? "a whole number of at least \(r.lowerBound)" : "a whole number from \(r.lowerBound) to \(r.upperBound)"
        case .seconds(let r): "a number of seconds over \(Self.number(r.lowerBound))" + (r.upperBound.isFinite ? " up to \(Self.number(r.upperBound))" : "")
        case .flag: "true or false"
        }
    }

    /// The value of `text` as given on the command line; a `RequestError` naming the option.
    public func value(text: String) throws -> Value {
        let wrong = RequestError(field: name, "must be \(must) (got \(text))")
        switch kind {
        case .text: return .text(text)
        case .folder: return .text(text)
        case .integer(let r):
            guard let n = Int(text), r.contains(n) else { throw wrong }
            return .integer(n)
        case .seconds(let r):
            guard let d = Double(text), d.isFinite, d > r.lowerBound, d <= r.upperBound else { throw wrong }
            return .seconds(d)
        case .flag:
            guard let b = ["true": true, "false": false][text] else { throw wrong }
            return .flag(b)
        }
    }

    /// The value of a config file's `json` (as `JSONText` parsed it); nil when it is not one this takes.
    func value(json: Any?) -> Value? {
        switch kind {
        case .text, .folder: return (json as? String).map { .text($0) }
        case .integer(let r):
            guard !(json is Bool), let n = JSONText.number(json), let v = Int(exactly: n), r.contains(v) else { return nil }
            return .integer(v)
        case .seconds(let r):
            guard !(json is Bool), let d = JSONText.number(json), d.isFinite, d > r.lowerBound, d <= r.upperBound else { return nil }
            return .seconds(d)
        case .flag: return (json as? Bool).map { .flag($0) }
        }
    }
}

/// The settings of `molshot serve`, in `--help`'s order.
public enum ServiceSettings {
    private static func text(_ path: WritableKeyPath<ServiceConfiguration, String> & Sendable) -> (@Sendable (inout ServiceConfiguration, ServiceSetting.Value) -> Void, @Sendable (ServiceConfiguration) -> ServiceSetting.Value?) {
        return ({ c, v in if case .text(let t) = v { c[keyPath: path] = t } }, { .text($0[keyPath: path]) })
    }
    private static func optionalText(_ path: WritableKeyPath<ServiceConfiguration, String?> & Sendable) -> (@Sendable (inout ServiceConfiguration, ServiceSetting.Value) -> Void, @Sendable (ServiceConfiguration) -> ServiceSetting.Value?) {
        return ({ c, v in if case .text(let t) = v { c[keyPath: path] = t } }, { $0[keyPath: path].map { .text($0) } })
    }
    private static func integer(_ path: WritableKeyPath<ServiceConfiguration, Int> & Sendable) -> (@Sendable (inout ServiceConfiguration, ServiceSetting.Value) -> Void, @Sendable (ServiceConfiguration) -> ServiceSetting.Value?) {
        return ({ c, v in if case .integer(let n) = v { c[keyPath: path] = n } }, { .integer($0[keyPath: path]) })
    }
    private static func seconds(_ path: WritableKeyPath<ServiceConfiguration, Double> & Sendable) -> (@Sendable (inout ServiceConfiguration, ServiceSetting.Value) -> Void, @Sendable (ServiceConfiguration) -> ServiceSetting.Value?) {
        return ({ c, v in if case .seconds(let d) = v { c[keyPath: path] = d } }, { .seconds($0[keyPath: path]) })
    }

    private static func setting(_ name: String, key: String? = nil, _ kind: ServiceSetting.Kind, _ help: String,
                                limit: (status: Int, unit: String, bounds: String)? = nil, defaultNote: String? = nil,
                                _ access: (@Sendable (inout ServiceConfiguration, ServiceSetting.Value) -> Void, @Sendable (ServiceConfiguration) -> ServiceSetting.Value?)) -> ServiceSetting {
        let set = access.0
        return ServiceSetting(name, key: key, kind, help, limit: limit, defaultNote: defaultNote, set: { c, v in set(&c, v) }, get: access.1)
    }

    public static let all: [ServiceSetting] = [
        setting("db", .text, "The molecule library (default: $MOLSHOT_DB, else the XDG data folder)", text(\.database)),
        setting("host", .text, "Address to listen on", text(\.host)),
        setting("port", .integer(0...65535), "Port to listen on; 0 takes a free one (printed)", integer(\.port)),
        setting("thumbnails", .folder, "Folder of thumbnails made by molshot thumbnails, served by name", optionalText(\.thumbnails)),
        setting("pathways", .folder, "Folder of pathway maps, served by file name without extension", optionalText(\.pathways)),
        setting("max-body", .integer(1...Int.max), "Largest request body in bytes (413 past it)",
                limit: (413, "bytes", "a request body (--max-body)"), integer(\.maxBodyBytes)),
        setting("max-side", .integer(1...8192), "Largest picture side in pixels (400 past it)",
                limit: (400, "pixels", "a picture's width and height (--max-side)"), integer(\.maxSide)),
        setting("max-atoms", .integer(1...Int.max), "Most atoms in a structure drawn, imported or opened in a session (413 past it)",
                limit: (413, "atoms", "atoms of every model of a structure drawn, imported or opened (--max-atoms)"), integer(\.maxAtoms)),
        setting("render-seconds", .seconds(0...86_400), "Seconds a picture may take, reading and drawing, before 503",
                limit: (503, "seconds", "a picture's reading, preparing and drawing (--render-seconds)"), seconds(\.renderSeconds)),
        setting("render-queue", .integer(1...100_000), "Requests that may wait for each render worker before 503",
                limit: (503, "requests", "requests waiting for each render worker (--render-queue)"), integer(\.renderQueue)),
        setting("render-threads", .integer(1...1024), "Render processes, each with a GL context, that read and draw every molecule file (this process draws maps)",
                defaultNote: "the cores", integer(\.renderThreads)),
        setting("render-process-mb", .integer(768...1_048_576), "Address space of each render process in MiB; a file whose reading or drawing passes it ends that process, not the server (422)",
                limit: (422, "MiB", "each render process's address space; a file that passes it is answered 422, the reader stopped (--render-process-mb)"),
                integer(\.renderProcessMegabytes)),
        setting("max-sessions", .integer(1...100_000), "Live sessions open at once; a new one past it is closed with the reason",
                limit: (1013, "sessions", "live sessions open at once (--max-sessions)"), integer(\.maxSessions)),
        setting("session-idle-seconds", .seconds(0...86_400), "Seconds a live session may stay silent before it is closed",
                seconds(\.sessionIdleSeconds)),
        setting("max-connections", .integer(1...1_000_000), "Connections open at once; past it, new ones wait",
                limit: (0, "connections", "connections open at once; more wait to be accepted (--max-connections)"), integer(\.maxConnections)),
        setting("idle-seconds", .seconds(0...86_400), "Seconds a connection may send nothing between requests before it is closed",
                seconds(\.idleSeconds)),
        setting("head-seconds", .seconds(0...86_400), "Seconds a connection's first request head may take (408 and closed past it)",
                seconds(\.headSeconds)),
        setting("body-seconds", .seconds(0...86_400), "Seconds a request's body may take to arrive (408 past it)", seconds(\.bodySeconds)),
        setting("cache", .text, "Keep rendered images in this folder, keyed by structure checksum and settings", optionalText(\.cache)),
        setting("cache-bytes", .integer(1...Int.max), "Most bytes the image cache holds; the oldest images go first", integer(\.cacheBytes)),
        ServiceSetting("token-to-read", .flag, "Reads need a token too (anonymous reads are allowed by default)",
                       set: { c, v in if case .flag(let b) = v { c.tokenToRead = b } }, get: { .flag($0.tokenToRead) }),
        ServiceSetting("tokens", .text, "The tokens file (NAME SHA256-HEX a line, from molshot serve token add): serve needs a token from it to import and remove molecules",
                       set: { c, v in if case .text(let path) = v { c.tokens = try Tokens.load(path) } }, get: { _ in nil }),
        setting("publish", .text, "A writer's snapshots for its replicas: a read-only copy of the library written here (beside it, then renamed over it) "
                + "as soon as the library has changed (a burst of writes once, 0.3 s after its last); replicas serve this file and open each new one", optionalText(\.publish)),
        setting("publish-seconds", .seconds(0.5...86_400), "The longest a writer's change waits to be published while writes keep coming (a ceiling; a pause of 0.3 s publishes at once)", seconds(\.publishSeconds)),
        ServiceSetting("ticket-key", .text, "A file of ticket keys shared by replicas (one a line, at least 32 characters, the first signs; followed as it "
                       + "changes): a browser ticket one replica makes is taken by the others. Default: a key of this process's own",
                       set: { c, v in if case .text(let path) = v { c.tickets = try Tickets.load(keyFile: path) } }, get: { _ in nil }),
        setting("public-url", key: "publicURL", .text, "The address clients reach this server at, for image URLs in entity answers (default: http://HOST:PORT)",
                optionalText(\.publicURL)),
        setting("allow-origin", .text, "Let web pages from this origin (https://example.org) or from any (*) read the answers: CORS headers on "
                + "every answer, preflight OPTIONS answered; tokens still go in Authorization", optionalText(\.allowOrigin)),
        ServiceSetting("trusted-proxy", .text, "Addresses of the proxies in front of this server (nginx), comma-separated: a request from one of them "
                       + "counts against the share of the client X-Forwarded-For names; from anywhere else that header is ignored",
                       set: { c, v in if case .text(let list) = v { c.trustedProxies = try ServiceConfiguration.addresses(list, setting: "trusted-proxy") } },
                       get: { c in c.trustedProxies.isEmpty ? nil : .text(c.trustedProxies.joined(separator: ",")) }),
    ]

    public static func named(_ name: String) -> ServiceSetting? { all.first { $0.name == name } }

    /// A `RequestError` naming the first folder setting whose folder is not there (however it was given).
    public static func checkFolders(_ configuration: ServiceConfiguration) throws {
        for setting in all {
            guard case .folder = setting.kind, case .text(let path)? = setting.get(configuration) else { continue }
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue else {
                throw RequestError(field: setting.name, "\(path) is not a folder")
            }
        }
    }

    /// The limits among the settings, with their defaults, for `ServiceLimits.all`.
    static var limits: [ServiceLimit] {
        let defaults = ServiceConfiguration(database: "")
        return all.compactMap { s in
            guard let limit = s.limit, let value = s.get(defaults) else { return nil }
            let number: Int
            switch value {
            case .integer(let n): number = n
            case .seconds(let d): number = Int(d)
            default: return nil
            }
            return ServiceLimit(name: s.name, value: number, unit: limit.unit, status: limit.status, bounds: limit.bounds)
        }
    }

    /// `configuration` with `given` (option name and text, as on the command line) set over it;
    /// a `RequestError` naming the first option with a value it cannot take.
    public static func apply(_ given: [(name: String, text: String)], to configuration: inout ServiceConfiguration) throws {
        for (name, text) in given {
            guard let setting = named(name) else { throw RequestError(field: name, "is not a setting of serve") }
            try setting.set(&configuration, try setting.value(text: text))
        }
    }

    /// The settings of a JSON config file over `configuration`: any of the settings' keys. An
    /// unknown key or a value of the wrong kind is an error naming the file and the key.
    public static func read(configFile path: String, into configuration: inout ServiceConfiguration) throws {
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
        for key in object.keys.sorted() {
            guard let setting = all.first(where: { $0.key == key }) else {
                throw InputFileError(file: path, message: "\(key): not a setting (\(all.map(\.key).joined(separator: ", ")))")
            }
            guard let value = setting.value(json: object[key]) else {
                throw InputFileError(file: path, message: "\(key): must be \(setting.must)")
            }
            do { try setting.set(&configuration, value) } catch {
                throw InputFileError(file: path, message: "\(key): \(error)")
            }
        }
    }
}

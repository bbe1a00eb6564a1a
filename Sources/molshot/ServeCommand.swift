import ArgumentParser
import Core
import Foundation
import Library
import NIOCore
import Service

struct ServeToken: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "token", abstract: "Tokens for the service's writes.",
                                                    subcommands: [Add.self])

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Make a token for NAME: its SHA-256 goes into the tokens file, the token is printed once.")
        @Argument(help: "Who the token is for (letters, digits, ._-@).") var name: String
        // The same option group as serve's: serve parses --tokens before this command is reached,
        // and ArgumentParser hands a group of the same type on to the subcommand.
        @OptionGroup var file: TokensFile

        func run() throws {
            try CLIFailure.run { print(try Tokens.add(name, to: file.tokens ?? "tokens.txt")) }
        }
    }
}

/// A render process of `molshot serve --render-threads N` (started by the service, not by hand).
struct ServeRenderProcess: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "render-process", abstract: "A render process of molshot serve.",
                                                    shouldDisplay: false)
    // Arguments, not options: serve's own --db and --max-atoms would take options of these names.
    @Argument var db: String
    @Argument var maxBytes: Int
    @Argument var maxAtoms: Int
    /// Address space in MiB, set before anything is read (0: none).
    @Argument var megabytes: Int = 0

    func run() throws {
        try CLIFailure.run { try RenderProcessServer.run(database: db, maxBytes: maxBytes, maxAtoms: maxAtoms, megabytes: megabytes) }
    }
}

/// `molshot serve [options]` runs the service (its options in `molshot serve --help`);
/// `molshot serve token add NAME` makes a token.
struct ServeRun: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve images of the molecule library, of uploaded structures and of pathway maps, and thumbnails, over HTTP.",
        discussion: """
            Routes are described in Assets/openapi.yaml (served at /openapi.yaml). --render-threads workers draw \
            (this process and render processes of its own); past --render-queue waiting requests the answer is 503 \
            with Retry-After. One log line per request goes \
            to standard error. SIGTERM or SIGINT finishes the requests in flight and stops.
            """,
        subcommands: [ServeToken.self, ServeRenderProcess.self]
    )

    // Each option is a setting of `ServiceSettings.all` (its name, help, range and config key are
    // there; a test checks that every setting has its option here and no other). Values are
    // read as text and checked by the setting, as a config file's are.
    @Option(help: ServeRun.help("db")) var db: String?
    @Option(help: "Settings from a JSON file (the settings' names in camel case: host, port, maxBody, ...); options given here win.")
    var config: String?
    @Option(help: ServeRun.help("host")) var host: String?
    @Option(help: ServeRun.help("port")) var port: String?
    @Option(help: ServeRun.help("thumbnails")) var thumbnails: String?
    @Option(help: ServeRun.help("pathways")) var pathways: String?
    @Option(help: ServeRun.help("max-body")) var maxBody: String?
    @Option(help: ServeRun.help("max-side")) var maxSide: String?
    @Option(help: ServeRun.help("max-atoms")) var maxAtoms: String?
    @Option(help: ServeRun.help("render-seconds")) var renderSeconds: String?
    @Option(help: ServeRun.help("render-queue")) var renderQueue: String?
    @Option(help: ServeRun.help("render-threads")) var renderThreads: String?
    @Option(name: .customLong("render-process-mb"), help: ServeRun.help("render-process-mb")) var renderProcessMb: String?
    @Option(help: ServeRun.help("max-sessions")) var maxSessions: String?
    @Option(help: ServeRun.help("session-idle-seconds")) var sessionIdleSeconds: String?
    @Option(help: ServeRun.help("max-connections")) var maxConnections: String?
    @Option(help: ServeRun.help("idle-seconds")) var idleSeconds: String?
    @Option(help: ServeRun.help("head-seconds")) var headSeconds: String?
    @Option(help: ServeRun.help("body-seconds")) var bodySeconds: String?
    @Option(help: ServeRun.help("cache")) var cache: String?
    @Option(help: ServeRun.help("cache-bytes")) var cacheBytes: String?
    @Flag(help: ServeRun.help("token-to-read")) var tokenToRead = false
    @OptionGroup var tokensFile: TokensFile
    @Option(help: ServeRun.help("ticket-key")) var ticketKey: String?
    @Option(help: ServeRun.help("publish")) var publish: String?
    @Option(help: ServeRun.help("publish-seconds")) var publishSeconds: String?
    @Option(help: ServeRun.help("public-url")) var publicURL: String?
    @Option(help: ServeRun.help("allow-origin")) var allowOrigin: String?
    @Option(help: ServeRun.help("trusted-proxy")) var trustedProxy: String?

    static func help(_ name: String) -> ArgumentHelp { ArgumentHelp(ServiceSettings.named(name)?.helpText ?? "") }

    /// The options given, by their settings' names.
    var given: [(name: String, text: String)] {
        let all: [(String, String?)] = [
            ("db", db), ("host", host), ("port", port), ("thumbnails", thumbnails), ("pathways", pathways), ("max-body", maxBody),
            ("max-side", maxSide), ("max-atoms", maxAtoms), ("render-seconds", renderSeconds), ("render-queue", renderQueue),
            ("render-threads", renderThreads), ("render-process-mb", renderProcessMb), ("max-sessions", maxSessions), ("session-idle-seconds", sessionIdleSeconds),
            ("max-connections", maxConnections), ("idle-seconds", idleSeconds), ("head-seconds", headSeconds),
            ("body-seconds", bodySeconds), ("cache", cache), ("cache-bytes", cacheBytes), ("token-to-read", tokenToRead ? "true" : nil),
            ("tokens", tokensFile.tokens), ("ticket-key", ticketKey), ("publish", publish), ("publish-seconds", publishSeconds), ("public-url", publicURL), ("allow-origin", allowOrigin),
            ("trusted-proxy", trustedProxy),
        ]
        return all.compactMap { name, text in text.map { (name, $0) } }
    }

    /// Every option's value checked by its setting before anything starts.
    func validate() throws {
        var scratch = ServiceConfiguration(database: "")
        // The files (tokens, ticket keys) are read, and followed, when the configuration is made.
        for (name, text) in given where name != "tokens" && name != "ticket-key" {
            do { try ServiceSettings.apply([(name, text)], to: &scratch) } catch let e as RequestError {
                throw ValidationError("--\(e.field) \(e.message).")
            }
        }
    }

    /// The configuration: defaults, then the config file, then the options given.
    func configuration() throws -> ServiceConfiguration {
        var c = ServiceConfiguration(database: MoleculeLibrary.defaultPath())
        if let config { try c.read(configFile: config) }
        try ServiceSettings.apply(given, to: &c)
        c.renderProcess = ResourceLocator.executable.path
        try ServiceSettings.checkFolders(c)
        return c
    }

    func run() throws {
        try CLIFailure.run {
            let c = try configuration()
            if c.port != 0, let why = ServeRun.cannotListen(host: c.host, port: c.port) { throw CLIError(why) }
            let service = try MolshotService(configuration: c)
            let host = c.host
            let app = service.application { port in
                FileHandle.standardOutput.write(Data("molshot serve: listening on http://\(host):\(port)\n".utf8))
            }
            let outcome = Locked<(any Error)?>(nil)
            let done = DispatchSemaphore(value: 0)
            Task {
                do { try await app.runService() } catch { outcome.withLock { $0 = error } }
                done.signal()
            }
            done.wait()
            LogWriter.flushAll()
            if let e = outcome.withLock({ $0 }) as? IOError, e.errnoCode == EADDRINUSE {
                // Taken between the check and the bind: the same line, and out at once, without
                // taking apart a render thread that may still be making its context.
                _ = CLIFailure.report(CLIError("port \(c.port) is in use; choose another with --port"))
                _exit(1)
            }
            // The render thread ends before the process does (llvmpipe crashes in a process
            // exiting while a context is still being made).
            service.close()
            if let e = outcome.withLock({ $0 }) { throw e }
        }
    }
}


extension ServeRun {
    /// Why the service could not listen at `host:port`, found by binding there as the server
    /// will (address reuse on, so a port in TIME_WAIT is free), before any thread starts.
    static func cannotListen(host: String, port: Int) -> String? {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &found) == 0, let first = found else {
            return "--host \(host) is not an address of this machine"
        }
        defer { freeaddrinfo(found) }
        let fd = socket(first.pointee.ai_family, first.pointee.ai_socktype, first.pointee.ai_protocol)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        guard bind(fd, first.pointee.ai_addr, first.pointee.ai_addrlen) != 0 else { return nil }
        switch errno {
        case EADDRINUSE: return "port \(port) is in use; choose another with --port"
        case EACCES: return "port \(port) needs privileges this user does not have; choose one above 1023 with --port"
        case EADDRNOTAVAIL: return "--host \(host) is not an address of this machine"
        default: return "cannot listen on \(host):\(port): \(String(cString: strerror(errno)))"
        }
    }
}

/// `--tokens FILE`, of serve and of serve token add alike.
struct TokensFile: ParsableArguments {
    @Option(help: ServeRun.help("tokens")) var tokens: String?
}

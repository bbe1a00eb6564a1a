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

    func run() throws {
        try CLIFailure.run { try RenderProcessServer.run(database: db, maxBytes: maxBytes, maxAtoms: maxAtoms) }
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

    @Option(help: "The molecule library (default: $MOLSHOT_DB, else the XDG data folder).") var db: String?
    @Option(help: "Settings from a JSON file (the options' names in camel case: host, port, maxBody, ...); options given here win.")
    var config: String?
    @Option(help: "Address to listen on (127.0.0.1).") var host: String?
    @Option(help: "Port to listen on (8080); 0 takes a free one (printed).") var port: Int?
    @Option(help: "Folder of thumbnails made by molshot thumbnails, served by name.") var thumbnails: String?
    @Option(help: "Folder of pathway maps, served by file name without extension.") var pathways: String?
    @Option(help: "Largest request body in bytes (64 MiB; 413 past it).") var maxBody: Int?
    @Option(help: "Largest picture side in pixels (4096).") var maxSide: Int?
    @Option(help: "Requests that may wait for each render worker before 503 (8).") var renderQueue: Int?
    @Option(help: "Render workers, each with a GL context: this process and N-1 render processes (default: the cores).")
    var renderThreads: Int?
    @Option(help: "Seconds a request waits for its picture before 503 (30).") var renderSeconds: Double?
    @Option(help: "Keep rendered images in this folder, keyed by structure checksum and settings.") var cache: String?
    @Option(help: "Most bytes the image cache holds (1 GiB); the oldest images go first.") var cacheBytes: Int?
    @OptionGroup var tokensFile: TokensFile
    @Flag(help: "Reads need a token too (anonymous reads are allowed by default).") var tokenToRead = false
    @Option(help: "Live sessions open at once (16); a new one past it is closed with the reason.") var maxSessions: Int?
    @Option(help: "Seconds a live session may stay silent before it is closed (300).") var sessionIdleSeconds: Double?
    @Option(help: "Most atoms in a structure drawn, imported or opened in a session (2000000; 413 past it).") var maxAtoms: Int?
    @Option(help: "Connections open at once (1000); past it, new ones wait.") var maxConnections: Int?
    @Option(help: "Seconds a connection may send nothing between requests before it is closed (60).") var idleSeconds: Double?
    @Option(help: "Seconds a connection's first request head may take (30; 408 and closed past it).") var headSeconds: Double?
    @Option(help: "Seconds a request's body may take to arrive (60; 408 past it).") var bodySeconds: Double?
    @Option(help: "The address clients reach this server at, for image URLs in entity answers (default: http://HOST:PORT).")
    var publicURL: String?

    func validate() throws {
        if let port, !(0...65535).contains(port) { throw ValidationError("--port must be from 0 to 65535 (got \(port)).") }
        for (name, value) in [("max-body", maxBody), ("max-side", maxSide), ("render-queue", renderQueue), ("render-threads", renderThreads), ("cache-bytes", cacheBytes),
                              ("max-sessions", maxSessions), ("max-atoms", maxAtoms), ("max-connections", maxConnections)] {
            if let value, value <= 0 { throw ValidationError("--\(name) must be positive (got \(value)).") }
        }
        if let renderSeconds, !(renderSeconds > 0 && renderSeconds.isFinite) { throw ValidationError("--render-seconds must be positive (got \(renderSeconds)).") }
        for (name, value) in [("idle-seconds", idleSeconds), ("head-seconds", headSeconds), ("body-seconds", bodySeconds)] {
            if let value, !(value > 0 && value <= 86_400) { throw ValidationError("--\(name) must be from 0 to 86400 seconds (got \(value)).") }
        }
        if let sessionIdleSeconds, !(sessionIdleSeconds > 0 && sessionIdleSeconds.isFinite) {
            throw ValidationError("--session-idle-seconds must be positive (got \(sessionIdleSeconds)).")
        }
    }

    /// The configuration: defaults, then the config file, then the options given.
    func configuration() throws -> ServiceConfiguration {
        var c = ServiceConfiguration(database: MoleculeLibrary.defaultPath())
        if let config { try c.read(configFile: config) }
        if let db { c.database = db }
        if let host { c.host = host }
        if let port { c.port = port }
        if let thumbnails { c.thumbnails = thumbnails }
        if let pathways { c.pathways = pathways }
        if let maxBody { c.maxBodyBytes = maxBody }
        if let maxSide { c.maxSide = maxSide }
        if let renderQueue { c.renderQueue = renderQueue }
        if let renderThreads { c.renderThreads = renderThreads }
        c.renderProcess = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        if let renderSeconds { c.renderSeconds = renderSeconds }
        if let cache { c.cache = cache }
        if let cacheBytes { c.cacheBytes = cacheBytes }
        if let tokens = tokensFile.tokens { c.tokens = try Tokens.load(tokens) }
        if tokenToRead { c.tokenToRead = true }
        if let maxSessions { c.maxSessions = maxSessions }
        if let sessionIdleSeconds { c.sessionIdleSeconds = sessionIdleSeconds }
        if let maxAtoms { c.maxAtoms = maxAtoms }
        if let maxConnections { c.maxConnections = maxConnections }
        if let idleSeconds { c.idleSeconds = idleSeconds }
        if let headSeconds { c.headSeconds = headSeconds }
        if let bodySeconds { c.bodySeconds = bodySeconds }
        if let publicURL { c.publicURL = publicURL }
        for (name, folder) in [("thumbnails", c.thumbnails), ("pathways", c.pathways)] {
            guard let folder else { continue }
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
                throw RequestError(field: name, "\(folder) is not a folder")
            }
        }
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
    @Option(help: ArgumentHelp("The tokens file (NAME SHA256-HEX a line, from molshot serve token add; tokens.txt where token add is not told): "
                               + "serve needs a token from it to import and remove molecules."))
    var tokens: String?
}

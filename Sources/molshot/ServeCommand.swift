import ArgumentParser
import Core
import Foundation
import Library
import Service

/// `molshot serve` (runs the service) and `molshot serve token add NAME`.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve images of the molecule library, of uploaded structures and of pathway maps, and thumbnails, over HTTP.",
        subcommands: [ServeRun.self, ServeToken.self],
        defaultSubcommand: ServeRun.self
    )
}

struct ServeToken: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "token", abstract: "Tokens for the service's writes.",
                                                    subcommands: [Add.self])

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a token for NAME: its SHA-256 goes into the tokens file, the token is printed once.")
        @Argument(help: "Who the token is for (letters, digits, ._-@).") var name: String
        @Option(help: "The tokens file (NAME SHA256-HEX a line).") var tokens = "tokens.txt"

        func run() throws {
            try CLIFailure.run { print(try Tokens.add(name, to: tokens)) }
        }
    }
}

struct ServeRun: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Serve images of the molecule library, of uploaded structures and of pathway maps, and thumbnails, over HTTP.",
        discussion: """
            Routes are described in Assets/openapi.yaml (served at /openapi.yaml). One thread draws; past \
            --render-queue waiting requests the answer is 503 with Retry-After. One log line per request goes \
            to standard error. SIGTERM or SIGINT finishes the requests in flight and stops.
            """
    )

    @Option(help: "The molecule library (default: $MOLSHOT_DB, else the XDG data folder).") var db: String?
    @Option(help: "Address to listen on.") var host = "127.0.0.1"
    @Option(help: "Port to listen on; 0 takes a free one (printed).") var port = 8080
    @Option(help: "Folder of thumbnails made by molshot thumbnails, served by name.") var thumbnails: String?
    @Option(help: "Folder of pathway maps, served by file name without extension.") var pathways: String?
    @Option(help: "Largest request body in bytes (413 past it).") var maxBody = 64 << 20
    @Option(help: "Largest picture side in pixels.") var maxSide = 4096
    @Option(help: "Requests that may wait for the render thread before 503.") var renderQueue = 8
    @Option(help: "Keep rendered images in this folder, keyed by structure checksum and settings.") var cache: String?
    @Option(help: "Most bytes the image cache holds; the oldest images go first.") var cacheBytes = 1 << 30
    @Option(help: "Bearer tokens (NAME SHA256-HEX a line, from molshot serve token add): needed to import and remove molecules.")
    var tokens: String?
    @Flag(help: "Reads need a token too (anonymous reads are allowed by default).") var tokenToRead = false

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be from 0 to 65535 (got \(port)).") }
        guard maxBody > 0, maxSide > 0, renderQueue > 0 else { throw ValidationError("--max-body, --max-side and --render-queue must be positive.") }
        for (name, folder) in [("thumbnails", thumbnails), ("pathways", pathways)] {
            guard let folder else { continue }
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
                throw ValidationError("--\(name) \(folder) is not a folder.")
            }
        }
    }

    func run() throws {
        try CLIFailure.run {
            var c = ServiceConfiguration(database: db ?? MoleculeLibrary.defaultPath())
            c.host = host
            c.port = port
            c.thumbnails = thumbnails
            c.pathways = pathways
            c.maxBodyBytes = maxBody
            c.maxSide = maxSide
            c.renderQueue = renderQueue
            c.cache = cache
            c.cacheBytes = cacheBytes
            if let tokens { c.tokens = try Tokens.load(tokens) }
            c.tokenToRead = tokenToRead
            let service = try MolshotService(configuration: c)
            let host = c.host
            let app = service.application { port in
                FileHandle.standardOutput.write(Data("molshot serve: listening on http://\(host):\(port)\n".utf8))
            }
            let outcome = Outcome()
            let done = DispatchSemaphore(value: 0)
            Task {
                do { try await app.runService() } catch { outcome.error = error }
                done.signal()
            }
            done.wait()
            LogWriter.flushAll()
            if let e = outcome.error { throw e }
        }
    }
}

private final class Outcome: @unchecked Sendable { var error: Error? }

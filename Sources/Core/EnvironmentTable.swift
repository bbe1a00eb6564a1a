import Foundation

/// Every environment variable Molshot reads, declared once, read by one rule: unset or empty is
/// not given; a switch is off for `0`, `false`, `no` and `off` (any case) and on for any other value.
/// The C loaders read `MOLSHOT_GL`, `MOLSHOT_GL_DEVICE` and `MOLSHOT_OSMESA_LIBRARY` themselves
/// (before Swift runs anything), by the same rule; they are listed here so that docs/environment.md,
/// whose table is this one's, names them.
public enum EnvironmentVariable: String, CaseIterable, Sendable {
    case gl = "MOLSHOT_GL"
    case glDevice = "MOLSHOT_GL_DEVICE"
    case osmesaLibrary = "MOLSHOT_OSMESA_LIBRARY"
    case assets = "MOLSHOT_ASSETS"
    case shaders = "MOLSHOT_SHADERS"
    case database = "MOLSHOT_DB"
    case pdbMirror = "MOLSHOT_PDB_MIRROR"
    case pdbSearch = "MOLSHOT_PDB_SEARCH"
    case pdbEntry = "MOLSHOT_PDB_ENTRY"
    case httpTimeout = "MOLSHOT_HTTP_TIMEOUT"
    case httpTransferTimeout = "MOLSHOT_HTTP_TRANSFER_TIMEOUT"
    case httpAttempts = "MOLSHOT_HTTP_ATTEMPTS"
    case httpBackoff = "MOLSHOT_HTTP_BACKOFF"
    case trace = "MOLSHOT_TRACE"
    case cast = "MOLSHOT_CAST"
    case parentPID = "MOLSHOT_PARENT_PID"
    case rasterizerThreads = "LP_NUM_THREADS"
    case dataHome = "XDG_DATA_HOME"
    case home = "HOME"

    /// What it does, for docs/environment.md.
    public var meaning: String {
        switch self {
        case .gl: "the OpenGL backend, `osmesa`, `egl` or `auto` (the default: OSMesa, else EGL); `--gl` sets it"
        case .glDevice: "the EGL device by its number in `molshot doctor`'s list; `--gl-device` sets it"
        case .osmesaLibrary: "the OSMesa library to open (default libOSMesa.so.8, then .so)"
        case .assets: "Molshot's Assets folder (default: beside the binary, share/molshot/, or the checkout)"
        case .shaders: "Molshot's Shaders folder (found as Assets is)"
        case .database: "the molecule library (default $XDG_DATA_HOME/molshot/library.sqlite, else ~/.local/share/molshot/library.sqlite); `--db` sets it"
        case .pdbMirror: "where `fetch` downloads entries, a URL with {id}, {ID} and {format} (default files.rcsb.org's)"
        case .pdbSearch: "the RCSB search API `fetch --query` asks"
        case .pdbEntry: "the RCSB entry API `fetch` reads an entry's facts from"
        case .httpTimeout: "seconds to connect and to each byte before a download is tried again (default 10)"
        case .httpTransferTimeout: "seconds a download may take in all (default 120)"
        case .httpAttempts: "tries of a download before it fails (default 4)"
        case .httpBackoff: "seconds before the first retry, doubled each time (default 1)"
        case .trace: "a switch: each stage of a command printed to standard error with the monotonic clock (default off)"
        case .cast: "a switch: pictures that qualify are ray-cast on the CPU (default on; off draws every picture with GL)"
        case .parentPID: "set by Molshot for its helper processes: the process whose end ends them"
        case .dataHome: "where the default library's folder is (default ~/.local/share)"
        case .home: "the user's home, for the default library"
        case .rasterizerThreads: "Mesa llvmpipe's threads a context (the server shares the cores among its render processes unless set)"
        }
    }

    /// The value, nil where unset or empty.
    public func text(in environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        guard let value = environment[rawValue], !value.isEmpty else { return nil }
        return value
    }

    /// A switch: `fallback` where not given, off for 0, false, no and off, on for anything else.
    public func isOn(default fallback: Bool, in environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        guard let value = text(in: environment) else { return fallback }
        return !Self.offWords.contains(value.lowercased())
    }

    static let offWords: Set<String> = ["0", "false", "no", "off"]

    /// A number, nil where not given or not a number (a typo is ignored, as the defaults then hold).
    public func number(in environment: [String: String] = ProcessInfo.processInfo.environment) -> Double? {
        text(in: environment).flatMap(Double.init)
    }

    /// The table as Markdown (docs/environment.md holds it; a test compares them).
    public static var markdown: String {
        "| variable | what it does |\n| --- | --- |\n" + allCases.map { "| `\($0.rawValue)` | \($0.meaning) |" }.joined(separator: "\n") + "\n"
    }
}

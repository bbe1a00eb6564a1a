import ArgumentParser
import Core
import Foundation

/// The CLI's one mapping from errors to what the user sees: every failure is printed as
/// `molshot: error: ...` on standard error. A wrong request names its option (`--size ...`),
/// a wrong input its file and line; the machine's failures say what failed. Exit status 1 for
/// the caller's faults (request, input), 2 for the machine's.
enum CLIFailure {
    static func message(_ error: Error) -> String {
        if let e = error as? RequestError { return "--\(e.field) \(e.message)" }
        if let e = error as? CLIError { return e.description }
        if let e = error as? any Fault { return e.description }
        if let e = error as? CocoaError, let path = e.filePath { return "\(path): \(e.localizedDescription)" }
        return "\(error)"
    }

    static func exitCode(_ error: Error) -> ExitCode {
        // A ValidationError thrown while running is about the input, as one thrown while parsing.
        if error is CLIError || error is ValidationError { return ExitCode(1) }
        return error.faultKind == .machine && !(error is CocoaError) ? ExitCode(2) : ExitCode(1)
    }

    /// Prints `error` and gives the exit status to end with.
    static func report(_ error: Error) -> ExitCode {
        FileHandle.standardError.write(Data("molshot: error: \(message(error))\n".utf8))
        return exitCode(error)
    }

    /// Prints a warning: `molshot: warning: ...` on standard error.
    static func warn(_ message: String) {
        FileHandle.standardError.write(Data("molshot: warning: \(message)\n".utf8))
    }

    /// ArgumentParser's message for a usage error (`Error: ...`, then the usage and help lines)
    /// with the one prefix every error has; help and other exits as they are.
    static func usageMessage(_ full: String, code: ExitCode) -> String {
        guard code != .success, full.hasPrefix("Error: ") else { return full }
        var text = "molshot: error: " + full.dropFirst("Error: ".count)
        // ArgumentParser says an option value that starts with "-" is missing; say what it is.
        if text.hasPrefix("molshot: error: Missing value for '"), let option = text.split(separator: "'").dropFirst().first,
           let given = CommandLine.arguments.firstIndex(where: { option.hasPrefix($0 + " ") || option == $0 }),
           given + 1 < CommandLine.arguments.count, CommandLine.arguments[given + 1].hasPrefix("-"),
           Double(CommandLine.arguments[given + 1]) != nil {
            let name = option.split(separator: " ").first.map(String.init) ?? String(option)
            text = "molshot: error: \(name) must not be negative (got \(CommandLine.arguments[given + 1]))"
                + (text.firstIndex(of: "\n").map { String(text[$0...]) } ?? "")
        }
        return text
    }

    /// Runs `body`, turning any failure that is not already an exit into the printed message and status.
    static func run(_ body: () throws -> Void) throws {
        do { try body() } catch let e as ExitCode { throw e } catch let e as ValidationError { throw e } catch {
            throw report(error)
        }
    }
}

/// An error already phrased for the user.
struct CLIError: Error, CustomStringConvertible {
    var description: String
    init(_ message: String) { description = message }
}

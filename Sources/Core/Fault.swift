/// Whose fault a failure is, so that each front end can answer it the same way: the CLI with a
/// message and an exit status, the HTTP service with 400, 422 or 500.
public enum FaultKind: Sendable, Equatable {
    /// The request is wrong: an option or query field has a value it cannot take.
    case request
    /// The input is wrong: a file's content, with the file and, where there is one, the line.
    case input
    /// The machine failed: no graphics context, a missing installation file, a full disk.
    case machine
}

/// An error that says whose fault it is.
public protocol Fault: Error, CustomStringConvertible {
    var kind: FaultKind { get }
}

extension Error {
    /// The kind of a `Fault`; anything else is taken as the machine's.
    public var faultKind: FaultKind { (self as? any Fault)?.kind ?? .machine }
}

/// A request field with a value it cannot take: `field` is the plain name ("size"), which the
/// CLI shows as `--size` and the service as a query parameter.
public struct RequestError: Fault, Sendable, Equatable {
    public var field: String
    public var message: String
    public var kind: FaultKind { .request }

    public init(field: String, _ message: String) {
        self.field = field
        self.message = message
    }

    /// "size must be WxH ... (got 10x)"; front ends put their own spelling of the field first.
    public var description: String { "\(field) \(message)" }
}

/// A file whose content is wrong, other than a structure file (list files, catalogs): the file
/// and, where there is one, the line.
public struct InputFileError: Fault, Sendable, Equatable {
    public var file: String
    public var line: Int?
    public var message: String
    public var kind: FaultKind { .input }

    public init(file: String, line: Int? = nil, message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    public var description: String { line.map { "\(file):\($0): \(message)" } ?? "\(file): \(message)" }
}

/// The machine or the installation failed: nothing the caller can change by asking differently.
public struct MachineError: Fault, Sendable, Equatable {
    public var message: String
    public var kind: FaultKind { .machine }
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

import Core

/// What went wrong reading a structure, and where: the file, the line (1-based) when there is one.
public struct StructureError: Fault, Sendable, Equatable {
    public var kind: FaultKind { .input }
    public var file: String
    public var line: Int?
    public var message: String

    public init(file: String, line: Int?, message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    public var description: String {
        if let line { return "\(file):\(line): \(message)" }
        return "\(file): \(message)"
    }
}

extension StructureError {
    /// The file-level failure (cannot open, too large, bad gzip) as what a reader of structures reports.
    public init(_ failure: InputFileError) { self.init(file: failure.file, line: failure.line, message: failure.message) }

    /// `body`'s value, with a file-level failure reported as a `StructureError`.
    static func reading<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let failure as InputFileError { throw StructureError(failure) }
    }
}

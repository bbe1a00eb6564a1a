import CSQLite
import Core
import Foundation

/// A connection to one SQLite database file through SQLite's C API: statements prepared once
/// and reused, values bound by position, transactions that roll back on any error. WAL mode, so
/// readers never wait for a writer and never see its transaction half done; a busy timeout, so
/// two writers take turns instead of failing with "database is locked". Use a connection on one
/// thread at a time.
public final class SQLiteDatabase {
    private var handle: OpaquePointer?
    public let path: String
    private var statements: [String: Statement] = [:]

    /// How a connection may use its file.
    public enum Access: Sendable {
        /// Reads and writes; makes the file where there is none.
        case readWrite
        /// Reads only (`mode=ro`), still seeing what writers commit meanwhile.
        case readOnly
        /// Reads a file nothing writes (`immutable=1`): not even WAL's shared-memory file is
        /// touched, so a library on a read-only file or folder can be read.
        case immutable
    }

    public convenience init(path: String, readOnly: Bool) throws {
        try self.init(path: path, access: readOnly ? .immutable : .readWrite)
    }

    public init(path: String, access: Access = .readWrite) throws {
        self.path = path
        let status: Int32
        let readOnly = access != .readWrite
        if readOnly {
            var uri = URLComponents()
            uri.scheme = "file"
            uri.path = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
            uri.queryItems = [access == .immutable ? URLQueryItem(name: "immutable", value: "1") : URLQueryItem(name: "mode", value: "ro")]
            status = sqlite3_open_v2(uri.string ?? path, &handle, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nil)
        } else {
            status = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        }
        guard status == SQLITE_OK else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "status \(status)"
            sqlite3_close(handle)
            handle = nil
            throw LibraryError(SQLiteCondition(status), "cannot open the library \(path): \(message)")
        }
        sqlite3_busy_timeout(handle, 30_000)
        sqlite3_extended_result_codes(handle, 1)
        if !readOnly {
            try execute("PRAGMA journal_mode = WAL")
            try execute("PRAGMA synchronous = NORMAL")
        }
        try execute("PRAGMA foreign_keys = ON")
    }

    deinit {
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Runs SQL that returns no rows (several statements allowed).
    public func execute(_ sql: String) throws {
        var error: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &error)
        guard status == SQLITE_OK else {
            let message = error.map { String(cString: $0) } ?? "unknown error"
            sqlite3_free(error)
            throw LibraryError(SQLiteCondition(status), "\(path): \(message)")
        }
    }

    /// A prepared statement for `sql`, made once per connection and reset for each use. A cached
    /// statement still stepping through its rows (the same SQL used inside a loop over it) is not
    /// reset under its caller: that use gets a statement of its own, finalized when it is dropped.
    public func statement(_ sql: String) throws -> Statement {
        if let s = statements[sql] {
            if !s.isStepping {
                s.reset()
                return s
            }
            return try prepare(sql)
        }
        let s = try prepare(sql)
        statements[sql] = s
        return s
    }

    private func prepare(_ sql: String) throws -> Statement {
        var raw: OpaquePointer?
        let status = sqlite3_prepare_v2(handle, sql, -1, &raw, nil)
        guard status == SQLITE_OK, let raw else {
            sqlite3_finalize(raw)
            throw failure(status, sql)
        }
        return Statement(raw, database: self)
    }

    /// Runs `body` in one transaction: committed when it returns, rolled back when it throws.
    /// `IMMEDIATE` takes the write lock at the start, so a writer waits its turn there.
    public func transaction<T>(_ body: () throws -> T) throws -> T { try within("BEGIN IMMEDIATE", body) }

    /// Runs `body` inside one read transaction, so that every statement in it sees the same
    /// snapshot (a count and the page it counts agree while another process writes).
    public func snapshot<T>(_ body: () throws -> T) throws -> T { try within("BEGIN DEFERRED", body) }

    /// Runs `body` inside a savepoint of the current transaction: kept when it returns, undone
    /// (and the transaction left going) when it throws.
    public func savepoint<T>(_ body: () throws -> T) throws -> T {
        try execute("SAVEPOINT one")
        do {
            let result = try body()
            try execute("RELEASE one")
            return result
        } catch {
            try? execute("ROLLBACK TO one; RELEASE one")
            throw error
        }
    }

    /// `body` between `begin` and a commit, rolled back if it throws.
    private func within<T>(_ begin: String, _ body: () throws -> T) throws -> T {
        try execute(begin)
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    public var lastInsertedRow: Int64 { sqlite3_last_insert_rowid(handle) }
    public var changes: Int { Int(sqlite3_changes(handle)) }

    func failure(_ status: Int32, _ sql: String) -> LibraryError {
        LibraryError(SQLiteCondition(status), "\(path): \(String(cString: sqlite3_errmsg(handle))) (\(status)) in \(sql)")
    }

    /// A compiled statement: bind values by position (from 1), step through rows, read columns (from 0).
    public final class Statement {
        private let raw: OpaquePointer
        private unowned let database: SQLiteDatabase

        init(_ raw: OpaquePointer, database: SQLiteDatabase) {
            self.raw = raw
            self.database = database
        }

        deinit { sqlite3_finalize(raw) }

        func reset() {
            sqlite3_reset(raw)
            sqlite3_clear_bindings(raw)
        }

        /// Stepped to a row and not yet reset (a caller is reading its rows).
        var isStepping: Bool { sqlite3_stmt_busy(raw) != 0 }

        private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

        @discardableResult
        public func bind(_ values: SQLValue...) -> Statement { bind(values) }

        @discardableResult
        public func bind(_ values: [SQLValue]) -> Statement {
            for (i, v) in values.enumerated() { bind(v, at: Int32(i + 1)) }
            return self
        }

        public func bind(_ value: SQLValue, at index: Int32) {
            switch value {
            case .null: sqlite3_bind_null(raw, index)
            case .integer(let v): sqlite3_bind_int64(raw, index, v)
            case .real(let v): sqlite3_bind_double(raw, index, v)
            case .text(let v): sqlite3_bind_text(raw, index, v, -1, Statement.transient)
            case .blob(let v):
                _ = v.withUnsafeBytes { sqlite3_bind_blob64(raw, index, $0.baseAddress, sqlite3_uint64($0.count), Statement.transient) }
            }
        }

        /// Advances to the next row; false when there is none, and then the statement is reset, so
        /// that it holds no read snapshot open (a reader would go on seeing the database as it was).
        public func step() throws -> Bool {
            let status = sqlite3_step(raw)
            if status == SQLITE_ROW { return true }
            sqlite3_reset(raw)
            if status == SQLITE_DONE { return false }
            throw database.failure(status, String(cString: sqlite3_sql(raw)))
        }

        /// The first row read by `read`, or nil; the statement is reset after it.
        public func first<T>(_ read: (Statement) throws -> T) throws -> T? {
            defer { sqlite3_reset(raw) }
            return try step() ? try read(self) : nil
        }

        /// Every row read by `read`.
        public func all<T>(_ read: (Statement) throws -> T) throws -> [T] {
            defer { sqlite3_reset(raw) }
            var rows: [T] = []
            while try step() { rows.append(try read(self)) }
            return rows
        }

        /// Runs a statement that returns no rows.
        public func run() throws {
            while try step() {}
        }

        /// Every column of the current row as text (NULL as an empty string).
        public var row: [String] {
            (0..<sqlite3_column_count(raw)).map { text($0) ?? "" }
        }

        public func int(_ column: Int32) -> Int { Int(sqlite3_column_int64(raw, column)) }
        public func double(_ column: Int32) -> Double? {
            sqlite3_column_type(raw, column) == SQLITE_NULL ? nil : sqlite3_column_double(raw, column)
        }
        public func text(_ column: Int32) -> String? {
            guard let p = sqlite3_column_text(raw, column) else { return nil }
            return String(cString: p)
        }
        public func blob(_ column: Int32) -> [UInt8] {
            let count = Int(sqlite3_column_bytes(raw, column))
            guard count > 0, let p = sqlite3_column_blob(raw, column) else { return [] }
            return Array(UnsafeRawBufferPointer(start: p, count: count))
        }
    }
}

/// A value bound to a statement.
public enum SQLValue {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    public static func int(_ v: Int) -> SQLValue { .integer(Int64(v)) }
    public static func optional(_ v: String?) -> SQLValue { v.map { .text($0) } ?? .null }
    public static func optional(_ v: Float?) -> SQLValue { v.map { .real(Double($0)) } ?? .null }
}

/// What an SQLite failure is, from its result code: the ones a caller answers differently.
public enum SQLiteCondition: Sendable, Equatable {
    /// Another connection holds the lock past the busy timeout (SQLITE_BUSY): try again later.
    case busy
    /// A lock inside this connection's own work (SQLITE_LOCKED): try again later.
    case locked
    /// A constraint (unique, foreign key, check) refused the change: the request conflicts.
    case constraint
    /// The file is damaged or is not a database (SQLITE_CORRUPT, SQLITE_NOTADB).
    case corrupt
    /// The disk or the file's size limit is full (SQLITE_FULL).
    case full
    /// The file or its folder cannot be written (SQLITE_READONLY, SQLITE_CANTOPEN, SQLITE_PERM).
    case cannotWrite
    /// Anything else: the machine's fault.
    case other(Int32)

    public init(_ status: Int32) {
        switch status & 0xFF {
        case SQLITE_BUSY: self = .busy
        case SQLITE_LOCKED: self = .locked
        case SQLITE_CONSTRAINT: self = .constraint
        case SQLITE_CORRUPT, SQLITE_NOTADB: self = .corrupt
        case SQLITE_FULL: self = .full
        case SQLITE_READONLY, SQLITE_CANTOPEN, SQLITE_PERM: self = .cannotWrite
        default: self = .other(status)
        }
    }

    /// Whose fault: a conflict is the request's, a damaged file the input's, the rest the machine's.
    public var kind: FaultKind {
        switch self {
        case .constraint: .request
        case .corrupt: .input
        case .busy, .locked, .full, .cannotWrite, .other: .machine
        }
    }
}

/// A failure of the molecule library, with whose fault it is and, for SQLite's own failures,
/// which (`condition`).
public struct LibraryError: Fault, Sendable, Equatable {
    public var kind: FaultKind
    public var message: String
    public var condition: SQLiteCondition?
    public init(_ kind: FaultKind, _ message: String) {
        self.kind = kind
        self.message = message
    }
    init(_ condition: SQLiteCondition, _ message: String) {
        self.kind = condition.kind
        self.message = message
        self.condition = condition
    }
    /// Busy or locked past the busy timeout: the same request may succeed a moment later.
    public var isTransient: Bool { condition == .busy || condition == .locked }
    public var description: String { message }
}

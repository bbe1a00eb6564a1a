import ArgumentParser
import Library

/// Internal, for tests and bench/run (hidden from help): runs SQL on a library file and prints
/// each row tab-separated, so that tests need no sqlite3 shell.
struct MeasureSQL: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "measure-sql", abstract: "Run SQL on a library (for tests).",
                                                    shouldDisplay: false)

    @Option var db: String
    @Argument var statements: [String]

    func run() throws {
        try CLIFailure.run {
            let database = try SQLiteDatabase(path: db)
            for sql in statements {
                for row in try database.statement(sql).all({ $0.row }) { print(row.joined(separator: "\t")) }
            }
        }
    }
}

import Foundation

/// Long commands (thumbnails, library import) on SIGINT or SIGTERM: the item in progress is
/// dropped (every output is written whole or not at all: temporary file and rename, a SQLite
/// transaction), a line says how far the run came and that the same command continues it, and
/// the exit status is 130.
enum Interruption {
    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []
    /// The queue the signals are heard on: its own, not GCD's global one, which nothing else uses.
    private static let signals = DispatchQueue(label: "molshot-signals")

    /// From now on a signal prints `interrupted: DONE of TOTAL WHAT; ...` with `counts()` and exits.
    static func report(_ what: String, counts: @escaping @Sendable () -> (done: Int, total: Int)) {
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: signals)
            source.setEventHandler {
                let (done, total) = counts()
                let line = "\ninterrupted: \(done) of \(total) \(what); run the same command again to continue\n"
                FileHandle.standardError.write(Data(line.utf8))
                fflush(nil)
                _exit(130)
            }
            source.resume()
            sources.append(source)
        }
    }
}

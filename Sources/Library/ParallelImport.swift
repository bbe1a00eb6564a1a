import Core
import Foundation
import Structure

extension MoleculeLibrary {
    /// Imports many files: read, parsed, compressed and encoded on `workers` threads, stored by
    /// this one in input order (ids follow the input), `batch` molecules per transaction, each
    /// molecule in a savepoint (one that fails leaves the rest of its batch). A file whose bytes
    /// are already kept is not parsed again. `each` hears of every file, in input order.
    public func importFiles(_ paths: [String], workers: Int = Cores.active,
                            batch: Int = 64, maxBytes: Int = FileInput.defaultLimit, perception: BondPerception,
                            separate: Bool = false, each: (String, Result<ImportOutcome, Error>) -> Void) throws {
        guard !isReadOnly else { throw LibraryError(.request, "\(path) cannot be written: nothing imported") }
        let known = Set(try database.statement("SELECT sha256 FROM sources WHERE sha256 IS NOT NULL AND scope = ''").all { $0.text(0) ?? "" })
        let state = PipelineState(window: max(1, workers) * 4)
        let group = DispatchGroup()
        for _ in 0..<max(1, workers) {
            // Each reader a loop for the whole import: a thread of its own (BlockingPool's rule).
            group.enter()
            BlockingPool.dedicated(name: "molshot-import") {
                defer { group.leave() }
                while let i = state.take(limit: paths.count) {
                    let item: PipelineState.Item
                    do {
                        let raw = try FileInput.readAll(path: paths[i], limit: maxBytes)
                        let file = ImportedFile(raw, source: paths[i], name: MoleculeLibrary.name(forPath: paths[i]))
                        item = known.contains(file.sha256) ? .known(file)
                            : .ready(try MoleculeLibrary.prepare(file, maxBytes: maxBytes, perception: perception))
                    } catch {
                        item = .failed(error)
                    }
                    state.put(i, item)
                }
            }
        }
        defer { state.cancel(); group.wait() }
        var i = 0
        while i < paths.count {
            let items = state.ready(from: i, max: batch)
            try database.transaction {
                for (k, item) in items.enumerated() {
                    let path = paths[i + k]
                    switch item {
                    case .failed(let error): each(path, .failure(error))
                    case .known(let file):
                        each(path, Result { if let r = try existing(file) { return .duplicate(r) }
                            return try store(MoleculeLibrary.prepare(file, maxBytes: maxBytes, perception: perception), separate: separate) })
                    case .ready(let p): each(path, Result { try store(p, separate: separate) })
                    }
                }
            }
            i += items.count
            state.consumed(i)
        }
    }
}

/// The import pipeline's hand-over: indexes handed to workers no further than `window` ahead of
/// the writer, results waiting for it by index.
private final class PipelineState: Sendable {
    enum Item: Sendable {
        case ready(MoleculeLibrary.PreparedImport)
        case known(MoleculeLibrary.ImportedFile)
        case failed(Error)
    }

    private struct State: Sendable {
        var next = 0, written = 0, cancelled = false
        var results: [Int: Item] = [:]
    }
    private let state = Monitor(State())
    let window: Int

    init(window: Int) { self.window = window }

    func take(limit: Int) -> Int? {
        let window = window
        return state.wait(until: { $0.cancelled || $0.next >= limit || $0.next - $0.written < window }) { s -> Int? in
            guard !s.cancelled, s.next < limit else { return nil }
            s.next += 1
            return s.next - 1
        }
    }

    func put(_ i: Int, _ item: Item) {
        state.update { $0.results[i] = item }
    }

    /// Those ready from `start` on, in order: at least one (waited for), at most `max`.
    func ready(from start: Int, max: Int) -> [Item] {
        state.wait(until: { $0.results[start] != nil }) { s -> [Item] in
            var out: [Item] = []
            while out.count < max, let item = s.results.removeValue(forKey: start + out.count) { out.append(item) }
            return out
        }
    }

    func consumed(_ count: Int) {
        state.update { $0.written = count }
    }

    func cancel() {
        state.update { $0.cancelled = true }
    }
}

import Core
import Foundation
import Hummingbird
import Library

/// The molecule library as the service reads and writes it: its connections (a few readers and
/// one writer, used on the blocking pool) and which molecules are private to whom.
final class MoleculeAccess: Sendable {
    let library: LibraryConnections
    /// Private molecules' checksums and owners, read again when a second old.
    private let privates = Locked<(read: Double, owners: [String: [String?]])>((-1, [:]))

    init(library: LibraryConnections) { self.library = library }

    var isReadOnly: Bool { library.isReadOnly }

    /// What a write to a read-only server is told (403), on whatever port it reached it.
    static let readOnlyMessage = "this server's library is read-only (a replica serving its writer's snapshot, or a file it cannot write): "
        + "send imports and removals to the writer"

    /// Runs `body` with the library's write connection on the blocking pool; 403 where the
    /// library is read-only, the library's errors answered as `HTTPAnswer.badRequest` says.
    /// What is private to whom is read again after it.
    func writing<T: Sendable>(_ body: @escaping @Sendable (MoleculeLibrary) throws -> T) async throws -> T {
        guard !library.isReadOnly else { throw HTTPError(.forbidden, message: MoleculeAccess.readOnlyMessage) }
        defer { privates.withLock { $0.read = -1 } }
        do { return try await library.write(body) } catch { throw HTTPAnswer.badRequest(error) }
    }

    /// Runs `body` with one of the library's read connections on the blocking pool (opening the
    /// database for each request cost more than the request; WAL lets each read see the latest
    /// commit); the library's errors answered as `HTTPAnswer.badRequest` says.
    func reading<T: Sendable>(_ body: @escaping @Sendable (MoleculeLibrary) throws -> T) async throws -> T {
        do { return try await library.read(body) } catch { throw HTTPAnswer.badRequest(error) }
    }

    /// Whether `viewer` may see the molecule with this checksum (or none is in the library).
    func isVisible(checksum: String, to viewer: MoleculeLibrary.Viewer) async throws -> Bool {
        guard let kept = try await privateOwners(checksum: checksum) else { return true }
        if case .reader(let name) = viewer { return name != nil && kept.contains(name) }
        return true
    }

    /// Whether anyone may see the molecule with this checksum (no copy of it is private), where
    /// what is private was read less than a second ago; nil where it must be read again first.
    func isOpenToAll(checksum: String) -> Bool? {
        privatesIfFresh(at: Self.now()).map { $0[checksum] == nil }
    }

    /// What is private to whom, where it was read at most a second before `now`.
    private func privatesIfFresh(at now: Double) -> [String: [String?]]? {
        privates.withLock { now - $0.read > 1 ? nil : $0.owners }
    }

    private static func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    /// The owners of private copies of the molecule with this checksum; nil where none is private.
    /// Read at most once a second for all requests.
    func privateOwners(checksum: String) async throws -> [String?]? {
        let now = Self.now()
        var owners = privatesIfFresh(at: now)
        if owners == nil {
            let read = try await reading { try $0.privateChecksums() }
            privates.withLock { $0 = (now, read) }
            owners = read
        }
        return owners?[checksum]
    }

    /// The molecule `reference` names, if `viewer` may see it; a private molecule of someone else
    /// is "not there", as one that does not exist.
    func record(_ reference: String, viewer: MoleculeLibrary.Viewer) async throws -> MoleculeRecord {
        let notFound = HTTPError(.notFound, message: "no molecule \(reference)")
        return try await reading { lib in
            if let id = Int(reference) {
                guard let r = try lib.record(id: id), try lib.isVisible(r.id, to: viewer) else { throw notFound }
                return r
            }
            // Among the molecules this caller may see only: another's private upload of the same
            // name neither hides a public one nor shows that it is there.
            let visible = try lib.records(named: reference).filter { try lib.isVisible($0.id, to: viewer) }
            guard let first = visible.first else { throw notFound }
            guard visible.count == 1 else {
                throw HTTPError(.badRequest, message: "the name \(reference) matches molecules \(visible.map { String($0.id) }.joined(separator: ", ")): give the id")
            }
            return first
        }
    }
}

import CHTTP
import Core
import Foundation
import Structure

/// The Protein Data Bank over HTTP: full-text search (the RCSB Search API, JSON in and out, with
/// each hit's title, method and resolution from the RCSB Data API) and downloads of gzip'd entry
/// files from a mirror. Server errors (5xx), timeouts and dropped connections are retried with
/// growing pauses, each retry said on stderr, and then reported; a host that does not resolve or
/// refuses the connection is reported at once (another try would not mend it); 404 means the
/// entry does not exist; a download is checked to inflate and parse before anything keeps it.
public struct PDBArchive: Sendable {
    /// A URL with `{id}` (lower case), `{ID}` (upper case) and `{format}` (`cif` or `pdb`).
    public var mirror = "https://files.rcsb.org/download/{ID}.{format}.gz"
    public var searchURL = "https://search.rcsb.org/rcsbsearch/v2/query"
    /// A URL with `{ID}`, answering the RCSB Data API's entry JSON.
    public var entryURL = "https://data.rcsb.org/rest/v1/core/entry/{ID}"
    /// Seconds to connect, to the first byte of the answer and of any stall, before the request is
    /// given up (and tried again).
    public var timeout: Double = 10
    /// Seconds for the whole transfer.
    public var transferTimeout: Double = 120
    public var attempts = 4
    /// Seconds before the second try; doubled before each later one.
    public var backoff: Double = 1
    /// Hears each retry: what failed and the wait before the next try.
    public var retrying: (@Sendable (String) -> Void)? = { line in FileHandle.standardError.write(Data("molshot: \(line)\n".utf8)) }

    public init() {}

    /// What to do without a network, said after every failure to reach the PDB.
    public static let offlineHint = "no network? set MOLSHOT_PDB_MIRROR (and MOLSHOT_PDB_SEARCH, MOLSHOT_PDB_ENTRY) to a mirror "
        + "you can reach, or work offline with files and lib: entries of the library"

    static func seconds(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e9 ? String(Int(value)) : String(format: "%.1f", value)
    }

    /// The defaults, changed by `MOLSHOT_PDB_MIRROR`, `MOLSHOT_PDB_SEARCH`, `MOLSHOT_PDB_ENTRY`,
    /// `MOLSHOT_HTTP_TIMEOUT`, `MOLSHOT_HTTP_TRANSFER_TIMEOUT`, `MOLSHOT_HTTP_ATTEMPTS` and `MOLSHOT_HTTP_BACKOFF`.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> PDBArchive {
        var a = PDBArchive()
        if let v = EnvironmentVariable.pdbMirror.text(in: environment) { a.mirror = v }
        if let v = EnvironmentVariable.pdbSearch.text(in: environment) { a.searchURL = v }
        if let v = EnvironmentVariable.pdbEntry.text(in: environment) { a.entryURL = v }
        if let v = EnvironmentVariable.httpTimeout.number(in: environment), v > 0 { a.timeout = v }
        if let v = EnvironmentVariable.httpTransferTimeout.number(in: environment), v > 0 { a.transferTimeout = v }
        if let v = EnvironmentVariable.httpAttempts.text(in: environment).flatMap({ Int($0) }), v >= 1 { a.attempts = v }
        if let v = EnvironmentVariable.httpBackoff.number(in: environment), v >= 0 { a.backoff = v }
        return a
    }

    /// A PDB id: four characters (1CRN) or the extended form (pdb_00001crn).
    public static func checkID(_ id: String) throws -> String {
        guard (4...12).contains(id.count), id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else {
            throw LibraryError(.request, "\(id) is not a PDB id (four letters and digits, like 1CRN)")
        }
        return id
    }

    // MARK: Search

    public struct Hit: Codable, Sendable, Equatable {
        public var id: String
        public var title: String?
        public var method: String?
        public var resolution: Double?
        /// Why the entry's details are missing, where they could not be fetched.
        public var detailsMissing: String?
    }

    /// Entries matching `text` anywhere (the RCSB full-text search), best first, at most `limit`.
    /// Hits whose details cannot be fetched are listed by id, `detailsMissing` saying why (after
    /// the first such failure the rest are not asked).
    public func search(_ text: String, limit: Int) throws -> (total: Int, hits: [Hit]) {
        let text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw LibraryError(.request, "give words to search for (the search text is empty)") }
        let query: [String: Any] = [
            "query": ["type": "terminal", "service": "full_text", "parameters": ["value": text]],
            "return_type": "entry",
            "request_options": ["paginate": ["start": 0, "rows": max(1, limit)]],
        ]
        let body = try JSONSerialization.data(withJSONObject: query)
        let (status, data) = try request(searchURL, what: "search", body: body)
        if status == 204 { return (0, []) }
        guard status == 200 else { throw LibraryError(.machine, "the PDB search answered HTTP \(status)") }
        guard let json = (try? JSONText.parse([UInt8](data))) as? [String: Any] else {
            throw LibraryError(.machine, "the PDB search answered something that is not JSON")
        }
        let total = JSONText.number(json["total_count"]).flatMap { Int(exactly: $0) } ?? 0
        let ids = (json["result_set"] as? [[String: Any]] ?? []).compactMap { $0["identifier"] as? String }
        var missing: String?
        let hits = ids.prefix(limit).map { id -> Hit in
            if let missing { return Hit(id: id, detailsMissing: missing) }
            do { return try describe(id) } catch {
                missing = "\(error)"
                return Hit(id: id, detailsMissing: missing)
            }
        }
        return (total, hits)
    }

    /// Title, method and resolution of an entry (the RCSB Data API); only the id where it has none.
    func describe(_ id: String) throws -> Hit {
        let (status, data) = try request(fill(entryURL, id: id, format: ""), what: "entry \(id)")
        guard status == 200, let json = (try? JSONText.parse([UInt8](data))) as? [String: Any] else {
            return Hit(id: id)
        }
        let title = (json["struct"] as? [String: Any])?["title"] as? String
        let method = (json["exptl"] as? [[String: Any]])?.first?["method"] as? String
        let resolution = JSONText.number(((json["rcsb_entry_info"] as? [String: Any])?["resolution_combined"] as? [Any])?.first)
        return Hit(id: id, title: title, method: method, resolution: resolution)
    }

    // MARK: Download

    /// The gzip'd file of entry `id`, checked to inflate and parse.
    public func download(_ id: String, format: String) throws -> [UInt8] {
        let id = try PDBArchive.checkID(id)
        guard format == "cif" || format == "pdb" else { throw LibraryError(.request, "--format must be cif or pdb (got \(format))") }
        let url = fill(mirror, id: id, format: format)
        let (status, data) = try request(url, what: "\(id.uppercased())")
        if status == 404 || status == 410 { throw LibraryError(.request, "the PDB has no entry \(id.uppercased()) (\(url) answered \(status))") }
        guard status == 200 else { throw LibraryError(.machine, "downloading \(id.uppercased()) failed: \(url) answered HTTP \(status)") }
        let bytes = [UInt8](data)
        do {
            _ = try StructureFile.decode(bytes, source: "\(id.uppercased()).\(format).gz")
        } catch {
            throw LibraryError(.machine, "the download of \(id.uppercased()) from \(url) is damaged: \(error)")
        }
        return bytes
    }

    /// Downloads entry `id` and imports it; nothing is downloaded when the library holds a copy
    /// from the same address, and an identical file already there (same checksum) is not added.
    public func fetch(_ id: String, format: String = "cif", into library: MoleculeLibrary, perception: BondPerception,
                      maxBytes: Int = FileInput.defaultLimit) throws -> (record: MoleculeRecord, added: Bool) {
        let source = fill(mirror, id: id, format: format)
        if let kept = try library.record(source: source) { return (kept, false) }
        let bytes = try download(id, format: format)
        switch try library.importBytes(bytes, source: source, name: id.uppercased(), maxBytes: maxBytes,
                                       perception: perception) {
        case .added(let r): return (r, true)
        case .duplicate(let r), .anotherSource(let r): return (r, false)
        }
    }

    func fill(_ pattern: String, id: String, format: String) -> String {
        pattern.replacingOccurrences(of: "{id}", with: id.lowercased()).replacingOccurrences(of: "{ID}", with: id.uppercased())
            .replacingOccurrences(of: "{format}", with: format)
    }

    // MARK: HTTP

    /// One request, tried again after 5xx answers, timeouts and dropped connections; not after a
    /// host that does not resolve or a refused connection.
    func request(_ url: String, what: String, body: Data? = nil) throws -> (status: Int, data: Data) {
        guard let u = URL(string: url), u.scheme == "http" || u.scheme == "https" else {
            throw LibraryError(.request, "\(url) is not an http or https URL")
        }
        let tries = max(1, attempts)
        var last = ""
        for attempt in 1...tries {
            switch PDBArchive.send(url, body: body, timeout: timeout, transferTimeout: transferTimeout) {
            case .success(let (status, data)) where status < 500:
                return (status, data)
            case .success(let (status, _)):
                last = "HTTP \(status)"
            case .failure(let failure):
                last = failure.kind == 1 ? "no answer within \(Self.seconds(timeout)) s" : failure.message
                if failure.kind == 2 {
                    throw LibraryError(.machine, "\(what): could not reach \(url): \(last); \(Self.offlineHint)")
                }
            }
            guard attempt < tries else { break }
            let wait = backoff * Double(1 << (attempt - 1))
            retrying?("\(what): \(url): \(last); trying again in \(Self.seconds(wait)) s (attempt \(attempt + 1) of \(tries))")
            Thread.sleep(forTimeInterval: wait)
        }
        throw LibraryError(.machine, "\(what): \(url) failed \(tries) times, last: \(last); \(Self.offlineHint)")
    }

    struct SendFailure: Error {
        let message: String
        /// As `molshot_http_request` says: 1 a time limit, 0 worth another try, 2 not.
        let kind: Int32
    }

    /// One HTTP exchange through libcurl (`Sources/CHTTP`, opened only when a command goes to the
    /// network): redirects followed, a stall or an unanswered connection cut off after `timeout`
    /// seconds, the whole transfer after `transferTimeout`.
    static func send(_ url: String, body: Data?, timeout: Double, transferTimeout: Double) -> Result<(Int, Data), SendFailure> {
        var status = 0
        var out: UnsafeMutablePointer<UInt8>? = nil
        var size = 0
        var kind: Int32 = 0
        var message = [CChar](repeating: 0, count: 512)
        let agent = "molshot/\(MolshotVersion.current)"
        let code: Int32 = (body.map { [UInt8]($0) }).withUnsafeOptionalBytes { bodyBytes, bodySize in
            molshot_http_request(url, bodyBytes, bodySize, "application/json", agent, timeout, transferTimeout, &status, &out, &size,
                                 &kind, &message, message.count)
        }
        guard code == 0, let out else {
            return .failure(SendFailure(message: String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self),
                                        kind: kind))
        }
        defer { molshot_http_free(out) }
        return .success((status, Data(bytes: out, count: size)))
    }
}

private extension Optional where Wrapped == [UInt8] {
    func withUnsafeOptionalBytes<R>(_ body: (UnsafePointer<UInt8>?, Int) -> R) -> R {
        guard let bytes = self else { return body(nil, 0) }
        return bytes.withUnsafeBufferPointer { body($0.baseAddress, $0.count) }
    }
}

/// Molshot's version, printed by `molshot --version` and sent as the HTTP User-Agent.
public enum MolshotVersion {
    public static let current = "0.6.0"
}

extension PDBArchive.Hit {
    init(id: String, detailsMissing: String? = nil) {
        self.init(id: id, title: nil, method: nil, resolution: nil, detailsMissing: detailsMissing)
    }
}

import CHTTP
import Core
import Foundation
import Structure

/// The Protein Data Bank over HTTP: full-text search (the RCSB Search API, JSON in and out, with
/// each hit's title, method and resolution from the RCSB Data API) and downloads of gzip'd entry
/// files from a mirror. Server errors (5xx), timeouts and dropped connections are retried with
/// growing pauses and then reported; 404 means the entry does not exist; a download is checked to
/// inflate and parse before anything keeps it.
public struct PDBArchive: Sendable {
    /// A URL with `{id}` (lower case), `{ID}` (upper case) and `{format}` (`cif` or `pdb`).
    public var mirror = "https://files.rcsb.org/download/{ID}.{format}.gz"
    public var searchURL = "https://search.rcsb.org/rcsbsearch/v2/query"
    /// A URL with `{ID}`, answering the RCSB Data API's entry JSON.
    public var entryURL = "https://data.rcsb.org/rest/v1/core/entry/{ID}"
    /// Seconds before a request that has not answered is given up (and tried again).
    public var timeout: Double = 30
    public var attempts = 4
    /// Seconds before the second try; doubled before each later one.
    public var backoff: Double = 1

    public init() {}

    /// The defaults, changed by `MOLSHOT_PDB_MIRROR`, `MOLSHOT_PDB_SEARCH`, `MOLSHOT_PDB_ENTRY`,
    /// `MOLSHOT_HTTP_TIMEOUT`, `MOLSHOT_HTTP_ATTEMPTS` and `MOLSHOT_HTTP_BACKOFF`.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> PDBArchive {
        var a = PDBArchive()
        if let v = environment["MOLSHOT_PDB_MIRROR"], !v.isEmpty { a.mirror = v }
        if let v = environment["MOLSHOT_PDB_SEARCH"], !v.isEmpty { a.searchURL = v }
        if let v = environment["MOLSHOT_PDB_ENTRY"], !v.isEmpty { a.entryURL = v }
        if let v = environment["MOLSHOT_HTTP_TIMEOUT"].flatMap(Double.init), v > 0 { a.timeout = v }
        if let v = environment["MOLSHOT_HTTP_ATTEMPTS"].flatMap(Int.init), v >= 1 { a.attempts = v }
        if let v = environment["MOLSHOT_HTTP_BACKOFF"].flatMap(Double.init), v >= 0 { a.backoff = v }
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
    }

    /// Entries matching `text` anywhere (the RCSB full-text search), best first, at most `limit`.
    public func search(_ text: String, limit: Int) throws -> (total: Int, hits: [Hit]) {
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
        return (total, try ids.prefix(limit).map { try describe($0) })
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
        case .duplicate(let r): return (r, false)
        }
    }

    func fill(_ pattern: String, id: String, format: String) -> String {
        pattern.replacingOccurrences(of: "{id}", with: id.lowercased()).replacingOccurrences(of: "{ID}", with: id.uppercased())
            .replacingOccurrences(of: "{format}", with: format)
    }

    // MARK: HTTP

    /// One request, tried again after 5xx answers, timeouts and connection failures.
    func request(_ url: String, what: String, body: Data? = nil) throws -> (status: Int, data: Data) {
        guard let u = URL(string: url), u.scheme == "http" || u.scheme == "https" else {
            throw LibraryError(.request, "\(url) is not an http or https URL")
        }
        var last = ""
        for attempt in 0..<max(1, attempts) {
            if attempt > 0 { Thread.sleep(forTimeInterval: backoff * Double(1 << (attempt - 1))) }
            switch PDBArchive.send(url, body: body, timeout: timeout) {
            case .success(let (status, data)) where status < 500:
                return (status, data)
            case .success(let (status, _)):
                last = "HTTP \(status)"
            case .failure(let failure):
                last = failure.timedOut ? "no answer within \(Int(timeout)) s" : failure.message
            }
        }
        throw LibraryError(.machine, "\(what): \(url) failed \(attempts) times, last: \(last)")
    }

    struct SendFailure: Error {
        let message: String
        let timedOut: Bool
    }

    /// One HTTP exchange through libcurl (`Sources/CHTTP`, opened only when a command goes to the
    /// network): redirects followed, a stall or an unanswered connection cut off after `timeout`
    /// seconds, the whole transfer after four times that.
    static func send(_ url: String, body: Data?, timeout: Double) -> Result<(Int, Data), SendFailure> {
        var status = 0
        var out: UnsafeMutablePointer<UInt8>? = nil
        var size = 0
        var timedOut: Int32 = 0
        var message = [CChar](repeating: 0, count: 512)
        let agent = "molshot/\(MolshotVersion.current)"
        let code: Int32 = (body.map { [UInt8]($0) }).withUnsafeOptionalBytes { bodyBytes, bodySize in
            molshot_http_request(url, bodyBytes, bodySize, "application/json", agent, timeout, &status, &out, &size, &timedOut,
                                 &message, message.count)
        }
        guard code == 0, let out else {
            return .failure(SendFailure(message: String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self),
                                        timedOut: timedOut != 0))
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
    public static let current = "0.4.0"
}

extension PDBArchive.Hit {
    init(id: String) { self.init(id: id, title: nil, method: nil, resolution: nil) }
}

import Core
import Foundation
import Structure

/// Molshot's molecule library: one SQLite file holding each imported structure's file as it
/// was, its metadata, the atoms and bonds of its first model as rows a user can query, and a
/// compact form of that model that loads much faster than reading the file again. Imports are
/// one transaction per molecule, so a killed import leaves no partial molecule, and readers
/// (WAL) never wait for or see a half-written one. Use an instance on one thread at a time.
public final class MoleculeLibrary {
    public let database: SQLiteDatabase
    public var path: String { database.path }

    /// `$MOLSHOT_DB`, else `$XDG_DATA_HOME/molshot/library.sqlite`, else `~/.local/share/molshot/library.sqlite`.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let db = environment["MOLSHOT_DB"], !db.isEmpty { return db }
        let data = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) as NSString).appendingPathComponent(".local/share")
        return ((data as NSString).appendingPathComponent("molshot") as NSString).appendingPathComponent("library.sqlite")
    }

    /// Whether the library's file cannot be written here: it is opened read-only and imports and
    /// removals are refused.
    public let isReadOnly: Bool

    /// Opens the library at `path` and brings its schema up to date; `create` makes it (and its
    /// folder) where there is none, else a missing file is an error. A file that cannot be
    /// written is opened read-only (its schema must be current); a file that is not SQLite, or
    /// SQLite without the library's tables, is refused naming it.
    public init(path: String, create: Bool = true) throws {
        let exists = FileManager.default.fileExists(atPath: path)
        if !exists {
            guard create else {
                throw LibraryError(.request, "no library at \(path): make one with molshot library import --db \(path) FILE..., or give the path of one")
            }
            let folder = (path as NSString).deletingLastPathComponent
            if !folder.isEmpty {
                do { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) } catch {
                    throw LibraryError(.request, "the library's folder \(folder) cannot be made: \(error.localizedDescription)")
                }
            }
        }
        let folder = (path as NSString).deletingLastPathComponent
        isReadOnly = exists && (!FileManager.default.isWritableFile(atPath: path)
            || !FileManager.default.isWritableFile(atPath: folder.isEmpty ? "." : folder))
        do { database = try SQLiteDatabase(path: path, readOnly: isReadOnly) } catch let e as LibraryError where exists {
            throw LibraryError(.request, "\(path) is not a Molshot library: \(e.message)")
        }
        if exists { try LibrarySchema.check(database) }
        if isReadOnly {
            guard try LibrarySchema.current(database) else {
                throw LibraryError(.request, "\(path) is read-only and needs its schema brought up to date: open it once where it can be written")
            }
        } else {
            try LibrarySchema.migrate(database)
        }
    }

    // MARK: Import

    public enum ImportOutcome: Sendable {
        case added(MoleculeRecord)
        /// The same bytes are in the library already.
        case duplicate(MoleculeRecord)
    }

    /// The name a file gets: its file name less the gzip and structure extensions.
    public static func name(forPath path: String) -> String {
        var name = (path as NSString).lastPathComponent
        if name.lowercased().hasSuffix(".gz") { name.removeLast(3) }
        if StructureFile.formatFromName(name) != nil, let dot = name.lastIndex(of: "."), dot != name.startIndex {
            name = String(name[..<dot])
        }
        return name
    }

    /// Imports one structure file (gzip kept as it is); a file already there (same checksum) is skipped.
    public func importFile(_ path: String, name: String? = nil, maxBytes: Int = FileInput.defaultLimit,
                           perception: BondPerception) throws -> ImportOutcome {
        let raw = try FileInput.readAll(path: path, limit: maxBytes)
        return try importBytes(raw, source: path, name: name ?? MoleculeLibrary.name(forPath: path), maxBytes: maxBytes,
                               perception: perception)
    }

    /// Imports a file's bytes; `source` is where they came from (its name decides the format).
    public func importBytes(_ raw: [UInt8], source: String, name: String, maxBytes: Int = FileInput.defaultLimit,
                            perception: BondPerception, owner: String? = nil, isPrivate: Bool = false,
                            maxAtoms: Int = .max) throws -> ImportOutcome {
        let checksum = FNV1a.hex(FNV1a.hash(raw), digits: 16), sha256 = SHA256.hex(raw)
        // The same file where the importer can see it; never one kept private by someone else.
        let scope = isPrivate ? (owner ?? "") : ""
        func existing() throws -> MoleculeRecord? { try record(sameFileAs: raw, checksum: checksum, sha256: sha256, scopes: [scope, ""]) }
        if let existing = try existing() { return .duplicate(existing) }
        var options = StructureFile.Options()
        options.maxBytes = maxBytes
        let structure = try StructureFile.decode(raw, source: source, options: options)
        let atoms = structure.models.first?.atoms.count ?? 0
        guard atoms <= maxAtoms else { throw LibraryError(.request, "\(source) has \(atoms) atoms, more than the \(maxAtoms) allowed") }
        let content = MoleculeContent(structure, perception: perception)
        return try database.transaction {
            // Another process may have imported the same file meanwhile.
            if let existing = try existing() { return .duplicate(existing) }
            let insert = try database.statement("""
                INSERT INTO molecules (name, source, checksum, format, pdb_id, title, method, resolution, models, atoms, bonds,
                                       chains, residues, file_bytes, added)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            insert.bind(.text(name), .text(source), .text(checksum), .text(structure.format.rawValue),
                        .optional(structure.metadata.id.isEmpty ? nil : structure.metadata.id),
                        .optional(structure.metadata.title.isEmpty ? nil : structure.metadata.title),
                        .optional(structure.metadata.method.isEmpty ? nil : structure.metadata.method),
                        .optional(structure.metadata.resolution), .int(structure.models.count), .int(content.model.atoms.count),
                        .int(content.bonds.count), .int(Set(content.model.chains.map(\.id)).count), .int(content.model.residues.count),
                        .int(raw.count), .text(MoleculeLibrary.now()))
            try insert.run()
            let id = Int(database.lastInsertedRow)
            try database.statement("UPDATE molecules SET owner = ?, private = ?, sha256 = ?, scope = ? WHERE id = ?")
                .bind(.optional(owner), .int(isPrivate ? 1 : 0), .text(sha256), .text(scope), .int(id)).run()
            try database.statement("INSERT INTO originals (molecule, bytes) VALUES (?, ?)").bind(.int(id), .blob(raw)).run()
            try write(content, molecule: id)
            return .added(try record(id: id)!)
        }
    }

    /// The rows and the compact model of one molecule's content.
    private func write(_ content: MoleculeContent, molecule id: Int) throws {
        try database.statement("INSERT INTO compact_models (molecule, bytes) VALUES (?, ?)")
            .bind(.int(id), .blob(CompactModel.encode(content.model, bonds: content.bonds))).run()
        let meta = try database.statement("INSERT INTO metadata (molecule, key, value) VALUES (?, ?, ?)")
        for (key, value) in content.metadata {
            meta.bind(.int(id), .text(key), .text(value))
            try meta.run()
            meta.reset()
        }
        let atom = try database.statement("""
            INSERT INTO atoms (molecule, idx, serial, name, element, residue_name, residue_number, insertion_code, chain, hetero,
                               alt_loc, x, y, z, occupancy, b_factor, charge)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        let model = content.model
        let chainIDs = model.chains.map { SQLValue.text($0.id) }
        let residueNames = model.residues.map { SQLValue.text($0.name.description) }
        func char(_ c: UInt8) -> SQLValue { .text(c == 0 ? "" : String(UnicodeScalar(c))) }
        for (i, a) in model.atoms.enumerated() {
            let r = model.residues[Int(a.residue)]
            atom.bind(.int(id), .int(i), .int(Int(a.serial)), .text(a.name.description), .text(a.element.description),
                      residueNames[Int(a.residue)], .int(Int(r.number)), char(r.insertionCode), chainIDs[Int(r.chain)],
                      .int(r.isHetero ? 1 : 0), char(a.altLoc), .real(Double(a.position.x)), .real(Double(a.position.y)),
                      .real(Double(a.position.z)), .real(Double(a.occupancy)), .real(Double(a.bFactor)), .int(Int(a.charge)))
            try atom.run()
            atom.reset()
        }
        let bond = try database.statement("INSERT INTO bonds (molecule, a, b, bond_order, aromatic, source) VALUES (?, ?, ?, ?, ?, ?)")
        for b in content.bonds {
            bond.bind(.int(id), .int(Int(b.a)), .int(Int(b.b)), .int(Int(b.order)), .int(b.aromatic ? 1 : 0), .text(b.source.rawValue))
            try bond.run()
            bond.reset()
        }
    }

    static func now() -> String {
        let f = ISO8601DateFormatter()
        f.timeZone = TimeZone(identifier: "UTC")
        return f.string(from: Date())
    }

    // MARK: Reading

    public func record(id: Int) throws -> MoleculeRecord? {
        let s = try database.statement("SELECT \(MoleculeRecord.columns) FROM molecules WHERE id = ?").bind(.int(id))
        return try s.first(MoleculeRecord.init)
    }

    /// The molecule in one of `scopes` ("" public, else an owner's private ones) whose file is
    /// `raw`: the same SHA-256, or for molecules imported before it was kept, the same bytes.
    func record(sameFileAs raw: [UInt8], checksum: String, sha256: String, scopes: [String]) throws -> MoleculeRecord? {
        let s = try database.statement("""
            SELECT \(MoleculeRecord.columns), sha256, scope FROM molecules WHERE checksum = ? ORDER BY scope = '' DESC, id
            """).bind(.text(checksum))
        let candidates = try s.all { (MoleculeRecord($0), $0.text(16), $0.text(17) ?? "") }
        for (r, hash, scope) in candidates where scopes.contains(scope) {
            if let hash {
                if hash == sha256 { return r }
            } else if try original(of: r.id) == raw {
                return r
            }
        }
        return nil
    }

    /// The bytes a molecule was imported from.
    func original(of id: Int) throws -> [UInt8]? {
        try database.statement("SELECT bytes FROM originals WHERE molecule = ?").bind(.int(id)).first { $0.blob(0) }
    }

    public func record(checksum: String) throws -> MoleculeRecord? {
        let s = try database.statement("SELECT \(MoleculeRecord.columns) FROM molecules WHERE checksum = ?").bind(.text(checksum))
        return try s.first(MoleculeRecord.init)
    }

    /// The molecule imported from `source` (a path or a download URL), the newest if several.
    public func record(source: String) throws -> MoleculeRecord? {
        let s = try database.statement("SELECT \(MoleculeRecord.columns) FROM molecules WHERE source = ? ORDER BY id DESC LIMIT 1")
            .bind(.text(source))
        return try s.first(MoleculeRecord.init)
    }

    /// The molecule an id or a name (any case; also a PDB id) names. A name that several
    /// molecules share is an error that lists their ids.
    public func record(_ reference: String) throws -> MoleculeRecord {
        if let id = Int(reference) {
            guard let r = try record(id: id) else { throw LibraryError(.request, "no molecule \(id) in the library \(path)") }
            return r
        }
        let found = try records(named: reference)
        guard !found.isEmpty else { throw LibraryError(.request, "no molecule named \(reference) in the library \(path)") }
        guard found.count == 1 else {
            let ids = found.map { "\($0.id) (\($0.source))" }.joined(separator: ", ")
            throw LibraryError(.request, "the name \(reference) matches \(found.count) molecules: \(ids); give the id")
        }
        return found[0]
    }

    /// The molecules a name names: those of that name, else those of that PDB id, in id order.
    public func records(named reference: String) throws -> [MoleculeRecord] {
        let s = try database.statement("""
            SELECT \(MoleculeRecord.columns) FROM molecules WHERE name = ?1 COLLATE NOCASE
            UNION SELECT \(MoleculeRecord.columns) FROM molecules WHERE pdb_id = ?1 COLLATE NOCASE AND NOT EXISTS
                (SELECT 1 FROM molecules WHERE name = ?1 COLLATE NOCASE) ORDER BY id
            """).bind(.text(reference))
        return try s.all(MoleculeRecord.init)
    }

    /// The molecule imported for a PDB id (the newest, if several were), if any.
    public func record(pdbID: String) throws -> MoleculeRecord? {
        let s = try database.statement("SELECT \(MoleculeRecord.columns) FROM molecules WHERE pdb_id = ? COLLATE NOCASE ORDER BY id DESC LIMIT 1")
            .bind(.text(pdbID))
        return try s.first(MoleculeRecord.init)
    }

    /// The first model of a molecule as a structure, bonds included (they are not perceived again).
    public func load(_ reference: String) throws -> (record: MoleculeRecord, structure: Structure) {
        let record = try record(reference)
        let s = try database.statement("SELECT bytes FROM compact_models WHERE molecule = ?").bind(.int(record.id))
        guard let blob = try s.first({ $0.blob(0) }) else {
            throw LibraryError(.machine, "molecule \(record.id) has no stored model: run `molshot library rescan`")
        }
        let model = try CompactModel.decode(blob)
        var structure = Structure(format: Structure.Format(rawValue: record.format) ?? .pdb)
        structure.metadata.id = record.pdbId ?? ""
        structure.metadata.title = record.title ?? ""
        structure.metadata.method = record.method ?? ""
        structure.metadata.resolution = record.resolution.map { Float($0) }
        structure.models = [model]
        return (record, structure)
    }

    /// The file as it was imported.
    public func original(id: Int) throws -> [UInt8] {
        let s = try database.statement("SELECT bytes FROM originals WHERE molecule = ?").bind(.int(id))
        guard let bytes = try s.first({ $0.blob(0) }) else { throw LibraryError(.request, "no molecule \(id) in the library \(path)") }
        return bytes
    }

    public func metadata(id: Int) throws -> [(key: String, value: String)] {
        let s = try database.statement("SELECT key, value FROM metadata WHERE molecule = ? ORDER BY rowid").bind(.int(id))
        var out: [(String, String)] = []
        while try s.step() { out.append((s.text(0) ?? "", s.text(1) ?? "")) }
        return out
    }

    /// Who is looking: everyone's molecules (the CLI, on its own file), or those a service reader
    /// may see: public ones and, for a token's name, its own private ones.
    public enum Viewer: Sendable, Equatable {
        case everything
        case reader(String?)
    }

    /// Whether `viewer` may see molecule `id` (one that does not exist is not seen either).
    public func isVisible(_ id: Int, to viewer: Viewer) throws -> Bool {
        let s = try database.statement("SELECT private, owner FROM molecules WHERE id = ?").bind(.int(id))
        guard let (isPrivate, owner) = try s.first({ ($0.int(0) != 0, $0.text(1)) }) else { return false }
        guard case .reader(let name) = viewer else { return true }
        return !isPrivate || (name != nil && owner == name)
    }

    /// Whether `viewer` may see the molecule with this checksum, if the library holds one.
    public func isVisible(checksum: String, to viewer: Viewer) throws -> Bool {
        let ids = try database.statement("SELECT id FROM molecules WHERE checksum = ?").bind(.text(checksum)).all { $0.int(0) }
        return try ids.isEmpty || ids.contains { try isVisible($0, to: viewer) }
    }

    /// What a molecule's file says of it (authors, keywords, sequences, ...), key by key.
    public func metadata(of id: Int) throws -> [String: String] {
        let s = try database.statement("SELECT key, value FROM metadata WHERE molecule = ? ORDER BY rowid").bind(.int(id))
        return Dictionary(try s.all { ($0.text(0) ?? "", $0.text(1) ?? "") }, uniquingKeysWith: { a, _ in a })
    }

    /// Its chains with their residue and atom counts, and its ligands (hetero residues other
    /// than water) with how many copies.
    public func composition(of id: Int) throws -> (chains: [(id: String, residues: Int, atoms: Int)], ligands: [(name: String, copies: Int)]) {
        let chains = try database.statement("""
            SELECT chain, count(DISTINCT residue_number || insertion_code), count(*) FROM atoms WHERE molecule = ?
            GROUP BY chain ORDER BY min(idx)
            """).bind(.int(id)).all { (id: $0.text(0) ?? "", residues: $0.int(1), atoms: $0.int(2)) }
        let ligands = try database.statement("""
            SELECT residue_name, count(DISTINCT chain || ':' || residue_number || insertion_code) FROM atoms
            WHERE molecule = ? AND hetero = 1 AND residue_name NOT IN ('HOH', 'WAT', 'DOD', 'H2O') GROUP BY residue_name ORDER BY residue_name
            """).bind(.int(id)).all { (name: $0.text(0) ?? "", copies: $0.int(1)) }
        return (chains, ligands)
    }

    /// The checksums of private molecules with their owners (a file several keep private has several).
    public func privateChecksums() throws -> [String: [String?]] {
        // A file also kept publicly is not private.
        let s = try database.statement("""
            SELECT checksum, owner FROM molecules m WHERE private = 1
            AND NOT EXISTS (SELECT 1 FROM molecules p WHERE p.checksum = m.checksum AND p.private = 0)
            """)
        return Dictionary(grouping: try s.all { ($0.text(0) ?? "", $0.text(1)) }, by: \.0).mapValues { $0.map(\.1) }
    }

    /// Who imported molecule `id` through the service, if anyone.
    public func owner(of id: Int) throws -> String? {
        try database.statement("SELECT owner FROM molecules WHERE id = ?").bind(.int(id)).first { $0.text(0) } ?? nil
    }

    /// The orders a list can take.
    public enum ListOrder: String, CaseIterable, Sendable {
        case id, name, atoms, newest
        var sql: String {
            switch self {
            case .id: return "id"
            case .name: return "name COLLATE NOCASE, id"
            case .atoms: return "atoms DESC, id"
            case .newest: return "id DESC"
            }
        }
    }

    /// A page of molecules in `order` (id by default), and how many match in all. `query` matches
    /// name, title and source path, anywhere, in any case; a service reader sees only what it may.
    public func list(offset: Int = 0, limit: Int = 50, query: String? = nil, order: ListOrder = .id,
                     viewer: Viewer = .everything) throws -> (total: Int, molecules: [MoleculeRecord]) {
        let pattern: SQLValue = query.map { q in
            .text("%" + q.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
                .replacingOccurrences(of: "_", with: "\\_") + "%")
        } ?? .null
        var filter = "(?1 IS NULL OR name LIKE ?1 ESCAPE '\\' OR title LIKE ?1 ESCAPE '\\' OR source LIKE ?1 ESCAPE '\\')"
        var reader: SQLValue = .null
        if case .reader(let name) = viewer {
            filter += " AND (private = 0 OR owner = ?4)"
            reader = name.map { .text($0) } ?? .null  // owner = NULL is never true
        }
        // One snapshot: the total counts the rows the page is taken from, even during an import.
        return try database.snapshot {
            let count = try database.statement("SELECT count(*) FROM molecules WHERE \(filter)").bind(pattern, .null, .null, reader)
            let total = try count.first { $0.int(0) } ?? 0
            let page = try database.statement("SELECT \(MoleculeRecord.columns) FROM molecules WHERE \(filter) ORDER BY \(order.sql) LIMIT ?2 OFFSET ?3")
                .bind(pattern, .int(max(0, limit)), .int(max(0, offset)), reader)
            return (total, try page.all { MoleculeRecord($0) })
        }
    }

    // MARK: Changes

    /// Removes a molecule with everything stored for it.
    public func remove(id: Int) throws -> MoleculeRecord {
        guard let r = try record(id: id) else { throw LibraryError(.request, "no molecule \(id) in the library \(path)") }
        try database.transaction { try database.statement("DELETE FROM molecules WHERE id = ?").bind(.int(id)).run() }
        return r
    }

    /// Reads every kept original again and rewrites its rows and compact model (after a schema
    /// or reader change), one molecule per transaction. Returns the count done and the failures.
    public func rescan(perception: BondPerception) throws -> (done: Int, failed: [(MoleculeRecord, Error)]) {
        let ids = try database.statement("SELECT id FROM molecules ORDER BY id")
        var all: [Int] = []
        while try ids.step() { all.append(ids.int(0)) }
        var done = 0
        var failed: [(MoleculeRecord, Error)] = []
        for id in all {
            guard let record = try record(id: id) else { continue }
            do {
                let structure = try StructureFile.decode(try original(id: id), source: record.source)
                let content = MoleculeContent(structure, perception: perception)
                try database.transaction {
                    for table in ["metadata", "atoms", "bonds", "compact_models"] {
                        try database.statement("DELETE FROM \(table) WHERE molecule = ?").bind(.int(id)).run()
                    }
                    try database.statement("""
                        UPDATE molecules SET format = ?, pdb_id = ?, title = ?, method = ?, resolution = ?, models = ?, atoms = ?,
                                             bonds = ?, chains = ?, residues = ? WHERE id = ?
                        """).bind(.text(structure.format.rawValue), .optional(structure.metadata.id.isEmpty ? nil : structure.metadata.id),
                                  .optional(structure.metadata.title.isEmpty ? nil : structure.metadata.title),
                                  .optional(structure.metadata.method.isEmpty ? nil : structure.metadata.method),
                                  .optional(structure.metadata.resolution), .int(structure.models.count), .int(content.model.atoms.count),
                                  .int(content.bonds.count), .int(Set(content.model.chains.map(\.id)).count),
                                  .int(content.model.residues.count), .int(id)).run()
                    try write(content, molecule: id)
                }
                done += 1
            } catch {
                failed.append((record, error))
            }
        }
        return (done, failed)
    }

    // MARK: Statistics

    public struct Stats: Codable, Sendable {
        public var molecules = 0
        public var atoms = 0
        public var bonds = 0
        public var formats: [String: Int] = [:]
        /// Bytes of the files as imported.
        public var fileBytes = 0
        /// Bytes of the database file (and its WAL).
        public var databaseBytes = 0
        public var schemaVersion = LibrarySchema.version
    }

    public func stats() throws -> Stats {
        var stats = Stats()
        let s = try database.statement("SELECT format, count(*), sum(atoms), sum(bonds), sum(file_bytes) FROM molecules GROUP BY format")
        while try s.step() {
            stats.formats[s.text(0) ?? ""] = s.int(1)
            stats.molecules += s.int(1)
            stats.atoms += s.int(2)
            stats.bonds += s.int(3)
            stats.fileBytes += s.int(4)
        }
        for file in [path, path + "-wal"] {
            stats.databaseBytes += (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
        }
        return stats
    }
}

/// What the library stores of a structure: its first model, that model's bonds, and metadata.
struct MoleculeContent {
    var model: Model
    var bonds: [Bond]
    var metadata: [(String, String)]

    init(_ structure: Structure, perception: BondPerception) {
        model = structure.models.first ?? Model(number: 1)
        bonds = perception.bonds(of: model, embedded: structure.embeddedTemplates)
        let m = structure.metadata
        var meta: [(String, String)] = []
        for (key, value) in [("id", m.id), ("title", m.title), ("classification", m.classification), ("compound", m.compound),
                             ("organism", m.source), ("method", m.method)] where !value.isEmpty {
            meta.append((key, value))
        }
        if let r = m.resolution { meta.append(("resolution", String(r))) }
        for (chain, sequence) in MoleculeContent.sequences(model) { meta.append(("sequence." + chain, sequence)) }
        metadata = meta
    }

    /// One-letter sequences of the polymer chains (two or more standard residues).
    static func sequences(_ model: Model) -> [(String, String)] {
        var out: [(String, String)] = []
        for chain in model.chains {
            var letters = ""
            for r in chain.residues { if let c = oneLetter[model.residues[Int(r)].name.description] { letters.append(c) } }
            if letters.count >= 2 && !out.contains(where: { $0.0 == chain.id }) { out.append((chain.id, letters)) }
        }
        return out
    }

    static let oneLetter: [String: Character] = [
        "ALA": "A", "ARG": "R", "ASN": "N", "ASP": "D", "CYS": "C", "GLN": "Q", "GLU": "E", "GLY": "G", "HIS": "H", "ILE": "I",
        "LEU": "L", "LYS": "K", "MET": "M", "PHE": "F", "PRO": "P", "SER": "S", "THR": "T", "TRP": "W", "TYR": "Y", "VAL": "V",
        "SEC": "U", "PYL": "O", "DA": "A", "DC": "C", "DG": "G", "DT": "T", "DU": "U", "A": "A", "C": "C", "G": "G", "U": "U",
    ]
}

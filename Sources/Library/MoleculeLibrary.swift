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
        if let db = EnvironmentVariable.database.text(in: environment) { return db }
        let data = EnvironmentVariable.dataHome.text(in: environment)
            ?? ((EnvironmentVariable.home.text(in: environment) ?? NSHomeDirectory()) as NSString).appendingPathComponent(".local/share")
        return ((data as NSString).appendingPathComponent("molshot") as NSString).appendingPathComponent("library.sqlite")
    }

    /// Whether the library's file cannot be written here: it is opened read-only and imports and
    /// removals are refused.
    public let isReadOnly: Bool

    /// Whether opening it made the file (and said so where the caller prints it).
    public private(set) var wasCreated = false

    /// Opens the library at `path` and brings its schema up to date; `create` makes it (and its
    /// folder) where there is none, else a missing file is an error. A file that cannot be
    /// written is opened read-only (its schema must be current); a file that is not SQLite, or
    /// SQLite without the library's tables, is refused naming it.
    /// `readOnly`: for commands that only read; the file must be there and is opened `mode=ro`
    /// (or immutable where it cannot be written), after its schema is brought up to date.
    public init(path: String, create: Bool = true, readOnly: Bool = false) throws {
        let exists = FileManager.default.fileExists(atPath: path)
        var create = create
        if readOnly {
            create = false
            if exists, FileManager.default.isWritableFile(atPath: path) {
                // Bring the schema up to date first, on a connection that may write.
                let writer = try MoleculeLibrary(path: path, create: false)
                if writer.isReadOnly == false {
                    database = try SQLiteDatabase(path: path, access: .readOnly)
                    isReadOnly = true
                    withExtendedLifetime(writer) {}
                    return
                }
            }
        }
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
        var readOnly = exists && (!FileManager.default.isWritableFile(atPath: path)
            || !FileManager.default.isWritableFile(atPath: folder.isEmpty ? "." : folder))
        do {
            var opened = try SQLiteDatabase(path: path, readOnly: readOnly)
            // A snapshot a writer published is read-only whoever opens it: root may write a 0444
            // file, and an import there would take an id its writer never sees. Its mark is read
            // on the connection just made; only a snapshot is opened again.
            if !readOnly && Self.isSnapshot(opened) {
                readOnly = true
                opened = try SQLiteDatabase(path: path, readOnly: true)
            }
            database = opened
        } catch let e as LibraryError where exists {
            throw LibraryError(.request, "\(path) is not a Molshot library: \(e.message)")
        }
        isReadOnly = readOnly
        if exists { try LibrarySchema.check(database) }
        wasCreated = !exists
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
        /// Another file of a structure already there (the same PDB id and the same atoms where
        /// they are): listed among its sources, not a molecule of its own.
        case anotherSource(MoleculeRecord)
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

    /// zstd level of the kept originals. Measured on 800 files of the scaled collection
    /// (`bench/run library`): against their gzip size, with the model as prefix, level 3 keeps
    /// mmCIF at 0.60x and PDB at 0.48x in 3.7 s, level 6 at 0.54x/0.43x in 4.3 s, level 9 at
    /// 0.47x overall in 5.3 s; plain zstd at level 9 is 0.90x. Level 3: the import's time goes
    /// to parsing, not to squeezing the last tenth. Level 2 since: over the 72 corpus files the
    /// library is the same size as at level 3 (7.008 against 7.012 MB) for 15% less of the
    /// import's CPU; level 1 made it 20% larger.
    public static let originalLevel: Int32 = 2

    /// Imports one structure file; a file already there (same bytes) is skipped.
    public func importFile(_ path: String, name: String? = nil, maxBytes: Int = FileInput.defaultLimit,
                           perception: BondPerception, separate: Bool = false) throws -> ImportOutcome {
        let raw = try FileInput.readAll(path: path, limit: maxBytes)
        return try importBytes(raw, source: path, name: name ?? MoleculeLibrary.name(forPath: path), maxBytes: maxBytes,
                               perception: perception, separate: separate)
    }

    /// Imports a file's bytes; `source` is where they came from (its name decides the format).
    /// `separate` keeps the file a molecule of its own even where the library has its structure.
    public func importBytes(_ raw: [UInt8], source: String, name: String, maxBytes: Int = FileInput.defaultLimit,
                            perception: BondPerception, owner: String? = nil, isPrivate: Bool = false,
                            maxAtoms: Int = .max, separate: Bool = false) throws -> ImportOutcome {
        let file = ImportedFile(raw, source: source, name: name, owner: owner, isPrivate: isPrivate)
        if let existing = try existing(file) { return .duplicate(existing) }
        let prepared = try MoleculeLibrary.prepare(file, maxBytes: maxBytes, perception: perception, maxAtoms: maxAtoms)
        return try database.transaction { try store(prepared, separate: separate) }
    }

    /// A file's bytes and who brings them, hashed.
    public struct ImportedFile: Sendable {
        public var raw: [UInt8]
        public var source: String
        public var name: String
        public var owner: String?
        public var isPrivate: Bool
        let checksum: String
        let sha256: String
        /// Public (""), or the owner of a private copy.
        var scope: String { isPrivate ? (owner ?? "") : "" }

        public init(_ raw: [UInt8], source: String, name: String, owner: String? = nil, isPrivate: Bool = false) {
            self.raw = raw
            self.source = source
            self.name = name
            self.owner = owner
            self.isPrivate = isPrivate
            checksum = FNV1a.hex(FNV1a.hash(raw), digits: 16)
            sha256 = SHA256.hex(raw)
        }
    }

    /// A file made ready to store without the database (on any thread): parsed, bonds perceived,
    /// the compact model made and the original compressed.
    public struct PreparedImport: Sendable {
        var file: ImportedFile
        var structure: Structure
        var content: MoleculeContent
        var compact: [UInt8]
        var original: [UInt8]
        var originalCodec: String
        var ligandAtoms: [Int]
        var facts: EntryFacts
    }

    public static func prepare(_ file: ImportedFile, maxBytes: Int = FileInput.defaultLimit, perception: BondPerception,
                               maxAtoms: Int = .max) throws -> PreparedImport {
        var options = StructureFile.Options()
        options.maxBytes = maxBytes
        let text = try FileInput.inflatedIfGzip(file.raw, source: file.source, limit: maxBytes)
        var structure = try StructureFile.decode(text, source: file.source, options: options)
        // Every model read counts (a first model of 10 atoms hid 60,000 in the second).
        let atoms = structure.models.reduce(0) { $0 + $1.atoms.count }
        guard atoms <= maxAtoms else {
            throw LibraryError(.request, "\(file.source) has \(atoms) atoms\(structure.models.count > 1 ? " in \(structure.models.count) models" : ""), more than the \(maxAtoms) allowed")
        }
        let content = MoleculeContent(structure, perception: perception)
        structure.models = Array(structure.models.prefix(1))
        let model = content.model
        let ligandAtoms = model.residues.filter(\.isLigand).flatMap { $0.atoms.map(Int.init) }
        let compact = CompactModel.encode(content.model, bonds: content.bonds)
        // The original against the model as the library will read it back (what its decoding
        // will write again), checked to come back whole; else kept with zstd alone.
        var original: [UInt8], codec: String
        if structure.format == .pdb || structure.format == .mmcif, let stored = try? CompactModel.decode(compact),
           let withModel = OriginalCodec.encode(text, model: stored, format: structure.format, level: originalLevel) {
            (original, codec) = (withModel, OriginalCodec.codec)
        } else {
            (original, codec) = (Zstd.compress(text, level: originalLevel), "zstd")
        }
        return PreparedImport(file: file, structure: structure, content: content, compact: compact, original: original,
                              originalCodec: codec, ligandAtoms: ligandAtoms, facts: EntryFacts(structure, model: model))
    }

    /// The molecule the file's bytes already are, where the importer can see it (never one kept
    /// private by someone else).
    public func existing(_ file: ImportedFile) throws -> MoleculeRecord? {
        let s = try database.statement("""
            SELECT molecule FROM sources WHERE sha256 = ?1 AND scope IN (?2, '') ORDER BY scope = '' DESC, id LIMIT 1
            """).bind(.text(file.sha256), .text(file.scope))
        if let id = try s.first({ $0.int(0) }) { return try record(id: id) }
        // Molecules imported before SHA-256 was kept: the same checksum and the same bytes.
        let old = try database.statement("SELECT molecule, scope FROM sources WHERE checksum = ? AND sha256 IS NULL").bind(.text(file.checksum))
        for (id, scope) in try old.all({ ($0.int(0), $0.text(1) ?? "") }) where scope == "" || scope == file.scope {
            if try original(id: id) == file.raw { return try record(id: id) }
        }
        return nil
    }

    /// Stores a prepared file: inside a transaction the caller holds (several files may share
    /// one), each in a savepoint of its own so one that fails leaves the others.
    public func store(_ p: PreparedImport, separate: Bool = false) throws -> ImportOutcome {
        try database.savepoint {
            let file = p.file
            // Another import may have stored the same bytes meanwhile.
            if let existing = try existing(file) { return .duplicate(existing) }
            if !separate, let same = try sameStructure(as: p) {
                try addSource(file, format: p.structure.format, molecule: same.id)
                return .anotherSource(same)
            }
            let structure = p.structure, content = p.content, counted = p.content.model.countedChainsAndResidues
            let id = try newID(isPrivate: file.isPrivate)
            let insert = try database.statement("""
                INSERT INTO molecules (id, name, source, checksum, format, pdb_id, title, method, resolution, models, atoms, bonds,
                                       chains, residues, file_bytes, added, owner, private, sha256, scope)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            insert.bind(.int(id), .text(file.name), .text(file.source), .text(file.checksum), .text(structure.format.rawValue),
                        .optional(structure.metadata.id.isEmpty ? nil : structure.metadata.id),
                        .optional(structure.metadata.title.isEmpty ? nil : structure.metadata.title),
                        .optional(structure.metadata.method.isEmpty ? nil : structure.metadata.method),
                        .optional(structure.metadata.resolution), .int(p.content.modelCount), .int(content.model.atoms.count),
                        .int(content.bonds.count), .int(counted.chains), .int(counted.residues),
                        .int(file.raw.count), .text(MoleculeLibrary.now()), .optional(file.owner), .int(file.isPrivate ? 1 : 0),
                        .text(file.sha256), .text(file.scope))
            try insert.run()
            try addSource(file, format: structure.format, molecule: id)
            try database.statement("INSERT INTO originals (molecule, bytes, codec) VALUES (?, ?, ?)")
                .bind(.int(id), .blob(p.original), .text(p.originalCodec)).run()
            try database.statement("INSERT INTO compact_models (molecule, bytes) VALUES (?, ?)").bind(.int(id), .blob(p.compact)).run()
            try write(p, molecule: id)
            return .added(try record(id: id)!)
        }
    }

    /// Where private molecules' ids start: public ids stay below it.
    public static let privateIDs = 1 << 40

    /// The id of a new molecule: the next public one, or for a private one a free id drawn at
    /// random from `privateIDs` up to 2^52 (exact in a JavaScript number), which tells nobody
    /// how many private molecules there are or when they came.
    private func newID(isPrivate: Bool) throws -> Int {
        if isPrivate {
            while true {
                let id = Int.random(in: Self.privateIDs..<(1 << 52))
                if try database.statement("SELECT 1 FROM molecules WHERE id = ?").bind(.int(id)).first({ $0.int(0) }) == nil { return id }
            }
        }
        let counted = try database.statement("SELECT value FROM id_sequence WHERE name = 'public'").first { $0.int(0) } ?? 0
        let highest = try database.statement("SELECT max(id) FROM molecules WHERE id < ?").bind(.int(Self.privateIDs)).first { $0.int(0) } ?? 0
        let id = max(counted, highest) + 1
        try database.statement("INSERT INTO id_sequence (name, value) VALUES ('public', ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value")
            .bind(.int(id)).run()
        return id
    }

    private func addSource(_ file: ImportedFile, format: Structure.Format, molecule id: Int) throws {
        try database.statement("""
            INSERT INTO sources (molecule, path, format, checksum, sha256, scope, file_bytes, added) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """).bind(.int(id), .text(file.source), .text(format.rawValue), .text(file.checksum), .text(file.sha256), .text(file.scope),
                      .int(file.raw.count), .text(MoleculeLibrary.now())).run()
    }

    /// A molecule in the file's scope that is the same structure: the same PDB id, the same
    /// number of atoms in the first model and every atom within 0.002 Å (the PDB and mmCIF files
    /// of one entry); never for files without an id.
    func sameStructure(as p: PreparedImport) throws -> MoleculeRecord? {
        let id = p.structure.metadata.id
        guard !id.isEmpty else { return nil }
        let atoms = p.content.model.atoms
        let candidates = try database.statement("""
            SELECT m.id FROM molecules m WHERE m.pdb_id = ? COLLATE NOCASE AND m.scope = ? AND m.atoms = ? ORDER BY m.id
            """).bind(.text(id), .text(p.file.scope), .int(atoms.count)).all { $0.int(0) }
        for candidate in candidates {
            guard let blob = try database.statement("SELECT bytes FROM compact_models WHERE molecule = ?").bind(.int(candidate)).first({ $0.blob(0) }),
                  let model = try? CompactModel.decode(blob) else { continue }
            if zip(model.atoms, atoms).allSatisfy({ let d = $0.position - $1.position; return max(abs(d.x), abs(d.y), abs(d.z)) <= 0.002 }) {
                return try record(id: candidate)
            }
        }
        return nil
    }

    /// What SQL answers of one molecule beside its compact model: metadata, chains, ligands and
    /// their atoms and bonds, element counts, and the search index's row.
    private func write(_ p: PreparedImport, molecule id: Int) throws {
        let content = p.content, model = content.model
        if !p.facts.isEmpty {
            try database.statement("INSERT INTO entry_facts (molecule, bytes) VALUES (?, ?)").bind(.int(id), .blob(try p.facts.encoded())).run()
        }
        let meta = try database.statement("INSERT INTO metadata (molecule, key, value) VALUES (?, ?, ?)")
        for (key, value) in content.metadata {
            meta.bind(.int(id), .text(key), .text(value))
            try meta.run()
            meta.reset()
        }
        let chain = try database.statement("INSERT INTO chains (molecule, chain, residues, atoms, first_atom) VALUES (?, ?, ?, ?, ?)")
        for c in MoleculeContent.chainRows(model) {
            try chain.bind(.int(id), .text(c.id), .int(c.residues), .int(c.atoms), .int(c.first)).run()
            chain.reset()
        }
        let ligands = MoleculeContent.ligandRows(model)
        let ligand = try database.statement("INSERT INTO ligands (molecule, name, copies, atoms) VALUES (?, ?, ?, ?)")
        for l in ligands {
            try ligand.bind(.int(id), .text(l.name), .int(l.copies), .int(l.atoms)).run()
            ligand.reset()
        }
        let element = try database.statement("INSERT INTO elements (molecule, element, count) VALUES (?, ?, ?)")
        var counts: [String: Int] = [:]
        for a in model.atoms { counts[a.element.description, default: 0] += 1 }
        for (e, n) in counts.sorted(by: { $0.key < $1.key }) {
            try element.bind(.int(id), .text(e), .int(n)).run()
            element.reset()
        }
        let atom = try database.statement("""
            INSERT INTO atoms (molecule, idx, serial, name, element, residue_name, residue_number, insertion_code, chain, hetero,
                               alt_loc, x, y, z, occupancy, b_factor, charge)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        func char(_ c: UInt8) -> SQLValue { .text(c == 0 ? "" : String(UnicodeScalar(c))) }
        var kept = Set<Int32>()
        for i in p.ligandAtoms {
            let a = model.atoms[i], r = model.residues[Int(a.residue)]
            kept.insert(Int32(i))
            atom.bind(.int(id), .int(i), .int(Int(a.serial)), .text(a.name.description), .text(a.element.description),
                      .text(r.name.description), .int(Int(r.number)), char(r.insertionCode), .text(model.chains[Int(r.chain)].id),
                      .int(1), char(a.altLoc), .real(Double(a.position.x)), .real(Double(a.position.y)),
                      .real(Double(a.position.z)), .real(Double(a.occupancy)), .real(Double(a.bFactor)), .int(Int(a.charge)))
            try atom.run()
            atom.reset()
        }
        let bond = try database.statement("INSERT INTO bonds (molecule, a, b, bond_order, aromatic, source) VALUES (?, ?, ?, ?, ?, ?)")
        for b in content.bonds where kept.contains(b.a) && kept.contains(b.b) {
            bond.bind(.int(id), .int(Int(b.a)), .int(Int(b.b)), .int(Int(b.order)), .int(b.aromatic ? 1 : 0), .text(b.source.rawValue))
            try bond.run()
            bond.reset()
        }
        let m = p.structure.metadata
        try database.statement("""
            INSERT INTO molecule_search (rowid, name, title, authors, keywords, ligands, sources) VALUES (?, ?, ?, ?, ?, ?, ?)
            """).bind(.int(id), .text(p.file.name + " " + m.id), .text(m.title), .text(m.authors),
                      .text([m.classification, m.keywords, m.compound].filter { !$0.isEmpty }.joined(separator: " ")),
                      .text(ligands.map(\.name).joined(separator: " ")), .text(p.file.source)).run()
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

    /// The molecule one of whose files has this checksum.
    public func record(checksum: String) throws -> MoleculeRecord? {
        let s = try database.statement("""
            SELECT \(MoleculeRecord.columns) FROM molecules WHERE id = (SELECT molecule FROM sources WHERE checksum = ? ORDER BY id LIMIT 1)
            """).bind(.text(checksum))
        return try s.first(MoleculeRecord.init)
    }

    /// The molecule imported from `source` (a path or a download URL), the newest if several.
    public func record(source: String) throws -> MoleculeRecord? {
        let s = try database.statement("""
            SELECT \(MoleculeRecord.columns) FROM molecules WHERE id = (SELECT molecule FROM sources WHERE path = ? ORDER BY id DESC LIMIT 1)
            """).bind(.text(source))
        return try s.first(MoleculeRecord.init)
    }

    /// The files a molecule was imported from, first the one its model was read from.
    public func sources(of id: Int) throws -> [(path: String, format: String, checksum: String, bytes: Int)] {
        try database.statement("SELECT path, format, checksum, file_bytes FROM sources WHERE molecule = ? ORDER BY id").bind(.int(id))
            .all { (path: $0.text(0) ?? "", format: $0.text(1) ?? "", checksum: $0.text(2) ?? "", bytes: $0.int(3)) }
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
        if let facts = try database.statement("SELECT bytes FROM entry_facts WHERE molecule = ?").bind(.int(record.id)).first({ $0.blob(0) }) {
            try EntryFacts.decode(facts).apply(to: &structure)
        }
        return (record, structure)
    }

    /// The text of the file the molecule's model was read from (inflated where it was gzip;
    /// libraries from before schema 4 keep the bytes as they were).
    public func original(id: Int) throws -> [UInt8] {
        let s = try database.statement("SELECT bytes, codec FROM originals WHERE molecule = ?").bind(.int(id))
        guard let (bytes, codec) = try s.first({ ($0.blob(0), $0.text(1) ?? "raw") }) else {
            throw LibraryError(.request, "no molecule \(id) in the library \(path)")
        }
        switch codec {
        case "zstd": return try Zstd.decompress(bytes)
        case OriginalCodec.codec:
            return try OriginalCodec.decode(bytes) {
                guard let blob = try database.statement("SELECT bytes FROM compact_models WHERE molecule = ?").bind(.int(id)).first({ $0.blob(0) }) else {
                    throw LibraryError(.machine, "molecule \(id) has no stored model to read its original against")
                }
                return try CompactModel.decode(blob)
            }
        case "raw": return bytes
        default: throw LibraryError(.machine, "molecule \(id)'s original is kept as \(codec), which this Molshot does not read")
        }
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
        let chains = try database.statement("SELECT chain, residues, atoms FROM chains WHERE molecule = ? ORDER BY first_atom, rowid")
            .bind(.int(id)).all { (id: $0.text(0) ?? "", residues: $0.int(1), atoms: $0.int(2)) }
        let ligands = try database.statement("SELECT name, copies FROM ligands WHERE molecule = ? ORDER BY name")
            .bind(.int(id)).all { (name: $0.text(0) ?? "", copies: $0.int(1)) }
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

    /// A page of molecules in `order` (id by default), and how many match in all. `query` is
    /// words, each matched as a word or a word's start (any case) in the name, PDB id, title,
    /// authors, keywords, ligand names or source path, all words in one molecule (SQLite FTS5);
    /// where no molecule has them all, the text is matched anywhere in the name or source
    /// path. A service reader sees only what it may.
    public func list(offset: Int = 0, limit: Int = 50, query: String? = nil, order: ListOrder = .id,
                     viewer: Viewer = .everything) throws -> (total: Int, molecules: [MoleculeRecord]) {
        var reader: SQLValue = .null
        var visible = ""
        if case .reader(let name) = viewer {
            visible = " AND (private = 0 OR owner = ?4)"
            reader = name.map { .text($0) } ?? .null  // owner = NULL is never true
        }
        let words = query.map(MoleculeLibrary.searchWords) ?? []
        func page(_ filter: String, _ pattern: SQLValue) throws -> (total: Int, molecules: [MoleculeRecord]) {
            let count = try database.statement("SELECT count(*) FROM molecules WHERE \(filter)\(visible)").bind(pattern, .null, .null, reader)
            let total = try count.first { $0.int(0) } ?? 0
            let page = try database.statement("""
                SELECT \(MoleculeRecord.columns) FROM molecules WHERE \(filter)\(visible) ORDER BY \(order.sql) LIMIT ?2 OFFSET ?3
                """).bind(pattern, .int(max(0, limit)), .int(max(0, offset)), reader)
            return (total, try page.all { MoleculeRecord($0) })
        }
        // One snapshot: the total counts the rows the page is taken from, even during an import.
        return try database.snapshot {
            guard let query, !query.isEmpty else { return try page("?1 IS NULL", .null) }
            if !words.isEmpty {
                let match = words.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"*" }.joined(separator: " ")
                let found = try page("id IN (SELECT rowid FROM molecule_search WHERE molecule_search MATCH ?1)", .text(match))
                if found.total > 0 { return found }
            }
            let like = "%" + query.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
                .replacingOccurrences(of: "_", with: "\\_") + "%"
            return try page("(name LIKE ?1 ESCAPE '\\' OR source LIKE ?1 ESCAPE '\\')", .text(like))
        }
    }

    /// A query's words as FTS5 tokenizes them (letters and digits; the rest separates), each
    /// once, at most `maxSearchWords` (a query of hundreds of one-letter words would otherwise
    /// cost seconds of prefix scans at the scale of the PDB).
    static func searchWords(_ query: String) -> [String] {
        var seen = Set<String>()
        return query.split { !($0.isLetter || $0.isNumber) }.map(String.init)
            .filter { !$0.isEmpty && seen.insert($0.lowercased()).inserted }.prefix(maxSearchWords).map { $0 }
    }

    public static let maxSearchWords = 16

    // MARK: Changes

    /// Removes the molecule an id or a name names (see `record(_:)`) with everything stored for it.
    public func remove(_ reference: String) throws -> MoleculeRecord {
        try remove(id: try record(reference).id)
    }

    /// Removes a molecule with everything stored for it.
    public func remove(id: Int) throws -> MoleculeRecord {
        guard let r = try record(id: id) else { throw LibraryError(.request, "no molecule \(id) in the library \(path)") }
        try database.transaction { try database.statement("DELETE FROM molecules WHERE id = ?").bind(.int(id)).run() }
        return r
    }

    /// Reads every kept original again and rewrites its rows and compact model (after a schema
    /// or reader change), one molecule per transaction. Returns the count done and the failures.
    public func rescan(perception: BondPerception) throws -> (done: Int, failed: [(MoleculeRecord, Error)]) {
        let all = try database.statement("SELECT id FROM molecules ORDER BY id").all { $0.int(0) }
        var done = 0
        var failed: [(MoleculeRecord, Error)] = []
        for id in all {
            guard let record = try record(id: id) else { continue }
            do {
                let text = try original(id: id)
                var file = ImportedFile(text, source: record.source, name: record.name)
                file.owner = try owner(of: id)
                let p = try MoleculeLibrary.prepare(file, perception: perception)
                let structure = p.structure, content = p.content, counted = p.content.model.countedChainsAndResidues
                try database.transaction {
                    for table in ["metadata", "atoms", "bonds", "compact_models", "chains", "ligands", "elements", "originals", "entry_facts"] {
                        try database.statement("DELETE FROM \(table) WHERE molecule = ?").bind(.int(id)).run()
                    }
                    try database.statement("DELETE FROM molecule_search WHERE rowid = ?").bind(.int(id)).run()
                    try database.statement("""
                        UPDATE molecules SET format = ?, pdb_id = ?, title = ?, method = ?, resolution = ?, models = ?, atoms = ?,
                                             bonds = ?, chains = ?, residues = ? WHERE id = ?
                        """).bind(.text(structure.format.rawValue), .optional(structure.metadata.id.isEmpty ? nil : structure.metadata.id),
                                  .optional(structure.metadata.title.isEmpty ? nil : structure.metadata.title),
                                  .optional(structure.metadata.method.isEmpty ? nil : structure.metadata.method),
                                  .optional(structure.metadata.resolution), .int(content.modelCount), .int(content.model.atoms.count),
                                  .int(content.bonds.count), .int(counted.chains), .int(counted.residues), .int(id)).run()
                    try database.statement("INSERT INTO originals (molecule, bytes, codec) VALUES (?, ?, ?)")
                        .bind(.int(id), .blob(p.original), .text(p.originalCodec)).run()
                    try database.statement("INSERT INTO compact_models (molecule, bytes) VALUES (?, ?)").bind(.int(id), .blob(p.compact)).run()
                    try write(p, molecule: id)
                }
                done += 1
            } catch {
                failed.append((record, error))
            }
        }
        return (done, failed)
    }

    /// What a snapshot's header says of it (`PRAGMA application_id`, "MSNP"): a copy for replicas,
    /// which every process opens read-only.
    public static let snapshotMark: Int32 = 0x4D53_4E50

    /// Whether the library file at `path` is a snapshot (`snapshotMark`); false for a file that
    /// cannot be read as SQLite (its opening then says why).
    public static func isSnapshot(_ path: String) -> Bool {
        guard let db = try? SQLiteDatabase(path: path, readOnly: true) else { return false }
        return isSnapshot(db)
    }

    /// Whether the library `db` holds is a snapshot; false where its header cannot be read.
    static func isSnapshot(_ db: SQLiteDatabase) -> Bool {
        guard let mark = try? db.statement("PRAGMA application_id").first({ $0.int(0) }) else { return false }
        return Int32(truncatingIfNeeded: mark) == snapshotMark
    }

    /// Writes a consistent, compacted copy of the library to `output` (which must not exist)
    /// while others read and write it: `VACUUM INTO` a temporary file beside it, then a rename.
    /// `replacing`: the copy made read-only and renamed over `output` whether it exists or not
    /// (a writer's file for its replicas, who open it read-only and follow each new one).
    /// Returns the copy's size.
    public func snapshot(to output: String, replacing: Bool = false) throws -> Int {
        guard replacing || !FileManager.default.fileExists(atPath: output) else {
            throw LibraryError(.request, "\(output) is already there: a snapshot goes to a new file")
        }
        let temporary = output + ".part-\(ProcessInfo.processInfo.processIdentifier)"
        try? FileManager.default.removeItem(atPath: temporary)
        do {
            try database.statement("VACUUM INTO ?").bind(.text(temporary)).run()
            // Marked as a snapshot: whoever opens it (a replica, root included) does not write it.
            try SQLiteDatabase(path: temporary, readOnly: false).execute("PRAGMA application_id = \(Self.snapshotMark)")
            if replacing {
                guard chmod(temporary, 0o444) == 0, rename(temporary, output) == 0 else {
                    throw LibraryError(.machine, String(cString: strerror(errno)))
                }
            } else {
                try FileManager.default.moveItem(atPath: temporary, toPath: output)
            }
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw LibraryError(.request, "cannot write the snapshot \(output): \((error as? LibraryError)?.message ?? error.localizedDescription)")
        }
        return (try? FileManager.default.attributesOfItem(atPath: output)[.size] as? Int) ?? 0
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
struct MoleculeContent: Sendable {
    var model: Model
    var bonds: [Bond]
    var metadata: [(String, String)]
    var modelCount: Int

    init(model: Model, bonds: [Bond], metadata: [(String, String)], modelCount: Int) {
        self.model = model
        self.bonds = bonds
        self.metadata = metadata
        self.modelCount = modelCount
    }

    init(_ structure: Structure, perception: BondPerception) {
        model = structure.models.first ?? Model(number: 1)
        modelCount = structure.models.count
        bonds = perception.bonds(of: model, embedded: structure.embeddedTemplates)
        let m = structure.metadata
        var meta: [(String, String)] = []
        for (key, value) in [("id", m.id), ("title", m.title), ("classification", m.classification), ("compound", m.compound),
                             ("organism", m.source), ("method", m.method), ("authors", m.authors), ("keywords", m.keywords)]
            where !value.isEmpty {
            meta.append((key, value))
        }
        if let r = m.resolution { meta.append(("resolution", String(r))) }
        for (chain, sequence) in MoleculeContent.sequences(model) { meta.append(("sequence." + chain, sequence)) }
        metadata = meta
    }

    /// Each chain id's residues and atoms (ids may repeat in a model: counted together), in the
    /// order they first appear.
    static func chainRows(_ model: Model) -> [(id: String, residues: Int, atoms: Int, first: Int)] {
        var order: [String] = []
        var rows: [String: (residues: Int, atoms: Int, first: Int)] = [:]
        for c in model.chains {
            var row = rows[c.id] ?? (0, 0, Int.max)
            for r in c.residues {
                let residue = model.residues[Int(r)]
                row.residues += 1
                row.atoms += residue.atoms.count
                if !residue.atoms.isEmpty { row.first = min(row.first, Int(residue.atoms.lowerBound)) }
            }
            if rows[c.id] == nil { order.append(c.id) }
            rows[c.id] = row
        }
        return order.map { (id: $0, residues: rows[$0]!.residues, atoms: rows[$0]!.atoms, first: rows[$0]!.first == .max ? 0 : rows[$0]!.first) }
            .sorted { $0.first < $1.first }
    }

    /// Hetero residues other than water by name, with how many copies and atoms, by name.
    static func ligandRows(_ model: Model) -> [(name: String, copies: Int, atoms: Int)] {
        var rows: [String: (copies: Int, atoms: Int)] = [:]
        for r in model.residues where r.isLigand {
            rows[r.name.description, default: (0, 0)].copies += 1
            rows[r.name.description, default: (0, 0)].atoms += r.atoms.count
        }
        return rows.sorted { $0.key < $1.key }.map { (name: $0.key, copies: $0.value.copies, atoms: $0.value.atoms) }
    }

    /// One-letter sequences of the polymer chains (two or more standard residues).
    static func sequences(_ model: Model) -> [(String, String)] {
        var out: [(String, String)] = []
        for chain in model.chains {
            var letters = ""
            for r in chain.residues { if let c = ResidueLetters.letter(model.residues[Int(r)].name) { letters.append(c) } }
            if letters.count >= 2 && !out.contains(where: { $0.0 == chain.id }) { out.append((chain.id, letters)) }
        }
        return out
    }
}

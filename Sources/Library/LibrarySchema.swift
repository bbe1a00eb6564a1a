/// The library's tables, by schema version (`PRAGMA user_version`). A new version appends a
/// migration; opening a database runs those it has not had, each in a transaction.
enum LibrarySchema {
    static let migrations: [String] = [
        // 1: molecules and what a user queries (metadata, atoms, bonds of the first model); the
        // original file and a compact model for fast loading in tables of their own, so that
        // listing never reads them.
        """
        CREATE TABLE molecules (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            source TEXT NOT NULL,
            checksum TEXT NOT NULL UNIQUE,
            format TEXT NOT NULL,
            pdb_id TEXT,
            title TEXT,
            method TEXT,
            resolution REAL,
            models INTEGER NOT NULL,
            atoms INTEGER NOT NULL,
            bonds INTEGER NOT NULL,
            chains INTEGER NOT NULL,
            residues INTEGER NOT NULL,
            file_bytes INTEGER NOT NULL,
            added TEXT NOT NULL
        );
        CREATE INDEX molecules_name ON molecules(name COLLATE NOCASE);
        CREATE INDEX molecules_pdb_id ON molecules(pdb_id COLLATE NOCASE);
        CREATE TABLE metadata (
            molecule INTEGER NOT NULL REFERENCES molecules(id) ON DELETE CASCADE,
            key TEXT NOT NULL,
            value TEXT NOT NULL
        );
        CREATE INDEX metadata_molecule ON metadata(molecule);
        CREATE TABLE atoms (
            molecule INTEGER NOT NULL REFERENCES molecules(id) ON DELETE CASCADE,
            idx INTEGER NOT NULL,
            serial INTEGER NOT NULL,
            name TEXT NOT NULL,
            element TEXT NOT NULL,
            residue_name TEXT NOT NULL,
            residue_number INTEGER NOT NULL,
            insertion_code TEXT NOT NULL,
            chain TEXT NOT NULL,
            hetero INTEGER NOT NULL,
            alt_loc TEXT NOT NULL,
            x REAL NOT NULL, y REAL NOT NULL, z REAL NOT NULL,
            occupancy REAL NOT NULL,
            b_factor REAL NOT NULL,
            charge INTEGER NOT NULL,
            PRIMARY KEY (molecule, idx)
        ) WITHOUT ROWID;
        CREATE INDEX atoms_residue_name ON atoms(residue_name);
        CREATE TABLE bonds (
            molecule INTEGER NOT NULL REFERENCES molecules(id) ON DELETE CASCADE,
            a INTEGER NOT NULL,
            b INTEGER NOT NULL,
            bond_order INTEGER NOT NULL,
            aromatic INTEGER NOT NULL,
            source TEXT NOT NULL
        );
        CREATE INDEX bonds_molecule ON bonds(molecule);
        CREATE TABLE originals (
            molecule INTEGER PRIMARY KEY REFERENCES molecules(id) ON DELETE CASCADE,
            bytes BLOB NOT NULL
        );
        CREATE TABLE compact_models (
            molecule INTEGER PRIMARY KEY REFERENCES molecules(id) ON DELETE CASCADE,
            bytes BLOB NOT NULL
        );
        """,
        // 2: who imported a molecule through the service (a token's name), and whether only
        // they may see it.
        """
        ALTER TABLE molecules ADD COLUMN owner TEXT;
        ALTER TABLE molecules ADD COLUMN private INTEGER NOT NULL DEFAULT 0;
        """,
        // 3: the same file may be kept once per scope (public, or private to one owner), so that
        // importing bytes someone else keeps private neither fails nor tells that they are
        // there; files are told apart by SHA-256 too (FNV-1a can be made to collide); ids are
        // never given again after a removal (AUTOINCREMENT). SQLite's way to change a table's
        // constraints: build the new one, copy, drop, rename (foreign keys off meanwhile).
        """
        CREATE TABLE molecules_v3 (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            name TEXT NOT NULL,
            source TEXT NOT NULL,
            checksum TEXT NOT NULL,
            format TEXT NOT NULL,
            pdb_id TEXT,
            title TEXT,
            method TEXT,
            resolution REAL,
            models INTEGER NOT NULL,
            atoms INTEGER NOT NULL,
            bonds INTEGER NOT NULL,
            chains INTEGER NOT NULL,
            residues INTEGER NOT NULL,
            file_bytes INTEGER NOT NULL,
            added TEXT NOT NULL,
            owner TEXT,
            private INTEGER NOT NULL DEFAULT 0,
            sha256 TEXT,
            scope TEXT NOT NULL DEFAULT ''
        );
        INSERT INTO molecules_v3 (id, name, source, checksum, format, pdb_id, title, method, resolution, models, atoms, bonds,
                                  chains, residues, file_bytes, added, owner, private, scope)
            SELECT id, name, source, checksum, format, pdb_id, title, method, resolution, models, atoms, bonds,
                   chains, residues, file_bytes, added, owner, private, CASE WHEN private = 1 THEN COALESCE(owner, '') ELSE '' END
            FROM molecules;
        DROP TABLE molecules;
        ALTER TABLE molecules_v3 RENAME TO molecules;
        CREATE INDEX molecules_name ON molecules(name COLLATE NOCASE);
        CREATE INDEX molecules_pdb_id ON molecules(pdb_id COLLATE NOCASE);
        CREATE INDEX molecules_checksum ON molecules(checksum);
        CREATE UNIQUE INDEX molecules_sha256_scope ON molecules(sha256, scope);
        """,
        // 4: at the scale of the PDB. A molecule is a structure, with every file it was imported
        // from in `sources` (1crn.pdb and 1CRN.cif.gz are one molecule); originals kept
        // zstd-compressed (`codec`); atom and bond rows only for ligands (hetero residues other
        // than water), with chains, ligands and element counts as rows of their own, the rest in
        // the compact model; full-text search (FTS5) over names, titles, authors, keywords,
        // ligand names and sources.
        """
        CREATE TABLE sources (
            id INTEGER PRIMARY KEY,
            molecule INTEGER NOT NULL REFERENCES molecules(id) ON DELETE CASCADE,
            path TEXT NOT NULL,
            format TEXT NOT NULL,
            checksum TEXT NOT NULL,
            sha256 TEXT,
            scope TEXT NOT NULL DEFAULT '',
            file_bytes INTEGER NOT NULL,
            added TEXT NOT NULL
        );
        CREATE INDEX sources_molecule ON sources(molecule);
        CREATE INDEX sources_checksum ON sources(checksum);
        CREATE INDEX sources_sha256 ON sources(sha256);
        INSERT INTO sources (molecule, path, format, checksum, sha256, scope, file_bytes, added)
            SELECT id, source, format, checksum, sha256, scope, file_bytes, added FROM molecules;
        DROP INDEX molecules_sha256_scope;
        CREATE INDEX molecules_sha256 ON molecules(sha256);
        ALTER TABLE originals ADD COLUMN codec TEXT NOT NULL DEFAULT 'raw';
        CREATE TABLE chains (
            molecule INTEGER NOT NULL REFERENCES molecules(id) ON DELETE CASCADE,
            chain TEXT NOT NULL,
            residues INTEGER NOT NULL,
            atoms INTEGER NOT NULL,
            first_atom INTEGER NOT NULL
        );
        CREATE INDEX chains_molecule ON chains(molecule);
        INSERT INTO chains SELECT molecule, chain, count(DISTINCT residue_number || insertion_code), count(*), min(idx)
            FROM atoms GROUP BY molecule, chain;
        CREATE TABLE ligands (
            molecule INTEGER NOT NULL REFERENCES molecules(id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            copies INTEGER NOT NULL,
            atoms INTEGER NOT NULL
        );
        CREATE INDEX ligands_molecule ON ligands(molecule);
        CREATE INDEX ligands_name ON ligands(name);
        INSERT INTO ligands SELECT molecule, residue_name, count(DISTINCT chain || ':' || residue_number || insertion_code), count(*)
            FROM atoms WHERE hetero = 1 AND residue_name NOT IN ('HOH', 'WAT', 'DOD', 'H2O') GROUP BY molecule, residue_name;
        CREATE TABLE elements (
            molecule INTEGER NOT NULL REFERENCES molecules(id) ON DELETE CASCADE,
            element TEXT NOT NULL,
            count INTEGER NOT NULL
        );
        CREATE INDEX elements_molecule ON elements(molecule);
        INSERT INTO elements SELECT molecule, element, count(*) FROM atoms GROUP BY molecule, element;
        DELETE FROM atoms WHERE hetero = 0 OR residue_name IN ('HOH', 'WAT', 'DOD', 'H2O');
        DELETE FROM bonds WHERE NOT EXISTS (SELECT 1 FROM atoms x WHERE x.molecule = bonds.molecule AND x.idx = bonds.a)
            OR NOT EXISTS (SELECT 1 FROM atoms x WHERE x.molecule = bonds.molecule AND x.idx = bonds.b);
        CREATE VIRTUAL TABLE molecule_search USING fts5(name, title, authors, keywords, ligands, sources, tokenize = 'unicode61');
        INSERT INTO molecule_search (rowid, name, title, authors, keywords, ligands, sources)
            SELECT m.id, m.name || ' ' || coalesce(m.pdb_id, ''), coalesce(m.title, ''), '',
                   coalesce((SELECT group_concat(value, ' ') FROM metadata WHERE molecule = m.id AND key IN ('classification', 'compound')), ''),
                   coalesce((SELECT group_concat(name, ' ') FROM ligands WHERE molecule = m.id), ''), m.source
            FROM molecules m;
        CREATE TRIGGER molecules_search_delete AFTER DELETE ON molecules BEGIN
            DELETE FROM molecule_search WHERE rowid = old.id;
        END;
        """,
        // 5: private molecules get ids drawn at random from a range of their own (from 2^40), so
        // that the public ids a stranger sees run on without gaps where private rows were made;
        // public ids keep counting here (never given again after a removal, as AUTOINCREMENT did,
        // whose counter a random id would have carried past 2^40).
        """
        CREATE TABLE id_sequence (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
        INSERT INTO id_sequence (name, value)
            SELECT 'public', max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'molecules'), 0),
                                 coalesce((SELECT max(id) FROM molecules), 0));
        """,
        // 6: what the file says of its entry beyond the first model's coordinates and bonds
        // (helices and strands, entities, assemblies, modified residues, label ids): EntryFacts.
        // Molecules imported before have none until `library rescan`.
        """
        CREATE TABLE entry_facts (
            molecule INTEGER PRIMARY KEY REFERENCES molecules(id) ON DELETE CASCADE,
            bytes BLOB NOT NULL
        );
        """,
    ]

    static var version: Int { migrations.count }

    /// Refuses a file that is not SQLite, or an SQLite database that is not a library (an empty
    /// one is a library not yet made).
    static func check(_ db: SQLiteDatabase) throws {
        let tables: [String]
        do { tables = try db.statement("SELECT name FROM sqlite_master WHERE type = 'table'").all { $0.text(0) ?? "" } } catch {
            throw LibraryError(.request, "\(db.path) is not a Molshot library: not an SQLite database (\(error))")
        }
        guard tables.isEmpty || tables.contains("molecules") else {
            throw LibraryError(.request, "\(db.path) is an SQLite database but not a Molshot library (no molecules table)")
        }
    }

    /// Whether the schema is this version's.
    static func current(_ db: SQLiteDatabase) throws -> Bool {
        (try db.statement("PRAGMA user_version").first { $0.int(0) } ?? 0) == version
    }

    static func migrate(_ db: SQLiteDatabase) throws {
        let have = try db.statement("PRAGMA user_version").first { $0.int(0) } ?? 0
        guard have <= version else {
            throw LibraryError(.machine, "\(db.path) has schema version \(have); this Molshot knows up to \(version)")
        }
        guard have < version else { return }
        // Off for the table rebuilds (a dropped table would take its rows' atoms with it), checked after.
        try db.execute("PRAGMA foreign_keys = OFF")
        defer { try? db.execute("PRAGMA foreign_keys = ON") }
        for v in have..<version {
            try db.transaction {
                try db.execute(migrations[v])
                guard try db.statement("PRAGMA foreign_key_check").all({ $0.text(0) ?? "" }).isEmpty else {
                    throw LibraryError(.machine, "\(db.path): schema version \(v + 1) would leave rows without their molecule")
                }
                try db.execute("PRAGMA user_version = \(v + 1)")
            }
        }
    }
}

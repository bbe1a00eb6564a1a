import Foundation

/// A molecule in the library as listed: the `molecules` row.
public struct MoleculeRecord: Codable, Sendable, Equatable {
    public var id: Int
    public var name: String
    public var source: String
    /// FNV-1a 64 of the imported file's bytes, 16 hex digits: the same checksum thumbnails name files by.
    public var checksum: String
    public var format: String
    public var pdbId: String?
    public var title: String?
    public var method: String?
    public var resolution: Double?
    public var models: Int
    public var atoms: Int
    public var bonds: Int
    public var chains: Int
    public var residues: Int
    /// Bytes of the file as imported (gzip kept as it was).
    public var fileBytes: Int
    /// ISO 8601, UTC.
    public var added: String

    static let columns = "id, name, source, checksum, format, pdb_id, title, method, resolution, models, atoms, bonds, chains, residues, file_bytes, added"

    init(_ s: SQLiteDatabase.Statement) {
        id = s.int(0)
        name = s.text(1) ?? ""
        source = s.text(2) ?? ""
        checksum = s.text(3) ?? ""
        format = s.text(4) ?? ""
        pdbId = s.text(5)
        title = s.text(6)
        method = s.text(7)
        resolution = s.double(8)
        models = s.int(9)
        atoms = s.int(10)
        bonds = s.int(11)
        chains = s.int(12)
        residues = s.int(13)
        fileBytes = s.int(14)
        added = s.text(15) ?? ""
    }

    /// The record as a stranger may see it: the source without the server's folders (a file's
    /// name only) and an upload without its uploader's token name ("uploaded").
    public var withoutServerDetails: MoleculeRecord {
        var r = self
        if source.hasPrefix("upload:") {
            r.source = "uploaded"
        } else if !source.contains("://"), source.contains("/") {
            r.source = String(source.split(separator: "/").last ?? "")
        }
        return r
    }

    /// Absent values are written as `null`, as `info --json` does.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(name, forKey: .name)
        try c.encode(source, forKey: .source)
        try c.encode(checksum, forKey: .checksum)
        try c.encode(format, forKey: .format)
        for (key, value) in [(CodingKeys.pdbId, pdbId), (.title, title), (.method, method)] {
            if let value { try c.encode(value, forKey: key) } else { try c.encodeNil(forKey: key) }
        }
        if let resolution { try c.encode(resolution, forKey: .resolution) } else { try c.encodeNil(forKey: .resolution) }
        try c.encode(models, forKey: .models)
        try c.encode(atoms, forKey: .atoms)
        try c.encode(bonds, forKey: .bonds)
        try c.encode(chains, forKey: .chains)
        try c.encode(residues, forKey: .residues)
        try c.encode(fileBytes, forKey: .fileBytes)
        try c.encode(added, forKey: .added)
    }
}

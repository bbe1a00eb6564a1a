import Core

/// Loads a structure from a file of any supported format, plain or gzip.
public enum StructureFile {
    public struct Options: Sendable {
        /// Most bytes a file may hold once inflated.
        public var maxBytes = FileInput.defaultLimit
        public var format: Structure.Format?
        /// Which alternate locations are kept (the first, as the archive's tools keep them).
        public var altloc = AltLocChoice.first
        /// Only the first model is read (PDB and mmCIF text): a thumbnail shows no other, and an
        /// NMR entry's 20 models had cost 20 times its reading.
        public var firstModelOnly = false
        public init() {}
    }

    public static func load(path: String, options: Options = Options()) throws -> Structure {
        try decode(StructureError.reading { try FileInput.readAll(path: path, limit: options.maxBytes) }, source: path, options: options)
    }

    /// Parses a file's bytes as read from disk, inflating gzip first; `source` names them in errors.
    public static func decode(_ raw: [UInt8], source path: String, options: Options = Options()) throws -> Structure {
        try decode(raw, source: path, options: options, streaming: .whereLarge)
    }

    /// Whether a gzip PDB file is read as it is inflated (`InflatingBytes`): where it inflates to
    /// `PDBAtomReadAhead.minimumBytes` or more, never, or whatever its size (tests and the fuzzer
    /// compare the ways on small inputs).
    enum Streaming {
        case whereLarge, never, always
    }

    static func decode(_ raw: [UInt8], source path: String, options: Options, streaming: Streaming) throws -> Structure {
        guard FileInput.isGzip(raw) else {
            return try parse(raw, source: path, format: options.format, altloc: options.altloc, firstModelOnly: options.firstModelOnly)
        }
        let format = options.format ?? formatFromName(path)
        // A large PDB file is read on both cores while ISA-L inflates it on a third thread: 1aon's
        // 5 MB in 6.3-7.0 ms against 8.9-10.1 inflated whole by libdeflate first (`measure-parse`).
        // The lines come in order, so only PDB's reader (one pass, the atom lines read ahead in
        // windows) is given them.
        if format == .pdb, streaming != .never,
           let filling = InflatingBytes.start(raw, minimum: streaming == .always ? 1 : PDBAtomReadAhead.minimumBytes, limit: options.maxBytes) {
            let read = Result {
                try parse(filling.bytes, source: path, format: .pdb, altloc: options.altloc, firstModelOnly: options.firstModelOnly, filling: filling)
            }
            // What was read is the file's only where the file came out whole; otherwise it is
            // read again below, inflated first, which names what is wrong with the gzip.
            if filling.finish() { return try read.get() }
        }
        // Otherwise inflated whole by libdeflate, then read on every core (zlib's stream, on a
        // thread of its own while one thread read the lines, had been slower: 26-29 ms against
        // 22-25 for bench/run parse's seven .pdb.gz files, 2026-12-01).
        return try parse(StructureError.reading { try FileInput.inflate(raw, source: path, limit: options.maxBytes) }, source: path, format: format,
                         altloc: options.altloc, firstModelOnly: options.firstModelOnly)
    }

    static func checkText(_ head: UnsafeBufferPointer<UInt8>, source: String) throws {
        if head.contains(0) {
            throw StructureError(file: source, line: nil, message: "holds binary data, not a structure file")
        }
    }

    /// Parses bytes already in memory (inflated if they were gzip).
    public static func parse(_ bytes: [UInt8], source: String, format: Structure.Format? = nil, altloc: AltLocChoice = .first,
                             firstModelOnly: Bool = false) throws -> Structure {
        guard !bytes.isEmpty else { throw StructureError(file: source, line: nil, message: "is empty") }
        return try bytes.withUnsafeBufferPointer {
            try parse($0, source: source, format: format, altloc: altloc, firstModelOnly: firstModelOnly, filling: nil)
        }
    }

    /// `parse` of a buffer; `filling`: the buffer is still being inflated, which only PDB's reader
    /// takes (it reads the lines as they come), so `format` is then `.pdb`.
    static func parse(_ b: UnsafeBufferPointer<UInt8>, source: String, format: Structure.Format?, altloc: AltLocChoice,
                      firstModelOnly: Bool, filling: InflatingBytes?) throws -> Structure {
        precondition(filling == nil || format == .pdb, "only PDB is read as it inflates")
        var structure = try { () throws -> Structure in
            if format == nil || format == .mmcif, BinaryCIF.looksLike(b) {
                return try BinaryCIF.read(b, source: source)
            }
            // The first 4096 bytes (of those inflated, where they are still coming).
            var head = min(b.count, 4096)
            if let filling { head = min(head, filling.wait(atLeast: head)) }
            try checkText(UnsafeBufferPointer(rebasing: b[0..<head]), source: source)
            let format = try format ?? detect(b, name: source)
            switch format {
            case .pdb: return try PDBReader.read(b, source: source, readAhead: .whereLarge, firstModelOnly: firstModelOnly, filling: filling)
            case .mmcif: return try MMCIFReader.read(b, source: source, firstModelOnly: firstModelOnly)
            case .sdf: return try SDFReader.read(b, source: source)
            case .mol2: return try MOL2Reader.read(b, source: source)
            case .xyz: return try XYZReader.read(b, source: source)
            case .pqr: return try PQRReader.read(b, source: source)
            }
        }()
        structure.finishReading(altloc: altloc)
        return structure
    }

    /// The format from the file name (less `.gz`), else from the first lines.
    /// The format a file name's extension (less `.gz`) names, if any.
    public static func formatFromName(_ name: String) -> Structure.Format? {
        var lower = name.lowercased()
        if lower.hasSuffix(".gz") { lower.removeLast(3) }
        let base = lower.split(separator: "/").last ?? ""
        guard base.contains(".") else { return nil }
        switch base.split(separator: ".").last.map(String.init) ?? "" {
        case "pdb", "ent", "pdb1", "brk": return .pdb
        case "pqr": return .pqr
        case "cif", "mmcif", "mcif", "bcif": return .mmcif
        case "sdf", "sd", "mol": return .sdf
        case "mol2", "ml2": return .mol2
        case "xyz": return .xyz
        default: return nil
        }
    }

    /// The format from the file name, else from the first lines.
    public static func detect(_ b: UnsafeBufferPointer<UInt8>, name: String) throws -> Structure.Format {
        if let format = formatFromName(name) { return format }
        var lines = LineCursor(b)
        var lineNo = 0
        while let r = lines.next(), lineNo < 200 {
            lineNo += 1
            let text = String(decoding: UnsafeBufferPointer(rebasing: b[r.lowerBound..<min(r.upperBound, r.lowerBound + 80)]), as: UTF8.self)
            if text.hasPrefix("data_") { return .mmcif }
            if text.hasPrefix("@<TRIPOS>") { return .mol2 }
            if text.hasPrefix("ATOM  ") || text.hasPrefix("HETATM") || text.hasPrefix("HEADER") || text.hasPrefix("MODEL ") { return .pdb }
            if lineNo == 1, Int(text.trimmingCharacters(in: " \t")) != nil { return .xyz }
            if lineNo == 4, text.contains("V2000") || text.contains("V3000") { return .sdf }
        }
        throw StructureError(file: name, line: nil, message: "unknown format: not PDB, PQR, mmCIF, SDF/MOL, MOL2 or XYZ")
    }
}

/// Loads a structure from a file of any supported format, plain or gzip.
public enum StructureFile {
    public struct Options: Sendable {
        /// Most bytes a file may hold once inflated.
        public var maxBytes = FileInput.defaultLimit
        public var format: Structure.Format?
        public init() {}
    }

    public static func load(path: String, options: Options = Options()) throws -> Structure {
        let bytes = try FileInput.read(path: path, limit: options.maxBytes)
        return try parse(bytes, source: path, format: options.format)
    }

    public static func parse(_ bytes: [UInt8], source: String, format: Structure.Format? = nil) throws -> Structure {
        guard !bytes.isEmpty else { throw StructureError(file: source, line: nil, message: "is empty") }
        return try bytes.withUnsafeBufferPointer { b in
            let head = UnsafeBufferPointer(rebasing: b[0..<min(b.count, 4096)])
            if head.contains(0) {
                throw StructureError(file: source, line: nil, message: "holds binary data, not a structure file")
            }
            let format = try format ?? detect(b, name: source)
            switch format {
            case .pdb: return try PDBReader.read(b, source: source)
            case .mmcif: return try MMCIFReader.read(b, source: source)
            case .sdf: return try SDFReader.read(b, source: source)
            case .mol2: return try MOL2Reader.read(b, source: source)
            case .xyz: return try XYZReader.read(b, source: source)
            }
        }
    }

    /// The format from the file name (less `.gz`), else from the first lines.
    public static func detect(_ b: UnsafeBufferPointer<UInt8>, name: String) throws -> Structure.Format {
        var lower = name.lowercased()
        if lower.hasSuffix(".gz") { lower.removeLast(3) }
        let ext = lower.split(separator: "/").last?.split(separator: ".").last.map(String.init) ?? ""
        switch ext {
        case "pdb", "ent", "pdb1", "brk", "pqr": return .pdb
        case "cif", "mmcif", "mcif": return .mmcif
        case "sdf", "sd", "mol": return .sdf
        case "mol2", "ml2": return .mol2
        case "xyz": return .xyz
        default: break
        }
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
        throw StructureError(file: name, line: nil, message: "unknown format: not PDB, mmCIF, SDF/MOL, MOL2 or XYZ")
    }
}

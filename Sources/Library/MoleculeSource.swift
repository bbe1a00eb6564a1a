import Core
import Foundation
import Structure

/// Where a command's structure comes from: a file path, `lib:ID` or `lib:NAME` (the library),
/// or `pdb:ID` (the library's copy of that PDB entry, fetched and imported first when the
/// library has none); a bare PDB id that is no file here is taken as `pdb:ID` where an archive
/// is given. One place that every front end asks.
public final class MoleculeSource: Sendable {
    public let libraryPath: String
    public let maxBytes: Int
    /// Fetches `pdb:` entries the library lacks; nil refuses them.
    public let archive: PDBArchive?
    /// Which alternate locations files are read with (the library's molecules were read with the first).
    public let altloc: AltLocChoice
    /// The library, opened on first use; `Handed`: used only inside this lock, by one caller at a time.
    private let library = Locked<Handed<MoleculeLibrary>?>(nil)

    public init(libraryPath: String, maxBytes: Int = FileInput.defaultLimit, archive: PDBArchive? = nil, altloc: AltLocChoice = .first) {
        self.libraryPath = libraryPath
        self.maxBytes = maxBytes
        self.archive = archive
        self.altloc = altloc
    }

    public static func isEntry(_ spec: String) -> Bool { spec.hasPrefix("lib:") || spec.hasPrefix("pdb:") }

    /// The structure `spec` names, and the checksum of its file.
    public func load(_ spec: String) throws -> (structure: Structure, checksum: UInt64) {
        if spec.hasPrefix("lib:") {
            let (record, structure) = try withLibrary(create: false) { try $0.load(String(spec.dropFirst(4))) }
            return (structure, UInt64(record.checksum, radix: 16) ?? 0)
        }
        if spec.hasPrefix("pdb:") {
            let id = String(spec.dropFirst(4))
            let record = try withLibrary(create: archive != nil) { library -> MoleculeRecord in
                if let known = try library.record(pdbID: id) { return known }
                guard let archive else { throw LibraryError(.request, "\(id) is not in the library \(libraryPath)") }
                return try archive.fetch(id, into: library, perception: try BondPerception.standard(), maxBytes: maxBytes).record
            }
            let (_, structure) = try withLibrary(create: false) { try $0.load(String(record.id)) }
            return (structure, UInt64(record.checksum, radix: 16) ?? 0)
        }
        if let entry = StructureInputs.pdbEntry(spec), archive != nil {
            StructureInputs.notePDBEntry(spec, entry)
            return try load(entry)
        }
        let path = try Self.samplePath(spec)
        let raw = try FileInput.readAll(path: path, limit: maxBytes)
        var options = StructureFile.Options()
        options.maxBytes = maxBytes
        options.altloc = altloc
        return (try StructureFile.decode(raw, source: spec, options: options), FNV1a.hash(raw))
    }

    /// The file `spec` names: `sample:NAME` (or `sample:NAME.pdb`) is a sample shipped in
    /// `Assets/samples`, and a path into `Assets/` that is not here (the README's
    /// `Assets/samples/1crn.pdb`, run away from a checkout) is the installed binary's own copy.
    public static func samplePath(_ spec: String) throws -> String {
        if spec.hasPrefix("sample:") {
            let name = String(spec.dropFirst("sample:".count))
            let folder = try Resources.asset("samples")
            let known = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { !$0.hasSuffix(".jsonl") }.sorted()
            for candidate in [name, name + ".pdb", name + ".cif"] where !candidate.contains("/") && known.contains(candidate) {
                return folder.appendingPathComponent(candidate).path
            }
            throw InputFileError(file: spec, message: "is not a sample; the samples are \(known.map { "sample:" + ($0 as NSString).deletingPathExtension }.joined(separator: ", "))")
        }
        if spec.hasPrefix("Assets/"), !FileManager.default.fileExists(atPath: spec), let assets = Resources.assets {
            let installed = assets.appendingPathComponent(String(spec.dropFirst("Assets/".count))).path
            if FileManager.default.fileExists(atPath: installed) { return installed }
        }
        return spec
    }

    /// Runs `body` with the library, opened on first use (made only where `create`: a fetch
    /// imports into it); one caller at a time.
    private func withLibrary<T: Sendable>(create: Bool, _ body: (MoleculeLibrary) throws -> T) throws -> T {
        let path = libraryPath
        return try library.withLock { kept in
            if kept == nil { kept = Handed(try MoleculeLibrary(path: path, create: create)) }
            return try body(kept!.value)
        }
    }
}

import Core
import Structure

/// A prepared import as a render process hands it back to the service, which stores it without
/// reading the file itself: the compact model (the model and its bonds), the kept original and
/// what else the library's rows say, made from the file in that process. The service decodes only
/// Molshot's own compact model, whose every count is checked against its bytes.
extension MoleculeLibrary.PreparedImport {
    /// Everything but the two large blobs, as JSON beside them.
    public struct Wire: Codable, Sendable {
        var format: String
        var id: String, title: String, method: String
        var resolution: Float?
        var metadata: [[String]]
        var modelCount: Int
        var ligandAtoms: [Int]
        var originalCodec: String
        var facts: [UInt8]
        /// Bytes of the compact model at the start of the blob; the original follows.
        public var compactBytes: Int
    }

    /// Atoms of the model kept (the first model).
    public var atomCount: Int { content.model.atoms.count }

    /// The wire form and its blob (the compact model, then the original).
    public func wire() throws -> (Wire, [UInt8]) {
        let m = structure.metadata
        return (Wire(format: structure.format.rawValue, id: m.id, title: m.title, method: m.method, resolution: m.resolution,
                     metadata: content.metadata.map { [$0.0, $0.1] }, modelCount: content.modelCount, ligandAtoms: ligandAtoms,
                     originalCodec: originalCodec, facts: facts.isEmpty ? [] : try facts.encoded(), compactBytes: compact.count),
                compact + original)
    }

    /// The prepared import of `file` from a render process's answer.
    public init(file: MoleculeLibrary.ImportedFile, wire: Wire, blob: [UInt8]) throws {
        guard wire.compactBytes >= 0, wire.compactBytes <= blob.count, let format = Structure.Format(rawValue: wire.format),
              wire.metadata.allSatisfy({ $0.count == 2 }) else {
            throw LibraryError(.machine, "a render process answered an import that does not hold together")
        }
        let compact = Array(blob[..<wire.compactBytes])
        let model = try CompactModel.decode(compact)
        guard wire.ligandAtoms.allSatisfy({ $0 >= 0 && $0 < model.atoms.count }) else {
            throw LibraryError(.machine, "a render process answered an import whose ligand atoms are not its model's")
        }
        var structure = Structure(format: format)
        structure.metadata.id = wire.id
        structure.metadata.title = wire.title
        structure.metadata.method = wire.method
        structure.metadata.resolution = wire.resolution
        structure.models = [model]
        // Facts the file had none of are none here too.
        let facts = wire.facts.isEmpty
            ? EntryFacts(ranges: [], entities: [], assemblies: [], componentNames: [:], modifications: [:], chainLabels: [], chainEntities: [],
                         residueLabelSeq: [], residueParents: [:])
            : try EntryFacts.decode(wire.facts)
        // The model as the file's reader left it (label ids, modified residues' parents), so what
        // is counted from it (polymer chains and residues) is counted as where the file was read.
        if !wire.facts.isEmpty { try facts.apply(to: &structure) }
        let read = structure.models[0]
        self.init(file: file, structure: structure,
                  content: MoleculeContent(model: read, bonds: read.explicitBonds, metadata: wire.metadata.map { ($0[0], $0[1]) }, modelCount: wire.modelCount),
                  compact: compact, original: Array(blob[wire.compactBytes...]), originalCodec: wire.originalCodec,
                  ligandAtoms: wire.ligandAtoms, facts: facts)
    }
}

extension MoleculeLibrary {
    /// Stores an import prepared elsewhere (a render process), in a transaction of its own.
    public func importPrepared(_ p: PreparedImport) throws -> ImportOutcome {
        try database.transaction { try store(p) }
    }
}

import Core
import Foundation
import Structure

/// What a file says of its entry beyond the coordinates and bonds of its first model: helices and
/// strands, entities, assemblies, chemical names, modified residues, and the label ids of chains
/// and residues. Kept beside the compact model (schema 6, table `entry_facts`, zstd JSON) so that
/// a library molecule draws the same picture as its file: the cartoon the file's helices and
/// strands make, the assembly `auto` picks, modified residues in their chains.
struct EntryFacts: Codable, Equatable {
    struct Range: Codable, Equatable {
        var helix: Bool
        var chain: String
        var start: Int32
        var startInsertion: UInt8
        var end: Int32
        var endInsertion: UInt8
    }

    struct Generator: Codable, Equatable {
        var operators: [[String]]
        var chains: [String]
    }

    struct AssemblyFacts: Codable, Equatable {
        var id: String
        var details: String
        var generators: [Generator]
        /// Name to twelve numbers: rotation row by row, then the translation.
        var operators: [String: [Double]]
        var byAuthorChain: Bool
        var problem: String?
    }

    var ranges: [Range]
    var entities: [Entity]
    var assemblies: [AssemblyFacts]
    var componentNames: [String: String]
    var modifications: [String: String]
    var chainLabels: [String]
    var chainEntities: [String]
    var residueLabelSeq: [Int32]
    /// Residue index and parent name of each modified residue.
    var residueParents: [Int32: String]

    init(_ structure: Structure, model: Model) {
        ranges = structure.secondaryStructure.map {
            Range(helix: $0.kind == .helix, chain: $0.chain, start: $0.start, startInsertion: $0.startInsertion, end: $0.end, endInsertion: $0.endInsertion)
        }
        entities = structure.entities
        assemblies = structure.assemblies.map { a in
            AssemblyFacts(id: a.id, details: a.details, generators: a.generators.map { Generator(operators: $0.operators, chains: $0.chains) },
                          operators: a.operators.mapValues { $0.rotation + $0.translation }, byAuthorChain: a.byAuthorChain, problem: a.problem)
        }
        componentNames = structure.componentNames
        modifications = Dictionary(uniqueKeysWithValues: structure.statedModifications.map { ($0.key.description, $0.value.description) })
        chainLabels = model.chains.map(\.labelID)
        chainEntities = model.chains.map(\.entity)
        residueLabelSeq = model.residues.map(\.labelSeq)
        var parents: [Int32: String] = [:]
        for (i, r) in model.residues.enumerated() where r.isModified { parents[Int32(i)] = r.parent.description }
        residueParents = parents
    }

    /// Whether there is anything to keep (a small molecule's file says none of it).
    var isEmpty: Bool {
        ranges.isEmpty && entities.isEmpty && assemblies.isEmpty && componentNames.isEmpty && modifications.isEmpty && residueParents.isEmpty
            && chainLabels.allSatisfy(\.isEmpty) && chainEntities.allSatisfy(\.isEmpty) && residueLabelSeq.allSatisfy { $0 == 0 }
    }

    /// Marks the packed form: the small facts as JSON, what grows with the chains and residues
    /// (label ids, helices and strands) as varints, all zstd'd. Earlier libraries hold zstd JSON
    /// alone, which is still read (JSON decoding of a capsid's 47,000 residue numbers was half of
    /// loading it).
    static let packedMagic: [UInt8] = Array("MEF2".utf8)

    func encoded() throws -> [UInt8] {
        var small = self
        small.ranges = []
        small.chainLabels = []
        small.chainEntities = []
        small.residueLabelSeq = []
        let json = try JSONEncoder().encode(small)
        var w = ByteWriter(capacity: json.count + residueLabelSeq.count * 2 + chainLabels.count * 8 + ranges.count * 12 + 16)
        w.putVarint(UInt64(json.count))
        w.bytes += json
        w.putVarint(UInt64(residueLabelSeq.count))
        w.putDeltas(residueLabelSeq.map { Int64($0) })
        for names in [chainLabels, chainEntities] {
            w.putVarint(UInt64(names.count))
            for name in names { w.put(name) }
        }
        w.putVarint(UInt64(ranges.count))
        for r in ranges {
            w.put(UInt8(r.helix ? 1 : 0))
            w.put(r.chain)
            w.putSigned(Int64(r.start))
            w.put(r.startInsertion)
            w.putSigned(Int64(r.end))
            w.put(r.endInsertion)
        }
        return EntryFacts.packedMagic + Zstd.compress(w.bytes, level: 6)
    }

    static func decode(_ bytes: [UInt8]) throws -> EntryFacts {
        guard bytes.starts(with: packedMagic) else {
            return try JSONDecoder().decode(EntryFacts.self, from: Data(try Zstd.decompress(bytes)))
        }
        var r = ByteReader(try Zstd.decompress(Array(bytes[packedMagic.count...])))
        let jsonLength = try r.getCount()
        try r.need(jsonLength)
        var facts = try JSONDecoder().decode(EntryFacts.self, from: Data(r.bytes[r.offset..<(r.offset + jsonLength)]))
        r.offset += jsonLength
        facts.residueLabelSeq = try r.getDeltas(try r.getCount()).map { Int32(truncatingIfNeeded: $0) }
        facts.chainLabels = try (0..<(try r.getCount())).map { _ in try r.getString() }
        facts.chainEntities = try (0..<(try r.getCount())).map { _ in try r.getString() }
        facts.ranges = try (0..<(try r.getCount())).map { _ in
            Range(helix: try r.get(UInt8.self) != 0, chain: try r.getString(), start: Int32(truncatingIfNeeded: try r.getSigned()),
                  startInsertion: try r.get(UInt8.self), end: Int32(truncatingIfNeeded: try r.getSigned()), endInsertion: try r.get(UInt8.self))
        }
        return facts
    }

    /// Puts the facts back on a structure whose first model is the one they were taken from.
    func apply(to structure: inout Structure) throws {
        structure.secondaryStructure = ranges.map {
            SecondaryStructureRange(kind: $0.helix ? .helix : .strand, chain: $0.chain, start: $0.start, startInsertion: $0.startInsertion,
                                    end: $0.end, endInsertion: $0.endInsertion)
        }
        structure.entities = entities
        structure.assemblies = try assemblies.map { a in
            var operators: [String: Assembly.Operator] = [:]
            for (name, v) in a.operators {
                guard v.count == 12 else { throw LibraryError(.machine, "a stored assembly operator has \(v.count) numbers, not 12") }
                operators[name] = Assembly.Operator(rotation: Array(v[0..<9]), translation: Array(v[9..<12]))
            }
            var assembly = Assembly(id: a.id, details: a.details, generators: a.generators.map { .init(operators: $0.operators, chains: $0.chains) },
                                    operators: operators, byAuthorChain: a.byAuthorChain)
            assembly.problem = a.problem
            return assembly
        }
        structure.componentNames = componentNames
        structure.statedModifications = Dictionary(uniqueKeysWithValues: modifications.map { (ShortName($0.key), ShortName($0.value)) })
        guard var model = structure.models.first else { return }
        guard chainLabels.count == model.chains.count, chainEntities.count == model.chains.count,
              residueLabelSeq.count == model.residues.count else {
            throw LibraryError(.machine, "stored entry facts do not fit the stored model: run `molshot library rescan`")
        }
        for i in model.chains.indices {
            model.chains[i].labelID = chainLabels[i]
            model.chains[i].entity = chainEntities[i]
        }
        for i in model.residues.indices { model.residues[i].labelSeq = residueLabelSeq[i] }
        for (i, p) in residueParents where Int(i) < model.residues.count && i >= 0 { model.residues[Int(i)].parent = ShortName(p) }
        structure.models[0] = model
    }
}

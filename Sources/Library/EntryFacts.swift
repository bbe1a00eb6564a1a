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

    init(ranges: [Range], entities: [Entity], assemblies: [AssemblyFacts], componentNames: [String: String], modifications: [String: String],
         chainLabels: [String], chainEntities: [String], residueLabelSeq: [Int32], residueParents: [Int32: String]) {
        self.ranges = ranges
        self.entities = entities
        self.assemblies = assemblies
        self.componentNames = componentNames
        self.modifications = modifications
        self.chainLabels = chainLabels
        self.chainEntities = chainEntities
        self.residueLabelSeq = residueLabelSeq
        self.residueParents = residueParents
    }

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

    /// Marks the packed forms. `MEF3`: every fact in varint-coded binary, zstd'd. `MEF2` (earlier
    /// libraries): the small facts as JSON beside the same binary columns. Before that, zstd JSON
    /// alone. All three are read (JSON decoding was half of loading a capsid in zstd JSON, and
    /// two fifths of loading an average entry in MEF2).
    static let packedMagic: [UInt8] = Array("MEF3".utf8)
    static let packedMagicJSONSmallFacts: [UInt8] = Array("MEF2".utf8)

    func encoded() throws -> [UInt8] {
        var w = ByteWriter(capacity: 1024 + residueLabelSeq.count * 2 + chainLabels.count * 8 + ranges.count * 12)
        func strings(_ list: [String]) {
            w.putVarint(UInt64(list.count))
            for s in list { w.put(s) }
        }
        func optional(_ s: String?) {
            w.put(UInt8(s == nil ? 0 : 1))
            if let s { w.put(s) }
        }
        w.putVarint(UInt64(entities.count))
        for e in entities {
            w.put(e.id); w.put(e.type); w.put(e.description)
            optional(e.polymerType); optional(e.sequence)
            strings(e.chains)
        }
        w.putVarint(UInt64(assemblies.count))
        for a in assemblies {
            w.put(a.id); w.put(a.details)
            w.putVarint(UInt64(a.generators.count))
            for g in a.generators {
                w.putVarint(UInt64(g.operators.count))
                for product in g.operators { strings(product) }
                strings(g.chains)
            }
            w.putVarint(UInt64(a.operators.count))
            for (name, numbers) in a.operators.sorted(by: { $0.key < $1.key }) {
                w.put(name)
                w.putVarint(UInt64(numbers.count))
                for v in numbers { w.put(v.bitPattern) }
            }
            w.put(UInt8(a.byAuthorChain ? 1 : 0))
            optional(a.problem)
        }
        for map in [componentNames, modifications] {
            w.putVarint(UInt64(map.count))
            for (k, v) in map.sorted(by: { $0.key < $1.key }) { w.put(k); w.put(v) }
        }
        w.putVarint(UInt64(residueParents.count))
        for (k, v) in residueParents.sorted(by: { $0.key < $1.key }) { w.putSigned(Int64(k)); w.put(v) }
        putColumns(&w)
        return EntryFacts.packedMagic + Zstd.compress(w.bytes, level: 6)
    }

    /// What grows with the chains and residues: label ids, residue label numbers, helices and strands.
    private func putColumns(_ w: inout ByteWriter) {
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
    }

    private mutating func getColumns(_ r: inout ByteReader) throws {
        residueLabelSeq = try r.getDeltas(try r.getCount()).map { Int32(truncatingIfNeeded: $0) }
        chainLabels = try (0..<(try r.getCount())).map { _ in try r.getString() }
        chainEntities = try (0..<(try r.getCount())).map { _ in try r.getString() }
        ranges = try (0..<(try r.getCount())).map { _ in
            Range(helix: try r.get(UInt8.self) != 0, chain: try r.getString(), start: Int32(truncatingIfNeeded: try r.getSigned()),
                  startInsertion: try r.get(UInt8.self), end: Int32(truncatingIfNeeded: try r.getSigned()), endInsertion: try r.get(UInt8.self))
        }
    }

    /// The earlier form of `encoded()` (MEF2: the small facts as JSON), kept for the test that
    /// earlier libraries still read back the same.
    func encodedWithJSONSmallFacts() throws -> [UInt8] {
        var small = self
        small.ranges = []
        small.chainLabels = []
        small.chainEntities = []
        small.residueLabelSeq = []
        let json = try JSONEncoder().encode(small)
        var w = ByteWriter(capacity: json.count + residueLabelSeq.count * 2 + chainLabels.count * 8 + ranges.count * 12 + 16)
        w.putVarint(UInt64(json.count))
        w.bytes += json
        putColumns(&w)
        return EntryFacts.packedMagicJSONSmallFacts + Zstd.compress(w.bytes, level: 6)
    }

    static func decode(_ bytes: [UInt8]) throws -> EntryFacts {
        if bytes.starts(with: packedMagicJSONSmallFacts) {
            var r = ByteReader(try Zstd.decompress(Array(bytes[packedMagicJSONSmallFacts.count...])))
            let jsonLength = try r.getCount()
            try r.need(jsonLength)
            var facts = try JSONDecoder().decode(EntryFacts.self, from: Data(r.bytes[r.offset..<(r.offset + jsonLength)]))
            r.offset += jsonLength
            try facts.getColumns(&r)
            return facts
        }
        guard bytes.starts(with: packedMagic) else {
            return try JSONDecoder().decode(EntryFacts.self, from: Data(try Zstd.decompress(bytes)))
        }
        var r = ByteReader(try Zstd.decompress(Array(bytes[packedMagic.count...])))
        func strings() throws -> [String] { try (0..<(try r.getCount())).map { _ in try r.getString() } }
        func optional() throws -> String? { try r.get(UInt8.self) == 0 ? nil : try r.getString() }
        let entities = try (0..<(try r.getCount())).map { _ in
            Entity(id: try r.getString(), type: try r.getString(), description: try r.getString(), polymerType: try optional(),
                   sequence: try optional(), chains: try strings())
        }
        let assemblies = try (0..<(try r.getCount())).map { _ in
            let id = try r.getString(), details = try r.getString()
            let generators = try (0..<(try r.getCount())).map { _ in
                Generator(operators: try (0..<(try r.getCount())).map { _ in try strings() }, chains: try strings())
            }
            var operators: [String: [Double]] = [:]
            for _ in 0..<(try r.getCount()) {
                let name = try r.getString()
                operators[name] = try (0..<(try r.getCount())).map { _ in Double(bitPattern: try r.get(UInt64.self)) }
            }
            return AssemblyFacts(id: id, details: details, generators: generators, operators: operators,
                                 byAuthorChain: try r.get(UInt8.self) != 0, problem: try optional())
        }
        var maps: [[String: String]] = []
        for _ in 0..<2 {
            var map: [String: String] = [:]
            for _ in 0..<(try r.getCount()) { map[try r.getString()] = try r.getString() }
            maps.append(map)
        }
        var parents: [Int32: String] = [:]
        for _ in 0..<(try r.getCount()) { parents[Int32(truncatingIfNeeded: try r.getSigned())] = try r.getString() }
        var facts = EntryFacts(ranges: [], entities: entities, assemblies: assemblies, componentNames: maps[0], modifications: maps[1],
                               chainLabels: [], chainEntities: [], residueLabelSeq: [], residueParents: parents)
        try facts.getColumns(&r)
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

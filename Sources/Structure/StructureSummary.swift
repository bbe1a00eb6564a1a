/// What `molshot info` reports about a structure: metadata, counts, chains, ligands and bonds.
public struct StructureSummary: Codable, Sendable, Equatable {
    public struct ChainSummary: Codable, Sendable, Equatable {
        public var id: String
        /// Residues but waters and single-atom ions, as the RCSB counts them.
        public var residues: Int
        public var atoms: Int
        /// Waters with this chain id, counted apart.
        public var waters: Int = 0
        /// The entity of the chain's polymer (or of its first group), where the file says.
        public var entity: String?
        /// One letter a polymer residue as observed, modified residues as their parent; nil for no polymer.
        public var sequence: String?
    }

    public struct LigandSummary: Codable, Sendable, Equatable {
        public var name: String
        public var count: Int
        /// The chemical name (mmCIF `_chem_comp.name`, PDB HETNAM).
        public var chemicalName: String?
    }

    public struct AssemblySummary: Codable, Sendable, Equatable {
        public var id: String
        public var details: String
        /// Copies of chains it makes: the operator combinations of every generator.
        public var copies: Int
        /// Atoms of the first model's assembly as drawn (default conformer: the first alternate location).
        public var atoms: Int
        /// Every atom record, alternate locations included.
        public var atomRecords: Int
        /// Why it cannot be built, where the file gets it wrong.
        public var problem: String?
    }

    public struct ModifiedResidueSummary: Codable, Sendable, Equatable {
        public var name: String
        public var parent: String
        public var count: Int
    }

    public var file: String
    public var format: String
    public var id: String
    public var title: String
    public var method: String
    public var resolution: Float?
    public var models: Int
    /// Atom records of the first model, every alternate location counted.
    public var atoms: Int
    public var atomsAllModels: Int
    /// Atom records of alternate locations the reading rule left aside (`--altloc`), all models.
    public var alternatesLeftAside = 0
    public var chains: [ChainSummary]
    public var ligands: [LigandSummary]
    public var waters: Int
    /// The first model's beads (an integrative model's spheres, `ResidueKind.coarse`).
    public var beads = 0
    /// Bonds of the first model.
    public var bonds: Int
    public var bondSources: [String: Int]
    public var entities: [Entity] = []
    public var assemblies: [AssemblySummary] = []
    public var modifiedResidues: [ModifiedResidueSummary] = []
    /// EMDB maps the entry names (EMD-NNNN), the one the model was fitted to first.
    public var maps: [String] = []

    /// One rule for absent values in JSON: `null` (an empty id, title or method; no resolution).
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(file, forKey: .file)
        try c.encode(format, forKey: .format)
        for (key, value) in [(CodingKeys.id, id), (.title, title), (.method, method)] {
            if value.isEmpty { try c.encodeNil(forKey: key) } else { try c.encode(value, forKey: key) }
        }
        if let resolution { try c.encode(resolution, forKey: .resolution) } else { try c.encodeNil(forKey: .resolution) }
        try c.encode(models, forKey: .models)
        try c.encode(atoms, forKey: .atoms)
        try c.encode(atomsAllModels, forKey: .atomsAllModels)
        try c.encode(alternatesLeftAside, forKey: .alternatesLeftAside)
        try c.encode(chains, forKey: .chains)
        try c.encode(ligands, forKey: .ligands)
        try c.encode(waters, forKey: .waters)
        try c.encode(bonds, forKey: .bonds)
        try c.encode(bondSources, forKey: .bondSources)
        try c.encode(entities, forKey: .entities)
        try c.encode(assemblies, forKey: .assemblies)
        try c.encode(modifiedResidues, forKey: .modifiedResidues)
        try c.encode(maps, forKey: .maps)
        try c.encode(beads, forKey: .beads)
    }

    public init(file: String, structure: Structure, bonds: [Bond]) {
        self.file = file
        format = structure.format.rawValue
        id = structure.metadata.id
        title = structure.metadata.title
        method = structure.metadata.method
        resolution = structure.metadata.resolution
        maps = structure.metadata.relatedMaps
        models = structure.models.count
        let first = structure.models.first ?? Model(number: 1)
        atoms = first.atoms.count
        atomsAllModels = structure.models.reduce(0) { $0 + $1.atoms.count }
        alternatesLeftAside = structure.alternatesLeftAside

        var chainOrder: [String] = []
        var byID: [String: ChainSummary] = [:]
        var ligandOrder: [String] = []
        var ligandCounts: [String: Int] = [:]
        var waterCount = 0
        var beadCount = 0
        for chain in first.chains {
            if byID[chain.id] == nil {
                chainOrder.append(chain.id)
                byID[chain.id] = ChainSummary(id: chain.id, residues: 0, atoms: 0)
            }
            for r in chain.residues {
                let residue = first.residues[Int(r)]
                if residue.isWater {
                    byID[chain.id]!.waters += 1
                } else if !(residue.isLigand && residue.atoms.count == 1) {
                    byID[chain.id]!.residues += 1
                }
                byID[chain.id]!.atoms += residue.atoms.count
                if residue.kind == .coarse { beadCount += 1 }
                if !residue.isWater && !residue.isLigand && residue.kind != .coarse, let letter = ResidueLetters.letter(residue.name) {
                    byID[chain.id]!.sequence = (byID[chain.id]!.sequence ?? "") + String(letter)
                    if byID[chain.id]!.entity == nil && !chain.entity.isEmpty { byID[chain.id]!.entity = chain.entity }
                }
                if residue.isWater {
                    waterCount += 1
                } else if residue.isLigand && !structure.format.isSmallMolecule {
                    let name = residue.name.description
                    if ligandCounts[name] == nil { ligandOrder.append(name) }
                    ligandCounts[name, default: 0] += 1
                }
            }
        }
        for id in chainOrder where byID[id]!.entity == nil {
            // A chain of ligands or water only (or a PDB file's): the entity that lists it.
            byID[id]!.entity = first.chains.first(where: { $0.id == id && !$0.entity.isEmpty })?.entity
                ?? structure.entities.first(where: { $0.chains.contains(id) })?.id
        }
        // A chain id of waters alone (a PDB file's blank-chain waters) is no chain: its waters are counted apart.
        chains = structure.format.isSmallMolecule ? [] : chainOrder.map { byID[$0]! }.filter { $0.residues > 0 || $0.waters == 0 }
        ligands = ligandOrder.map { LigandSummary(name: $0, count: ligandCounts[$0]!, chemicalName: structure.componentNames[$0]) }
        entities = structure.entities
        assemblies = structure.assemblies.map { a in
            let counts = AssemblyBuilder.atomCounts(a, in: first)
            return AssemblySummary(id: a.id, details: a.details, copies: a.generators.reduce(0) { $0 + $1.operators.count },
                                   atoms: counts.drawn, atomRecords: counts.all, problem: a.problem)
        }
        modifiedResidues = structure.modifiedResidues.map { ModifiedResidueSummary(name: $0.name, parent: $0.parent, count: $0.count) }
        waters = waterCount
        beads = beadCount
        self.bonds = bonds.count
        var sources: [String: Int] = [:]
        for source in Bond.Source.allCases { sources[source.rawValue] = 0 }
        for bond in bonds { sources[bond.source.rawValue, default: 0] += 1 }
        bondSources = sources
    }

    /// A few lines for people.
    public var text: String {
        var lines: [String] = []
        lines.append("file:       \(file)")
        lines.append("format:     \(format)")
        if !id.isEmpty { lines.append("id:         \(id)") }
        if !title.isEmpty { lines.append("title:      \(title)") }
        if !method.isEmpty { lines.append("method:     \(method)") }
        if let resolution { lines.append("resolution: \(resolution) Å") }
        if !maps.isEmpty { lines.append("maps:       \(maps.joined(separator: ", ")) (EMDB)") }
        lines.append("models:     \(models)")
        lines.append("atoms:      \(atoms)" + (models > 1 ? " in model 1, \(atomsAllModels) in all models" : ""))
        if alternatesLeftAside > 0 {
            lines.append("altlocs:    \(alternatesLeftAside) atom records of other alternate locations left aside (--altloc all keeps them)")
        }
        if !chains.isEmpty {
            lines.append("chains:     \(chains.count)")
            for chain in chains {
                lines.append("  \(Model.shown(chain: chain.id)): \(chain.residues) residues, \(chain.atoms) atoms" + (chain.waters > 0 ? " (\(chain.waters) waters)" : ""))
            }
        }
        if !ligands.isEmpty {
            lines.append("ligands:    " + ligands.map { $0.count > 1 ? "\($0.name) x\($0.count)" : $0.name }.joined(separator: ", "))
        }
        if waters > 0 { lines.append("waters:     \(waters)") }
        if beads > 0 { lines.append("beads:      \(beads) (an integrative model's spheres, drawn at their radii)") }
        if !modifiedResidues.isEmpty {
            lines.append("modified:   " + modifiedResidues.map { "\($0.name) (\($0.parent == $0.name ? "cap" : $0.parent))" + ($0.count > 1 ? " x\($0.count)" : "") }.joined(separator: ", "))
        }
        if !entities.isEmpty {
            lines.append("entities:   \(entities.count)")
            for e in entities {
                lines.append("  \(e.id): \(e.type)\(e.description.isEmpty ? "" : ", " + e.description)\(e.chains.isEmpty ? "" : " (chains " + e.chains.joined(separator: ", ") + ")")")
            }
        }
        if !assemblies.isEmpty {
            lines.append("assemblies: \(assemblies.count)")
            for a in assemblies {
                if let problem = a.problem {
                    lines.append("  \(a.id): cannot be built: \(problem)")
                    continue
                }
                lines.append("  \(a.id): \(a.copies) cop\(a.copies == 1 ? "y" : "ies"), \(a.atoms) atoms\(a.details.isEmpty ? "" : " (" + a.details + ")")")
            }
        }
        let sources = Bond.Source.allCases.compactMap { s -> String? in
            let n = bondSources[s.rawValue] ?? 0
            return n > 0 ? "\(n) \(s.rawValue)" : nil
        }
        lines.append("bonds:      \(bonds)" + (sources.isEmpty ? "" : " (" + sources.joined(separator: ", ") + ")"))
        return lines.joined(separator: "\n")
    }
}

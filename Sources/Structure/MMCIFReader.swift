import Core

/// Reads PDBx/mmCIF: the `_atom_site` loop in any column order, streamed without building
/// strings, plus title, method, resolution, `_struct_conn` and `_chem_comp_bond`.
/// Only the first data block is read.
public enum MMCIFReader {
    /// A small loop (or a set of key-value items of one category) kept as text.
    struct Table {
        var tags: [String]
        var rows: [[String?]]

        /// Tags are lower-cased as read (CIF names are case-insensitive); so are the names asked for.
        func column(_ name: String) -> Int? { tags.firstIndex(of: name.lowercased()) }

        func value(_ row: Int, _ names: String...) -> String? {
            for name in names { if let c = column(name), let v = cell(row, c) { return v } }
            return nil
        }

        /// Row `row`'s value in column `c`; nil where the row is shorter (a pair after a loop of the
        /// same category adds a tag to the first row only).
        func cell(_ row: Int, _ c: Int?) -> String? {
            guard let c, row < rows.count, c < rows[row].count else { return nil }
            return rows[row][c]
        }

        var count: Int { rows.count }
    }

    static let keptCategories: Set<String> = ["_struct", "_exptl", "_refine", "_entry", "_struct_conn", "_chem_comp_bond",
                                              "_em_3d_reconstruction", "_reflns", "_struct_keywords", "_audit_author",
                                              "_struct_conf", "_struct_sheet_range", "_entity", "_entity_poly", "_pdbx_entity_nonpoly",
                                              "_chem_comp", "_pdbx_struct_assembly", "_pdbx_struct_assembly_gen",
                                              "_pdbx_struct_oper_list", "_pdbx_struct_mod_residue", "_ma_qa_metric",
                                              "_pdbx_database_related", "_chem_comp_atom", "_ihm_sphere_obj_site"]

    /// `firstModelOnly`: the rows of later models are passed over unread (a picture of the first).
    public static func read(_ b: UnsafeBufferPointer<UInt8>, source: String, firstModelOnly: Bool = false) throws -> Structure {
        var tok = CIFTokenizer(b, source: source)
        var structure = Structure(format: .mmcif)
        var tables: [String: Table] = [:]
        var atomSitePairs: [(String, CIFTokenizer.Token)] = []
        var blocks = 0
        var pending: CIFTokenizer.Token? = nil
        // The blocks of a components file read before the current one.
        var componentBlocks: [[String: Table]] = []

        func category(_ tag: String) -> String {
            tag.firstIndex(of: ".").map { String(tag[..<$0]) } ?? tag
        }

        reading: while true {
            let t: CIFTokenizer.Token
            if let p = pending { t = p; pending = nil } else if let n = try tok.next() { t = n } else { break }
            switch t.kind {
            case .dataBlock:
                blocks += 1
                // A components file (the Chemical Component Dictionary's form: `_chem_comp_atom`,
                // no `_atom_site`) holds one component a block: each block is read, a model each.
                if blocks > 1 {
                    guard structure.models.isEmpty, atomSitePairs.isEmpty,
                          try nextComponentBlock(&componentBlocks, &tables, line: { tok.line(at: t.start) }, source: source) else { break reading }
                }
            case .tag:
                guard let v = try tok.next(), v.kind == .value else {
                    throw StructureError(file: source, line: tok.line(at: t.start), message: "\(tok.text(t)) has no value")
                }
                let tag = tok.text(t)
                let cat = category(tag)
                if cat == "_atom_site" {
                    atomSitePairs.append((tag, v))
                } else if keptCategories.contains(cat) {
                    var table = tables[cat] ?? Table(tags: [], rows: [[]])
                    // After a loop of the same category with no rows, the pair starts the first.
                    if table.rows.isEmpty { table.rows = [Array(repeating: nil, count: table.tags.count)] }
                    table.tags.append(tag)
                    table.rows[0].append(tok.isNull(v) ? nil : tok.text(v))
                    tables[cat] = table
                }
            case .loop:
                var tags: [String] = []
                var next = try tok.next()
                while let n = next, n.kind == .tag {
                    tags.append(tok.text(n))
                    next = try tok.next()
                }
                guard !tags.isEmpty else {
                    throw StructureError(file: source, line: tok.line(at: t.start), message: "loop_ without tags")
                }
                let cat = category(tags[0])
                if cat == "_atom_site" {
                    (structure.models, pending) = try readAtomSite(&tok, tags: tags, first: next, source: source, firstModelOnly: firstModelOnly)
                } else {
                    var table = Table(tags: tags, rows: [])
                    let keep = keptCategories.contains(cat)
                    var row: [String?] = []
                    var start = 0
                    while let n = next, n.kind == .value {
                        if row.isEmpty { start = n.start }
                        row.append(tok.isNull(n) ? nil : (keep ? tok.text(n) : ""))
                        if row.count == tags.count {
                            if keep { table.rows.append(row) }
                            row.removeAll(keepingCapacity: true)
                        }
                        next = try tok.next()
                    }
                    guard row.isEmpty else {
                        throw StructureError(file: source, line: tok.line(at: start),
                                             message: "loop of \(cat) ends in the middle of a row (\(row.count) of \(tags.count) values)")
                    }
                    if keep { tables[cat] = table }
                    pending = next
                }
            case .value:
                throw StructureError(file: source, line: tok.line(at: t.start), message: "value '\(tok.text(t))' without a tag")
            case .saveFrame, .stop:
                break
            }
        }
        guard blocks > 0 else {
            throw StructureError(file: source, line: 1, message: "no data_ block: not an mmCIF file")
        }
        if structure.models.isEmpty && !atomSitePairs.isEmpty {
            // A single atom written as key-value items instead of a loop.
            structure.models = try atomSiteRows(&tok, tags: atomSitePairs.map(\.0), rows: [atomSitePairs.map(\.1)], source: source)
        }
        if structure.models.isEmpty, tables["_chem_comp_atom"] != nil {
            // The first model alone is the first block's (as thumbnails read).
            let blocks = componentBlocks + [tables]
            return try components(firstModelOnly ? Array(blocks.prefix(1)) : blocks, source: source)
        }
        return try assemble(models: structure.models, tables: tables, source: source, firstModelOnly: firstModelOnly)
    }

    /// At a components file's next block: the one before kept (`tables` then start again);
    /// false where the block before was no component's (the first block is the structure).
    @inline(never)
    static func nextComponentBlock(_ blocks: inout [[String: Table]], _ tables: inout [String: Table], line: () -> Int,
                                   source: String) throws -> Bool {
        guard tables["_chem_comp_atom"] != nil else { return false }
        guard blocks.count < maxComponentBlocks else {
            throw StructureError(file: source, line: line(), message: "more than \(maxComponentBlocks) component blocks, the most one file is read with")
        }
        blocks.append(tables)
        tables = [:]
        return true
    }

    /// Blocks of one components file read at most.
    static let maxComponentBlocks = 100_000

    /// A Chemical Component Dictionary entry, or a components file of several, as gemmi, Mol* and
    /// ChimeraX open them: each block's component a model of one residue, its atoms at their
    /// ideal coordinates (else the model coordinates, where the ideal ones are missing), bonded
    /// by the block's own `_chem_comp_bond` with their orders.
    static func components(_ blocks: [[String: Table]], source: String) throws -> Structure {
        var models: [Model] = []
        var templates: [ShortName: ComponentTemplate] = [:]
        var names: [String: String] = [:]
        for block in blocks {
            guard let atoms = block["_chem_comp_atom"], atoms.count > 0 else { continue }
            let name = block["_chem_comp"]?.value(0, "_chem_comp.id") ?? atoms.value(0, "_chem_comp_atom.comp_id") ?? "UNL"
            if let full = block["_chem_comp"]?.value(0, "_chem_comp.name") { names[name] = full }
            func xyz(_ r: Int, _ prefix: String, _ suffix: String) -> SIMD3<Float>? {
                guard let x = atoms.value(r, prefix + "x" + suffix).flatMap(Float.init), let y = atoms.value(r, prefix + "y" + suffix).flatMap(Float.init),
                      let z = atoms.value(r, prefix + "z" + suffix).flatMap(Float.init), x.isFinite, y.isFinite, z.isFinite else { return nil }
                return SIMD3(x, y, z)
            }
            let ideal = (0..<atoms.count).map { xyz($0, "_chem_comp_atom.pdbx_model_cartn_", "_ideal") }
            let useIdeal = !ideal.contains { $0 == nil }
            var model = Model(number: models.count + 1)
            for r in 0..<atoms.count {
                guard let position = useIdeal ? ideal[r] : xyz(r, "_chem_comp_atom.model_cartn_", "") else {
                    throw StructureError(file: source, line: nil, message: "component \(name): atom \(r + 1) has no coordinates (model or ideal)")
                }
                let atomName = atoms.value(r, "_chem_comp_atom.atom_id") ?? ""
                let element = atoms.value(r, "_chem_comp_atom.type_symbol").flatMap(Element.symbol) ?? .unknown
                let charge = atoms.value(r, "_chem_comp_atom.charge").flatMap { Int8($0) } ?? 0
                model.atoms.append(Atom(position: position, serial: Int32(r + 1), residue: 0, name: ShortName(atomName), element: element, charge: charge))
            }
            model.residues = [Residue(name: ShortName(name), number: 1, insertionCode: 0, isHetero: true, chain: 0, atoms: 0..<Int32(model.atoms.count))]
            model.chains = [Chain(id: "A", residues: 0..<1)]
            models.append(model)
            if let bonds = block["_chem_comp_bond"] { templates.merge(embeddedTemplates(bonds)) { a, _ in a } }
        }
        guard !models.isEmpty else { throw StructureError(file: source, line: nil, message: "no _chem_comp_atom records: not a component") }
        var structure = Structure(format: .mmcif)
        structure.models = models
        structure.embeddedTemplates = templates
        structure.componentNames = names
        structure.metadata.id = blocks.first?["_chem_comp"]?.value(0, "_chem_comp.id") ?? ""
        structure.metadata.title = names[structure.metadata.id] ?? ""
        return structure
    }

    /// The structure from its models and the kept categories' tables, however they were read
    /// (this text, or a BinaryCIF document's columns).
    static func assemble(models: [Model], tables: [String: Table], source: String, firstModelOnly: Bool = false) throws -> Structure {
        var structure = Structure(format: .mmcif)
        structure.models = models
        if let spheres = tables["_ihm_sphere_obj_site"], spheres.count > 0 {
            structure.models = try addSpheres(spheres, polymers: tables["_entity_poly"], to: structure.models, source: source, firstModelOnly: firstModelOnly)
        }
        guard !structure.models.isEmpty, structure.models.contains(where: { !$0.atoms.isEmpty }) else {
            throw StructureError(file: source, line: nil, message: "no _atom_site records: not a structure")
        }

        var meta = Metadata()
        meta.id = tables["_entry"]?.value(0, "_entry.id") ?? ""
        meta.title = (tables["_struct"]?.value(0, "_struct.title") ?? "").split(whereSeparator: \.isWhitespace).joined(separator: " ")
        meta.classification = tables["_struct_keywords"]?.value(0, "_struct_keywords.pdbx_keywords") ?? ""
        meta.keywords = tables["_struct_keywords"]?.value(0, "_struct_keywords.text") ?? ""
        if let metrics = tables["_ma_qa_metric"] {
            meta.predicted = (0..<metrics.count).contains { r in
                (metrics.value(r, "_ma_qa_metric.name") ?? "").lowercased().contains("plddt")
                    && (metrics.value(r, "_ma_qa_metric.mode") ?? "local").lowercased() == "local"
            }
        }
        if let authors = tables["_audit_author"] {
            meta.authors = (0..<authors.rows.count).compactMap { authors.value($0, "_audit_author.name") }.joined(separator: ", ")
        }
        if let exptl = tables["_exptl"] {
            meta.method = (0..<exptl.rows.count).compactMap { exptl.value($0, "_exptl.method") }.joined(separator: ", ")
        }
        let resolution = tables["_refine"]?.value(0, "_refine.ls_d_res_high")
            ?? tables["_em_3d_reconstruction"]?.value(0, "_em_3d_reconstruction.resolution")
            ?? tables["_reflns"]?.value(0, "_reflns.d_resolution_high")
        meta.resolution = resolution.flatMap { Float($0) }
        if let related = tables["_pdbx_database_related"] {
            var maps: [(associated: Bool, id: String)] = []
            for r in 0..<related.count where (related.value(r, "_pdbx_database_related.db_name") ?? "").uppercased() == "EMDB" {
                guard let id = related.value(r, "_pdbx_database_related.db_id").flatMap(Metadata.emdbID), !maps.contains(where: { $0.id == id }) else { continue }
                let type = (related.value(r, "_pdbx_database_related.content_type") ?? "").lowercased()
                maps.append((type.contains("associated"), id))
            }
            meta.relatedMaps = maps.filter(\.associated).map(\.id) + maps.filter { !$0.associated }.map(\.id)
        }
        structure.metadata = meta

        structure.secondaryStructure = secondaryStructure(tables["_struct_conf"], "_struct_conf", .helix)
            + secondaryStructure(tables["_struct_sheet_range"], "_struct_sheet_range", .strand)
        if let bonds = tables["_chem_comp_bond"] {
            structure.embeddedTemplates = embeddedTemplates(bonds)
        }
        if let conn = tables["_struct_conn"] {
            for m in structure.models.indices {
                structure.models[m].explicitBonds = resolveStructConn(conn, in: structure.models[m])
            }
        }
        structure.entities = entities(tables, models: structure.models)
        structure.assemblies = try assemblies(tables, source: source)
        if let comps = tables["_chem_comp"] {
            for r in 0..<comps.count {
                if let id = comps.value(r, "_chem_comp.id"), let name = comps.value(r, "_chem_comp.name") {
                    structure.componentNames[id] = name
                }
            }
        }
        if let mods = tables["_pdbx_struct_mod_residue"] {
            for r in 0..<mods.count {
                if let name = mods.value(r, "_pdbx_struct_mod_residue.label_comp_id", "_pdbx_struct_mod_residue.auth_comp_id"),
                   let parent = mods.value(r, "_pdbx_struct_mod_residue.parent_comp_id") {
                    structure.statedModifications[ShortName(name)] = ShortName(parent)
                }
            }
        }
        return structure
    }

    /// `_entity` with `_entity_poly`'s type and sequence; each entity's chains from the atoms' label ids.
    static func entities(_ tables: [String: Table], models: [Model]) -> [Entity] {
        guard let table = tables["_entity"] else { return [] }
        var poly: [String: (type: String?, sequence: String?)] = [:]
        if let p = tables["_entity_poly"] {
            for r in 0..<p.count {
                guard let id = p.value(r, "_entity_poly.entity_id") else { continue }
                let sequence = p.value(r, "_entity_poly.pdbx_seq_one_letter_code_can", "_entity_poly.pdbx_seq_one_letter_code")
                    .map { $0.filter { !$0.isWhitespace } }
                poly[id] = (p.value(r, "_entity_poly.type"), sequence)
            }
        }
        var chains: [String: [String]] = [:]
        if let model = models.first {
            for chain in model.chains where !chain.entity.isEmpty && !chain.labelID.isEmpty {
                if !(chains[chain.entity]?.contains(chain.labelID) ?? false) { chains[chain.entity, default: []].append(chain.labelID) }
            }
        }
        return (0..<table.count).compactMap { r in
            guard let id = table.value(r, "_entity.id") else { return nil }
            return Entity(id: id, type: table.value(r, "_entity.type") ?? "", description: table.value(r, "_entity.pdbx_description") ?? "",
                          polymerType: poly[id]?.type, sequence: poly[id]?.sequence, chains: chains[id] ?? [])
        }
    }

    /// An integrative model's beads (`_ihm_sphere_obj_site`, python-ihm's and PDB-IHM's coarse
    /// parts) added to the models they name (`model_id`; a model of beads alone where the file has
    /// no atoms for it): a residue each, named as the entity's sequence (`_entity_poly`'s canonical
    /// one-letter code) names its first residue (`seq_id_begin`), else UNK, in a chain of its `asym_id` after the model's atomic chains, of kind
    /// `coarse`, at its `object_radius` (`Model.radii`; the atoms' entries 0, their element's).
    static func addSpheres(_ t: Table, polymers: Table?, to models: [Model], source: String, firstModelOnly: Bool) throws -> [Model] {
        var models = models
        // Each polymer entity's residue names by position, from its canonical sequence.
        var sequences: [String: (letters: [Character], type: String)] = [:]
        if let polymers {
            for r in 0..<polymers.count {
                guard let e = polymers.value(r, "_entity_poly.entity_id"), let code = polymers.value(r, "_entity_poly.pdbx_seq_one_letter_code_can") else { continue }
                sequences[e] = (Array(code.filter { !$0.isWhitespace }), (polymers.value(r, "_entity_poly.type") ?? "").lowercased())
            }
        }
        func name(_ entity: String, _ position: Int32) -> ShortName {
            guard let s = sequences[entity], position >= 1, Int(position) <= s.letters.count else { return ShortName("UNK") }
            let letter = s.letters[Int(position) - 1]
            if s.type.contains("deoxyribonucleotide") { return ShortName("D" + String(letter)) }
            if s.type.contains("ribonucleotide") { return ShortName(String(letter)) }
            return ResidueLetters.aminoAcidNames[letter] ?? ShortName("UNK")
        }
        // Read for its first model alone: that model's beads (the lowest model's, with no atoms).
        let only: Int? = firstModelOnly
            ? (models.first?.number ?? (0..<t.count).compactMap { t.value($0, "_ihm_sphere_obj_site.model_id").flatMap { Int($0) } ?? 1 }.min())
            : nil
        // Each model's place by its number, looked up once a row (a file may name many).
        var index: [Int: Int] = [:]
        for (k, model) in models.enumerated() where index[model.number] == nil { index[model.number] = k }
        for r in 0..<t.count {
            if let only, (t.value(r, "_ihm_sphere_obj_site.model_id").flatMap { Int($0) } ?? 1) != only { continue }
            func number(_ tag: String) throws -> Float {
                guard let text = t.value(r, "_ihm_sphere_obj_site." + tag), let v = Float(text), v.isFinite else {
                    throw StructureError(file: source, line: nil, message: "_ihm_sphere_obj_site row \(r + 1): bad or missing \(tag) '\(t.value(r, "_ihm_sphere_obj_site." + tag) ?? "?")'")
                }
                return v
            }
            let modelNumber = t.value(r, "_ihm_sphere_obj_site.model_id").flatMap { Int($0) } ?? 1
            let position = SIMD3(try number("Cartn_x"), try number("Cartn_y"), try number("Cartn_z"))
            let radius = try number("object_radius")
            guard radius >= 0, radius <= 1000 else {
                throw StructureError(file: source, line: nil, message: "_ihm_sphere_obj_site row \(r + 1): object_radius \(radius) is not a bead's (0 to 1000 A)")
            }
            let asym = t.value(r, "_ihm_sphere_obj_site.asym_id") ?? "A"
            let entity = t.value(r, "_ihm_sphere_obj_site.entity_id") ?? ""
            let begin = t.value(r, "_ihm_sphere_obj_site.seq_id_begin").flatMap { Int32($0) } ?? Int32(r + 1)
            let m: Int
            if let found = index[modelNumber] { m = found } else {
                models.append(Model(number: modelNumber))
                m = models.count - 1
                index[modelNumber] = m
            }
            // In place: a copy of the model a row had made the beads' reading quadratic.
            let seqEnd = t.value(r, "_ihm_sphere_obj_site.seq_id_end").flatMap { Int32($0) }
            addBead(to: &models[m], at: position, radius: radius, asym: asym, entity: entity, name: name(entity, begin), begin: begin, end: seqEnd)
        }
        return models.sorted { $0.number < $1.number }
    }

    /// One bead appended to `model`: in the last chain where that is this asym's beads, else a
    /// new chain after the rest; its run's last residue kept where a bead's label number would be
    /// (`labelSeq`, the writer's `seq_id_end`).
    static func addBead(to model: inout Model, at position: SIMD3<Float>, radius: Float, asym: String, entity: String, name: ShortName,
                        begin: Int32, end: Int32?) {
        if model.radii?.count != model.atoms.count {
            model.radii = (model.radii ?? []) + [Float](repeating: 0, count: model.atoms.count - (model.radii?.count ?? 0))
        }
        if model.chains.last.map({ $0.id == asym && $0.labelID == asym && !$0.residues.isEmpty
                && Int($0.residues.lowerBound) < model.residues.count && model.residues[Int($0.residues.lowerBound)].kind == .coarse }) != true {
            var chain = Chain(id: asym, residues: Int32(model.residues.count)..<Int32(model.residues.count))
            chain.labelID = asym
            chain.entity = entity
            model.chains.append(chain)
        }
        let atom = Int32(model.atoms.count)
        model.atoms.append(Atom(position: position, serial: Int32(clamping: model.atoms.count + 1), residue: Int32(model.residues.count),
                                name: ShortName("BEAD"), element: .unknown))
        model.radii!.append(radius)
        var residue = Residue(name: name, number: begin, insertionCode: 0, isHetero: false, chain: Int32(model.chains.count - 1), atoms: atom..<atom + 1)
        residue.kind = .coarse
        residue.labelSeq = end.map { max($0, begin) } ?? begin
        model.residues.append(residue)
        let c = model.chains.count - 1
        model.chains[c].residues = model.chains[c].residues.lowerBound..<Int32(model.residues.count)
    }

    /// `_pdbx_struct_assembly`, its generators and the operators they name.
    static func assemblies(_ tables: [String: Table], source: String) throws -> [Assembly] {
        guard let table = tables["_pdbx_struct_assembly"], let gen = tables["_pdbx_struct_assembly_gen"] else { return [] }
        var operators: [String: Assembly.Operator] = [:]
        if let list = tables["_pdbx_struct_oper_list"] {
            for r in 0..<list.count {
                guard let id = list.value(r, "_pdbx_struct_oper_list.id") else { continue }
                var rotation = [Double](repeating: 0, count: 9), translation = [Double](repeating: 0, count: 3)
                var complete = true
                for i in 1...3 {
                    for j in 1...3 {
                        if let v = list.value(r, "_pdbx_struct_oper_list.matrix[\(i)][\(j)]").flatMap(Double.init), v.isFinite {
                            rotation[(i - 1) * 3 + j - 1] = v
                        } else { complete = false }
                    }
                    if let v = list.value(r, "_pdbx_struct_oper_list.vector[\(i)]").flatMap(Double.init), v.isFinite {
                        translation[i - 1] = v
                    } else { complete = false }
                }
                // An operator without all its numbers is left out: the assemblies that name it say so.
                if complete { operators[id] = Assembly.Operator(rotation: rotation, translation: translation) }
            }
        }
        // The generator rows by assembly, in one pass: a file of many assemblies and many rows
        // is read in time linear in its rows, not their product.
        let assemblyColumn = gen.column("_pdbx_struct_assembly_gen.assembly_id"), expressionColumn = gen.column("_pdbx_struct_assembly_gen.oper_expression")
        let chainsColumn = gen.column("_pdbx_struct_assembly_gen.asym_id_list")
        var rowsOf: [String: [Int]] = [:]
        if let assemblyColumn {
            for g in 0..<gen.count { if let id = gen.cell(g, assemblyColumn) { rowsOf[id, default: []].append(g) } }
        }
        // Copies counted across every assembly of the file before any is expanded: past the
        // limit, the rest are listed with the reason and not built.
        var copiesLeft = AssemblyBuilder.maxCopies
        var out: [Assembly] = []
        let idColumn = table.column("_pdbx_struct_assembly.id"), detailsColumn = table.column("_pdbx_struct_assembly.details")
        for r in 0..<table.count {
            guard let id = table.cell(r, idColumn) else { continue }
            var generators: [Assembly.Generator] = []
            var problem: String?
            for g in rowsOf[id] ?? [] where problem == nil {
                guard let expression = gen.cell(g, expressionColumn), let chains = gen.cell(g, chainsColumn) else { continue }
                // A bad assembly is kept with what is wrong with it (listed, refused when asked for):
                // the deposited model still reads.
                do {
                    let parsed = try AssemblyBuilder.parse(expression, source: source)
                    let copies = parsed.copies ?? Int.max
                    guard copies <= copiesLeft else {
                        problem = "the file's assemblies list more than \(AssemblyBuilder.maxCopies) copies in all (max-copies)"
                        break
                    }
                    copiesLeft -= copies
                    let ops = AssemblyBuilder.expand(parsed)
                    if let op = ops.joined().first(where: { operators[$0] == nil }) {
                        problem = "it names operator \(Excerpt.of(op, length: 40)), which _pdbx_struct_oper_list does not define whole"
                    }
                    generators.append(.init(operators: ops, chains: chains.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }))
                } catch let error as StructureError {
                    problem = error.message
                }
            }
            let details = table.cell(r, detailsColumn) ?? ""
            var assembly = Assembly(id: id, details: details, generators: problem == nil ? generators : [], operators: operators)
            assembly.problem = problem
            out.append(assembly)
        }
        return out
    }

    /// Fields of `_atom_site` Molshot reads; author (auth_) names win over label_ ones, as in PDB files.
    struct AtomSiteColumns {
        var group = -1, id = -1, symbol = -1, atomName = -1, altID = -1, residueName = -1, chain = -1
        var sequence = -1, insertion = -1, x = -1, y = -1, z = -1, occupancy = -1, bFactor = -1, charge = -1, model = -1
        var labelAsym = -1, labelEntity = -1, labelSeq = -1

        init(_ tags: [String]) {
            func col(_ names: String...) -> Int {
                for n in names { if let i = tags.firstIndex(of: "_atom_site." + n) { return i } }
                return -1
            }
            group = col("group_pdb")
            id = col("id")
            symbol = col("type_symbol")
            atomName = col("auth_atom_id", "label_atom_id")
            altID = col("label_alt_id", "auth_alt_id")
            residueName = col("auth_comp_id", "label_comp_id")
            chain = col("auth_asym_id", "label_asym_id")
            sequence = col("auth_seq_id", "label_seq_id")
            insertion = col("pdbx_pdb_ins_code")
            x = col("cartn_x")
            y = col("cartn_y")
            z = col("cartn_z")
            occupancy = col("occupancy")
            bFactor = col("b_iso_or_equiv")
            charge = col("pdbx_formal_charge")
            model = col("pdbx_pdb_model_num")
            labelAsym = col("label_asym_id")
            labelEntity = col("label_entity_id")
            labelSeq = col("label_seq_id")
        }
    }

    /// Streams the `_atom_site` loop's values into models; returns the token that ended the loop.
    static func readAtomSite(_ tok: inout CIFTokenizer, tags: [String], first: CIFTokenizer.Token?,
                             source: String, firstModelOnly: Bool = false) throws -> ([Model], CIFTokenizer.Token?) {
        var reader = try AtomSiteReader(tags: tags, source: source, reserve: tok.bytes.count / 90)
        reader.firstModelOnly = firstModelOnly
        var row = [CIFTokenizer.Token](repeating: CIFTokenizer.Token(kind: .value, start: 0, end: 0, quoted: false), count: tags.count)
        var filled = 0
        var next = first
        while let n = next, n.kind == .value {
            row[filled] = n
            filled += 1
            if filled == tags.count {
                try reader.add(row, &tok)
                filled = 0
            }
            next = try tok.next()
        }
        if filled != 0 {
            throw StructureError(file: source, line: tok.line(at: row[0].start),
                                 message: "_atom_site loop ends in the middle of a row (\(filled) of \(tags.count) values)")
        }
        return (reader.finish(), next)
    }

    static func atomSiteRows(_ tok: inout CIFTokenizer, tags: [String], rows: [[CIFTokenizer.Token]], source: String) throws -> [Model] {
        var reader = try AtomSiteReader(tags: tags, source: source, reserve: rows.count)
        for row in rows { try reader.add(row, &tok) }
        return reader.finish()
    }

    struct AtomSiteReader {
        let c: AtomSiteColumns
        let source: String
        var models: [Model] = []
        var builder: ModelBuilder
        var modelNumber = Int.min
        var serial: Int32 = 0
        /// The rows after the first model's are passed over.
        var firstModelOnly = false
        private var pastFirstModel = false

        init(tags: [String], source: String, reserve: Int) throws {
            c = AtomSiteColumns(tags)
            self.source = source
            guard c.x >= 0, c.y >= 0, c.z >= 0 else {
                throw StructureError(file: source, line: nil, message: "_atom_site has no Cartn_x, Cartn_y and Cartn_z columns")
            }
            guard c.atomName >= 0 || c.symbol >= 0 else {
                throw StructureError(file: source, line: nil, message: "_atom_site has neither atom names nor type_symbol")
            }
            builder = ModelBuilder(number: 1, reserve: reserve)
        }

        @inline(__always)
        mutating func add(_ row: [CIFTokenizer.Token], _ tok: inout CIFTokenizer) throws {
            let b = tok.bytes
            @inline(__always) func name(_ col: Int) -> ShortName {
                guard col >= 0 else { return .empty }
                let t = row[col]
                return tok.isNull(t) ? .empty : ShortName(b, t.start, t.end)
            }
            if pastFirstModel { return }
            if c.model >= 0 {
                let t = row[c.model]
                let number = ByteFields.int(b, t.start, t.end) ?? 1
                if number != modelNumber {
                    if firstModelOnly && builder.atomCount > 0 {
                        pastFirstModel = true
                        return
                    }
                    if builder.atomCount > 0 { models.append(builder.finish()) }
                    builder = ModelBuilder(number: number, reserve: builder.atomCount)
                    modelNumber = number
                }
            }
            func coordinate(_ col: Int, _ axis: String) throws -> Float {
                let t = row[col]
                guard let v = ByteFields.float(b, t.start, t.end), v.isFinite else {
                    var tok2 = tok
                    throw StructureError(file: source, line: tok2.line(at: t.start),
                                         message: "bad Cartn_\(axis) '\(ByteFields.text(b, t.start, t.end))' in _atom_site")
                }
                return v
            }
            let x = try coordinate(c.x, "x"), y = try coordinate(c.y, "y"), z = try coordinate(c.z, "z")
            if c.id >= 0, let v = ByteFields.int(b, row[c.id].start, row[c.id].end) { serial = Int32(clamping: v) } else { serial += 1 }
            let atomName = name(c.atomName)
            let residueName = name(c.residueName)
            var element: Element? = nil
            if c.symbol >= 0 {
                let t = row[c.symbol]
                var e = t.start
                while e < t.end && Element.isLetter(b[e]) { e += 1 }
                element = Element.symbol(in: b, t.start, e)
            }
            let altName = name(c.altID)
            let occupancy = c.occupancy >= 0 ? ByteFields.float(b, row[c.occupancy].start, row[c.occupancy].end) ?? 1 : 1
            let bFactor = c.bFactor >= 0 ? ByteFields.float(b, row[c.bFactor].start, row[c.bFactor].end) ?? 0 : 0
            let charge = c.charge >= 0 ? Int8(clamping: ByteFields.int(b, row[c.charge].start, row[c.charge].end) ?? 0) : 0
            let sequence = c.sequence >= 0 ? ByteFields.int(b, row[c.sequence].start, row[c.sequence].end) ?? 0 : 0
            let insertion = name(c.insertion)
            var hetero = false
            if c.group >= 0 {
                let t = row[c.group]
                hetero = t.end - t.start == 6 && b[t.start] == 0x48  // HETATM
            }
            let atom = Atom(position: SIMD3(x, y, z), occupancy: occupancy, bFactor: bFactor, serial: serial,
                            name: atomName, element: element ?? MMCIFReader.inferElement(atomName, residueName: residueName),
                            altLoc: altName.byte(0), charge: charge)
            var label = ModelBuilder.Label()
            label.asym = name(c.labelAsym)
            label.entity = name(c.labelEntity)
            if c.labelSeq >= 0 { label.seq = Int32(clamping: ByteFields.int(b, row[c.labelSeq].start, row[c.labelSeq].end) ?? 0) }
            builder.add(atom, chain: name(c.chain), residueName: residueName, residueNumber: Int32(clamping: sequence),
                        insertionCode: insertion.byte(0), hetero: hetero, label: label)
        }

        mutating func finish() -> [Model] {
            if builder.atomCount > 0 { models.append(builder.finish()) }
            return models
        }
    }

    /// Without type_symbol: an ion's name is its element (residue "ZN", atom "ZN"); otherwise the first letter.
    /// Helices (`_struct_conf` rows whose type starts HELX) or strands (`_struct_sheet_range`), by the
    /// author's chain and numbers as the atoms are read.
    static func secondaryStructure(_ table: Table?, _ category: String, _ kind: SecondaryStructureRange.Kind) -> [SecondaryStructureRange] {
        guard let table else { return [] }
        var out: [SecondaryStructureRange] = []
        for r in 0..<table.rows.count {
            if kind == .helix, !(table.value(r, category + ".conf_type_id")?.uppercased().hasPrefix("HELX") ?? false) { continue }
            guard let chain = table.value(r, category + ".beg_auth_asym_id", category + ".beg_label_asym_id"),
                  let a = table.value(r, category + ".beg_auth_seq_id", category + ".beg_label_seq_id").flatMap({ Int32($0) }),
                  let z = table.value(r, category + ".end_auth_seq_id", category + ".end_label_seq_id").flatMap({ Int32($0) }) else { continue }
            func code(_ name: String) -> UInt8 {
                guard let v = table.value(r, category + "." + name), let c = v.utf8.first, v != "?", v != "." else { return 0 }
                return c
            }
            out.append(SecondaryStructureRange(kind: kind, chain: chain, start: a, startInsertion: code("pdbx_beg_PDB_ins_code"),
                                               end: z, endInsertion: code("pdbx_end_PDB_ins_code")))
        }
        return out
    }

    static func inferElement(_ atomName: ShortName, residueName: ShortName) -> Element {
        if atomName == residueName, atomName.length == 2, let e = Element.symbol(atomName.byte(0), atomName.byte(1)) { return e }
        return Element.symbol(atomName.byte(0)) ?? .unknown
    }

    static func embeddedTemplates(_ table: Table) -> [ShortName: ComponentTemplate] {
        var templates: [ShortName: ComponentTemplate] = [:]
        for r in table.rows.indices {
            guard let comp = table.value(r, "_chem_comp_bond.comp_id"),
                  let a = table.value(r, "_chem_comp_bond.atom_id_1"),
                  let b = table.value(r, "_chem_comp_bond.atom_id_2") else { continue }
            let order: UInt8
            switch table.value(r, "_chem_comp_bond.value_order")?.uppercased() ?? "SING" {
            case "DOUB": order = 2
            case "TRIP": order = 3
            case "QUAD": order = 4
            default: order = 1
            }
            let aromatic = table.value(r, "_chem_comp_bond.pdbx_aromatic_flag")?.uppercased() == "Y"
                || table.value(r, "_chem_comp_bond.value_order")?.uppercased() == "AROM"
            let key = ShortName(comp)
            templates[key, default: ComponentTemplate(name: key, bonds: [])].bonds
                .append(.init(a: ShortName(a), b: ShortName(b), order: order, aromatic: aromatic))
        }
        return templates
    }

    /// Covalent links and disulfides of `_struct_conn` between atoms of the asymmetric unit.
    /// Metal coordination and hydrogen bonds are not covalent bonds and are left out.
    static func resolveStructConn(_ table: Table, in model: Model) -> [Bond] {
        let locator = AtomLocator(model)
        var bonds: [Bond] = []
        for r in table.rows.indices {
            guard let type = table.value(r, "_struct_conn.conn_type_id")?.lowercased(),
                  type.hasPrefix("covale") || type == "disulf" else { continue }
            func partner(_ n: Int) -> [Int32] {
                let p = "_struct_conn.ptnr\(n)_", x = "_struct_conn.pdbx_ptnr\(n)_"
                if let sym = table.value(r, p + "symmetry"), sym != "1_555" { return [] }
                guard let chain = table.value(r, p + "auth_asym_id", p + "label_asym_id"),
                      let seq = table.value(r, p + "auth_seq_id", p + "label_seq_id").flatMap({ Int($0) }),
                      let atom = table.value(r, p + "label_atom_id", p + "auth_atom_id") else { return [] }
                let ins = table.value(r, x + "pdb_ins_code").map { ShortName($0).byte(0) } ?? 0
                let alt = table.value(r, x + "label_alt_id").map { ShortName($0).byte(0) } ?? 0
                return locator.atoms(chain: ShortName(chain), number: Int32(clamping: seq), insertion: ins,
                                     name: ShortName(atom), altLoc: alt)
            }
            for a in partner(1) {
                for b in partner(2) where a != b {
                    let altA = model.atoms[Int(a)].altLoc, altB = model.atoms[Int(b)].altLoc
                    if altA != 0 && altB != 0 && altA != altB { continue }
                    bonds.append(Bond(a, b, order: 1, source: .explicit))
                }
            }
        }
        return bonds
    }
}

/// Finds atoms by chain id, residue number, insertion code and name.
struct AtomLocator {
    private let model: Model
    private var residues: [ResidueKey: [Int32]] = [:]

    struct ResidueKey: Hashable {
        var chain: ShortName
        var number: Int32
        var insertion: UInt8
    }

    init(_ model: Model) {
        self.model = model
        for (i, residue) in model.residues.enumerated() {
            let chain = ShortName(model.chains[Int(residue.chain)].id)
            residues[ResidueKey(chain: chain, number: residue.number, insertion: residue.insertionCode), default: []].append(Int32(i))
        }
    }

    func atoms(chain: ShortName, number: Int32, insertion: UInt8, name: ShortName, altLoc: UInt8) -> [Int32] {
        var found: [Int32] = []
        for r in residues[ResidueKey(chain: chain, number: number, insertion: insertion)] ?? [] {
            for i in model.residues[Int(r)].atoms where model.atoms[Int(i)].name == name {
                let alt = model.atoms[Int(i)].altLoc
                if altLoc == 0 || alt == 0 || alt == altLoc { found.append(i) }
            }
        }
        return found
    }
}

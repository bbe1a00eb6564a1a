import Core

/// BinaryCIF read straight into the model: `_atom_site`'s columns decoded into typed arrays and
/// walked row by row into models (no mmCIF text made and read again), the categories
/// `MMCIFReader` keeps decoded into its tables, every other category passed over undecoded. The
/// structure is then assembled by the same code as a text file's, so both read alike.
extension BinaryCIF {
    public static func read(_ b: UnsafeBufferPointer<UInt8>, source: String) throws -> Structure {
        let doc = MessagePack(b, source: source)
        let end = try doc.skip(0)
        guard end == b.count else { throw fail(source, "\(b.count - end) bytes after the document") }
        let root = try doc.item(at: 0)
        guard let blocks = try doc.lookup(root, "dataBlocks"), blocks.kind == .array, blocks.count >= 1 else { throw fail(source, "no dataBlocks") }
        let block = try doc.item(at: blocks.start)
        guard block.kind == .map, let categories = try doc.lookup(block, "categories"), categories.kind == .array else {
            throw fail(source, "the first data block has no categories")
        }
        var budget = Budget(left: valueBudget(bytes: b.count), source: source)
        var tables: [String: MMCIFReader.Table] = [:]
        var models: [Model] = []
        try doc.forEach(categories) { category in
            let name = try categoryName(category, doc).lowercased()
            if name == "_atom_site" {
                guard let (_, rows, columns) = try decodeCategory(category, doc, &budget, wanted: AtomSiteColumns.names) else { return }
                models = try AtomSiteColumns(columns, source: source).models(rows: rows)
            } else if MMCIFReader.keptCategories.contains(name) {
                guard let (_, rows, columns) = try decodeCategory(category, doc, &budget, wanted: nil) else { return }
                let table = MMCIFReader.Table(tags: columns.map { name + "." + $0.0.lowercased() },
                                              rows: (0..<rows).map { r in columns.map { $0.1.string(r) } })
                tables[name] = table
            }
        }
        return try MMCIFReader.assemble(models: models, tables: tables, source: source)
    }

    /// `_atom_site`'s columns as `MMCIFReader.AtomSiteColumns` picks them (author names first).
    struct AtomSiteColumns {
        static let names: Set<String> = ["group_pdb", "id", "type_symbol", "auth_atom_id", "label_atom_id", "label_alt_id", "auth_alt_id",
                                         "auth_comp_id", "label_comp_id", "auth_asym_id", "label_asym_id", "auth_seq_id", "label_seq_id",
                                         "pdbx_pdb_ins_code", "cartn_x", "cartn_y", "cartn_z", "occupancy", "b_iso_or_equiv",
                                         "pdbx_formal_charge", "pdbx_pdb_model_num", "label_entity_id"]
        let byName: [String: Column]
        let source: String

        init(_ columns: [(String, Column)], source: String) {
            var byName: [String: Column] = [:]
            for (name, column) in columns { byName[name.lowercased()] = column }
            self.byName = byName
            self.source = source
        }

        func column(_ names: String...) -> Column? { names.lazy.compactMap { byName[$0] }.first }

        func models(rows: Int) throws -> [Model] {
            guard let x = column("cartn_x")?.floats(), let y = column("cartn_y")?.floats(), let z = column("cartn_z")?.floats() else {
                throw fail(source, "_atom_site has no Cartn_x, Cartn_y and Cartn_z columns")
            }
            let atomNames = column("auth_atom_id", "label_atom_id")?.names()
            let symbols = column("type_symbol")?.elements()
            guard atomNames != nil || symbols != nil else { throw fail(source, "_atom_site has neither atom names nor type_symbol") }
            let alt = column("label_alt_id", "auth_alt_id")?.names()
            let residueNames = column("auth_comp_id", "label_comp_id")?.names()
            let chains = column("auth_asym_id", "label_asym_id")?.names()
            let sequence = column("auth_seq_id", "label_seq_id")?.ints()
            let insertion = column("pdbx_pdb_ins_code")?.names()
            let occupancy = column("occupancy")?.floats(), bFactor = column("b_iso_or_equiv")?.floats()
            let charge = column("pdbx_formal_charge")?.ints(), model = column("pdbx_pdb_model_num")?.ints()
            let ids = column("id")?.ints()
            let labelAsym = column("label_asym_id")?.names(), labelEntity = column("label_entity_id")?.names()
            let labelSeq = column("label_seq_id")?.ints()
            let hetatm = ShortName("HETATM")
            let hetero = column("group_pdb")?.names().map { $0 == hetatm }

            var models: [Model] = []
            var builder = ModelBuilder(number: 1, reserve: rows)
            var modelNumber = Int.min
            var serial: Int32 = 0
            for r in 0..<rows {
                if let model {
                    let number = model[r] ?? 1
                    if number != modelNumber {
                        if builder.atomCount > 0 { models.append(builder.finish()) }
                        builder = ModelBuilder(number: number, reserve: builder.atomCount)
                        modelNumber = number
                    }
                }
                guard let px = x[r], let py = y[r], let pz = z[r], px.isFinite, py.isFinite, pz.isFinite else {
                    throw fail(source, "_atom_site row \(r + 1) has no coordinates")
                }
                if let v = ids?[r] { serial = Int32(clamping: v) } else { serial &+= 1 }
                let atomName = atomNames?[r] ?? .empty, residueName = residueNames?[r] ?? .empty
                let atom = Atom(position: SIMD3(px, py, pz), occupancy: occupancy?[r] ?? 1, bFactor: bFactor?[r] ?? 0, serial: serial,
                                name: atomName, element: symbols?[r] ?? MMCIFReader.inferElement(atomName, residueName: residueName),
                                altLoc: alt?[r].byte(0) ?? 0, charge: Int8(clamping: charge?[r] ?? 0))
                var label = ModelBuilder.Label()
                label.asym = labelAsym?[r] ?? .empty
                label.entity = labelEntity?[r] ?? .empty
                label.seq = Int32(clamping: labelSeq?[r] ?? 0)
                builder.add(atom, chain: chains?[r] ?? .empty, residueName: residueName, residueNumber: Int32(clamping: sequence?[r] ?? 0),
                            insertionCode: insertion?[r].byte(0) ?? 0, hetero: hetero?[r] ?? false, label: label)
            }
            if builder.atomCount > 0 { models.append(builder.finish()) }
            return models
        }
    }
}

extension BinaryCIF.Column {
    /// Row `r` as text, nil where masked (`.` or `?`).
    func string(_ r: Int) -> String? {
        if let mask, mask[r] != 0 { return nil }
        return text(r)
    }

    /// Each row as a short name (masked: empty).
    func names() -> [ShortName] {
        rows(masked: .empty, text: { ShortName($0) }, int: { ShortName(String($0)) }, double: { ShortName(BinaryCIF.Column.text(of: $0)) })
    }

    /// Each row's element from its leading letters (`type_symbol`); nil where none or masked.
    func elements() -> [Element?] {
        func element(_ s: String) -> Element? { Element.symbol(String(s.prefix { $0.isLetter })) }
        return rows(masked: nil, text: element, int: { _ in nil }, double: { _ in nil })
    }

    /// Each row as an integer; nil where masked or not a whole number.
    func ints() -> [Int?] {
        rows(masked: nil, text: { Int($0.trimmingCharacters(in: .whitespaces)) }, int: { $0 },
             double: { $0.isFinite && $0 == $0.rounded() && abs($0) < 1e15 ? Int($0) : nil })
    }

    /// Each row as a number; nil where masked or not a number.
    func floats() -> [Float?] {
        rows(masked: nil, text: { Float($0.trimmingCharacters(in: .whitespaces)) }, int: { Float($0) }, double: { Float($0) })
    }

    /// Each row through the conversion for how the column is stored (a string array's distinct
    /// strings converted once), `masked` where the mask says `.` or `?`.
    private func rows<T>(masked: T, text: (String) -> T, int: (Int) -> T, double: (Double) -> T) -> [T] {
        var out: [T]
        switch values {
        case .ints(let v): out = v.map(int)
        case .doubles(let v): out = v.map(double)
        case .raw(let v): out = v.map { int(Int($0)) }
        case .indexed(let strings, let v):
            let distinct = strings.map(text)
            let empty = text("")
            out = v.map { $0 < 0 ? empty : distinct[$0] }
        }
        if let mask { for (r, m) in mask.enumerated() where m != 0 { out[r] = masked } }
        return out
    }
}

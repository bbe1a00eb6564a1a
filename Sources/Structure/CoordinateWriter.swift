import Core
import Foundation

/// Writes a structure's coordinates back out: mmCIF with label and author ids, entities,
/// assemblies and the file's helices and strands, or PDB where the model fits its columns.
public enum CoordinateWriter {
    public enum Format: String, Sendable, CaseIterable {
        case mmcif, pdb
        public init?(path: String) {
            var lower = path.lowercased()
            if lower.hasSuffix(".gz") { lower.removeLast(3) }
            if lower.hasSuffix(".cif") || lower.hasSuffix(".mmcif") { self = .mmcif } else if lower.hasSuffix(".pdb") || lower.hasSuffix(".ent") { self = .pdb } else { return nil }
        }
    }

    /// A structure the PDB format cannot hold, named by what does not fit.
    public struct Unfit: Fault, Sendable {
        public var kind: FaultKind { .request }
        public var message: String
        public var description: String { "cannot be written as PDB: \(message); write mmCIF (.cif) instead" }
    }

    public static func write(_ structure: Structure, as format: Format) throws -> [UInt8] {
        switch format {
        case .mmcif: return Array(mmCIF(structure).utf8)
        case .pdb: return Array(try pdb(structure).utf8)
        }
    }

    /// A value as CIF text: bare where it can be, else quoted, else a text field.
    static func quoted(_ s: String) -> String {
        if s.isEmpty { return "''" }
        let needs = s == "." || s == "?" || s.first == "_" || s.first == "#" || s.first == "$" || s.first == "'" || s.first == "\""
            || s.first == "[" || s.first == "]" || s.first == ";" || s.contains(where: { $0 == " " || $0 == "\t" || $0.isNewline })
            || s.lowercased().hasPrefix("data_") || s.lowercased().hasPrefix("loop_") || s.lowercased().hasPrefix("save_")
            || s.lowercased() == "stop_" || s.lowercased() == "global_"
        guard needs else { return s }
        if !s.contains(where: \.isNewline) {
            if !s.contains("' ") && !s.hasSuffix("'") && !s.contains("'\t") { return "'" + s + "'" }
            if !s.contains("\" ") && !s.hasSuffix("\"") && !s.contains("\"\t") { return "\"" + s + "\"" }
        }
        return "\n;" + s + "\n;\n"
    }

    static func number(_ v: Float, _ decimals: Int) -> String { String(format: "%.\(decimals)f", v) }

    // MARK: mmCIF

    public static func mmCIF(_ structure: Structure) -> String {
        let id = structure.metadata.id.isEmpty ? "molshot" : structure.metadata.id.filter { !$0.isWhitespace }
        var o = "data_\(id)\n#\n_entry.id \(quoted(id))\n#\n"
        if !structure.metadata.title.isEmpty { o += "_struct.entry_id \(quoted(id))\n_struct.title \(quoted(structure.metadata.title))\n#\n" }
        if !structure.metadata.method.isEmpty { o += "_exptl.entry_id \(quoted(id))\n_exptl.method \(quoted(structure.metadata.method))\n#\n" }
        if let r = structure.metadata.resolution { o += "_refine.entry_id \(quoted(id))\n_refine.ls_d_res_high \(r)\n#\n" }
        let first = structure.models.first ?? Model(number: 1)
        // Entities: the file's, limited to those whose chains were written; else one a chain label.
        let written = Set(first.chains.map { $0.entity }.filter { !$0.isEmpty })
        let entities = structure.entities.filter { written.contains($0.id) }
        if !entities.isEmpty {
            o += "loop_\n_entity.id\n_entity.type\n_entity.pdbx_description\n"
            for e in entities { o += "\(quoted(e.id)) \(quoted(e.type.isEmpty ? "?" : e.type)) \(e.description.isEmpty ? "?" : quoted(e.description))\n" }
            o += "#\n"
            let polymers = entities.filter { $0.sequence != nil || $0.polymerType != nil }
            if !polymers.isEmpty {
                o += "loop_\n_entity_poly.entity_id\n_entity_poly.type\n_entity_poly.pdbx_seq_one_letter_code_can\n_entity_poly.pdbx_strand_id\n"
                for e in polymers {
                    let strands = first.chains.filter { $0.entity == e.id }.map(\.id)
                    var seen = Set<String>()
                    let ids = strands.filter { seen.insert($0).inserted }.joined(separator: ",")
                    o += "\(quoted(e.id)) \(quoted(e.polymerType ?? "?")) \(e.sequence.map { quoted($0) } ?? "?") \(ids.isEmpty ? "?" : quoted(ids))\n"
                }
                o += "#\n"
            }
        }
        if !structure.componentNames.isEmpty {
            let present = Set(first.residues.map { $0.name.description })
            let names = structure.componentNames.filter { present.contains($0.key) }.sorted { $0.key < $1.key }
            if !names.isEmpty {
                o += "loop_\n_chem_comp.id\n_chem_comp.name\n"
                for (k, v) in names { o += "\(quoted(k)) \(quoted(v))\n" }
                o += "#\n"
            }
        }
        let mods = structure.modifiedResidues
        if !mods.isEmpty {
            o += "loop_\n_pdbx_struct_mod_residue.id\n_pdbx_struct_mod_residue.label_comp_id\n_pdbx_struct_mod_residue.parent_comp_id\n"
            for (i, m) in mods.enumerated() { o += "\(i + 1) \(quoted(m.name)) \(quoted(m.parent))\n" }
            o += "#\n"
        }
        if !structure.assemblies.isEmpty {
            o += "loop_\n_pdbx_struct_assembly.id\n_pdbx_struct_assembly.details\n"
            for a in structure.assemblies { o += "\(quoted(a.id)) \(a.details.isEmpty ? "?" : quoted(a.details))\n" }
            o += "#\nloop_\n_pdbx_struct_assembly_gen.assembly_id\n_pdbx_struct_assembly_gen.oper_expression\n_pdbx_struct_assembly_gen.asym_id_list\n"
            // Operators get one name space in mmCIF: each assembly's are prefixed where assemblies clash.
            var operators: [(String, Assembly.Operator)] = []
            var named: [String: Assembly.Operator] = [:]
            for a in structure.assemblies {
                for g in a.generators {
                    var combos: [String] = []
                    for combination in g.operators {
                        let op = combination.reversed().reduce(Assembly.Operator.identity) { (a.operators[$1] ?? .identity).after($0) }
                        // One operator a copy: products are written multiplied out.
                        var name = combination.joined(separator: "x")
                        if let known = named[name], known != op { name = "\(a.id)." + name }
                        if named[name] == nil { named[name] = op; operators.append((name, op)) }
                        combos.append(name)
                    }
                    let chains = a.byAuthorChain ? labelsOfAuthorChains(g.chains, first) : g.chains
                    o += "\(quoted(a.id)) \(quoted(combos.joined(separator: ","))) \(quoted(chains.joined(separator: ",")))\n"
                }
            }
            o += "#\nloop_\n_pdbx_struct_oper_list.id\n_pdbx_struct_oper_list.type\n"
            for i in 1...3 { for j in 1...3 { o += "_pdbx_struct_oper_list.matrix[\(i)][\(j)]\n" } }
            for i in 1...3 { o += "_pdbx_struct_oper_list.vector[\(i)]\n" }
            for (name, op) in operators {
                o += "\(quoted(name)) \(op.isIdentity ? "'identity operation'" : "'point symmetry operation'")"
                for v in op.rotation { o += " \(v)" }
                for v in op.translation { o += " \(v)" }
                o += "\n"
            }
            o += "#\n"
        }
        // Helices as `_struct_conf`, strands as `_struct_sheet_range`: one table of ranges each.
        for (kind, category, key) in [(SecondaryStructureRange.Kind.helix, "_struct_conf", "conf_type_id"), (.strand, "_struct_sheet_range", "sheet_id")] {
            let ranges = structure.secondaryStructure.filter { $0.kind == kind }
            guard !ranges.isEmpty else { continue }
            o += "loop_\n"
            for tag in [key, "id", "beg_auth_asym_id", "beg_auth_seq_id", "pdbx_beg_PDB_ins_code", "end_auth_asym_id", "end_auth_seq_id", "pdbx_end_PDB_ins_code"] {
                o += "\(category).\(tag)\n"
            }
            for (i, r) in ranges.enumerated() {
                let head = kind == .helix ? "HELX_P HELX_P\(i + 1)" : "S \(i + 1)"
                o += "\(head) \(quoted(r.chain)) \(r.start) \(code(r.startInsertion)) \(quoted(r.chain)) \(r.end) \(code(r.endInsertion))\n"
            }
            o += "#\n"
        }
        // Atoms, as `_atom_site`; beads alone make none (CIF loops have rows), only their own loop.
        let atomic = structure.models.contains { m in m.residues.contains { $0.kind != .coarse && !$0.atoms.isEmpty } }
        if atomic {
            o += "loop_\n"
            for tag in ["group_PDB", "id", "type_symbol", "label_atom_id", "label_alt_id", "label_comp_id", "label_asym_id", "label_entity_id",
                        "label_seq_id", "pdbx_PDB_ins_code", "Cartn_x", "Cartn_y", "Cartn_z", "occupancy", "B_iso_or_equiv", "pdbx_formal_charge",
                        "auth_seq_id", "auth_comp_id", "auth_asym_id", "auth_atom_id", "pdbx_PDB_model_num"] {
                o += "_atom_site.\(tag)\n"
            }
        }
        var serial = 0
        for model in structure.models {
            var line = ""
            for chain in model.chains {
                let asym = quoted(chain.labelID.isEmpty ? chain.id.isEmpty ? "." : chain.id : chain.labelID)
                let entity = chain.entity.isEmpty ? "?" : quoted(chain.entity)
                let auth = quoted(chain.id.isEmpty ? "." : chain.id)
                for r in chain.residues where model.residues[Int(r)].kind != .coarse {
                    let residue = model.residues[Int(r)]
                    let comp = quoted(residue.name.description)
                    let seq = residue.labelSeq > 0 ? String(residue.labelSeq) : "."
                    let ins = code(residue.insertionCode)
                    for a in residue.atoms {
                        let atom = model.atoms[Int(a)]
                        serial += 1
                        let name = quoted(atom.name.description.isEmpty ? "?" : atom.name.description)
                        line = residue.isHetero || !residue.inPolymer ? "HETATM " : "ATOM "
                        line += "\(serial) \(atom.element.symbol.isEmpty ? "X" : atom.element.symbol) \(name) "
                        line += atom.altLoc == 0 ? "." : quoted(String(UnicodeScalar(atom.altLoc)))
                        line += " \(comp) \(asym) \(entity) \(seq) \(ins) \(number(atom.position.x, 3)) \(number(atom.position.y, 3)) \(number(atom.position.z, 3)) "
                        line += "\(number(atom.occupancy, 2)) \(number(atom.bFactor, 2)) \(atom.charge) \(residue.number) \(comp) \(auth) \(name) \(model.number)\n"
                        o += line
                    }
                }
            }
        }
        if atomic { o += "#\n" }
        o += spheres(structure)
        if let bonds = structure.models.first?.explicitBonds, !bonds.isEmpty {
            o += structConn(bonds, first)
        }
        return o
    }

    /// An integrative model's beads as `_ihm_sphere_obj_site` (as read: the residue's number the
    /// first of the run it stands for, its `labelSeq` the last), empty where there are none.
    static func spheres(_ structure: Structure) -> String {
        var o = "", id = 0
        for model in structure.models {
            let radii = model.radii.flatMap { $0.count == model.atoms.count ? $0 : nil }
            for chain in model.chains {
                for r in chain.residues where model.residues[Int(r)].kind == .coarse {
                    let residue = model.residues[Int(r)]
                    for a in residue.atoms {
                        if id == 0 {
                            o += "loop_\n"
                            for tag in ["id", "entity_id", "seq_id_begin", "seq_id_end", "asym_id", "Cartn_x", "Cartn_y", "Cartn_z", "object_radius", "model_id"] {
                                o += "_ihm_sphere_obj_site.\(tag)\n"
                            }
                        }
                        id += 1
                        let p = model.atoms[Int(a)].position
                        let end = residue.labelSeq >= residue.number ? residue.labelSeq : residue.number
                        o += "\(id) \(chain.entity.isEmpty ? "?" : quoted(chain.entity)) \(residue.number) \(end) \(quoted(chain.labelID.isEmpty ? chain.id : chain.labelID)) "
                        o += "\(number(p.x, 3)) \(number(p.y, 3)) \(number(p.z, 3)) \(number(radii?[Int(a)] ?? 0, 3)) \(model.number)\n"
                    }
                }
            }
        }
        return o.isEmpty ? "" : o + "#\n"
    }

    static func code(_ byte: UInt8) -> String { byte == 0 ? "?" : quoted(String(UnicodeScalar(byte))) }

    /// The label ids of chains named by author id (REMARK 350's), where the model has labels.
    static func labelsOfAuthorChains(_ ids: [String], _ model: Model) -> [String] {
        var out: [String] = []
        for chain in model.chains where ids.contains(chain.id) {
            let label = chain.labelID.isEmpty ? chain.id : chain.labelID
            if !out.contains(label) { out.append(label) }
        }
        return out.isEmpty ? ids : out
    }

    static func structConn(_ bonds: [Bond], _ model: Model) -> String {
        var o = "loop_\n_struct_conn.id\n_struct_conn.conn_type_id\n"
        for p in ["1", "2"] {
            for t in ["auth_asym_id", "auth_seq_id", "label_atom_id", "pdbx_ins_code", "label_alt_id"] {
                o += t.hasPrefix("pdbx") || t == "label_alt_id" ? "_struct_conn.pdbx_ptnr\(p)_\(t.replacingOccurrences(of: "pdbx_", with: "PDB_"))\n" : "_struct_conn.ptnr\(p)_\(t)\n"
            }
        }
        for (i, bond) in bonds.enumerated() {
            o += "covale\(i + 1) covale"
            for a in [bond.a, bond.b] {
                let atom = model.atoms[Int(a)], residue = model.residues[Int(atom.residue)], chain = model.chains[Int(residue.chain)]
                o += " \(quoted(chain.id.isEmpty ? "." : chain.id)) \(residue.number) \(quoted(atom.name.description)) \(code(residue.insertionCode)) "
                o += atom.altLoc == 0 ? "?" : quoted(String(UnicodeScalar(atom.altLoc)))
            }
            o += "\n"
        }
        return o + "#\n"
    }

    // MARK: PDB

    /// PDB format 3.3 records; refused where the model does not fit its columns, as gemmi refuses.
    public static func pdb(_ structure: Structure) throws -> String {
        let atoms = structure.models.map(\.atoms.count).max() ?? 0
        guard atoms <= 99_999 else { throw Unfit(message: "\(atoms) atoms in a model, more than the 99,999 its serial numbers hold") }
        for model in structure.models {
            if model.residues.contains(where: { $0.kind == .coarse }) {
                throw Unfit(message: "the model has beads (an integrative model's spheres), which PDB format cannot hold: export mmCIF")
            }
            if let c = model.chains.first(where: { $0.id.utf8.count > 1 }) {
                throw Unfit(message: "chain id '\(Excerpt.of(c.id, length: 20))' is longer than the one character its column holds")
            }
            if let r = model.residues.first(where: { $0.name.length > 3 }) {
                throw Unfit(message: "residue name '\(r.name)' is longer than the three characters its columns hold")
            }
            if let r = model.residues.first(where: { $0.number > 9999 || $0.number < -999 }) {
                throw Unfit(message: "residue number \(r.number) does not fit its four columns")
            }
            if let a = model.atoms.first(where: { [$0.position.x, $0.position.y, $0.position.z].contains { $0 >= 10_000 || $0 <= -1000 } }) {
                throw Unfit(message: "coordinate \(a.position) does not fit its eight columns")
            }
        }
        var o = ""
        func pad(_ s: String, _ n: Int, right: Bool = false) -> String {
            let t = String(s.prefix(n))
            return right ? String(repeating: " ", count: n - t.count) + t : t + String(repeating: " ", count: n - t.count)
        }
        if !structure.metadata.id.isEmpty || !structure.metadata.classification.isEmpty {
            o += "HEADER    " + pad(structure.metadata.classification, 40) + "         " + pad(structure.metadata.id, 4) + "\n"
        }
        if !structure.metadata.title.isEmpty {
            let words = structure.metadata.title
            var lines: [String] = []
            var rest = Substring(words)
            while !rest.isEmpty { lines.append(String(rest.prefix(lines.isEmpty ? 70 : 69))); rest = rest.dropFirst(lines.last!.count) }
            for (i, l) in lines.enumerated() { o += "TITLE   " + (i == 0 ? "  " : pad(String(i + 1), 2, right: true)) + (i == 0 ? "" : " ") + l + "\n" }
        }
        if let r = structure.metadata.resolution { o += "REMARK   2 RESOLUTION. \(String(format: "%.2f", r)) ANGSTROMS.\n" }
        let multi = structure.models.count > 1
        var serialOf: [Int32: Int] = [:]
        for model in structure.models {
            if multi { o += "MODEL     " + pad(String(model.number), 4, right: true) + "\n" }
            var serial = 0
            for (c, chain) in model.chains.enumerated() {
                var lastResidue: Residue?
                for r in chain.residues {
                    let residue = model.residues[Int(r)]
                    for a in residue.atoms {
                        let atom = model.atoms[Int(a)]
                        serial += 1
                        if model.number == structure.models[0].number { serialOf[a] = serial }
                        let symbol = atom.element.symbol.uppercased()
                        var name = atom.name.description
                        if name.count < 4 && symbol.count == 1 { name = " " + name }
                        var line = residue.isHetero || !residue.inPolymer ? "HETATM" : "ATOM  "
                        line += pad(String(serial), 5, right: true) + " " + pad(name, 4)
                        line += atom.altLoc == 0 ? " " : String(UnicodeScalar(atom.altLoc))
                        line += pad(residue.name.description, 3, right: true) + " " + pad(chain.id, 1)
                        line += pad(String(residue.number), 4, right: true) + (residue.insertionCode == 0 ? " " : String(UnicodeScalar(residue.insertionCode)))
                        line += "   " + pad(number(atom.position.x, 3), 8, right: true) + pad(number(atom.position.y, 3), 8, right: true)
                            + pad(number(atom.position.z, 3), 8, right: true)
                        line += pad(number(atom.occupancy, 2), 6, right: true) + pad(number(atom.bFactor, 2), 6, right: true)
                        line += "          " + pad(symbol, 2, right: true)
                        line += atom.charge == 0 ? "  " : "\(abs(Int(atom.charge)))\(atom.charge > 0 ? "+" : "-")"
                        o += line + "\n"
                    }
                    lastResidue = residue
                }
                // TER closes a polymer chain run.
                if let last = lastResidue, last.inPolymer, c < model.chains.count {
                    serial += 1
                    o += "TER   " + pad(String(serial), 5, right: true) + "      " + pad(last.name.description, 3, right: true) + " " + pad(chain.id, 1)
                        + pad(String(last.number), 4, right: true) + (last.insertionCode == 0 ? "" : String(UnicodeScalar(last.insertionCode))) + "\n"
                }
            }
            if multi { o += "ENDMDL\n" }
        }
        // Bonds the file stated, once for every model, after the last.
        if let first = structure.models.first, !first.explicitBonds.isEmpty {
            var partners: [Int: [Int]] = [:]
            for b in first.explicitBonds {
                guard let x = serialOf[b.a], let y = serialOf[b.b] else { continue }
                partners[x, default: []].append(y)
                partners[y, default: []].append(x)
            }
            for (atom, list) in partners.sorted(by: { $0.key < $1.key }) {
                var k = 0
                while k < list.count {
                    o += "CONECT" + pad(String(atom), 5, right: true) + list[k..<min(k + 4, list.count)].map { pad(String($0), 5, right: true) }.joined() + "\n"
                    k += 4
                }
            }
        }
        return o + "END\n"
    }
}

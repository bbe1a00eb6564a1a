import Core

/// Which molecule a picture, listing or export is of: the coordinates the file holds, or one
/// of the biological assemblies it declares.
public enum AssemblyChoice: Sendable, Equatable, CustomStringConvertible {
    /// The deposited coordinates (the asymmetric unit of a crystal structure).
    case model
    /// The first assembly the file declares, unless it is the deposited model unchanged (one
    /// identity operator over every chain); the model where there is none. As Mol* opens an entry
    /// and as the RCSB's and PDBe's pages show it first.
    case auto
    /// The assembly of that id (`_pdbx_struct_assembly.id`, REMARK 350 BIOMOLECULE).
    case id(String)

    public init(_ text: String) {
        switch text.lowercased() {
        case "model", "deposited", "asu", "none": self = .model
        case "auto", "": self = .auto
        default: self = .id(text)
        }
    }

    public var description: String {
        switch self {
        case .model: return "model"
        case .auto: return "auto"
        case .id(let id): return id
        }
    }
}

/// A request for an assembly the file does not declare, or one too large to build.
public struct AssemblyError: Fault, Sendable, Equatable {
    public var kind: FaultKind { .request }
    public var file: String
    public var message: String
    /// Refused for its size (a service answers 413), not for a wrong id.
    public var tooLarge = false
    public var description: String { "\(file): \(message)" }
}

/// Builds biological assemblies: every chain a generator names, copied once per operator (or
/// product of operators), coordinates moved, names kept for the first copy and suffixed with
/// the operator for the others (`A`, `A-2`, ... `A-60`; a product's names joined with `x`).
public enum AssemblyBuilder {
    /// Most copies one assembly may list (the largest in the PDB are virus capsids of a few
    /// thousand chains); counted before anything is built.
    public static let maxCopies = 100_000

    /// The operator groups of an `oper_expression`, each a list of single operators and ranges,
    /// parsed without expanding anything: `(1-60)(61-88)` is two groups of one range each.
    /// A range's ends are checked (`a <= b`, at most `maxCopies` long) with arithmetic that cannot trap.
    public struct Expression: Sendable {
        enum Item: Sendable { case name(String), range(Int, Int) }
        var groups: [[Item]]

        /// Copies the expression lists (the product of its groups' lengths); nil past `maxCopies`.
        public var copies: Int? {
            var total = 1
            for group in groups {
                var n = 0
                for item in group {
                    switch item {
                    case .name: n += 1
                    case .range(let a, let b): n += b - a + 1  // checked against maxCopies when read
                    }
                    guard n <= maxCopies else { return nil }
                }
                let (product, over) = total.multipliedReportingOverflow(by: n)
                guard !over, product <= maxCopies else { return nil }
                total = product
            }
            return total
        }
    }

    public static func parse(_ expression: String, source: String) throws -> Expression {
        let text = expression.filter { !$0.isWhitespace }
        func fail(_ why: String) -> StructureError {
            StructureError(file: source, line: nil, message: "oper_expression '\(Excerpt.of(expression, length: 60))': \(why)")
        }
        var groups: [String] = []
        if text.contains("(") {
            var rest = Substring(text)
            while !rest.isEmpty {
                guard rest.first == "(", let close = rest.firstIndex(of: ")") else { throw fail("expected (list) groups") }
                groups.append(String(rest[rest.index(after: rest.startIndex)..<close]))
                rest = rest[rest.index(after: close)...]
                guard groups.count <= 8 else { throw fail("expected 1 to 8 groups") }
            }
        } else {
            groups = [text]
        }
        guard !groups.isEmpty else { throw fail("expected 1 to 8 groups") }
        var parsed = Expression(groups: [])
        for group in groups {
            var list: [Expression.Item] = []
            for item in group.split(separator: ",", omittingEmptySubsequences: false) {
                guard !item.isEmpty else { throw fail("an empty item") }
                guard list.count < maxCopies else { throw fail("more than \(maxCopies) operators") }
                if let dash = item.dropFirst().firstIndex(of: "-"), let a = Int(item[..<dash]), let b = Int(item[item.index(after: dash)...]) {
                    // Both ends come from the file: their difference may not fit an Int (-9223372036854775808-0).
                    let (span, over) = b.subtractingReportingOverflow(a)
                    guard a <= b, !over, span < maxCopies else { throw fail("range \(a)-\(b) is backwards or longer than \(maxCopies)") }
                    list.append(.range(a, b))
                } else {
                    list.append(.name(String(item)))
                }
            }
            parsed.groups.append(list)
        }
        guard parsed.copies != nil else { throw fail("more than \(maxCopies) copies") }
        return parsed
    }

    /// The operator combinations an `oper_expression` lists: `1`, `1,2,5`, `1-60`, `(1-60)`,
    /// `(1-60)(61-88)` (every pair, the second applied first), `(X0)(1-5,11-15)`, `P`.
    public static func expand(_ expression: String, source: String) throws -> [[String]] {
        expand(try parse(expression, source: source))
    }

    /// The combinations of a parsed expression (at most `maxCopies`, as `parse` checked).
    public static func expand(_ expression: Expression) -> [[String]] {
        var out: [[String]] = [[]]
        for group in expression.groups {
            var list: [String] = []
            for item in group {
                switch item {
                case .name(let name): list.append(name)
                case .range(let a, let b): list += (a...b).map(String.init)
                }
            }
            out = out.flatMap { prefix in list.map { prefix + [$0] } }
        }
        return out
    }

    /// The assembly `choice` names in `structure`, or nil for the deposited model.
    public static func resolve(_ choice: AssemblyChoice, in structure: Structure, source: String) throws -> Assembly? {
        switch choice {
        case .model: return nil
        case .auto:
            guard let first = structure.assemblies.first(where: { !$0.generators.isEmpty && $0.problem == nil }) else { return nil }
            return isDeposited(first, structure) ? nil : first
        case .id(let id):
            if let a = structure.assemblies.first(where: { $0.id == id }) {
                if let problem = a.problem { throw AssemblyError(file: source, message: "assembly \(Excerpt.of(id, length: 40)) cannot be built: \(problem)") }
                return a
            }
            let known = structure.assemblies.map(\.id)
            throw AssemblyError(file: source, message: known.isEmpty
                ? "declares no assemblies (assembly \(Excerpt.of(id, length: 40)) asked for); use model"
                : "has no assembly \(Excerpt.of(id, length: 40)); it declares \(known.prefix(20).joined(separator: ", "))")
        }
    }

    /// One identity operator over every chain of the first model: the assembly is the model itself.
    static func isDeposited(_ assembly: Assembly, _ structure: Structure) -> Bool {
        guard assembly.generators.count == 1, let g = assembly.generators.first, g.operators.count == 1,
              g.operators[0].allSatisfy({ assembly.operators[$0]?.isIdentity ?? false }),
              let model = structure.models.first else { return false }
        let named = Set(g.chains)
        return model.chains.allSatisfy { named.contains(key($0, assembly)) }
    }

    static func key(_ chain: Chain, _ assembly: Assembly) -> String {
        assembly.byAuthorChain || chain.labelID.isEmpty ? chain.id : chain.labelID
    }

    /// Atoms the assembly holds in `model`: every record, and of the default conformer (as drawn).
    public static func atomCounts(_ assembly: Assembly, in model: Model) -> (all: Int, drawn: Int) {
        let mask = model.defaultConformerMask()
        var all = 0, drawn = 0
        for g in assembly.generators {
            let named = Set(g.chains)
            var a = 0, d = 0
            for chain in model.chains where named.contains(key(chain, assembly)) {
                for r in chain.residues {
                    for i in model.residues[Int(r)].atoms {
                        a += 1
                        if mask[Int(i)] { d += 1 }
                    }
                }
            }
            all += a * g.operators.count
            drawn += d * g.operators.count
        }
        return (all, drawn)
    }

    /// The structure the assembly describes: one model per model of `structure`, each the named
    /// chains copied under each operator. Refused before building past `maxAtoms` atoms in all.
    public static func build(_ assembly: Assembly, from structure: Structure, source: String, maxAtoms: Int = .max) throws -> Structure {
        let total = structure.models.reduce(0) { $0 + atomCounts(assembly, in: $1).all }
        guard total <= maxAtoms else {
            throw AssemblyError(file: source, message: "assembly \(assembly.id) holds \(total) atoms\(structure.models.count > 1 ? " in \(structure.models.count) models" : ""), more than the \(maxAtoms) allowed (max-atoms)", tooLarge: true)
        }
        var out = structure
        out.models = []
        var renamed: [(from: String, to: String)] = []
        let axes = SymmetryAxes.find(in: assembly)
        for model in structure.models {
            var built = Model(number: model.number)
            built.bondsAreComplete = model.bondsAreComplete
            built.symmetryAxes = axes
            built.atoms.reserveCapacity(atomCounts(assembly, in: model).all)
            let keepBonds = !model.explicitBonds.isEmpty
            // Chain ids placed by earlier copies: a chain keeps its id the first time it is
            // placed, and copies after it (under later operators of its row, or in later rows,
            // as 4zxb spells its assembly) take the operators as a suffix, so no two are alike.
            var placed = Set<String>()
            var copy: Int32 = 0
            for g in assembly.generators {
                let named = Set(g.chains)
                let chains = model.chains.filter { named.contains(key($0, assembly)) }
                for combination in g.operators {
                    copy += 1
                    let op = combination.reversed().reduce(Assembly.Operator.identity) { partial, name in
                        (assembly.operators[name] ?? .identity).after(partial)
                    }
                    let operatorName = combination.joined(separator: "x")
                    var newIndex: [Int32: Int32] = [:]
                    var placedNow = Set<String>()
                    for chain in chains {
                        var suffix = ""
                        if placed.contains(chain.id) {
                            suffix = "-" + operatorName
                            // The same operator over the same chain in two rows: numbered by copy.
                            if placed.contains(chain.id + suffix) { suffix += "-\(copy)" }
                        }
                        let id = chain.id + suffix
                        placedNow.insert(id)
                        if model.number == structure.models.first?.number, !suffix.isEmpty { renamed.append((chain.id, id)) }
                        let firstResidue = Int32(built.residues.count)
                        for r in chain.residues {
                            var residue = model.residues[Int(r)]
                            let firstAtom = Int32(built.atoms.count)
                            for a in residue.atoms {
                                var atom = model.atoms[Int(a)]
                                atom.position = op.apply(atom.position)
                                atom.residue = Int32(built.residues.count)
                                atom.serial = Int32(built.atoms.count + 1)
                                if keepBonds { newIndex[a] = Int32(built.atoms.count) }
                                built.atoms.append(atom)
                            }
                            residue.atoms = firstAtom..<Int32(built.atoms.count)
                            residue.chain = Int32(built.chains.count)
                            built.residues.append(residue)
                        }
                        var made = Chain(id: id, residues: firstResidue..<Int32(built.residues.count),
                                         labelID: chain.labelID.isEmpty ? "" : chain.labelID + suffix, entity: chain.entity)
                        made.copy = copy
                        made.depositedID = chain.deposited
                        made.operatorName = operatorName
                        built.chains.append(made)
                    }
                    placed.formUnion(placedNow)
                    // In the file's order (a dictionary's order changes from run to run, and with it the picture's ties).
                    if keepBonds {
                        for bond in model.explicitBonds {
                            guard let x = newIndex[bond.a], let y = newIndex[bond.b] else { continue }
                            var b = bond
                            b.a = min(x, y)
                            b.b = max(x, y)
                            built.explicitBonds.append(b)
                        }
                    }
                }
            }
            out.models.append(built)
        }
        // The file's helices and strands, for each copy under its new chain name.
        var seen = Set<String>()
        for (from, to) in renamed where seen.insert(from + "\u{0}" + to).inserted {
            for range in structure.secondaryStructure where range.chain == from {
                var copy = range
                copy.chain = to
                out.secondaryStructure.append(copy)
            }
        }
        out.assemblies = [Assembly(id: assembly.id, details: assembly.details,
                                   generators: [.init(operators: [["1"]], chains: out.models.first.map { m in
                                       var s = Set<String>()
                                       return m.chains.compactMap { c in s.insert(key(c, assembly)).inserted ? key(c, assembly) : nil }
                                   } ?? [])],
                                   operators: ["1": .identity], byAuthorChain: assembly.byAuthorChain)]
        return out
    }
}

extension Structure {
    /// This structure as `choice` describes it: itself, or an assembly built (refused past `maxAtoms`).
    public func applying(_ choice: AssemblyChoice, source: String, maxAtoms: Int = .max) throws -> Structure {
        guard let assembly = try AssemblyBuilder.resolve(choice, in: self, source: source) else { return self }
        return try AssemblyBuilder.build(assembly, from: self, source: source, maxAtoms: maxAtoms)
    }
}

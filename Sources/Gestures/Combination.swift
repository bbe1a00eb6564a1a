import Structure

/// Combination building from the ProteinAR app: parts (chain ids of the loaded structure) make
/// a valid complex when every part exists and together they form one connected whole, each part
/// within `contactDistance` of another part of the list.
public enum Combination {
    public static let contactDistance: Float = 4.5

    public enum Outcome: Equatable, Sendable {
        case valid(caption: String)
        case invalid(caption: String)
    }

    public static func congratulations(_ parts: [String]) -> String { "Congratulations! " + parts.map(Model.shown(chain:)).joined(separator: ", ") }
    public static func sorry(_ parts: [String]) -> String {
        "Sorry! The combination of " + parts.joined(separator: ", ") + " cannot be made"
    }

    public static func judge(_ parts: [String], in model: Model) -> Outcome {
        let ids = Set(model.chainIDs)
        guard !parts.isEmpty, parts.allSatisfy(ids.contains) else { return .invalid(caption: sorry(parts)) }
        let unique = Array(Set(parts)).sorted()
        if unique.count == 1 { return .valid(caption: congratulations(parts)) }
        // Union-find over parts joined by any atom pair closer than the contact distance.
        let partIndex = Dictionary(uniqueKeysWithValues: unique.enumerated().map { ($1, $0) })
        var positions: [SIMD3<Float>] = [], owner: [Int] = []
        for chain in model.chains {
            guard let p = partIndex[chain.id] else { continue }
            for r in chain.residues {
                for a in model.residues[Int(r)].atoms {
                    positions.append(model.atoms[Int(a)].position)
                    owner.append(p)
                }
            }
        }
        var parent = Array(unique.indices)
        func root(_ i: Int) -> Int {
            var i = i
            while parent[i] != i { parent[i] = parent[parent[i]]; i = parent[i] }
            return i
        }
        let limit = contactDistance * contactDistance
        CellGrid(positions: positions, cellSize: contactDistance).forEachPair(positions) { i, j, d2 in
            if d2 <= limit && owner[i] != owner[j] {
                let a = root(owner[i]), b = root(owner[j])
                if a != b { parent[a] = b }
            }
        }
        let connected = Set(unique.indices.map(root)).count == 1
        return connected ? .valid(caption: congratulations(parts)) : .invalid(caption: sorry(parts))
    }
}

/// Which alternate locations a structure keeps when read: the archive's rule, one for every
/// count, picture, selection, export and the library. `first` is what gemmi's
/// `remove_alternative_conformations` and biotite's default (`altloc="first"`) keep; `occupancy`
/// biotite's `altloc="occupancy"`; `all` keeps every record, as PyMOL loads them.
public enum AltLocChoice: Sendable, Equatable, CustomStringConvertible {
    /// At each residue position, the alternate location listed first.
    case first
    /// At each residue position, the alternate location whose atoms' occupancies add up highest (first on ties).
    case occupancy
    /// Every atom record.
    case all
    /// This alternate location wherever a position has it, else the first.
    case id(UInt8)

    /// `first`, `occupancy`, `all` or one character (`A`); nil for anything else.
    public init?(parsing text: String) {
        switch text.lowercased() {
        case "first": self = .first
        case "occupancy", "occ": self = .occupancy
        case "all": self = .all
        default:
            guard text.utf8.count == 1, let c = text.utf8.first, c > 0x20, c < 0x7F else { return nil }
            self = .id(c)
        }
    }

    public var description: String {
        switch self {
        case .first: "first"
        case .occupancy: "occupancy"
        case .all: "all"
        case .id(let c): String(UnicodeScalar(c))
        }
    }
}

extension Model {
    /// For each atom, whether `choice` keeps it. Consecutive residues with one chain, number and
    /// insertion code (microheterogeneity: two residue names at one position, each an alternate
    /// location) are one position, as in gemmi and biotite.
    public func conformerMask(_ choice: AltLocChoice) -> [Bool] {
        var mask = [Bool](repeating: true, count: atoms.count)
        guard choice != .all, atoms.contains(where: { $0.altLoc != 0 }) else { return mask }
        var start = 0
        while start < residues.count {
            // One position: residues start..<end.
            var end = start + 1
            let head = residues[start]
            while end < residues.count, residues[end].chain == head.chain, residues[end].number == head.number,
                  residues[end].insertionCode == head.insertionCode { end += 1 }
            let atomRange = Int(residues[start].atoms.lowerBound)..<Int(residues[end - 1].atoms.upperBound)
            var order: [UInt8] = []
            var weight: [UInt8: Float] = [:]
            for i in atomRange where atoms[i].altLoc != 0 {
                let alt = atoms[i].altLoc
                if weight[alt] == nil { order.append(alt) }
                weight[alt, default: 0] += atoms[i].occupancy
            }
            if let first = order.first {
                let kept: UInt8
                switch choice {
                case .first, .all: kept = first
                case .occupancy: kept = order.reduce(first) { best, alt in weight[alt]! > weight[best]! ? alt : best }
                case .id(let c): kept = order.contains(c) ? c : first
                }
                // An atom whose only records are other alternates (no record of the kept one, or
                // with none, by that name in its residue) keeps its first, as gemmi does: dropping
                // it lost five atoms of each copy of an insulin analogue. Only in a residue that
                // holds the kept conformer: another residue name at the position
                // (microheterogeneity) is the other conformer whole.
                // Scans of the position's few atoms: no set is made for each of a file's thousands.
                for i in atomRange where atoms[i].altLoc != 0 {
                    if atoms[i].altLoc == kept { mask[i] = true; continue }
                    let residue = atoms[i].residue, name = atoms[i].name
                    var holdsKept = false, partnered = false
                    for j in atomRange where atoms[j].residue == residue {
                        if atoms[j].altLoc == kept { holdsKept = true }
                        if atoms[j].name == name && (atoms[j].altLoc == kept || atoms[j].altLoc == 0 || (j < i && mask[j])) { partnered = true }
                    }
                    mask[i] = holdsKept && !partnered
                }
            }
            start = end
        }
        return mask
    }
}

extension Structure {
    /// What every reader's structure goes through: every residue classified, then alternate
    /// locations kept by `altloc`.
    mutating func finishReading(altloc: AltLocChoice) {
        classifyResidues()
        keepAlternates(altloc)
    }

    /// This structure with only the alternate locations `choice` keeps, in every model; how many
    /// atom records were left aside is kept in `alternatesLeftAside`.
    public mutating func keepAlternates(_ choice: AltLocChoice) {
        guard choice != .all else { return }
        var left = 0
        for m in models.indices {
            let mask = models[m].conformerMask(choice)
            let dropped = mask.reduce(0) { $0 + ($1 ? 0 : 1) }
            guard dropped > 0 else { continue }
            left += dropped
            var kept = models[m].keeping(atoms: mask)
            kept.bondsAreDistinct = models[m].bondsAreDistinct
            models[m] = kept
        }
        alternatesLeftAside += left
    }
}

import Core

/// A residue's secondary structure, as cartoons draw it.
public enum SecondaryStructure: UInt8, Sendable, Equatable {
    case coil, helix, strand
}

/// A helix or strand a file states, from its first to its last residue (author numbering).
public struct SecondaryStructureRange: Sendable, Equatable {
    public enum Kind: String, Sendable { case helix, strand }
    public var kind: Kind
    public var chain: String
    public var start: Int32
    public var startInsertion: UInt8
    public var end: Int32
    public var endInsertion: UInt8

    public init(kind: Kind, chain: String, start: Int32, startInsertion: UInt8 = 0, end: Int32, endInsertion: UInt8 = 0) {
        self.kind = kind
        self.chain = chain
        self.start = start
        self.startInsertion = startInsertion
        self.end = end
        self.endInsertion = endInsertion
    }
}

extension Model {
    /// Each residue's secondary structure: the file's ranges where it states any, else assigned
    /// from the backbone (`assignedSecondaryStructure`).
    public func secondaryStructure(stated ranges: [SecondaryStructureRange]) -> [SecondaryStructure] {
        ranges.isEmpty ? assignedSecondaryStructure() : secondaryStructure(from: ranges)
    }

    /// Each residue's secondary structure as the ranges state it (coil elsewhere). A range runs
    /// along its chain's residues in file order from its first residue to its last.
    public func secondaryStructure(from ranges: [SecondaryStructureRange]) -> [SecondaryStructure] {
        var out = [SecondaryStructure](repeating: .coil, count: residues.count)
        for range in ranges {
            for chain in chains where chain.id == range.chain {
                var inside = false
                for r in chain.residues {
                    let residue = residues[Int(r)]
                    if !inside && residue.number == range.start && residue.insertionCode == range.startInsertion { inside = true }
                    guard inside else { continue }
                    out[Int(r)] = range.kind == .helix ? .helix : .strand
                    if residue.number == range.end && residue.insertionCode == range.endInsertion { break }
                }
            }
        }
        return out
    }

    /// Each residue's secondary structure assigned from its backbone by DSSP's rules (Kabsch and
    /// Sander, 1983): hydrogen bonds of electrostatic energy under -0.5 kcal/mol between C=O and
    /// N-H (the H placed opposite the previous residue's C=O), alpha helices where two 4-turns
    /// follow each other, strands where bridges (parallel or antiparallel) form ladders of two or
    /// more. 3-10 and pi helices, isolated bridges, turns and bends are coil here. Chains of CA
    /// atoms alone are read from the distances along the trace (`assignFromTrace`).
    public func assignedSecondaryStructure() -> [SecondaryStructure] {
        // Backbone atoms of amino acid residues, in chain order.
        struct Backbone {
            var residue: Int
            var n, ca, c, o: SIMD3<Float>
            var h: SIMD3<Float>?
        }
        var bb: [Backbone] = []
        var chainBreakBefore: [Bool] = []
        // Residues with a CA but not the rest of the backbone (CA-only files), in chain order.
        var traces: [[(residue: Int, ca: SIMD3<Float>)]] = []
        for chain in chains {
            var previous: Backbone?
            var trace: [(residue: Int, ca: SIMD3<Float>)] = []
            for r in chain.residues {
                var n: SIMD3<Float>?, ca: SIMD3<Float>?, c: SIMD3<Float>?, o: SIMD3<Float>?
                for a in residues[Int(r)].atoms {
                    let atom = atoms[Int(a)]
                    if atom.altLoc != 0 && atom.altLoc != 0x41 { continue }
                    switch atom.name.description {
                    case "N": n = n ?? atom.position
                    case "CA": ca = ca ?? atom.position
                    case "C": c = c ?? atom.position
                    case "O": o = o ?? atom.position
                    default: break
                    }
                }
                guard let n, let ca, let c, let o else {
                    previous = nil
                    if let ca {
                        if let last = trace.last, (last.ca - ca).length > 4.2 {
                            traces.append(trace)
                            trace = []
                        }
                        trace.append((Int(r), ca))
                    }
                    continue
                }
                var residue = Backbone(residue: Int(r), n: n, ca: ca, c: c, o: o)
                var linked = false
                if let p = previous, (p.c - n).length < 2.5 {
                    let co = p.c - p.o
                    residue.h = n + co / co.length
                    linked = true
                }
                chainBreakBefore.append(!linked)
                bb.append(residue)
                previous = residue
            }
            traces.append(trace)
        }
        let count = bb.count
        var out = [SecondaryStructure](repeating: .coil, count: residues.count)
        for trace in traces where trace.count >= 5 { Model.assignFromTrace(trace.map(\.ca)).enumerated().forEach { out[trace[$0.offset].residue] = $0.element } }
        guard count > 3 else { return out }
        // hbond[i] holds the j whose N-H gives a hydrogen bond to the C=O of i.
        var accepts = [[Int]](repeating: [], count: count)
        let grid = CellGrid(positions: bb.map(\.ca), cellSize: 9)
        let cas = bb.map(\.ca)
        for i in 0..<count {
            grid.forEachNeighbor(of: i, cas) { j, _ in
                guard abs(i - j) > 1 || (i != j && chainBreakBefore[max(i, j)]), let h = bb[j].h else { return }
                let e = 0.084 * 332 * (1 / (bb[i].o - bb[j].n).length + 1 / (bb[i].c - h).length - 1 / (bb[i].o - h).length - 1 / (bb[i].c - bb[j].n).length)
                if e < -0.5 { accepts[i].append(j) }
            }
        }
        func hbond(_ i: Int, _ j: Int) -> Bool { i >= 0 && j >= 0 && i < count && j < count && accepts[i].contains(j) }
        /// Residues i and i + k on one unbroken stretch.
        func connected(_ i: Int, _ k: Int) -> Bool {
            guard i >= 0, i + k < count else { return false }
            for m in stride(from: i + 1, through: i + k, by: 1) where chainBreakBefore[m] { return false }
            return true
        }
        var state = [SecondaryStructure](repeating: .coil, count: count)
        // Alpha helices: 4-turns at i - 1 and i make i ... i + 3 helical.
        for i in 1..<count where connected(i - 1, 5) && hbond(i - 1, i + 3) && hbond(i, i + 4) {
            for k in i...(i + 3) { state[k] = .helix }
        }
        // Bridges between i and j, then ladders: a residue bridged whose neighbour along the chain
        // is bridged too (to the neighbour of its partner) is a strand.
        var partners = [[Int]](repeating: [], count: count)
        // donates[j]: the i whose C=O takes j's N-H (the other way round from accepts).
        var donates = [[Int]](repeating: [], count: count)
        for (i, list) in accepts.enumerated() { for j in list { donates[j].append(i) } }
        // A bridge needs one of its H-bonds: the partners j worth trying for i are those its
        // H-bonds and its neighbours' name (each term of the two patterns below), not every
        // residue of the model (that was count squared: 47,000 residues of 1f2n's capsid took 80 s).
        var candidates: [Int] = []
        for i in 1..<(count - 1) where connected(i - 1, 2) {
            candidates.removeAll(keepingCapacity: true)
            for j in accepts[i - 1] { candidates.append(j); candidates.append(j - 1) }
            for j in accepts[i] { candidates.append(j); candidates.append(j - 1) }
            for j in donates[i] { candidates.append(j); candidates.append(j + 1) }
            for j in donates[i + 1] { candidates.append(j); candidates.append(j + 1) }
            candidates.sort()
            var last = -1
            for j in candidates where j != last {
                last = j
                guard j >= 1, j < count - 1, abs(i - j) > 2, connected(j - 1, 2) else { continue }
                let parallel = (hbond(i - 1, j) && hbond(j, i + 1)) || (hbond(j - 1, i) && hbond(i, j + 1))
                let antiparallel = (hbond(i, j) && hbond(j, i)) || (hbond(i - 1, j + 1) && hbond(j - 1, i + 1))
                if parallel || antiparallel { partners[i].append(j) }
            }
        }
        for i in 0..<count where !partners[i].isEmpty && state[i] != .helix {
            let ladder = partners[i].contains { j in
                (i + 1 < count && (partners[i + 1].contains(j + 1) || partners[i + 1].contains(j - 1)))
                    || (i > 0 && (partners[i - 1].contains(j + 1) || partners[i - 1].contains(j - 1)))
            }
            if ladder { state[i] = .strand }
        }
        // Beta bulges: two stretches of strand paired with the same strand run on as one where the
        // gap between them is at most 1 residue on one side and at most 4 on the other (DSSP's
        // rule); the residues of both gaps are strand too.
        let paired = (0..<count).filter { state[$0] == .strand }
        for i in paired {
            for k in (i + 1)...min(i + 5, count - 1) where state[k] == .strand && connected(i, k - i) {
                let gap = k - i - 1
                for p in partners[i] {
                    for q in partners[k] where p != q && abs(p - q) <= 5 && connected(min(p, q), abs(p - q)) {
                        let other = abs(p - q) - 1
                        guard (gap <= 1 && other <= 4) || (gap <= 4 && other <= 1), gap + other > 0 else { continue }
                        for m in Array(i...k) + Array(min(p, q)...max(p, q)) where state[m] != .helix { state[m] = .strand }
                    }
                }
            }
        }
        for (k, b) in bb.enumerated() { out[b.residue] = state[k] }
        return out
    }
}

extension Model {
    /// Helices and strands of a CA trace alone, from the distances along it: in an alpha helix
    /// CA(i)-CA(i+2), (i+3), (i+4) are about 5.4, 5.0 and 6.2 Å; in a strand about 6.6, 10 and
    /// 13 Å. A window of five residues that fits is marked; runs shorter than three are left coil.
    static func assignFromTrace(_ ca: [SIMD3<Float>]) -> [SecondaryStructure] {
        var out = [SecondaryStructure](repeating: .coil, count: ca.count)
        guard ca.count >= 5 else { return out }
        for i in 0...(ca.count - 5) {
            let d2 = (ca[i] - ca[i + 2]).length, d3 = (ca[i] - ca[i + 3]).length, d4 = (ca[i] - ca[i + 4]).length
            if abs(d2 - 5.45) < 0.5 && abs(d3 - 5.2) < 0.6 && abs(d4 - 6.3) < 0.8 {
                for k in i...(i + 4) { out[k] = .helix }
            } else if d2 > 6.2 && d3 > 9.2 && d4 > 12.0 {
                for k in i...(i + 4) where out[k] == .coil { out[k] = .strand }
            }
        }
        // Runs shorter than three are coil.
        var i = 0
        while i < out.count {
            var j = i
            while j + 1 < out.count && out[j + 1] == out[i] { j += 1 }
            if out[i] != .coil && j - i + 1 < 3 { for k in i...j { out[k] = .coil } }
            i = j + 1
        }
        return out
    }
}


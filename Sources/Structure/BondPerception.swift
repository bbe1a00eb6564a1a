/// Finds a model's bonds, in the order DESIGN.md gives: what the file states; Chemical
/// Component Dictionary templates by atom name within each residue; peptide and
/// phosphodiester links between consecutive residues; a covalent-radius distance rule for
/// whatever no template covers. Never a bond between different alternate locations.
public struct BondPerception: Sendable {
    /// Added to the two covalent radii to give the longest bond the rule accepts, in angstroms.
    public static let tolerance: Float = 0.4
    /// Atoms closer than this are overlapping copies, not bonded.
    public static let minimumDistance: Float = 0.4

    public let elements: ElementTable
    public let dictionary: ComponentDictionary?

    public init(elements: ElementTable, dictionary: ComponentDictionary?) {
        self.elements = elements
        self.dictionary = dictionary
    }

    /// The dictionary and element table shipped in `Assets/`.
    public static func standard() throws -> BondPerception {
        BondPerception(elements: try ElementTable.shared(), dictionary: try ComponentDictionary.shared())
    }

    @inline(__always)
    public func maximumLength(_ a: Element, _ b: Element) -> Float {
        elements.covalentRadius(a) + elements.covalentRadius(b) + BondPerception.tolerance
    }

    @inline(__always)
    static func compatible(_ a: UInt8, _ b: UInt8) -> Bool { a == 0 || b == 0 || a == b }

    public func bonds(of model: Model, embedded: [ShortName: ComponentTemplate] = [:]) -> [Bond] {
        bonds(of: model, embedded: embedded, among: nil)
    }

    /// The bonds between atoms of `among` (one flag an atom; nil: every atom): the same bonds, in
    /// the same order, as every bond perceived and those with an end outside left out, without
    /// matching templates to residues none of whose atoms are wanted or searching around such atoms.
    public func bonds(of model: Model, embedded: [ShortName: ComponentTemplate] = [:], among wanted: [Bool]?) -> [Bond] {
        guard let wanted, wanted.count == model.atoms.count else { return allBonds(of: model, embedded: embedded, among: nil) }
        return allBonds(of: model, embedded: embedded, among: wanted).filter { wanted[Int($0.a)] && wanted[Int($0.b)] }
    }

    /// Every bond, or (`wanted`) every bond between two wanted atoms and perhaps others.
    private func allBonds(of model: Model, embedded: [ShortName: ComponentTemplate], among wanted: [Bool]?) -> [Bond] {
        if model.bondsAreComplete && model.bondsAreDistinct { return model.explicitBonds }
        let atoms = model.atoms
        var bonds: [Bond] = []
        bonds.reserveCapacity(atoms.count + atoms.count / 8)
        var seen = PairSet(expected: atoms.count + atoms.count / 8, atoms: atoms.count)
        @inline(__always) func key(_ bond: Bond) -> UInt64 { UInt64(UInt32(bond.a)) << 32 | UInt64(UInt32(bond.b)) }
        @inline(__always) func add(_ bond: Bond) {
            if seen.insert(key(bond)) { bonds.append(bond) }
        }
        @inline(__always) func withinRule(_ i: Int, _ j: Int) -> Bool {
            let d = atoms[i].position - atoms[j].position
            let d2 = (d * d).sum()
            let m = maximumLength(atoms[i].element, atoms[j].element)
            return d2 <= m * m && d2 >= BondPerception.minimumDistance * BondPerception.minimumDistance
        }

        for bond in model.explicitBonds { add(bond) }
        if model.bondsAreComplete { return bonds }
        // A PDB file's CONECT records give no orders: where a template names the same bond, its
        // order and aromaticity are taken.
        var stated: [UInt64: Int] = [:]
        for (k, bond) in bonds.enumerated() { stated[key(bond)] = k }

        // Templates.
        var covered = [Bool](repeating: false, count: atoms.count)
        var templateCache: [ShortName: ComponentTemplate?] = [:]
        for residue in model.residues {
            let range = Int(residue.atoms.lowerBound)..<Int(residue.atoms.upperBound)
            // A template's bonds lie within its residue: none between wanted atoms where it has none.
            if let wanted, !range.contains(where: { wanted[$0] }) { continue }
            let template: ComponentTemplate?
            if let cached = templateCache[residue.name] { template = cached } else {
                template = embedded[residue.name] ?? dictionary?.template(residue.name)
                templateCache[residue.name] = template
            }
            guard let template else { continue }
            for t in template.bonds {
                for i in range where atoms[i].name == t.a {
                    covered[i] = true
                    for j in range where atoms[j].name == t.b {
                        covered[j] = true
                        guard BondPerception.compatible(atoms[i].altLoc, atoms[j].altLoc) else { continue }
                        let bond = Bond(Int32(i), Int32(j), order: t.order, aromatic: t.aromatic, source: .template)
                        if let k = stated[key(bond)] {
                            bonds[k].order = t.order
                            bonds[k].aromatic = t.aromatic
                        } else if withinRule(i, j) {
                            add(bond)
                        }
                    }
                }
            }
        }

        // Peptide (C-N) and phosphodiester (O3'-P) links between consecutive residues of a chain run.
        let c = ShortName("C"), n = ShortName("N"), o3 = ShortName("O3'"), p = ShortName("P")
        for r in model.residues.indices.dropLast() {
            let first = model.residues[r], second = model.residues[r + 1]
            guard first.chain == second.chain else { continue }
            for i in Int(first.atoms.lowerBound)..<Int(first.atoms.upperBound) where atoms[i].name == c || atoms[i].name == o3 {
                let partner = atoms[i].name == c ? n : p
                for j in Int(second.atoms.lowerBound)..<Int(second.atoms.upperBound) where atoms[j].name == partner {
                    if BondPerception.compatible(atoms[i].altLoc, atoms[j].altLoc) && withinRule(i, j) {
                        add(Bond(Int32(i), Int32(j), order: 1, source: .polymer))
                    }
                }
            }
        }

        // Distance rule for what templates leave open.
        var water = [Bool](repeating: false, count: model.residues.count)
        var loneIon = [Bool](repeating: false, count: model.residues.count)
        for (r, residue) in model.residues.enumerated() {
            water[r] = residue.isWater
            loneIon[r] = residue.atoms.count == 1 && atoms[Int(residue.atoms.lowerBound)].element.isMetal
        }
        var largest: Float = 0
        for atom in atoms { largest = max(largest, elements.covalentRadius(atom.element)) }
        let positions = atoms.map(\.position)
        let grid = CellGrid(positions: positions, cellSize: 2 * largest + BondPerception.tolerance)
        let sulfur = Element.sulfur
        // Two atoms that templates cover, in standard residues, bond only as a disulfide: every
        // other pair has an open atom (one no template covers, or in a hetero residue, or a
        // sulfur), so only the open atoms' neighbourhoods are searched.
        let open = atoms.indices.map { i in
            !covered[i] || model.residues[Int(atoms[i].residue)].kind != .polymer || atoms[i].element == sulfur
        }
        // A pair with an unwanted atom is not asked for: searched from wanted open atoms only
        // (both atoms of a wanted pair are in residues whose templates were matched, so whether
        // they are open is as it would be).
        for i in atoms.indices where open[i] && (wanted == nil || wanted![i]) {
            grid.forEachNeighbor(of: i, positions) { j, d2 in
                // Each pair once: from its open atom, or from the lower of two open ones.
                if open[j] && j < i { return }
                let (lo, hi) = i < j ? (i, j) : (j, i)
                let a = atoms[lo], b = atoms[hi]
                guard BondPerception.compatible(a.altLoc, b.altLoc) else { return }
                if a.residue == b.residue {
                    if covered[lo] && covered[hi] { return }
                } else {
                    let ra = Int(a.residue), rb = Int(b.residue)
                    if water[ra] || water[rb] || loneIon[ra] || loneIon[rb] { return }
                    if a.element.isHydrogen && b.element.isHydrogen { return }
                    if covered[lo] && covered[hi] {
                        // Both atoms are accounted for by their residues' templates: only a disulfide or a
                        // link to a ligand or modified residue (glycans, covalent inhibitors) joins them.
                        let disulfide = a.element == sulfur && b.element == sulfur
                        let hetLink = (model.residues[ra].kind != .polymer || model.residues[rb].kind != .polymer) && !a.element.isMetal && !b.element.isMetal
                        if !(disulfide || hetLink) { return }
                    }
                }
                let m = maximumLength(a.element, b.element)
                if d2 <= m * m && d2 >= BondPerception.minimumDistance * BondPerception.minimumDistance {
                    add(Bond(Int32(lo), Int32(hi), order: 0, source: .distance))
                }
            }
        }
        return bonds
    }
}

/// A set of atom pairs (two indices in a word) for bond perception: open addressing. Swift's
/// `Set` hashes each key with seeded SipHash, which was a fifth of perceiving a protein's bonds.
///
/// A pair is looked for first in a few slots placed by its first atom (2^`spreadShift` slots an
/// atom, in atom order): bonds are asked for atom after atom, so these reads go through memory in
/// order, where a hash's slots had each been a cache miss (two fifths of a large protein's bond
/// perception). Where those slots are all taken by other pairs (an atom with many bonds, as a
/// hostile file may give one atom thousands), the pair goes on to a multiplicative hash's slots,
/// so that no run of slots grows with one atom's bonds. Nothing is ever removed, so a pair is
/// found along the same slots it was put in.
struct PairSet {
    /// A power of two of them, at most half used.
    private var slots: [UInt64]
    private var count = 0
    /// log2 of the slots an atom's own run starts apart.
    private var spreadShift: UInt64
    private let atoms: Int
    /// No pair of two non-negative Int32 indices is all ones.
    private static let empty = UInt64.max
    /// The slots of a pair's first atom's run looked at before the hash's.
    static let nearProbes = 8

    /// `expected` pairs, of atoms numbered below `atoms` (more of either only costs speed).
    init(expected: Int, atoms: Int = 0) {
        var capacity = 16
        while capacity < expected * 2 && capacity < 1 << 40 { capacity <<= 1 }
        slots = [UInt64](repeating: PairSet.empty, count: capacity)
        self.atoms = max(1, atoms)
        spreadShift = PairSet.shift(capacity: capacity, atoms: self.atoms)
    }

    /// Slots an atom: the slots over the atoms, rounded down to a power of two (at least one).
    private static func shift(capacity: Int, atoms: Int) -> UInt64 {
        var shift: UInt64 = 0
        while (atoms << (shift + 1)) <= capacity && shift < 8 { shift += 1 }
        return shift
    }

    /// Adds `key`; whether it was new.
    @inline(__always)
    mutating func insert(_ key: UInt64) -> Bool {
        if (count + 1) * 2 > slots.count { grow() }
        let mask = slots.count - 1, spreadShift = spreadShift
        // The hash's top bits index the slots: as many as the slots' count has.
        let shift = UInt64(64 - slots.count.trailingZeroBitCount)
        let inserted = slots.withUnsafeMutableBufferPointer { slots -> Bool in
            // The first atom's slots, then the hash's: one run of probes that jumps once.
            var i = Int(truncatingIfNeeded: (key >> 32) << spreadShift) & mask
            var probes = 0
            while true {
                let here = slots[i]
                if here == key { return false }
                if here == PairSet.empty {
                    slots[i] = key
                    return true
                }
                probes += 1
                i = probes == PairSet.nearProbes ? Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> shift) : (i &+ 1) & mask
            }
        }
        if inserted { count += 1 }
        return inserted
    }

    private mutating func grow() {
        let old = slots
        slots = [UInt64](repeating: PairSet.empty, count: old.count * 2)
        spreadShift = PairSet.shift(capacity: slots.count, atoms: atoms)
        count = 0
        for key in old where key != PairSet.empty { _ = insert(key) }
    }
}

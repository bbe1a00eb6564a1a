import Core
import Foundation

/// The kinds of non-covalent contact between a selection (a ligand, a chain) and what surrounds
/// it, by the names PLIP's reports and Mol*'s interaction themes use.
public enum InteractionKind: String, CaseIterable, Sendable, Codable {
    case hbond, hydrophobic, saltbridge, pistacking, pication, halogen, metal, waterbridge

    /// Words for a key.
    public var title: String {
        switch self {
        case .hbond: "hydrogen bond"
        case .hydrophobic: "hydrophobic"
        case .saltbridge: "salt bridge"
        case .pistacking: "π-stacking"
        case .pication: "cation-π"
        case .halogen: "halogen bond"
        case .metal: "metal coordination"
        case .waterbridge: "water bridge"
        }
    }
}

/// One contact: the atoms of the selection's side and of the partner's side (one atom each, or
/// the atoms of a charged group or a ring), the points the line between them is drawn from and to
/// (an atom, or a group's centre), and the distance between those points.
public struct Interaction: Sendable, Equatable {
    public var kind: InteractionKind
    public var atoms: [Int]
    public var partnerAtoms: [Int]
    public var point: SIMD3<Float>
    public var partnerPoint: SIMD3<Float>
    public var distance: Float
    /// For pi-stacking, `parallel` or `perpendicular`; for hydrogen bonds and water bridges, which
    /// side donates (`donor` where the selection does, `acceptor` where it accepts).
    public var detail: String = ""
    /// A water bridge's water: its oxygen, which the line goes through; `distance` is then the
    /// selection's atom's to it, `waterDistance` the partner's.
    public var water: Int? = nil
    public var waterDistance: Float = 0
    /// The angle that admitted it, in degrees: a hydrogen bond's at the hydrogen (donor, H,
    /// acceptor), a water bridge's at the water (acceptor, O, the donor's H); 0 for the others.
    public var angle: Float = 0
}

/// The geometric rules, PLIP 3's (`plip/basic/config.py`, with the sources it cites). Limits as
/// data: a front end may narrow them; the defaults are what PLIP reports.
public struct InteractionRules: Sendable, Equatable {
    public var minimumDistance: Float = 0.5
    public var hydrophobic: Float = 4.0
    public var hbond: Float = 4.1
    public var hbondAngle: Float = 100
    /// Where acceptors compete for a hydrogen (and hydrogens for a lone pair): the bond's cost is
    /// its length plus 1 A per this many degrees its angle falls short of a straight line.
    public var hbondDegreesPerAngstrom: Float = 45
    /// Hydrogen bonds one acceptor atom takes at most: an oxygen's two lone pairs (an sp2
    /// nitrogen's one is shared by two donors in an oxyanion hole, 1VSN's thioimidate N45).
    public var hbondsPerAcceptor = 2
    public var saltBridge: Float = 5.5
    public var piStacking: Float = 5.5
    public var piStackingAngleDeviation: Float = 30
    public var piOffset: Float = 2.0
    public var piCation: Float = 6.0
    public var halogen: Float = 4.0
    public var halogenAcceptorAngle: Float = 120
    public var halogenDonorAngle: Float = 165
    public var halogenAngleDeviation: Float = 30
    public var metal: Float = 3.0
    /// Water bridges (Jiang et al. 2005, as PLIP widens them): each polar atom this near the
    /// water's oxygen; the angle at the water between the acceptor and the donor's hydrogen; the
    /// angle at the donor's hydrogen between the donor and the water.
    public var waterBridgeMinimum: Float = 2.5
    public var waterBridgeMaximum: Float = 4.1
    public var waterBridgeOmega: ClosedRange<Float> = 71...140
    public var waterBridgeTheta: Float = 100
    /// The most selected atoms one search takes (a whole ribosome against itself is not a binding site).
    public var maxSelectedAtoms = 200_000

    public init() {}
}

/// Finds the non-covalent interactions between the atoms a mask selects and the rest of a model,
/// by PLIP's rules: hydrogen bonds (donors and acceptors typed by element, bonds and the hydrogens
/// the Chemical Component Dictionary's templates give, with hydrogens placed where the file has
/// none), hydrophobic contacts, salt bridges, pi-stacking, cation-pi, halogen bonds and metal
/// coordination, and water bridges (donor, water, acceptor). Waters are neither side (but metal
/// ligands, and the middle of a bridge). No GL; plain arithmetic.
public struct InteractionFinder: Sendable {
    public var rules = InteractionRules()

    public init(rules: InteractionRules = InteractionRules()) { self.rules = rules }

    public struct TooManyAtoms: Error, CustomStringConvertible {
        public var count: Int, limit: Int
        public var description: String { "the selection has \(count) atoms: interactions are found for at most \(limit)" }
    }

    /// The interactions of the atoms `selected` marks with every other atom of `model` (the
    /// deposited first conformer), `bonds` being the model's bonds (`BondPerception`).
    /// `partners`, where given, narrows the other side to the atoms it marks (`polymer`: a
    /// nucleic acid's contacts with its protein, not with its other strand, as PLIP reports them).
    public func find(in model: Model, bonds: [Bond], selected: [Bool], partners: [Bool]? = nil,
                     dictionary: ComponentDictionary? = nil) throws -> [Interaction] {
        let typed = AtomTypes(model: model, bonds: bonds, dictionary: dictionary)
        let n = model.atoms.count
        var side = [UInt8](repeating: 0, count: n)  // 0 none, 1 selection, 2 partner
        var count = 0
        var waters = [Bool](repeating: false, count: n)
        for i in 0..<n where typed.usable[i] {
            let water = model.residues[Int(model.atoms[i].residue)].isWater
            if water && model.atoms[i].element.atomicNumber == 8 && !(i < selected.count && selected[i]) { waters[i] = true }
            if i < selected.count && selected[i] && !water {
                side[i] = 1
                count += 1
            } else if let partners, !(i < partners.count && partners[i]) {
                continue
            } else if !water || model.atoms[i].element.atomicNumber == 8 {
                side[i] = water ? 3 : 2  // 3: a water oxygen, a partner only to metals
            }
        }
        guard count <= rules.maxSelectedAtoms else { throw TooManyAtoms(count: count, limit: rules.maxSelectedAtoms) }
        guard count > 0 else { return [] }
        var search = Search(model: model, typed: typed, side: side, rules: rules)
        search.waters = waters
        return search.run()
    }
}

/// What each atom is for these rules: usable (first conformer, not hydrogen), neighbours, the
/// hydrogens it carries, whether it is planar (sp2), donor, acceptor, hydrophobic.
struct AtomTypes {
    var usable: [Bool]
    var heavy: [[(atom: Int, order: UInt8, aromatic: Bool)]]
    var explicitH: [[Int]]
    var hydrogens: [Int]
    var planar: [Bool]
    var donor: [Bool]
    var acceptor: [Bool]
    var hydrophobic: [Bool]
    /// A nitrogen on carbons only, none of them fluorinated next door, not planar: a base
    /// (bonded to a sulfonyl, a phosphoryl or another nitrogen it is a sulfonamide, an imide, a
    /// hydrazine; trifluoroethylamine's pKa is 5.7), charged at pH 7 (`Search.charged`).
    var amine: [Bool]

    /// The standard amino acids, whose groups are typed by name (as PLIP types them by residue).
    static let aminoAcids: Set<String> = ["ALA", "ARG", "ASN", "ASP", "CYS", "GLN", "GLU", "GLY", "HIS", "ILE", "LEU", "LYS", "MET",
                                          "PHE", "PRO", "SER", "THR", "TRP", "TYR", "VAL", "MSE", "SEC", "PYL"]

    init(model: Model, bonds: [Bond], dictionary: ComponentDictionary?) {
        let atoms = model.atoms
        let n = atoms.count
        let conformer = model.defaultConformerMask()
        usable = (0..<n).map { conformer[$0] && !atoms[$0].element.isHydrogen }
        heavy = Array(repeating: [], count: n)
        explicitH = Array(repeating: [], count: n)
        for b in bonds {
            let a = Int(b.a), c = Int(b.b)
            guard a >= 0, c >= 0, a < n, c < n, conformer[a], conformer[c] else { continue }
            let ha = atoms[a].element.isHydrogen, hc = atoms[c].element.isHydrogen
            if ha && hc { continue }
            if ha { explicitH[c].append(a); continue }
            if hc { explicitH[a].append(c); continue }
            heavy[a].append((c, b.order, b.aromatic))
            heavy[c].append((a, b.order, b.aromatic))
        }
        // A covalent adduct as the file has it, not as its free ligand's template: at a ligand's atom
        // bonded to another residue, a C-N bond of 1.31 A or less, or a C-O of 1.28 A or less, is
        // double whatever the template says (1VSN's nitrile, now a thioimidate C44=N45H at 1.29 A;
        // its template is the reduced amine). Then a carbon with
        // more than four bonds' worth (a nitrile's carbon bonded to a cysteine's SG, 1VSN's C44)
        // loses its highest order, to a heteroatom first (C#N becomes the thioimidate's C=N-H).
        for b in bonds {
            let a = Int(b.a), c = Int(b.b)
            guard a >= 0, c >= 0, a < n, c < n, conformer[a], conformer[c], atoms[a].residue != atoms[c].residue else { continue }
            for x in [a, c] where model.residues[Int(atoms[x].residue)].kind == .ligand && !atoms[x].element.isMetal {
                for k in heavy[x].indices where heavy[x][k].order == 1 && !heavy[x][k].aromatic && atoms[heavy[x][k].atom].residue == atoms[x].residue {
                    let y = heavy[x][k].atom
                    let pair = Set([atoms[x].element.atomicNumber, atoms[y].element.atomicNumber])
                    let limit: Float = pair == [6, 7] ? 1.31 : pair == [6, 8] ? 1.28 : 0
                    guard limit > 0, (atoms[x].position - atoms[y].position).length <= limit else { continue }
                    heavy[x][k].order = 2
                    for m in heavy[y].indices where heavy[y][m].atom == x { heavy[y][m].order = 2 }
                }
            }
        }
        for i in 0..<n where atoms[i].element.atomicNumber == 6 {
            var total = heavy[i].reduce(0) { $0 + Int(max(1, $1.order)) }
            while total > 4 {
                var pick = -1, best = (UInt8(0), UInt8(0))
                for k in heavy[i].indices where heavy[i][k].order >= 2 && !heavy[i][k].aromatic {
                    let key = (heavy[i][k].order, atoms[heavy[i][k].atom].element.atomicNumber)
                    if key > best { (pick, best) = (k, key) }
                }
                guard pick >= 0 else { break }
                let k = pick, j = heavy[i][k].atom
                heavy[i][k].order -= 1
                if let back = heavy[j].firstIndex(where: { $0.atom == i }) { heavy[j][back].order -= 1 }
                total -= 1
            }
        }
        // Residues whose file carries hydrogens: their count is the file's.
        var residueHasH = [Bool](repeating: false, count: model.residues.count)
        for atom in atoms where atom.element.isHydrogen { residueHasH[Int(atom.residue)] = true }
        hydrogens = Array(repeating: 0, count: n)
        planar = Array(repeating: false, count: n)
        donor = Array(repeating: false, count: n)
        acceptor = Array(repeating: false, count: n)
        hydrophobic = Array(repeating: false, count: n)
        amine = Array(repeating: false, count: n)
        var protonated = [Bool](repeating: false, count: n)
        // Per component: the hydrogens its template gives each atom it names (nil: no template).
        var templateHydrogens: [ShortName: [ShortName: Int]?] = [:]
        func hydrogensOf(_ component: ShortName, _ dictionary: ComponentDictionary) -> [ShortName: Int]? {
            if let known = templateHydrogens[component] { return known }
            let counts = dictionary.template(component).map { t -> [ShortName: Int] in
                var counts: [ShortName: Int] = [:]
                for b in t.bonds {
                    let hA = AtomTypes.isHydrogenName(b.a), hB = AtomTypes.isHydrogenName(b.b)
                    counts[b.a, default: 0] += hB ? 1 : 0
                    counts[b.b, default: 0] += hA ? 1 : 0
                }
                return counts
            }
            templateHydrogens[component] = .some(counts)
            return counts
        }
        let heavyList = heavy
        func multiple(_ i: Int) -> Bool { heavyList[i].contains { $0.order >= 2 || $0.aromatic } }
        for i in 0..<n where usable[i] {
            let e = atoms[i].element.atomicNumber
            let residue = model.residues[Int(atoms[i].residue)]
            let resn = residue.name.description, name = atoms[i].name.description
            planar[i] = multiple(i) || (e == 7 && heavy[i].contains { n in
                let ne = atoms[n.atom].element.atomicNumber
                return (ne == 6 || ne == 7) && multiple(n.atom)
            })
            if e == 6 {
                hydrophobic[i] = heavy[i].allSatisfy { atoms[$0.atom].element.atomicNumber == 6 }
                continue
            }
            guard e == 7 || e == 8 else { continue }
            if e == 7 {
                amine[i] = !planar[i] && heavy[i].allSatisfy { atoms[$0.atom].element.atomicNumber == 6 && !AtomTypes.fluorinated($0.atom, heavyList, atoms) }
            }
            // Hydrogens: the file's where it has them; else the valence left by the bond orders,
            // no more than the component's template gives the atom.
            if residueHasH[Int(atoms[i].residue)] {
                hydrogens[i] = explicitH[i].count
            } else {
                let valence = (e == 7 ? 3 : 2) + max(0, Int(atoms[i].charge))
                let used = heavy[i].reduce(0) { $0 + Int(max(1, $1.order)) }
                var h = max(0, valence - used)
                if !AtomTypes.aminoAcids.contains(resn), let dictionary, let inTemplate = hydrogensOf(residue.name, dictionary)?[atoms[i].name] {
                    h = min(h, inTemplate)
                }
                // Acids as they are at pH 7: a phosphate's, sulfate's or carboxylate's oxygens carry none.
                if e == 8, heavy[i].count == 1 {
                    let c = heavy[i][0].atom, ce = atoms[c].element.atomicNumber
                    let oxygens = heavy[c].filter { atoms[$0.atom].element.atomicNumber == 8 && heavyList[$0.atom].count == 1 }.count
                    if ce == 15 || ce == 16 || (ce == 6 && oxygens == 2) { h = 0 }
                }
                // Bases as they are at pH 7: an amine on one to three carbons, single-bonded, is
                // protonated, NH3+ to R3NH+, a donor with no lone pair (donepezil's piperidine,
                // lysine's NZ).
                if amine[i], (1...3).contains(heavy[i].count), atoms[i].charge >= 0, heavy[i].allSatisfy({ $0.order == 1 }) {
                    h = 4 - heavy[i].count
                    protonated[i] = true
                }
                hydrogens[i] = h
            }
            if AtomTypes.aminoAcids.contains(resn) {
                // Histidine's ring nitrogens take either tautomer.
                if resn == "HIS" && (name == "ND1" || name == "NE2") {
                    donor[i] = true
                    acceptor[i] = true
                    continue
                }
            }
            donor[i] = hydrogens[i] > 0
            if e == 8 {
                acceptor[i] = true
            } else {
                // A nitrogen with a lone pair of its own: no hydrogen and two neighbours at most
                // (a pyridine's, a nitrile's), or an imine's =NH (a thioimidate's, a Schiff base's).
                // Not an amidine's or a guanidine's =NH (its carbon bears another nitrogen): those
                // are protonated, arginine's NH1 and NH2 donors only.
                let imine = hydrogens[i] == 1 && heavy[i].count == 1 && heavy[i][0].order == 2 && !heavy[i][0].aromatic
                    && !heavy[heavy[i][0].atom].contains { $0.atom != i && atoms[$0.atom].element.atomicNumber == 7 }
                acceptor[i] = (hydrogens[i] == 0 && heavy[i].count <= 2 || imine) && atoms[i].charge <= 0 && !protonated[i]
            }
        }
    }

    /// Whether carbon `c` bears fluorines, or a neighbour of it does (CF3-CH2-).
    static func fluorinated(_ c: Int, _ heavy: [[(atom: Int, order: UInt8, aromatic: Bool)]], _ atoms: [Atom]) -> Bool {
        heavy[c].contains { x in
            let e = atoms[x.atom].element.atomicNumber
            return e == 9 || (e == 6 && heavy[x.atom].contains { atoms[$0.atom].element.atomicNumber == 9 })
        }
    }

    /// A template atom name that is a hydrogen's (H1, HO2, HN, D...).
    static func isHydrogenName(_ name: ShortName) -> Bool {
        let first = name.byte(0)
        return first == UInt8(ascii: "H") || first == UInt8(ascii: "D")
    }
}

/// One search: the grid of partner atoms, the groups of each side, the interactions.
private struct Search {
    let model: Model
    let typed: AtomTypes
    let side: [UInt8]
    let rules: InteractionRules
    let positions: [SIMD3<Float>]
    let grid: CellGrid
    let selected: [Int]
    /// Atoms that coordinate a metal (`boundToMetals`), set by `run`.
    var metalBound = Set<Int>()
    /// Atom pairs bonded across the selection's edge, or one atom apart (`linkedAcross`), set by `run`.
    var linked = Set<Int>()
    /// Water oxygens that may bridge (first conformer, not selected), whatever the partners.
    var waters: [Bool] = []

    init(model: Model, typed: AtomTypes, side: [UInt8], rules: InteractionRules) {
        self.model = model
        self.typed = typed
        self.side = side
        self.rules = rules
        positions = model.atoms.map(\.position)
        grid = CellGrid(positions: positions, cellSize: max(rules.piCation, rules.saltBridge, rules.hbond) + 0.5)
        selected = (0..<side.count).filter { side[$0] == 1 }
    }

    func residue(_ i: Int) -> Residue { model.residues[Int(model.atoms[i].residue)] }
    func resn(_ i: Int) -> String { residue(i).name.description }
    func name(_ i: Int) -> String { model.atoms[i].name.description }
    func element(_ i: Int) -> UInt8 { model.atoms[i].element.atomicNumber }

    /// Partner atoms (side 2; `waters` takes side 3 too) within `limit` of `p`.
    func partners(near p: SIMD3<Float>, within limit: Float, waters: Bool = false, _ body: (Int, Float) -> Void) {
        grid.forEachPoint(near: p, positions, within: limit * limit) { j, d2 in
            if side[j] == 2 || (waters && side[j] == 3) { body(j, d2.squareRoot()) }
        }
    }

    mutating func run() -> [Interaction] {
        metalBound = boundToMetals()
        linked = linkedAcross()
        let ligandGroups = charged(side: 1), partnerGroups = charged(side: 2)
        let salt = saltBridges(ligandGroups, partnerGroups)
        let ligandRings = rings(side: 1), partnerRings = rings(side: 2)
        let stacks = stacking(ligandRings, partnerRings)
        let hbonds = hydrogenBonds(salt: salt)
        var result = hbonds.shown
        result += waterBridges(direct: hbonds.shown + hbonds.hidden)
        result += hydrophobicContacts(stacks: stacks)
        result += salt.map(\.interaction)
        result += stacks.map(\.interaction)
        result += cationPi(ligandRings, partnerGroups.filter(\.positive), stacks: stacks, ringsOnSelection: true)
        result += cationPi(partnerRings, ligandGroups.filter(\.positive), stacks: stacks, ringsOnSelection: false)
        result += halogenBonds()
        result += metals()
        // Atoms bonded across the selection's edge (a covalent inhibitor, a Schiff base's lysine)
        // or one atom apart are one molecule there: no non-covalent contact between them.
        return result.filter { i in !i.atoms.contains { a in i.partnerAtoms.contains { linked.contains(Search.pair(a, $0)) } } }
    }

    static func pair(_ a: Int, _ b: Int) -> Int { min(a, b) << 32 | max(a, b) }

    /// Pairs of atoms, one each side, bonded or with one atom between them.
    func linkedAcross() -> Set<Int> {
        var out = Set<Int>()
        // A bond to a metal is its coordination, which is listed, not a covalent link.
        for i in selected where !isMetal(i) {
            for n in typed.heavy[i] where !isMetal(n.atom) {
                let j = n.atom
                if side[j] != 1 {
                    out.insert(Search.pair(i, j))
                    for m in typed.heavy[j] where side[m.atom] != 1 { out.insert(Search.pair(i, m.atom)) }
                    for m in typed.heavy[i] where side[m.atom] == 1 { out.insert(Search.pair(m.atom, j)) }
                }
            }
        }
        return out
    }

    /// Atoms that coordinate a metal (within the metal distance of one, of a kind that binds):
    /// their lone pair is the metal's, so they donate no hydrogen bond (a zinc's histidine NE2).
    func boundToMetals() -> Set<Int> {
        var out = Set<Int>()
        for m in 0..<model.atoms.count where typed.usable[m] && isMetal(m) {
            grid.forEachPoint(near: positions[m], positions, within: rules.metal * rules.metal) { j, d2 in
                if j != m, d2 > rules.minimumDistance * rules.minimumDistance, model.atoms[j].residue != model.atoms[m].residue, coordinates(j) {
                    out.insert(j)
                }
            }
        }
        return out
    }

    // MARK: Hydrogen bonds

    /// Where the hydrogens of donor `d` are (or may be), for an acceptor at `a`.
    func hydrogenDirections(_ d: Int, toward a: SIMD3<Float>) -> [SIMD3<Float>] {
        let p = positions[d]
        if !typed.explicitH[d].isEmpty {
            return typed.explicitH[d].map { normalize(positions[$0] - p) }
        }
        let neighbours = typed.heavy[d].map { normalize(positions[$0.atom] - p) }
        switch neighbours.count {
        case 0:
            return [normalize(a - p)]
        case 1:
            let u = neighbours[0]
            if typed.planar[d] {
                // In the plane of the neighbour and its own neighbour, 120 degrees from the bond.
                let n1 = typed.heavy[d][0].atom
                guard let x = typed.heavy[n1].first(where: { $0.atom != d })?.atom else { return [cone(u, toward: a - p)] }
                var w = positions[x] - positions[n1]
                w -= (w * u).sum() * u
                guard w.length > 1e-4 else { return [cone(u, toward: a - p)] }
                w = normalize(w)
                let c = Float(cos(120 * Double.pi / 180)), s = Float(sin(120 * Double.pi / 180))
                return [u * c + w * s, u * c - w * s]
            }
            return [cone(u, toward: a - p)]
        default:
            let sum = neighbours.reduce(SIMD3<Float>(0, 0, 0), +)
            return sum.length < 1e-4 ? [] : [normalize(-sum)]
        }
    }

    /// A tetrahedral hydrogen about the bond `u`, turned toward `v` (a rotatable OH or NH3).
    func cone(_ u: SIMD3<Float>, toward v: SIMD3<Float>) -> SIMD3<Float> {
        var q = v - (v * u).sum() * u
        if q.length < 1e-4 { q = abs(u.x) < 0.9 ? SIMD3(1, 0, 0) : SIMD3(0, 1, 0); q -= (q * u).sum() * u }
        q = normalize(q)
        let angle = 109.5 * Float.pi / 180
        return u * cos(angle) + q * sin(angle)
    }

    /// The best angle at a hydrogen of `d` toward acceptor `a`, in degrees, and which hydrogen
    /// gives it: its index among the donor's placed hydrogens, or -1 where the hydrogen is turned
    /// toward each acceptor (a rotatable OH or NH3, a lone ion's).
    func donorAngle(_ d: Int, _ a: Int) -> (angle: Float, hydrogen: Int) {
        if typed.heavy[d].isEmpty && typed.explicitH[d].isEmpty { return (180, -1) }
        var best: Float = 0, which = -1
        let directions = hydrogenDirections(d, toward: positions[a])
        for (k, h) in directions.enumerated() {
            let hp = positions[d] + h
            let a = angle(positions[d] - hp, positions[a] - hp)
            if a > best { (best, which) = (a, k) }
        }
        return (best, rotatable(d) ? -1 : which)
    }

    /// Whether `d`'s hydrogens are placed toward each acceptor (none in the file, one heavy
    /// neighbour, not planar), so a hydrogen is not one fixed direction.
    func rotatable(_ d: Int) -> Bool {
        typed.explicitH[d].isEmpty && typed.heavy[d].count <= 1 && !(typed.heavy[d].count == 1 && typed.planar[d])
    }

    /// How many hydrogens `d` can give: the file's, else the count its bonds leave (one at least,
    /// a donor being one).
    func hydrogenCount(_ d: Int) -> Int {
        typed.explicitH[d].isEmpty ? max(1, typed.hydrogens[d]) : typed.explicitH[d].count
    }


    /// Hydrogen bonds, each hydrogen of a donor given to one acceptor and each lone pair of an
    /// acceptor to one hydrogen: where several compete, the shortest and straightest (`cost`);
    /// an atom pair bonds once, whichever way. Groups joined by a salt bridge are that bridge, not
    /// hydrogen bonds too (PLIP's refinement), but their bonds take their hydrogens (a
    /// benzamidine's nitrogens have one each left over from Asp189): they are returned apart, as
    /// `hidden`, for the water bridges' count.
    func hydrogenBonds(salt: [SaltBridge]) -> (shown: [Interaction], hidden: [Interaction]) {
        struct Candidate { var donor: Int; var hydrogen: Int; var angle: Float; var bond: Interaction; var pair: Int; var hidden: Bool }
        var candidates: [Candidate] = []
        let paired = Set(salt.flatMap { s in s.ligand.atoms.flatMap { l in s.partner.atoms.map { l << 32 | $0 } } })
        for i in selected where typed.donor[i] || typed.acceptor[i] {
            partners(near: positions[i], within: rules.hbond) { j, d in
                guard d >= rules.minimumDistance, typed.usable[j] else { return }
                for (donor, acceptor, selectionDonates) in [(i, j, true), (j, i, false)] {
                    guard typed.donor[donor], typed.acceptor[acceptor], !metalBound.contains(donor) else { continue }
                    let (a, h) = donorAngle(donor, acceptor)
                    guard a >= rules.hbondAngle else { continue }
                    let bond = Interaction(kind: .hbond, atoms: [i], partnerAtoms: [j], point: positions[i], partnerPoint: positions[j],
                                           distance: d, detail: selectionDonates ? "donor" : "acceptor", angle: a)
                    candidates.append(Candidate(donor: donor, hydrogen: h, angle: a, bond: bond, pair: Search.pair(i, j), hidden: paired.contains(i << 32 | j)))
                }
            }
        }
        // Better: shorter and straighter, an angle 45 degrees short of linear costing as 1 A more.
        func cost(_ c: Candidate) -> Float { c.bond.distance + (180 - c.angle) / rules.hbondDegreesPerAngstrom }
        candidates.sort { (cost($0), $0.donor, $0.pair) < (cost($1), $1.donor, $1.pair) }
        var used: [Int: Int] = [:], accepted: [Int: Int] = [:], hydrogens = Set<Int>(), pairs = Set<Int>()
        var kept: [Candidate] = []
        for c in candidates {
            let acceptor = c.bond.atoms[0] == c.donor ? c.bond.partnerAtoms[0] : c.bond.atoms[0]
            guard (used[c.donor] ?? 0) < hydrogenCount(c.donor), (accepted[acceptor] ?? 0) < rules.hbondsPerAcceptor, !pairs.contains(c.pair) else { continue }
            if c.hydrogen >= 0 { guard hydrogens.insert(c.donor << 8 | c.hydrogen).inserted else { continue } }
            used[c.donor, default: 0] += 1
            accepted[acceptor, default: 0] += 1
            pairs.insert(c.pair)
            kept.append(c)
        }
        kept.sort { ($0.bond.atoms[0], $0.bond.partnerAtoms[0]) < ($1.bond.atoms[0], $1.bond.partnerAtoms[0]) }
        return (kept.filter { !$0.hidden }.map(\.bond), kept.filter(\.hidden).map(\.bond))
    }

    // MARK: Water bridges

    /// Donor-water-acceptor bridges between the selection and its partners, by PLIP's rules: the
    /// acceptor and the donor each 2.5-4.1 A from the water's oxygen, the angle at the donor's
    /// hydrogen (donor, H, water) over 100 degrees, the angle at the water (acceptor, O, H) 71-140
    /// degrees. Of the donors that reach one acceptor through one water, the bridge whose angle
    /// at the water is nearest 110 degrees; a water bridges twice at most, the two nearest 110
    /// degrees (PLIP's refinement). A donor's hydrogens bridge once each: one given to a direct
    /// hydrogen bond bridges nothing, and a hydroxyl reaches one water, not two.
    func waterBridges(direct: [Interaction]) -> [Interaction] {
        guard !waters.isEmpty else { return [] }
        var free: [Int: Int] = [:]  // the hydrogens a donor has left, where it gave some to direct bonds
        for b in direct {
            let d = b.detail == "donor" ? b.atoms[0] : b.partnerAtoms[0]
            free[d] = (free[d] ?? hydrogenCount(d)) - 1
        }
        let bonded = Set(free.filter { $0.value <= 0 }.keys)
        let low = rules.waterBridgeMinimum, high = rules.waterBridgeMaximum
        // The waters near a polar atom of the selection, in the order of their atoms.
        var near = Set<Int>()
        for i in selected where typed.donor[i] || typed.acceptor[i] {
            grid.forEachPoint(near: positions[i], positions, within: high * high) { j, _ in
                if waters[j] { near.insert(j) }
            }
        }
        struct Donor { var atom: Int; var hydrogen: SIMD3<Float>; var d: Float }
        struct Bridge { var acceptor: Int; var donor: Int; var omega: Float; var selectionDonates: Bool; var ad: Float; var dd: Float }
        var bridges: [(bridge: Bridge, water: Int)] = []
        for w in near.sorted() {
            let o = positions[w]
            var acceptors: [[(atom: Int, d: Float)]] = [[], []], donors: [[Donor]] = [[], []]  // [selection, partner]
            grid.forEachPoint(near: o, positions, within: high * high) { j, d2 in
                let d = d2.squareRoot()
                guard side[j] == 1 || side[j] == 2, d >= low, typed.usable[j] else { return }
                let k = side[j] == 1 ? 0 : 1
                if typed.acceptor[j] { acceptors[k].append((j, d)) }
                guard typed.donor[j], !metalBound.contains(j), !bonded.contains(j) else { return }
                for h in hydrogenDirections(j, toward: o) {
                    let hp = positions[j] + h
                    if angle(positions[j] - hp, o - hp) > rules.waterBridgeTheta { donors[k].append(Donor(atom: j, hydrogen: hp, d: d)) }
                }
            }
            // Per acceptor, the donor whose angle at the water is nearest 110 degrees.
            var best: [Int: Bridge] = [:]
            for (accepting, donating) in [(0, 1), (1, 0)] {
                for a in acceptors[accepting] {
                    for dn in donors[donating] where dn.atom != a.atom {
                        let omega = angle(positions[a.atom] - o, dn.hydrogen - o)
                        guard omega > rules.waterBridgeOmega.lowerBound, omega < rules.waterBridgeOmega.upperBound else { continue }
                        if let old = best[a.atom], abs(old.omega - 110) <= abs(omega - 110) { continue }
                        best[a.atom] = Bridge(acceptor: a.atom, donor: dn.atom, omega: omega, selectionDonates: donating == 0, ad: a.d, dd: dn.d)
                    }
                }
            }
            for b in best.values.sorted(by: { (abs($0.omega - 110), $0.acceptor) < (abs($1.omega - 110), $1.acceptor) }).prefix(2) {
                bridges.append((b, w))
            }
        }
        // Each donor through as many waters as it has hydrogens left, those nearest 110 degrees.
        var waterOf: [Int: [Int]] = [:]
        for (b, w) in bridges.sorted(by: { (abs($0.bridge.omega - 110), $0.water) < (abs($1.bridge.omega - 110), $1.water) }) {
            let list = waterOf[b.donor, default: []]
            if !list.contains(w) && list.count < (free[b.donor] ?? hydrogenCount(b.donor)) { waterOf[b.donor] = list + [w] }
        }
        var result: [Interaction] = []
        for (b, w) in bridges where waterOf[b.donor]?.contains(w) == true {
            let mine = b.selectionDonates ? b.donor : b.acceptor, theirs = b.selectionDonates ? b.acceptor : b.donor
            result.append(Interaction(kind: .waterbridge, atoms: [mine], partnerAtoms: [theirs], point: positions[mine], partnerPoint: positions[theirs],
                                      distance: b.selectionDonates ? b.dd : b.ad, detail: b.selectionDonates ? "donor" : "acceptor",
                                      water: w, waterDistance: b.selectionDonates ? b.ad : b.dd, angle: b.omega))
        }
        return result
    }

    // MARK: Hydrophobic contacts

    func hydrophobicContacts(stacks: [Stack]) -> [Interaction] {
        var stacked = Set<Int>()
        for s in stacks { for l in s.ligand.atoms { for p in s.partner.atoms { stacked.insert(l << 32 | p) } } }
        // The closest partner atom per (selection atom, partner residue).
        var closest: [Int: (partner: Int, d: Float)] = [:]
        var keys: [Int] = []
        for i in selected where typed.hydrophobic[i] {
            partners(near: positions[i], within: rules.hydrophobic) { j, d in
                guard d >= rules.minimumDistance, typed.hydrophobic[j], !stacked.contains(i << 32 | j) else { return }
                let key = i << 32 | Int(model.atoms[j].residue)
                if let old = closest[key] {
                    if d < old.d { closest[key] = (j, d) }
                } else {
                    closest[key] = (j, d)
                    keys.append(key)
                }
            }
        }
        // Per partner atom, the selection atoms that reach it, grouped where bonded to each
        // other (a hydrophobic patch): the closest of each patch. Where several reach it, one
        // bonded to none of the others is dropped, as PLIP drops it.
        var byPartner: [Int: [(atom: Int, d: Float)]] = [:]
        var partnerOrder: [Int] = []
        for key in keys {
            let (j, d) = closest[key]!
            if byPartner[j] == nil { partnerOrder.append(j) }
            byPartner[j, default: []].append((key >> 32, d))
        }
        var result: [Interaction] = []
        for j in partnerOrder {
            let list = byPartner[j]!
            let atoms = Set(list.map(\.atom))
            var seen = Set<Int>()
            for start in list where !seen.contains(start.atom) {
                var patch: [Int] = [], stack = [start.atom]
                seen.insert(start.atom)
                while let a = stack.popLast() {
                    patch.append(a)
                    for n in typed.heavy[a] where atoms.contains(n.atom) && seen.insert(n.atom).inserted { stack.append(n.atom) }
                }
                if patch.count == 1 && list.count > 1 { continue }
                let pick = list.filter { patch.contains($0.atom) }.min { $0.d < $1.d }!
                result.append(Interaction(kind: .hydrophobic, atoms: [pick.atom], partnerAtoms: [j], point: positions[pick.atom],
                                          partnerPoint: positions[j], distance: pick.d))
            }
        }
        return result
    }

    // MARK: Charged groups and salt bridges

    struct Group {
        var atoms: [Int]
        var centre: SIMD3<Float>
        var positive: Bool
        /// A tertiary amine's nitrogen (cation-pi checks its angle to the ring).
        var amine: Int? = nil
    }

    func centre(_ atoms: [Int]) -> SIMD3<Float> {
        atoms.reduce(SIMD3<Float>(0, 0, 0)) { $0 + positions[$1] } / Float(max(1, atoms.count))
    }

    /// The four nitrogens of a 5-substituted tetrazole whose carbon is `c` (the ring C-N-N-N-N,
    /// its nitrogens bearing nothing but a hydrogen), found by the bonds alone; nil for none.
    func tetrazole(_ c: Int) -> [Int]? {
        let ns = typed.heavy[c].map(\.atom).filter { element($0) == 7 }
        guard ns.count == 2, typed.heavy[c].count == 3 else { return nil }
        func next(_ n: Int, after prev: Int) -> Int? {
            let others = typed.heavy[n].map(\.atom).filter { $0 != prev }
            guard others.count == 1, element(others[0]) == 7 else { return nil }
            return others[0]
        }
        guard let a = next(ns[0], after: c), let b = next(ns[1], after: c), a != b,
              typed.heavy[a].count == 2, typed.heavy[b].count == 2, typed.heavy[a].contains(where: { $0.atom == b }) else { return nil }
        return [ns[0], a, b, ns[1]]
    }

    /// The charged groups of one side: side chains of the charged amino acids by name, a
    /// nucleic acid's phosphates, and in anything else PLIP's functional groups (amines,
    /// quaternary ammonium, sulfonium, guanidine, carboxylate, phosphate, sulfate, sulfonate),
    /// amidines and tetrazoles.
    func charged(side wanted: UInt8) -> [Group] {
        var groups: [Group] = []
        var done = Set<Int32>()
        for i in 0..<side.count where side[i] == wanted && typed.usable[i] {
            let r = model.atoms[i].residue
            let resn = self.resn(i)
            if AtomTypes.aminoAcids.contains(resn) {
                guard done.insert(r).inserted else { continue }
                let range = Int(model.residues[Int(r)].atoms.lowerBound)..<Int(model.residues[Int(r)].atoms.upperBound)
                let names: [String], positive: Bool
                switch resn {
                case "ARG": (names, positive) = (["NE", "NH1", "NH2"], true)
                case "HIS": (names, positive) = (["ND1", "NE2"], true)
                case "LYS": (names, positive) = (["NZ"], true)
                case "ASP": (names, positive) = (["OD1", "OD2"], false)
                case "GLU": (names, positive) = (["OE1", "OE2"], false)
                default: continue
                }
                let atoms = range.filter { typed.usable[$0] && side[$0] == wanted && names.contains(name($0)) }
                if !atoms.isEmpty { groups.append(Group(atoms: atoms, centre: centre(atoms), positive: positive)) }
                continue
            }
            let e = element(i)
            let neighbours = typed.heavy[i].map(\.atom)
            let ne = neighbours.map(element)
            let total = neighbours.count + typed.hydrogens[i]
            switch e {
            case 7:
                if typed.hydrogens[i] == 0 && neighbours.count == 4 {
                    groups.append(Group(atoms: [i], centre: positions[i], positive: true))
                } else if typed.amine[i] && total >= 3 {
                    groups.append(Group(atoms: [i], centre: positions[i], positive: true, amine: neighbours.count == 3 ? i : nil))
                }
            case 16:
                let oxygens = neighbours.filter { element($0) == 8 }
                if typed.hydrogens[i] == 0 && neighbours.count == 3 && oxygens.isEmpty {
                    groups.append(Group(atoms: [i], centre: positions[i], positive: true))
                } else if oxygens.count == 3 || oxygens.count == 4 {
                    groups.append(Group(atoms: [i] + oxygens, centre: positions[i], positive: false))
                }
            case 15:
                if !neighbours.isEmpty && ne.allSatisfy({ $0 == 8 }) {
                    groups.append(Group(atoms: [i] + neighbours, centre: positions[i], positive: false))
                }
            case 6:
                let oxygens = neighbours.filter { element($0) == 8 }, nitrogens = neighbours.filter { element($0) == 7 }
                if oxygens.count == 2 && ne.filter({ $0 == 6 }).count == 1 && oxygens.allSatisfy({ typed.heavy[$0].count == 1 }) {
                    groups.append(Group(atoms: oxygens, centre: centre(oxygens), positive: false))
                } else if let ring = tetrazole(i) {
                    // A tetrazole (pKa 4.9, a carboxylate's stand-in in sartans): charged at pH 7.
                    groups.append(Group(atoms: ring, centre: centre(ring + [i]), positive: false))
                } else if nitrogens.count == 3 && neighbours.count == 3 && nitrogens.contains(where: { typed.heavy[$0].count == 1 }),
                          !typed.heavy[i].contains(where: \.aromatic) {
                    // A guanidine, not a ring's carbon among three nitrogens (guanine's C2 is
                    // aromatic: nucleobases are neutral).
                    groups.append(Group(atoms: nitrogens, centre: positions[i], positive: true))
                } else if nitrogens.count == 2 && neighbours.count == 3 && ne.filter({ $0 == 6 }).count == 1,
                          !typed.heavy[i].contains(where: \.aromatic),
                          nitrogens.contains(where: { typed.heavy[$0].count == 1 }),
                          nitrogens.allSatisfy({ n in typed.heavy[n].allSatisfy { $0.atom == i || (element($0.atom) == 6 && !typed.planar[$0.atom]) } }) {
                    // An amidine (benzamidine's, pKa 11.6): a carbon between two nitrogens and a
                    // carbon, not in an aromatic ring, one nitrogen bare and the other bare or on
                    // saturated carbons (an acyl or aryl on it, an amidine is no base).
                    groups.append(Group(atoms: nitrogens, centre: positions[i], positive: true))
                }
            default:
                break
            }
        }
        return groups
    }

    struct SaltBridge {
        var ligand: Group, partner: Group
        var interaction: Interaction
    }

    func saltBridges(_ ligand: [Group], _ partner: [Group]) -> [SaltBridge] {
        var result: [SaltBridge] = []
        for l in ligand {
            for p in partner where p.positive != l.positive {
                let d = (l.centre - p.centre).length
                guard d > rules.minimumDistance, d < rules.saltBridge else { continue }
                result.append(SaltBridge(ligand: l, partner: p, interaction: Interaction(kind: .saltbridge, atoms: l.atoms, partnerAtoms: p.atoms,
                                                                                        point: l.centre, partnerPoint: p.centre, distance: d)))
            }
        }
        return result
    }

    // MARK: Rings

    struct Ring {
        var atoms: [Int]
        var centre: SIMD3<Float>
        var normal: SIMD3<Float>
        var residue: Int32
    }

    static let aromaticResidues: [String: [[String]]] = [
        "PHE": [["CG", "CD1", "CE1", "CZ", "CE2", "CD2"]],
        "TYR": [["CG", "CD1", "CE1", "CZ", "CE2", "CD2"]],
        "TRP": [["CG", "CD1", "NE1", "CE2", "CD2"], ["CD2", "CE2", "CZ2", "CH2", "CZ3", "CE3"]],
        "HIS": [["CG", "ND1", "CE1", "NE2", "CD2"]],
    ]

    /// Aromatic rings of one side: the aromatic amino acids' by name; elsewhere rings of five or
    /// six atoms in the bond graph that the templates call aromatic or that are flat.
    func rings(side wanted: UInt8) -> [Ring] {
        var result: [Ring] = []
        var doneResidues = Set<Int32>()
        var seenRings = Set<[Int]>()
        for i in 0..<side.count where side[i] == wanted && typed.usable[i] {
            let r = model.atoms[i].residue
            let resn = self.resn(i)
            if let names = Search.aromaticResidues[resn] {
                guard doneResidues.insert(r).inserted else { continue }
                let range = Int(model.residues[Int(r)].atoms.lowerBound)..<Int(model.residues[Int(r)].atoms.upperBound)
                for ring in names {
                    let atoms = ring.compactMap { n in range.first { typed.usable[$0] && name($0) == n } }
                    if atoms.count == ring.count, let made = makeRing(atoms) { result.append(made) }
                }
                continue
            }
            if AtomTypes.aminoAcids.contains(resn) { continue }
            // Cycles of 5 or 6 through i, found by a depth-first walk of at most 6 atoms.
            for cycle in cycles(from: i) {
                let key = cycle.sorted()
                guard !seenRings.contains(key) else { continue }
                seenRings.insert(key)
                let aromatic = zip(cycle, cycle.dropFirst() + [cycle[0]]).allSatisfy { a, b in typed.heavy[a].contains { $0.atom == b && $0.aromatic } }
                guard let ring = makeRing(cycle), aromatic || flat(cycle, ring) else { continue }
                result.append(ring)
            }
        }
        return result
    }

    /// The most heavy atoms bonded to an atom of an aromatic ring: two in the ring, one outside it,
    /// and one more for a metal over it (a sandwich complex's). The walk passes over busier atoms,
    /// which bounds it (at most 4 x 3^4 paths from an atom): where atoms lie on one another (a file
    /// of copies, an ensemble written as one model) each has dozens of "bonds", and a walk of six
    /// through every one had been a hang (a fuzzed crambin with its atoms six deep: 5 s a file).
    static let ringAtomNeighbours = 4

    func cycles(from start: Int) -> [[Int]] {
        guard typed.heavy[start].count <= Self.ringAtomNeighbours else { return [] }
        var found: [[Int]] = []
        var path = [start]
        func walk(_ a: Int) {
            for n in typed.heavy[a] where typed.usable[n.atom] && side[n.atom] == side[start]
                && typed.heavy[n.atom].count <= Self.ringAtomNeighbours {
                if n.atom == start && path.count >= 5 { found.append(path); continue }
                guard path.count < 6, n.atom > start, !path.contains(n.atom) else { continue }
                path.append(n.atom)
                walk(n.atom)
                path.removeLast()
            }
        }
        walk(start)
        // Each ring is found in both directions; keep one, and only rings with no shorter chord.
        return found.filter { $0[1] < $0[$0.count - 1] }.filter { cycle in
            for k in 0..<cycle.count {
                for m in (k + 2)..<max(k + 2, cycle.count) where !(k == 0 && m == cycle.count - 1) {
                    if typed.heavy[cycle[k]].contains(where: { $0.atom == cycle[m] }) { return false }
                }
            }
            return true
        }
    }

    func makeRing(_ atoms: [Int]) -> Ring? {
        let c = centre(atoms)
        let n = cross(positions[atoms[0]] - positions[atoms[2]], positions[atoms[4 % atoms.count]] - positions[atoms[0]])
        guard n.length > 1e-4 else { return nil }
        return Ring(atoms: atoms, centre: c, normal: normalize(n), residue: model.atoms[atoms[0]].residue)
    }

    /// Every atom within 0.15 A of the ring's plane (PLIP asks for 5 degrees between neighbouring
    /// triples' planes; the two agree on real rings).
    func flat(_ atoms: [Int], _ ring: Ring) -> Bool {
        atoms.allSatisfy { abs(((positions[$0] - ring.centre) * ring.normal).sum()) < 0.15 }
    }

    struct Stack {
        var ligand: Ring, partner: Ring
        var interaction: Interaction
    }

    func offset(_ ring: Ring, _ p: SIMD3<Float>) -> Float {
        let v = p - ring.centre
        return (v - (v * ring.normal).sum() * ring.normal).length
    }

    func stacking(_ ligand: [Ring], _ partner: [Ring]) -> [Stack] {
        var result: [Stack] = []
        for l in ligand {
            for p in partner {
                let d = (l.centre - p.centre).length
                guard d > rules.minimumDistance, d < rules.piStacking else { continue }
                var a = angle(l.normal, p.normal)
                a = min(a, 180 - a)
                let off = min(offset(l, p.centre), offset(p, l.centre))
                let kind: String
                if a < rules.piStackingAngleDeviation { kind = "parallel" } else if abs(a - 90) < rules.piStackingAngleDeviation { kind = "perpendicular" } else { continue }
                guard off < rules.piOffset else { continue }
                result.append(Stack(ligand: l, partner: p, interaction: Interaction(kind: .pistacking, atoms: l.atoms, partnerAtoms: p.atoms,
                                                                                  point: l.centre, partnerPoint: p.centre, distance: d, detail: kind)))
            }
        }
        return result
    }

    func cationPi(_ rings: [Ring], _ cations: [Group], stacks: [Stack], ringsOnSelection: Bool) -> [Interaction] {
        var result: [Interaction] = []
        for ring in rings {
            for c in cations {
                let d = (ring.centre - c.centre).length
                guard d > rules.minimumDistance, d < rules.piCation, offset(ring, c.centre) < rules.piOffset else { continue }
                if let amine = c.amine {
                    let n = typed.heavy[amine].map { positions[$0.atom] }
                    if n.count == 3 {
                        var a = angle(ring.normal, cross(n[1] - n[0], n[0] - n[2]))
                        a = min(a, 180 - a)
                        guard a <= 30 else { continue }
                    }
                }
                // A histidine stacked on the ring is reported as stacking only (PLIP's refinement).
                let his = resn(c.atoms[0]) == "HIS"
                if his && stacks.contains(where: { ringsOnSelection ? ($0.ligand.atoms == ring.atoms && $0.partner.residue == model.atoms[c.atoms[0]].residue)
                    : ($0.partner.atoms == ring.atoms && $0.ligand.residue == model.atoms[c.atoms[0]].residue) }) { continue }
                result.append(ringsOnSelection
                    ? Interaction(kind: .pication, atoms: ring.atoms, partnerAtoms: c.atoms, point: ring.centre, partnerPoint: c.centre, distance: d)
                    : Interaction(kind: .pication, atoms: c.atoms, partnerAtoms: ring.atoms, point: c.centre, partnerPoint: ring.centre, distance: d))
            }
        }
        return result
    }

    // MARK: Halogen bonds

    func halogenBonds() -> [Interaction] {
        var result: [Interaction] = []
        for x in selected where [9, 17, 35, 53].contains(element(x)) {
            let carbons = typed.heavy[x].filter { element($0.atom) == 6 }
            guard carbons.count == 1 else { continue }
            let c = carbons[0].atom
            partners(near: positions[x], within: rules.halogen) { a, d in
                // PLIP's acceptors: an oxygen, a nitrogen with a lone pair (an acceptor: no amide
                // or amine nitrogen), a sulfur.
                guard d > rules.minimumDistance, element(a) == 16 || ([7, 8].contains(element(a)) && typed.acceptor[a]) else { return }
                // The acceptor's own neighbour, Y in Y-A...X (carbon, phosphorus or sulfur).
                guard let y = typed.heavy[a].first(where: { [6, 15, 16].contains(element($0.atom)) })?.atom else { return }
                let donorAngle = angle(positions[c] - positions[x], positions[a] - positions[x])
                let acceptorAngle = angle(positions[x] - positions[a], positions[y] - positions[a])
                guard abs(donorAngle - rules.halogenDonorAngle) < rules.halogenAngleDeviation,
                      abs(acceptorAngle - rules.halogenAcceptorAngle) < rules.halogenAngleDeviation else { return }
                result.append(Interaction(kind: .halogen, atoms: [x], partnerAtoms: [a], point: positions[x], partnerPoint: positions[a], distance: d))
            }
        }
        return result
    }

    // MARK: Metals

    /// A metal atom wherever it is: an ion of its own, or in a ligand or cofactor (a heme's iron,
    /// a cluster's). Its own residue's atoms are never its partners (they are one side).
    func isMetal(_ i: Int) -> Bool { model.atoms[i].element.isMetal }

    /// Whether atom `a` can bind a metal (PLIP's kinds): oxygens, imidazole and other nitrogens,
    /// thiolate sulfurs; in amino acids the side chains that do and main-chain oxygens.
    func coordinates(_ a: Int) -> Bool {
        let e = element(a), resn = self.resn(a), name = self.name(a)
        if residue(a).isWater { return e == 8 }
        if AtomTypes.aminoAcids.contains(resn) {
            if name == "O" || name == "OXT" { return true }
            switch resn {
            case "ASP", "GLU", "SER", "THR", "TYR": return e == 8 && name != "O"
            case "HIS": return e == 7 && name != "N"
            case "CYS": return e == 16
            default: return false
            }
        }
        return e == 7 || e == 8 || e == 16
    }

    /// Metal coordination: one atom a residue, the closest (a carboxylate binding with both
    /// oxygens is one ligand of the metal, as PLIP counts it).
    func metals() -> [Interaction] {
        var closest: [Int: Interaction] = [:]
        var order: [Int] = []
        for i in coordination() {
            let metal = isMetal(i.atoms[0]) ? i.atoms[0] : i.partnerAtoms[0]
            let other = metal == i.atoms[0] ? i.partnerAtoms[0] : i.atoms[0]
            let key = metal << 32 | Int(model.atoms[other].residue)
            if let old = closest[key] {
                if i.distance < old.distance { closest[key] = i }
            } else {
                closest[key] = i
                order.append(key)
            }
        }
        return order.map { closest[$0]! }
    }

    func coordination() -> [Interaction] {
        var result: [Interaction] = []
        for i in selected {
            if isMetal(i) {
                partners(near: positions[i], within: rules.metal, waters: true) { j, d in
                    guard d > rules.minimumDistance, coordinates(j) else { return }
                    result.append(Interaction(kind: .metal, atoms: [i], partnerAtoms: [j], point: positions[i], partnerPoint: positions[j], distance: d))
                }
            } else if coordinates(i) {
                partners(near: positions[i], within: rules.metal) { j, d in
                    guard d > rules.minimumDistance, isMetal(j) else { return }
                    result.append(Interaction(kind: .metal, atoms: [i], partnerAtoms: [j], point: positions[i], partnerPoint: positions[j], distance: d))
                }
            }
        }
        return result
    }
}

// MARK: Vector helpers

private func normalize(_ v: SIMD3<Float>) -> SIMD3<Float> {
    let l = v.length
    return l > 0 ? v / l : v
}

/// The angle between two vectors in degrees.
private func angle(_ a: SIMD3<Float>, _ b: SIMD3<Float>) -> Float {
    let l = a.length * b.length
    guard l > 0 else { return 0 }
    return acos(max(-1, min(1, (a * b).sum() / l))) * 180 / .pi
}

/// Interactions as `molshot info --interactions` prints them: each with its kind, distance, the
/// selection's atoms and the partner's residue (chain, resn, resi) and atoms.
public struct InteractionReport: Encodable, Sendable {
    public struct Side: Encodable, Sendable, Equatable {
        public var chain: String
        public var resn: String
        public var resi: String
        /// Atom names; several for a charged group or a ring.
        public var atoms: [String]
        public var serials: [Int]
    }

    public struct Entry: Encodable, Sendable {
        public var kind: InteractionKind
        public var distance: Float
        public var detail: String?
        public var atom: Side
        public var partner: Side
        /// A water bridge's water, and the partner's distance to it.
        public var water: Side?
        public var waterDistance: Float?
        /// A hydrogen bond's angle at the hydrogen, a water bridge's at the water, in degrees.
        public var angle: Float?
    }

    public var selection: String
    public var interactions: [Entry]
    /// How many of each kind (every kind named, 0 where none).
    public var counts: [String: Int]

    public init(selection: String, model: Model, interactions found: [Interaction]) {
        self.selection = selection
        func side(_ atoms: [Int]) -> Side {
            let a = model.atoms[atoms[0]], r = model.residues[Int(a.residue)]
            let resi = "\(r.number)" + (r.insertionCode == 0 || r.insertionCode == 32 ? "" : String(UnicodeScalar(r.insertionCode)))
            return Side(chain: model.chains[Int(r.chain)].id, resn: r.name.description, resi: resi,
                        atoms: atoms.map { model.atoms[$0].name.description }, serials: atoms.map { Int(model.atoms[$0].serial) })
        }
        interactions = found.map { Entry(kind: $0.kind, distance: ($0.distance * 100).rounded() / 100, detail: $0.detail.isEmpty ? nil : $0.detail,
                                                atom: side($0.atoms), partner: side($0.partnerAtoms), water: $0.water.map { side([$0]) },
                                                waterDistance: $0.water == nil ? nil : ($0.waterDistance * 100).rounded() / 100,
                                                angle: $0.angle > 0 ? $0.angle.rounded() : nil) }
        var counts: [String: Int] = [:]
        for kind in InteractionKind.allCases { counts[kind.rawValue] = 0 }
        for i in found { counts[i.kind.rawValue, default: 0] += 1 }
        self.counts = counts
    }

    /// A line an interaction, then the counts.
    public var text: String {
        func name(_ s: Side) -> String { "\(s.resn) \(s.resi) \(Model.shown(chain: s.chain))" }
        func atoms(_ s: Side) -> String { s.atoms.count == 1 ? s.atoms[0] : "\(s.atoms.count) atoms" }
        var lines = interactions.map { e in
            let kind = (e.kind.title + (e.detail.map { " (\($0))" } ?? "")).padding(toLength: 34, withPad: " ", startingAt: 0)
            let distance = String(format: "%.2f", e.distance)
            if let w = e.water, let wd = e.waterDistance {
                return "\(kind) \(name(e.atom)) \(atoms(e.atom)) - \(name(w)) - \(name(e.partner)) \(atoms(e.partner))  \(distance) + \(String(format: "%.2f", wd)) Å"
            }
            return "\(kind) \(name(e.atom)) \(atoms(e.atom)) - \(name(e.partner)) \(atoms(e.partner))  \(distance) Å"
        }
        lines.append(InteractionKind.allCases.map { "\($0.rawValue) \(counts[$0.rawValue] ?? 0)" }.joined(separator: ", "))
        return lines.joined(separator: "\n")
    }
}

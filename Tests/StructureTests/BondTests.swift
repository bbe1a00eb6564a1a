import XCTest
@testable import Structure

final class BondTests: XCTestCase {
    let perception = try! BondPerception.standard()

    /// Within each standard residue, the template bonds are exactly the dictionary's bonds
    /// between the atoms the residue has.
    func assertTemplateBondsMatchDictionary(_ file: String, residues: Set<String>, file f: StaticString = #filePath, line: UInt = #line) throws {
        let s = try Fixtures.load(file)
        let m = s.models[0]
        let bonds = perception.bonds(of: m)
        let dictionary = try ComponentDictionary.shared()
        var checked = 0
        for (r, residue) in m.residues.enumerated() where residues.contains(residue.name.description) {
            let range = Int(residue.atoms.lowerBound)..<Int(residue.atoms.upperBound)
            var found = Set<[String]>()
            for b in bonds where b.source == .template && range.contains(Int(b.a)) {
                found.insert([m.atoms[Int(b.a)].name.description, m.atoms[Int(b.b)].name.description].sorted())
            }
            let names = Set(range.map { m.atoms[$0].name })
            let template = try XCTUnwrap(dictionary.template(residue.name), "\(residue.name)", file: f, line: line)
            var expected = Set<[String]>()
            for t in template.bonds where names.contains(t.a) && names.contains(t.b) {
                expected.insert([t.a.description, t.b.description].sorted())
            }
            XCTAssertEqual(found, expected, "\(file) residue \(r) \(residue.name) \(residue.number)", file: f, line: line)
            checked += 1
        }
        XCTAssertGreaterThan(checked, 10, file: f, line: line)
    }

    static let aminoAcids: Set<String> = ["ALA", "ARG", "ASN", "ASP", "CYS", "GLN", "GLU", "GLY", "HIS", "ILE",
                                          "LEU", "LYS", "MET", "PHE", "PRO", "SER", "THR", "TRP", "TYR", "VAL"]

    func testProteinTemplateBondsMatchTheDictionary() throws {
        try assertTemplateBondsMatchDictionary("1crn.pdb", residues: Self.aminoAcids)
    }

    func testNucleicAcidTemplateBondsMatchTheDictionary() throws {
        try assertTemplateBondsMatchDictionary("1bna.pdb", residues: ["DA", "DC", "DG", "DT"])
    }

    func testPolymerLinksJoinConsecutiveResidues() throws {
        let crambin = perception.bonds(of: try Fixtures.load("1crn.pdb").models[0])
        XCTAssertEqual(crambin.filter { $0.source == .polymer }.count, 45, "46 residues in one chain")
        let dna = try Fixtures.load("1bna.pdb").models[0]
        let links = perception.bonds(of: dna).filter { $0.source == .polymer }
        XCTAssertEqual(links.count, 22, "two strands of 12 nucleotides")
        for b in links {
            XCTAssertEqual(Set([dna.atoms[Int(b.a)].name.description, dna.atoms[Int(b.b)].name.description]), ["O3'", "P"])
        }
    }

    func testNoBondIsLongerThanTheRuleAllows() throws {
        for file in ["1crn.pdb", "1bna.pdb", "1orc.pdb", "multimodel.pdb", "SampleMolecule.xyz", "quoted.cif"] {
            let m = try Fixtures.load(file).models[0]
            for b in perception.bonds(of: m) where b.source != .explicit {
                let x = m.atoms[Int(b.a)], y = m.atoms[Int(b.b)]
                let d = ((x.position - y.position) * (x.position - y.position)).sum().squareRoot()
                XCTAssertLessThanOrEqual(d, perception.maximumLength(x.element, y.element), "\(file) \(x.name)-\(y.name)")
                XCTAssertGreaterThanOrEqual(d, BondPerception.minimumDistance)
            }
        }
    }

    func testNeverABondBetweenDifferentAlternateLocations() throws {
        for file in ["1orc.pdb", "quoted.cif"] {
            let m = try Fixtures.loadAll(file).models[0]
            let bonds = perception.bonds(of: m)
            for b in bonds {
                let x = m.atoms[Int(b.a)].altLoc, y = m.atoms[Int(b.b)].altLoc
                XCTAssertTrue(x == 0 || y == 0 || x == y, "\(file): bond between altlocs \(x) and \(y)")
            }
        }
        // quoted.cif: O5' bonds to both C5' A and C5' B, and each to C4'; never A to B.
        XCTAssertEqual(perception.bonds(of: try Fixtures.loadAll("quoted.cif").models[0]).count, 4)
    }

    func testDistanceRuleOnTheGridFindsWhatBruteForceFinds() throws {
        // XYZ has no templates: every bond comes from the grid.
        let m = try Fixtures.load("SampleMolecule.xyz").models[0]
        let grid = Set(perception.bonds(of: m).map { [$0.a, $0.b] })
        var brute = Set<[Int32]>()
        for i in m.atoms.indices {
            for j in m.atoms.indices where j > i {
                let d = m.atoms[i].position - m.atoms[j].position
                let d2 = (d * d).sum()
                let limit = perception.maximumLength(m.atoms[i].element, m.atoms[j].element)
                if d2 <= limit * limit && d2 >= 0.16 && !(m.atoms[i].element.isHydrogen && m.atoms[j].element.isHydrogen) {
                    brute.insert([Int32(i), Int32(j)])
                }
            }
        }
        XCTAssertEqual(grid, brute)
    }

    func testIonsAndWatersAreNotBondedByDistance() throws {
        let m = try Fixtures.load("multimodel.pdb").models[0]
        let bonds = perception.bonds(of: m)
        XCTAssertFalse(bonds.contains { $0.a >= 8 || $0.b >= 8 }, "calcium and mercury stay unbonded")
        XCTAssertEqual(bonds.filter { $0.source == .polymer }.count, 1)
    }

    func testDictionaryShipsEveryComponent() throws {
        let dictionary = try ComponentDictionary.shared()
        XCTAssertEqual(dictionary.count, 49_086)
        let ala = try XCTUnwrap(dictionary.template(ShortName("ALA")))
        XCTAssertEqual(ala.bonds.count, 12)
        XCTAssertTrue(ala.bonds.contains { $0.a == ShortName("C") && $0.b == ShortName("O") && $0.order == 2 })
        XCTAssertNil(dictionary.template(ShortName("ZZZZZ")))
        let hem = try XCTUnwrap(dictionary.template(ShortName("HEM")))
        XCTAssertTrue(hem.bonds.contains { $0.aromatic })
    }

    /// The pair set bond perception keeps says "new" exactly where Swift's `Set` does, past its
    /// growth, with pairs that collide in their low or high halves.
    func testPairSetAgreesWithSet() {
        var random = SystemRandomNumberGenerator()
        for expected in [0, 1, 7, 1000] {
            var pairs = PairSet(expected: expected)
            var reference = Set<UInt64>()
            for n in 0..<20_000 {
                let a = UInt64(UInt32.random(in: 0...(n % 3 == 0 ? 50 : 2_000_000_000), using: &random))
                let b = n % 5 == 0 ? a : UInt64(UInt32.random(in: 0...300, using: &random))
                let key = a << 32 | b
                XCTAssertEqual(pairs.insert(key), reference.insert(key).inserted, "pair \(n)")
            }
            for key in reference { XCTAssertFalse(pairs.insert(key)) }
        }
        // Placed by atom: a small file's atoms, ordered pairs either way round, and indices past
        // the atoms it was told of.
        for atoms in [1, 30, 5000] {
            var pairs = PairSet(expected: atoms + atoms / 8, atoms: atoms)
            var reference = Set<UInt64>()
            for n in 0..<20_000 {
                let a = UInt64(UInt32.random(in: 0...UInt32(n % 7 == 0 ? 3 * atoms : atoms - 1), using: &random))
                let b = UInt64(UInt32.random(in: 0...UInt32(atoms + 4), using: &random))
                let key = n % 2 == 0 ? a << 32 | b : b << 32 | a
                XCTAssertEqual(pairs.insert(key), reference.insert(key).inserted, "\(atoms) atoms, pair \(n)")
            }
            for key in reference { XCTAssertFalse(pairs.insert(key)) }
        }
    }

    /// One atom bonded to 300,000 others (a hostile bond table): the pairs past its own few slots
    /// go to the hash's, so no run of slots grows as long as they are (placed by atom alone,
    /// adding them would take 4.5 * 10^10 probes).
    func testPairSetTakesOneAtomsManyBondsInLinearTime() {
        let n = 300_000
        var pairs = PairSet(expected: n, atoms: n)
        for b in 1...n { XCTAssertTrue(pairs.insert(UInt64(b)), "pair \(b)") }
        for b in 1...n where b % 1000 == 0 { XCTAssertFalse(pairs.insert(UInt64(b))) }
        XCTAssertTrue(pairs.insert(UInt64(1) << 32 | 2))
    }

    /// Bonds perceived among some atoms only are the bonds perceived among all with an end
    /// elsewhere left out, in the same order: for ligands alone (what a cartoon leaves to balls
    /// and sticks), for residues every other one, and for atoms picked at random.
    func testBondsAmongSomeAtomsAreTheWholesBetweenThem() throws {
        var generator = SystemRandomNumberGenerator()
        for file in ["1crn.pdb", "1hpv.pdb", "1bna.pdb", "heme-site.pdb", "7jx4-ace-cap.pdb", "multimodel.pdb", "1CRN.cif", "Caffeine.pdb"] {
            let s = try Fixtures.load(file)
            let m = s.models[0]
            let all = perception.bonds(of: m, embedded: s.embeddedTemplates)
            let hetero = m.atoms.map { m.residues[Int($0.residue)].isHetero }
            let everyOther = m.atoms.map { $0.residue % 2 == 0 }
            let random = m.atoms.map { _ in Bool.random(using: &generator) }
            for (name, wanted) in [("hetero", hetero), ("every other residue", everyOther), ("random", random),
                                   ("none", m.atoms.map { _ in false }), ("all", m.atoms.map { _ in true })] {
                let among = perception.bonds(of: m, embedded: s.embeddedTemplates, among: wanted)
                let expected = all.filter { wanted[Int($0.a)] && wanted[Int($0.b)] }
                XCTAssertEqual(among.map { [$0.a, $0.b] }, expected.map { [$0.a, $0.b] }, "\(file) \(name)")
                XCTAssertEqual(among.map { "\($0.order) \($0.aromatic) \($0.source)" }, expected.map { "\($0.order) \($0.aromatic) \($0.source)" },
                               "\(file) \(name)")
            }
            // A mask of the wrong length is no mask.
            XCTAssertEqual(perception.bonds(of: m, embedded: s.embeddedTemplates, among: [true]).count, all.count, file)
        }
    }
}

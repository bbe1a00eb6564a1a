import Foundation
import Structure
import XCTest

/// Interactions checked against PLIP 3.0.1 on fifteen real complexes (Tests/Fixtures/interactions/,
/// PLIP's answers in plip-reference.tsv, made by plip-reference.py there from the sites in
/// sites.txt): HIV-1 protease with amprenavir (1hpv), B-Raf kinase with vemurafenib (3og7), RAG1's
/// zinc sites (1rmd), PDE5 with a halogenated inhibitor and its zinc (3shy), the TFIIIA zinc
/// fingers on DNA (1tf6); and, from PLIP's own test set, a heme and its iron's histidine (2q8q),
/// cathepsin K's covalent inhibitor (1vsn), a PLP Schiff base (1ay8), free arginine among waters
/// (3ems), p53's zinc with its histidine and an iodinated ligand (4agl), donepezil in
/// acetylcholinesterase (1eve), choline's cation-pi cage (2reg), trypsin's amidine (1bju), ATP with
/// its magnesium and waters (1xdn), flavodoxin's FMN (1aku).

final class InteractionTests: XCTestCase {
    struct Row {
        var file: String, site: String, kind: String, chain: String, resn: String, resi: String
        var distance: Float
        /// A contact within the site itself (a heme's iron and its own nitrogens, ATP's magnesium
        /// and ATP): PLIP lists the ligand's own coordination; Molshot the selection's with the rest.
        var withinSite: Bool {
            let p = site.split(separator: ":").map(String.init)
            return (p[0] == resn && p[1] == chain && p[2] == resi) || (file == "1xdn.pdb.gz" && resi == "501" && resn == "ATP")
        }
    }

    /// PLIP's answers, less those it gets wrong by the chemistry (`plipWrong`).
    static func reference() throws -> [Row] {
        try plipAnswers().filter { !plipWrong.contains("\($0.file) \($0.site) \($0.kind) \($0.chain) \($0.resn) \($0.resi)") && !$0.withinSite }
            + plipMissed.map { key in
                let f = key.split(separator: " ").map(String.init)
                return Row(file: f[0], site: f[1], kind: f[2], chain: f[3], resn: f[4], resi: f[5], distance: 0)
            }
    }

    static func plipAnswers() throws -> [Row] {
        let text = try String(contentsOfFile: Fixtures.path("interactions/plip-reference.tsv"), encoding: .utf8)
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return Row(file: f[0], site: f[1], kind: f[2], chain: f[3], resn: f[4], resi: f[5], distance: Float(f[6])!)
        }
    }

    /// Where PLIP is wrong by the chemistry, each explained in `Tests/Fixtures/interactions/NOTES.md`.
    static let plipWrong: Set<String> = [
        // Amprenavir's sulfonamide nitrogen (N2: the sulfonyl's S and two carbons) taken for a
        // protonated amine, 4.92 and 5.08 A from Asp25's carboxylates: a sulfonamide N is no base.
        "1hpv.pdb 478:Z:200 saltbridge A ASP 25", "1hpv.pdb 478:Z:200 saltbridge B ASP 25",
        // PLP's C4A is bonded to Lys258's NZ (the Schiff base, 1.35 A; LINK): its CE, one atom
        // from C4A across the bond, is the same molecule, no hydrophobic contact.
        "1ay8.pdb.gz PLP:A:413 hydrophobic A LYS 258",
    ]

    /// What PLIP misses by the chemistry, each explained in `NOTES.md`: the key a reported row has.
    static let plipMissed: [String] = [
        // Trypsin's classic salt bridge: the inhibitor's benzamidine (pKa 11.6, charged) 3.51 A
        // from Asp189's carboxylate; PLIP has no amidines among its charged groups.
        "1bju.pdb.gz GP6:A:910 saltbridge A ASP 189",
    ]

    /// The selection that is PLIP's binding site `site` (RESN:CHAIN:RESI): a nucleic-acid strand
    /// whole, against the protein (PLIP's receptor); anything else its residue.
    static func selection(_ file: String, _ site: String) -> (selection: String, partners: String?) {
        let p = site.split(separator: ":").map(String.init)
        if ["DA", "DC", "DG", "DT", "A", "C", "G", "U"].contains(p[0]) { return ("chain \(p[1])", "protein") }
        if file == "1hpv.pdb" { return ("resn \(p[0])", nil) }  // the tutorial copy leaves the ligand's chain blank (PLIP says Z)
        if file == "1xdn.pdb.gz" { return ("chain A and (resi 501 or resi 502)", nil) }  // PLIP's site is ATP with its magnesium
        return ("resn \(p[0]) and chain \(p[1]) and resi \(p[2])", nil)
    }

    func interactions(_ file: String, _ selection: String, partners: String? = nil) throws -> (Model, [Interaction]) {
        let structure = try Fixtures.load(file == "1hpv.pdb" ? file : "interactions/\(file)")
        let model = structure.models[0]
        let perception = try BondPerception.standard()
        let bonds = perception.bonds(of: model, embedded: structure.embeddedTemplates)
        let found = try InteractionFinder().find(in: model, bonds: bonds, selected: try Selection(parsing: selection).mask(in: model),
                                                 partners: try partners.map { try Selection(parsing: $0).mask(in: model) },
                                                 dictionary: perception.dictionary)
        return (model, found)
    }

    func testTheSamePartnersAsPLIPOnFifteenComplexes() throws {
        let rows = try InteractionTests.reference()
        var sites: [String] = []
        var bySite: [String: [Row]] = [:]
        for r in rows {
            let key = r.file + " " + r.site
            if bySite[key] == nil { sites.append(key) }
            bySite[key, default: []].append(r)
        }
        XCTAssertEqual(Set(rows.map(\.file)).count, 15)
        var plip: [String: Int] = [:], agreed: [String: Int] = [:], extra: [String: Int] = [:]
        for key in sites {
            let want = bySite[key]!
            let (selection, partners) = InteractionTests.selection(want[0].file, want[0].site)
            let (model, found) = try interactions(want[0].file, selection, partners: partners)
            let report = InteractionReport(selection: selection, model: model, interactions: found)
            var have: [String: Int] = [:], wanted: [String: Int] = [:]
            for e in report.interactions { have["\(e.kind.rawValue) \(e.partner.chain) \(e.partner.resn) \(e.partner.resi)", default: 0] += 1 }
            for r in want { wanted["\(r.kind) \(r.chain) \(r.resn) \(r.resi)", default: 0] += 1 }
            for (k, n) in wanted {
                let kind = String(k.split(separator: " ")[0])
                plip[kind, default: 0] += n
                agreed[kind, default: 0] += min(n, have[k] ?? 0)
            }
            for (k, n) in have where n > (wanted[k] ?? 0) {
                extra[String(k.split(separator: " ")[0]), default: 0] += n - (wanted[k] ?? 0)
            }
        }
        let line = InteractionKind.allCases.map { "\($0.rawValue) \(agreed[$0.rawValue] ?? 0)/\(plip[$0.rawValue] ?? 0) +\(extra[$0.rawValue] ?? 0)" }
        print("interactions against PLIP (agreed/PLIP's +Molshot's own): " + line.joined(separator: ", "))
        // Every kind PLIP reports on these sites is reported, partner residue for partner residue.
        for kind in InteractionKind.allCases {
            XCTAssertGreaterThan(plip[kind.rawValue] ?? 0, 0, "no \(kind) in the reference")
        }
        for kind in InteractionKind.allCases where kind != .hbond && kind != .waterbridge {
            XCTAssertEqual(agreed[kind.rawValue], plip[kind.rawValue], "\(kind): " + line.joined(separator: ", "))
            XCTAssertEqual(extra[kind.rawValue] ?? 0, 0, "\(kind): " + line.joined(separator: ", "))
        }
        // Hydrogen bonds hang on where hydrogens are put (PLIP: OpenBabel's; here the templates'
        // count, turned toward the acceptor where the group rotates) and on who wins a hydrogen
        // (PLIP: one bond a donor, the widest; here one a hydrogen and one a lone pair, the
        // shortest and straightest): most the same, each difference in NOTES.md.
        let hbonds = Float(agreed["hbond"] ?? 0) / Float(plip["hbond"] ?? 1)
        XCTAssertGreaterThanOrEqual(hbonds, 0.8, line.joined(separator: ", "))
        // Most of Molshot's own are an NH2's or NH3+'s second and third hydrogens (a lysine's NZ
        // to two DNA bases), which PLIP's one-a-donor rule drops.
        XCTAssertLessThanOrEqual(extra["hbond"] ?? 0, (plip["hbond"] ?? 0) / 3, line.joined(separator: ", "))
        // Water bridges hang on the hydrogens of both ends and the water's angle between them.
        let bridges = Float(agreed["waterbridge"] ?? 0) / Float(plip["waterbridge"] ?? 1)
        XCTAssertGreaterThanOrEqual(bridges, 0.65, line.joined(separator: ", "))
        XCTAssertLessThanOrEqual(extra["waterbridge"] ?? 0, (plip["waterbridge"] ?? 0) / 3, line.joined(separator: ", "))
    }

    /// 1hpv's inhibitor: PLIP's hydrogen bonds, twelve hydrophobic contacts and two water bridges
    /// through the flap water, each at PLIP's distance; not PLIP's two salt bridges to Asp25, which
    /// take the sulfonamide's nitrogen for a protonated amine (`plipWrong`). The transition-state
    /// hydroxyl O3 gives its hydrogen to the catalytic Asp25's OD2 (2.80 A, 174 degrees at the
    /// hydrogen), not to Gly27's O (3.84 A, 156 degrees) as PLIP's one-a-donor rule has it; the
    /// aniline's NH2 (N3) gives its second hydrogen to Asp30's OD2 (3.15 A).
    func testAmprenavirInHIVProteaseAtPLIPsDistances() throws {
        let rows = try InteractionTests.reference().filter { $0.file == "1hpv.pdb" }
        let (model, found) = try interactions("1hpv.pdb", "resn 478")
        let report = InteractionReport(selection: "resn 478", model: model, interactions: found)
        XCTAssertEqual(report.counts["hbond"], 8)
        XCTAssertEqual(report.counts["hydrophobic"], 12)
        XCTAssertEqual(report.counts["waterbridge"], 2)
        XCTAssertEqual(report.counts["saltbridge"] ?? 0, 0, "a sulfonamide nitrogen is no cation")
        let o3 = try XCTUnwrap(report.interactions.first { $0.atom.atoms == ["O3"] && $0.detail == "donor" })
        XCTAssertEqual([o3.partner.chain, o3.partner.resn, o3.partner.resi, o3.partner.atoms[0]], ["B", "ASP", "25", "OD2"])
        XCTAssertEqual(o3.distance, 2.80, accuracy: 0.005)
        XCTAssertGreaterThan(o3.angle ?? 0, 170)
        let distances = (rows.map { "\($0.kind) \($0.chain)\($0.resi) \(String(format: "%.2f", $0.distance))" }.filter { $0 != "hbond A27 3.84" }
                         + ["hbond B25 2.80", "hbond B30 3.15"]).sorted()
        let mine = report.interactions.map { "\($0.kind.rawValue) \($0.partner.chain)\($0.partner.resi) \(String(format: "%.2f", $0.distance))" }.sorted()
        XCTAssertEqual(mine, distances)
        XCTAssertEqual(try InteractionTests.plipAnswers().filter { $0.file == "1hpv.pdb" && $0.kind == "saltbridge" }.count, 2, "PLIP's own answer")
    }

    func testKindsNameTheirGeometry() throws {
        // 3shy: the chlorine's halogen bond to Tyr612's hydroxyl, the stacked ring on Phe820.
        let (_, found) = try interactions("3shy.pdb.gz", "resn 5FO")
        let halogen = try XCTUnwrap(found.first { $0.kind == .halogen })
        XCTAssertEqual(halogen.atoms.count, 1)
        XCTAssertLessThanOrEqual(halogen.distance, 4.0)
        let stack = try XCTUnwrap(found.first { $0.kind == .pistacking })
        XCTAssertEqual(stack.partnerAtoms.count, 6)
        XCTAssertTrue(["parallel", "perpendicular"].contains(stack.detail))
        // Each interaction's ends are its atoms or the centres of its groups, the distance theirs.
        for i in found { XCTAssertEqual((i.point - i.partnerPoint).length, i.distance, accuracy: 0.001) }
    }

    func testNothingSelectedFindsNothingAndTheLimitHolds() throws {
        let structure = try Fixtures.load("1hpv.pdb")
        let model = structure.models[0]
        let bonds = try BondPerception.standard().bonds(of: model)
        XCTAssertEqual(try InteractionFinder().find(in: model, bonds: bonds, selected: []).count, 0)
        var rules = InteractionRules()
        rules.maxSelectedAtoms = 10
        XCTAssertThrowsError(try InteractionFinder(rules: rules).find(in: model, bonds: bonds, selected: Selection(parsing: "chain A").mask(in: model))) {
            XCTAssertTrue("\($0)".contains("at most 10"), "\($0)")
        }
        // Hostile coordinates (far apart, not finite) find nothing and do not trap.
        var hostile = model
        for i in hostile.atoms.indices where i % 3 == 0 { hostile.atoms[i].position = SIMD3(.infinity, .nan, 1e30) }
        _ = try InteractionFinder().find(in: hostile, bonds: bonds, selected: Selection(parsing: "resn 478").mask(in: hostile))
    }

    /// Atoms on one another (each of amprenavir's atoms ten deep, as in a file of copies or an
    /// ensemble written as one model) give each atom dozens of bonds. The search for rings passes
    /// over atoms busier than any ring atom, so this ends at once (a walk of six atoms through every
    /// bond had been some 10^9 paths from each atom) and finds no ring among the copies, while
    /// the interactions that need no ring stay.
    func testAtomsOnOneAnotherDoNotMakeTheRingSearchHang() throws {
        let (_, alone) = try interactions("1hpv.pdb", "resn 478")
        let text = try String(contentsOfFile: Fixtures.path("1hpv.pdb"), encoding: .utf8)
        var lines: [Substring] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lines.append(line)
            if line.hasPrefix("HETATM"), line.dropFirst(17).hasPrefix("478") {
                for _ in 1..<10 { lines.append(line) }
            }
        }
        let structure = try StructureFile.parse(Array(lines.joined(separator: "\n").utf8), source: "1hpv-copies.pdb")
        let model = structure.models[0]
        let perception = try BondPerception.standard()
        let bonds = perception.bonds(of: model, embedded: structure.embeddedTemplates)
        let found = try InteractionFinder().find(in: model, bonds: bonds, selected: try Selection(parsing: "resn 478").mask(in: model),
                                                 dictionary: perception.dictionary)
        XCTAssertTrue(alone.contains { $0.kind == .hbond })
        XCTAssertTrue(found.contains { $0.kind == .hbond }, "the copies' hydrogen bonds")
        XCTAssertFalse(found.contains { $0.kind == .pistacking }, "a ring among the copies")
    }

    /// A histidine's nitrogen bound to a zinc gives its lone pair to the metal: it donates no
    /// hydrogen bond (1TF6's zinc fingers), while the zinc is still its metal partner.
    func testANitrogenBoundToAMetalDonatesNoHydrogenBond() throws {
        let (model, found) = try interactions("1tf6.pdb.gz", "resn HIS and chain A")
        let zincs = model.atoms.indices.filter { model.atoms[$0].element.symbol == "Zn" }
        XCTAssertGreaterThan(zincs.count, 0)
        let bound = Set(model.atoms.indices.filter { i in
            model.atoms[i].element.symbol == "N" && zincs.contains { let d = model.atoms[$0].position - model.atoms[i].position; return (d * d).sum() <= 2.5 * 2.5 }
        })
        XCTAssertGreaterThan(bound.count, 4, "the fingers' histidines hold their zincs")
        let donating = found.filter { $0.kind == .hbond && $0.detail == "donor" && bound.contains($0.atoms[0]) }
        XCTAssertEqual(donating.count, 0, "\(donating.map { model.atoms[$0.atoms[0]].name })")
        XCTAssertTrue(found.contains { $0.kind == .metal && bound.contains($0.atoms[0]) }, "the zinc is their partner")
    }

    func describe(_ model: Model, _ i: Interaction) -> String {
        func one(_ a: Int) -> String {
            let r = model.residues[Int(model.atoms[a].residue)]
            return "\(r.name) \(r.number) \(model.atoms[a].name)"
        }
        return "\(i.kind.rawValue) \(one(i.atoms[0])) - \(one(i.partnerAtoms[0]))"
    }

    /// ATP in its kinase (1XDN): the gamma phosphate's O3G reaches Asn92's main-chain N through
    /// water 536, as PLIP finds it (2.58 and 2.87 A); the bridge names its water, the angle at it
    /// is within 71-140 degrees, and a water bridges twice at most.
    func testAWaterBridgeGoesThroughItsWater() throws {
        let (model, found) = try interactions("1xdn.pdb.gz", "chain A and (resi 501 or resi 502)")
        let bridges = found.filter { $0.kind == .waterbridge }
        let asn = try XCTUnwrap(bridges.first { model.atoms[$0.atoms[0]].name.description == "O3G" && model.residues[Int(model.atoms[$0.partnerAtoms[0]].residue)].number == 92 },
                                bridges.map { describe(model, $0) }.joined(separator: "; "))
        let water = try XCTUnwrap(asn.water)
        XCTAssertEqual(model.residues[Int(model.atoms[water].residue)].number, 536)
        XCTAssertTrue(model.residues[Int(model.atoms[water].residue)].isWater)
        XCTAssertEqual(asn.distance, 2.58, accuracy: 0.01)
        XCTAssertEqual(asn.waterDistance, 2.87, accuracy: 0.01)
        XCTAssertEqual(asn.detail, "acceptor")
        XCTAssertTrue((71...140).contains(asn.angle), "\(asn.angle)")
        var perWater: [Int: Int] = [:]
        for b in bridges { perWater[b.water!, default: 0] += 1 }
        XCTAssertLessThanOrEqual(perWater.values.max() ?? 0, 2)
        // The magnesium's waters are its partners too (PLIP's four).
        XCTAssertEqual(found.filter { $0.kind == .metal && model.residues[Int(model.atoms[$0.partnerAtoms[0]].residue)].isWater }.count, 4)
    }

    /// Cathepsin K's inhibitor (1VSN) is bonded to Cys25's SG (1.73 A): its nitrile is now a
    /// thioimidate, C44=N45H at 1.29 A, whose nitrogen sits in the oxyanion hole, accepting from
    /// Gln19's NE2 (3.11 A) and Cys25's N (3.09 A), as PLIP has it. Typed from its free template
    /// (an amine, CH2-NH2) it had donated to Gly23's O at 3.76 A instead; and the inhibitor is a
    /// ligand of chain A, not a residue of the chain.
    func testACovalentInhibitorIsTypedAsItsAdduct() throws {
        let (model, found) = try interactions("1vsn.pdb.gz", "resn NFT")
        let nft = try XCTUnwrap(model.residues.first { $0.name.description == "NFT" })
        XCTAssertEqual(nft.kind, .ligand)
        let n45 = found.filter { model.atoms[$0.atoms[0]].name.description == "N45" && $0.kind == .hbond }
        XCTAssertEqual(Set(n45.map { describe(model, $0) }), ["hbond NFT 283 N45 - GLN 19 NE2", "hbond NFT 283 N45 - CYS 25 N"])
        XCTAssertTrue(n45.allSatisfy { $0.detail == "acceptor" })
        // Nothing non-covalent with the cysteine's SG or the atoms one bond from it.
        let cys = found.filter { model.residues[Int(model.atoms[$0.partnerAtoms[0]].residue)].number == 25 }
        XCTAssertFalse(cys.contains { ["SG", "CB"].contains(model.atoms[$0.partnerAtoms[0]].name.description) }, cys.map { describe(model, $0) }.joined(separator: "; "))
    }

    /// Trypsin's benzamidine (1BJU's GP6): the amidinium (pKa 11.6) makes the salt bridge to
    /// Asp189 that PLIP, with no amidines among its charged groups, lists as two hydrogen bonds;
    /// each nitrogen's other hydrogen goes on, N1's to Gly219's O (2.89 A), N2's to Ser190's OG.
    func testAnAmidineIsChargedAndEachHydrogenBondsOnce() throws {
        let (model, found) = try interactions("1bju.pdb.gz", "resn GP6")
        let salt = try XCTUnwrap(found.first { $0.kind == .saltbridge })
        XCTAssertEqual(model.residues[Int(model.atoms[salt.partnerAtoms[0]].residue)].number, 189)
        XCTAssertEqual(salt.distance, 3.51, accuracy: 0.01)
        let hbonds = Set(found.filter { $0.kind == .hbond }.map { describe(model, $0) })
        XCTAssertTrue(hbonds.isSuperset(of: ["hbond GP6 910 N1 - GLY 219 O", "hbond GP6 910 N2 - SER 190 OG"]), "\(hbonds)")
        XCTAssertFalse(hbonds.contains { $0.contains("ASP 189") }, "the salt bridge is not counted twice")
    }

    /// A heme's iron is a metal like any other (2Q8Q): His229's NE2 coordinates it at 2.01 A, as
    /// PLIP finds; the porphyrin's own nitrogens are the selection, not its partners.
    func testAHemesIronCoordinatesItsHistidine() throws {
        let (model, found) = try interactions("2q8q.pdb.gz", "resn HEM and chain A and resi 300")
        let metals = found.filter { $0.kind == .metal }
        XCTAssertEqual(metals.map { describe(model, $0) }, ["metal HEM 300 FE - HIS 229 NE2"])
        XCTAssertEqual(metals[0].distance, 2.01, accuracy: 0.01)
    }

    /// PLP's Schiff base with Lys258 (1AY8; C4A-NZ 1.35 A, LINK): the lysine's CE, one atom from
    /// C4A across the bond, is no hydrophobic contact (PLIP lists one at 3.61 A); what is left of
    /// the lysine is the salt bridge of its (protonated) NZ with the phosphate, 5.19 A, as PLIP has it.
    func testASchiffBaseIsOneMoleculeAcrossItsBond() throws {
        let (model, found) = try interactions("1ay8.pdb.gz", "resn PLP and chain A and resi 413")
        let lys = found.filter { model.residues[Int(model.atoms[$0.partnerAtoms[0]].residue)].number == 258 }
        XCTAssertEqual(lys.map { describe(model, $0) }, ["saltbridge PLP 413 P - LYS 258 NZ"])
        XCTAssertEqual(lys[0].distance, 5.19, accuracy: 0.01)
    }

    /// A 5-substituted tetrazole (pKa 4.9; a sartan's acid) is an anion: a salt bridge with an
    /// arginine's guanidinium 4 A below its ring, found from the bonds alone (a ligand with no
    /// template, bonded by CONECT).
    func testATetrazoleIsAnAnion() throws {
        let text = """
            ATOM      1  N   ARG A   1       2.000  -6.500   1.000  1.00  0.00           N
            ATOM      2  CA  ARG A   1       1.000  -7.000   0.000  1.00  0.00           C
            ATOM      3  CD  ARG A   1       0.000  -5.300   0.000  1.00  0.00           C
            ATOM      4  NE  ARG A   1       0.000  -4.500   0.000  1.00  0.00           N
            ATOM      5  CZ  ARG A   1       0.000  -4.000   1.100  1.00  0.00           C
            ATOM      6  NH1 ARG A   1      -1.100  -3.800   1.700  1.00  0.00           N
            ATOM      7  NH2 ARG A   1       1.100  -3.800   1.700  1.00  0.00           N
            HETATM    8  C5  LIG B   1       0.000   1.131   0.000  1.00  0.00           C
            HETATM    9  N1  LIG B   1      -1.076   0.349   0.000  1.00  0.00           N
            HETATM   10  N2  LIG B   1      -0.665  -0.915   0.000  1.00  0.00           N
            HETATM   11  N3  LIG B   1       0.665  -0.915   0.000  1.00  0.00           N
            HETATM   12  N4  LIG B   1       1.076   0.349   0.000  1.00  0.00           N
            HETATM   13  C6  LIG B   1       0.000   2.631   0.000  1.00  0.00           C
            CONECT    8    9   12   13
            CONECT    9    8   10
            CONECT   10    9   11
            CONECT   11   10   12
            CONECT   12   11    8
            CONECT   13    8
            """
        let structure = try StructureFile.decode(Array(text.utf8), source: "tetrazole.pdb")
        let model = structure.models[0]
        let perception = try BondPerception.standard()
        let bonds = perception.bonds(of: model, embedded: structure.embeddedTemplates)
        let found = try InteractionFinder().find(in: model, bonds: bonds, selected: try Selection(parsing: "resn LIG").mask(in: model),
                                                 dictionary: perception.dictionary)
        let salt = try XCTUnwrap(found.first { $0.kind == .saltbridge }, "\(found.map { describe(model, $0) })")
        XCTAssertEqual(Set(salt.atoms.map { model.atoms[$0].name.description }), ["N1", "N2", "N3", "N4"])
        XCTAssertEqual(model.residues[Int(model.atoms[salt.partnerAtoms[0]].residue)].name.description, "ARG")
    }
}


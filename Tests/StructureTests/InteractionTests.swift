import Foundation
import Structure
import XCTest

/// Interactions checked against PLIP 3.0.1 on five real complexes (Tests/Fixtures/interactions/,
/// PLIP's answers in plip-reference.tsv, made by plip-reference.py there): HIV-1 protease with
/// amprenavir (1hpv), B-Raf kinase with vemurafenib (3og7), RAG1's zinc sites (1rmd), PDE5 with a
/// halogenated inhibitor and its zinc (3shy), the TFIIIA zinc fingers on DNA (1tf6).
final class InteractionTests: XCTestCase {
    struct Row {
        var file: String, site: String, kind: String, chain: String, resn: String, resi: String
        var distance: Float
    }

    /// PLIP's answers, less those it gets wrong by the chemistry (`plipWrong`).
    static func reference() throws -> [Row] {
        try plipAnswers().filter { !plipWrong.contains("\($0.file) \($0.site) \($0.kind) \($0.chain) \($0.resn) \($0.resi)") }
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
    ]

    /// The selection that is PLIP's binding site `site` (RESN:CHAIN:RESI): a nucleic-acid strand
    /// whole, against the protein (PLIP's receptor); anything else its residue.
    static func selection(_ file: String, _ site: String) -> (selection: String, partners: String?) {
        let p = site.split(separator: ":").map(String.init)
        if ["DA", "DC", "DG", "DT", "A", "C", "G", "U"].contains(p[0]) { return ("chain \(p[1])", "protein") }
        if file == "1hpv.pdb" { return ("resn \(p[0])", nil) }  // the tutorial copy leaves the ligand's chain blank (PLIP says Z)
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

    func testTheSamePartnersAsPLIPOnFiveComplexes() throws {
        let rows = try InteractionTests.reference()
        var sites: [String] = []
        var bySite: [String: [Row]] = [:]
        for r in rows {
            let key = r.file + " " + r.site
            if bySite[key] == nil { sites.append(key) }
            bySite[key, default: []].append(r)
        }
        XCTAssertEqual(Set(rows.map(\.file)).count, 5)
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
        for kind in InteractionKind.allCases where kind != .hbond {
            XCTAssertEqual(agreed[kind.rawValue], plip[kind.rawValue], "\(kind): " + line.joined(separator: ", "))
            XCTAssertEqual(extra[kind.rawValue] ?? 0, 0, "\(kind): " + line.joined(separator: ", "))
        }
        // Hydrogen bonds hang on where hydrogens are put (PLIP: OpenBabel's; here the templates'
        // count, turned toward the acceptor where the group rotates): nearly all the same.
        let hbonds = Float(agreed["hbond"] ?? 0) / Float(plip["hbond"] ?? 1)
        XCTAssertGreaterThanOrEqual(hbonds, 0.9, line.joined(separator: ", "))
        XCTAssertLessThanOrEqual(extra["hbond"] ?? 0, (plip["hbond"] ?? 0) / 4, line.joined(separator: ", "))
    }

    /// 1hpv's inhibitor: PLIP's seven hydrogen bonds and twelve hydrophobic contacts, each at
    /// PLIP's distance; not PLIP's two salt bridges to Asp25, which take the sulfonamide's
    /// nitrogen for a protonated amine (`plipWrong`).
    func testAmprenavirInHIVProteaseAtPLIPsDistances() throws {
        let rows = try InteractionTests.reference().filter { $0.file == "1hpv.pdb" }
        let (model, found) = try interactions("1hpv.pdb", "resn 478")
        let report = InteractionReport(selection: "resn 478", model: model, interactions: found)
        XCTAssertEqual(report.counts["hbond"], 7)
        XCTAssertEqual(report.counts["hydrophobic"], 12)
        XCTAssertEqual(report.counts["saltbridge"] ?? 0, 0, "a sulfonamide nitrogen is no cation")
        let distances = rows.map { "\($0.kind) \($0.chain)\($0.resi) \(String(format: "%.2f", $0.distance))" }.sorted()
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
}


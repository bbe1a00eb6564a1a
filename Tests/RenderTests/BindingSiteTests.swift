import Core
import Foundation
import Graphics
import Imaging
import MoleculeView
import Scene
import Structure
import XCTest

/// A ligand in its site as a figure shows it: the slab a focus takes, clip and slab asked for, and
/// the interactions drawn in their colours with their key (real Mesa).
final class BindingSiteTests: XCTestCase {
    static let magenta = "#FF00FF"

    func load(_ name: String) throws -> Structure {
        try StructureFile.load(path: Rendering.fixtures.appendingPathComponent(name).path)
    }

    func picture(_ s: Structure, _ fields: [(String, String)]) throws -> MoleculePicture {
        let request = try RenderRequest(fields)
        return try MoleculePicture(s, mode: request.modes[0], request: request, perception: try BondPerception.standard())
    }

    /// Pixels of one colour (within a little of it: shading darkens the sticks' sides).
    func count(_ image: RGBAImage, near rgb: UInt32, tolerance: Int = 40) -> Int { image.count(near: rgb, tolerance: tolerance) }

    /// Magenta sticks on the ligand: pixels where red and blue stand well above green.
    func ligandPixels(_ image: RGBAImage) -> Int {
        var n = 0
        for y in 0..<image.height {
            for x in 0..<image.width {
                let p = image.pixel(x, y)
                if p.a > 200 && Int(p.r) > Int(p.g) + 80 && Int(p.b) > Int(p.g) + 80 { n += 1 }
            }
        }
        return n
    }

    /// 1hpv's inhibitor between the flaps: with the slab a focus takes, at least 90% of the
    /// ligand's pixels drawn alone at the same camera are seen; with no slab, the flap in front
    /// hides more of it.
    func testTheFocusSlabShowsTheLigandWhole() throws {
        let s = try load("1hpv.pdb")
        let base: [(String, String)] = [("size", "600x450"), ("show", "cartoon: polymer"), ("show", "sticks \(Self.magenta): resn 478"),
                                        ("focus", "resn 478"), ("antialias", "0")]
        let renderer = try Rendering.renderer()
        var seen: [String: Int] = [:]
        var alone = 0
        for slab in ["auto", "none"] {
            let full = try picture(s, slab == "auto" ? base : base + [("slab", "none")])
            XCTAssertEqual(full.camera.clip != nil, slab == "auto")
            let image = try full.finish(try full.draw(renderer))
            seen[slab] = ligandPixels(image)
            // The ligand alone at the same camera.
            let request = try RenderRequest([("size", "600x450"), ("show", "sticks \(Self.magenta): resn 478"), ("antialias", "0")])
            let prepared = try PreparedMolecule(s, mode: request.modes[0], request: request, perception: try BondPerception.standard())
            let only = try renderer.render(renderer.scene(for: prepared), camera: full.camera, width: 600, height: 450, style: request.style(for: prepared))
            alone = ligandPixels(only)
        }
        print("ligand pixels seen with the focus slab \(seen["auto"]!), without \(seen["none"]!), alone \(alone)")
        XCTAssertGreaterThan(alone, 2000)
        XCTAssertGreaterThanOrEqual(Float(seen["auto"]!) / Float(alone), 0.9, "seen \(seen), alone \(alone)")
        XCTAssertLessThan(seen["none"]!, seen["auto"]!, "the flap hides some of the ligand without a slab: seen \(seen)")
    }

    /// `clip` and `slab` cut what lies outside them; a slab of everything draws what no slab draws.
    func testClipAndSlabCutTheDepth() throws {
        let s = try load("1hpv.pdb")
        let renderer = try Rendering.renderer()
        func covered(_ fields: [(String, String)]) throws -> Int {
            let p = try picture(s, [("size", "300"), ("mode", "cartoon"), ("background", "transparent")] + fields)
            return try p.finish(p.draw(renderer)).coverage().count
        }
        let whole = try covered([])
        let thin = try covered([("slab", "4")])
        XCTAssertLessThan(thin, whole * 2 / 3, "a 4 Å slab of a 40 Å protein")
        XCTAssertGreaterThan(thin, 0)
        // The whole picture is cast on the CPU, the slabbed one drawn by GL (the caster takes no
        // clip planes): the same to within a pixel's rounding at an edge.
        XCTAssertEqual(try covered([("slab", "1000")]), whole, accuracy: whole / 500 + 2)
        XCTAssertLessThan(try covered([("clip", "0,40")]), whole, "the front half cut")
        XCTAssertThrowsError(try RenderRequest([("clip", "-5,-5")]))
        XCTAssertThrowsError(try RenderRequest([("slab", "wide")]))
        XCTAssertThrowsError(try RenderRequest([("clip", "5")]))
    }

    /// Interactions drawn: dashes in the hydrogen-bond blue appear (the hydrophobic grey is the shading's too), with
    /// a key naming them; none without the option; a selection of nothing is refused naming the
    /// field. (Amprenavir makes no salt bridge: PLIP's two take its sulfonamide for an amine.)
    func testInteractionsAreDrawnInTheirColoursWithAKey() throws {
        let s = try load("1hpv.pdb")
        let renderer = try Rendering.renderer()
        let base: [(String, String)] = [("size", "600x450"), ("show", "cartoon #FFFFFF: polymer"), ("show", "sticks #FFFFFF: resn 478"),
                                        ("focus", "resn 478"), ("background", "white"), ("antialias", "0")]
        let plain = try picture(s, base)
        let withInteractions = try picture(s, base + [("interactions", "resn 478")])
        let a = try plain.finish(plain.draw(renderer)), b = try withInteractions.finish(withInteractions.draw(renderer))
        for kind in [InteractionKind.hbond] {
            let c = Annotations.color(kind)
            XCTAssertEqual(count(a, near: c, tolerance: 30), 0, "\(kind) without interactions")
            XCTAssertGreaterThan(count(b, near: c, tolerance: 30), 150, "\(kind) drawn")
        }
        // The key: the two kinds 1hpv's site has, in the top-left corner.
        var keyInk = 0
        for y in 0..<80 { for x in 0..<160 { let p = b.pixel(x, y); if p.r < 80 && p.g < 80 && p.b < 80 { keyInk += 1 } } }
        XCTAssertGreaterThan(keyInk, 100, "the key's words")
        XCTAssertThrowsError(try picture(s, base + [("interactions", "resn XYZ")]).finish(plain.draw(renderer))) { error in
            XCTAssertEqual((error as? RequestError)?.field, "interactions", "\(error)")
        }
        XCTAssertThrowsError(try picture(s, base + [("interactions-with", "chain A")]).finish(plain.draw(renderer))) { error in
            XCTAssertEqual((error as? RequestError)?.field, "interactions-with", "\(error)")
        }
        // The other side narrowed to chain A: only chain A's share of the hydrogen bonds; in either order given.
        let halfA = try picture(s, base + [("interactions-with", "chain A"), ("interactions", "resn 478")])
        let c = try halfA.finish(halfA.draw(renderer))
        let blue = Annotations.color(.hbond)
        XCTAssertGreaterThan(count(c, near: blue, tolerance: 30), 50)
        XCTAssertLessThan(count(c, near: blue, tolerance: 30), count(b, near: blue, tolerance: 30))
    }

    /// Side chains as sticks on a cartoon attach to it at CA: the main chain's N, C and O are left
    /// out where the cartoon draws the residue (PyMOL's cartoon_side_chain_helper), kept where it does not.
    func testSticksOnACartoonAttachAtCA() throws {
        let s = try load("1hpv.pdb")
        let perception = try BondPerception.standard()
        func names(_ shows: [String]) throws -> Set<String> {
            let p = try PreparedMolecule(s, shows: shows.map { try Show(parsing: $0) }, perception: perception)
            return Set(p.geometry.sphereAtoms.map { p.model.atoms[Int($0)].name.description })
        }
        let helped = try names(["cartoon: polymer", "sticks: chain A and resi 25-30"])
        XCTAssertTrue(helped.contains("CA") && helped.contains("CB"))
        XCTAssertFalse(helped.contains("O") || helped.contains("C"), "\(helped.sorted())")
        let alone = try names(["sticks: chain A and resi 25-30"])
        XCTAssertTrue(alone.contains("O") && alone.contains("C") && alone.contains("N"))
        let otherChain = try names(["cartoon: chain B", "sticks: chain A and resi 25-30"])
        XCTAssertTrue(otherChain.contains("O"), "no cartoon under chain A's residues: their main chain stays")
    }
}

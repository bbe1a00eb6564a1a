import Core
import Foundation
import Graphics
import Imaging
import MoleculeView
import Scene
import Structure
import XCTest

/// Pictures of several representations, each on a selection in its own colors (`--show`).
final class ShowTests: XCTestCase {
    static let hpv = Rendering.fixtures.appendingPathComponent("1hpv.pdb").path

    func prepared(_ shows: [String], hydrogens: Bool = false, waters: Bool = false) throws -> PreparedMolecule {
        var request = RenderRequest()
        for s in shows { try request.set("show", s) }
        request.filter = AtomFilter(hydrogens: hydrogens, waters: waters)
        XCTAssertEqual(request.modes, [Show.mode])
        return try PreparedMolecule(try StructureFile.load(path: ShowTests.hpv), mode: try request.singleMode(), request: request,
                                    perception: try BondPerception.standard())
    }

    func testEachShowDrawsItsSelectionInItsRepresentationAndColors() throws {
        let s = try StructureFile.load(path: ShowTests.hpv)
        let model = s.models[0]
        let ligand = Set(try Selection(parsing: "ligand and not hydrogen").atoms(in: model).map(Int32.init))
        XCTAssertGreaterThan(ligand.count, 20)
        let p = try prepared(["cartoon: polymer", "sticks orange: ligand"])
        let g = p.geometry
        XCTAssertEqual(g.meshes.count, 1, "the polymer as one cartoon")
        // Spheres and bonds are the ligand's alone, as sticks (0.25 Å), all orange.
        XCTAssertEqual(Set(g.sphereAtoms), ligand)
        // Sticks of 0.25 Å; double bonds and aromatic dashes thinner (BondOrders).
        XCTAssertTrue(g.cylinderRadii.allSatisfy { $0 <= Sticks.radius })
        XCTAssertTrue(g.cylinderRadii.contains(Sticks.radius))
        XCTAssertTrue(g.cylinderAtoms.allSatisfy { ligand.contains($0) })
        XCTAssertTrue(g.colorsOfSpheres(p.atomColors).allSatisfy { $0 == 0xFF8000 })
        XCTAssertTrue(g.colorsOfCylinders(p.atomColors).allSatisfy { $0 == 0xFF8000 })
        // The cartoon under the element theme takes chain colors: two chains, two colors.
        XCTAssertEqual(Set(g.meshes[0].colors).count, 2)

        // Ball-and-stick for the polymer and sticks for the ligand: two bond radii in one geometry.
        let two = try prepared(["ball-and-stick: polymer", "sticks: ligand"]).geometry
        XCTAssertTrue(Set(two.cylinderRadii).isSuperset(of: [BallAndStick.bondRadius, Sticks.radius]))
        let sticks = Set([1, 0.55, 0.45, 0.4].map { Sticks.radius * $0 })
        for (k, r) in two.cylinderRadii.enumerated() {
            XCTAssertEqual(ligand.contains(two.cylinderAtoms[2 * k]), sticks.contains(r), "bond \(k)")
        }
    }

    func testThePictureShowsEachPartInItsColorWhereItIs() throws {
        let p = try prepared(["cartoon #0000FF: polymer", "spacefill #FF0000: ligand"])
        let image = try Rendering.draw(p, size: 300, style: .transparent)
        let red = image.coverage { r, g, b in r > 120 && g < 60 && b < 60 }
        let blue = image.coverage { r, g, b in b > 120 && r < 60 && g < 60 }
        XCTAssertGreaterThan(red.count, 500, "the inhibitor in red")
        XCTAssertGreaterThan(blue.count, 5000, "the protease's cartoon in blue")
        // The inhibitor sits in the middle of the dimer, as the cartoon's centroid does.
        XCTAssertLessThan(abs(red.centroid.x - blue.centroid.x), 40)
        XCTAssertLessThan(abs(red.centroid.y - blue.centroid.y), 40)

        // Each part's bonds keep their own radius in the same picture: the ligand's sticks are
        // thicker than its lines, and the polymer's lines beside them stay as they were.
        var style = RenderStyle.transparent
        style.antialias = 0
        let thick = try Rendering.draw(try prepared(["sticks red: ligand", "lines blue: polymer"]), size: 300, style: style)
        let thin = try Rendering.draw(try prepared(["lines red: ligand", "lines blue: polymer"]), size: 300, style: style)
        func redPixels(_ i: RGBAImage) -> Int { i.coverage { r, g, b in r > 120 && g < 60 && b < 60 }.count }
        func bluePixels(_ i: RGBAImage) -> Int { i.coverage { r, g, b in b > 120 && r < 60 && g < 60 }.count }
        XCTAssertGreaterThan(Double(redPixels(thick)), Double(redPixels(thin)) * 1.3, "the ligand's sticks are thicker than its lines")
        XCTAssertEqual(Double(bluePixels(thick)), Double(bluePixels(thin)), accuracy: Double(bluePixels(thin)) * 0.1, "the polymer's lines alike")
    }

    /// `focus` turns to and fits a selection, as PyMOL's `orient SELECTION`: the inhibitor, a
    /// few percent of the whole picture, fills a large part of the focused one, in its middle,
    /// with its longest spread across; a focus that selects nothing is refused by name.
    func testFocusFitsTheViewToTheSelection() throws {
        var request = RenderRequest()
        try request.set("show", "cartoon #0000FF: polymer")
        try request.set("show", "sticks #FF0000: ligand")
        let p = try prepared(["cartoon #0000FF: polymer", "sticks #FF0000: ligand"])
        func red(_ camera: Camera) throws -> (count: Int, centroid: SIMD2<Float>, box: SIMD2<Float>) {
            let r = try Rendering.renderer()
            let image = try r.render(r.makeScene(p.geometry, atomColors: p.atomColors), camera: camera, width: 300, height: 300, style: .transparent)
            var lo = SIMD2<Float>(repeating: 1e9), hi = -lo
            for y in 0..<300 { for x in 0..<300 {
                let px = image.pixel(x, y)
                if px.3 > 128 && px.0 > 120 && px.1 < 60 && px.2 < 60 { lo = pointwiseMin(lo, SIMD2(Float(x), Float(y))); hi = pointwiseMax(hi, SIMD2(Float(x), Float(y))) }
            } }
            let c = image.coverage { r, g, b in r > 120 && g < 60 && b < 60 }
            return (c.count, c.centroid, hi - lo)
        }
        let whole = try red(request.camera(for: p))
        try request.set("focus", "resn 478")
        let focused = try red(request.camera(for: p))
        XCTAssertGreaterThan(Double(focused.count), Double(whole.count) * 2.5, "the focused inhibitor is drawn far larger (the flaps still cover part of it)")
        XCTAssertEqual(focused.centroid.x, 150, accuracy: 40)
        XCTAssertEqual(focused.centroid.y, 150, accuracy: 40)
        XCTAssertGreaterThan(focused.box.x, focused.box.y, "its longest spread across")
        XCTAssertGreaterThan(focused.box.x, 300 * 0.4, "fitted: it spans much of the width, less 7 Å a side for its surroundings")
        let structure = try StructureFile.load(path: ShowTests.hpv)
        XCTAssertNoThrow(try request.molecule(structure, source: "1hpv.pdb"))
        try request.set("focus", "resn HEM")
        XCTAssertThrowsError(try request.molecule(structure, source: "1hpv.pdb")) { error in
            XCTAssertEqual((error as? RequestError)?.field, "focus")
            XCTAssertTrue("\(error)".contains("selects no atoms in 1hpv.pdb"), "\(error)")
        }
        XCTAssertThrowsError(try request.set("focus", "resn (")) { XCTAssertEqual(($0 as? RequestError)?.field, "focus") }
    }

    /// `highlight`: the selection in the mode and colours asked for, the rest pale grey, whatever
    /// order the fields come in; not with show.
    func testHighlightDrawsTheSelectionAsAskedAndTheRestPale() throws {
        for order in [[("highlight", "chain A"), ("mode", "cartoon"), ("color", "red")], [("color", "red"), ("mode", "cartoon"), ("highlight", "chain A")]] {
            let request = try RenderRequest(order)
            XCTAssertEqual(request.modes, [Show.mode])
            XCTAssertEqual(request.shows.map(\.text), ["cartoon #E3E3E3: not (chain A)", "cartoon #FF0000: chain A"])
        }
        var request = try RenderRequest([("highlight", "chain A"), ("mode", "cartoon"), ("color", "red")])
        request.background = .transparent
        let p = try PreparedMolecule(try StructureFile.load(path: ShowTests.hpv), mode: try request.singleMode(), request: request,
                                     perception: try BondPerception.standard())
        let image = try Rendering.draw(p, size: 300, style: .transparent)
        let red = image.coverage { r, g, b in r > 120 && g < 60 && b < 60 }.count
        let pale = image.coverage { r, g, b in r > 150 && abs(Int(r) - Int(g)) < 12 && abs(Int(g) - Int(b)) < 12 }.count
        XCTAssertGreaterThan(red, 3000, "chain A in red")
        XCTAssertGreaterThan(pale, 3000, "chain B pale grey")
        XCTAssertThrowsError(try RenderRequest([("highlight", "chain A"), ("show", "cartoon: polymer")])) {
            XCTAssertEqual(($0 as? RequestError)?.field, "highlight")
        }
    }

    func testSelectionsOfHiddenAtomsShowThemAndEmptyPartsAreLeftOut() throws {
        let s = try StructureFile.load(path: ShowTests.hpv)
        let waters = try Selection(parsing: "water").atoms(in: s.models[0]).count
        XCTAssertGreaterThan(waters, 50)
        // Waters are hidden by default, but a part that names them shows them.
        let p = try prepared(["spacefill: water", "spacefill: resn XYZ"])
        XCTAssertEqual(p.geometry.sphereCount, waters)
        // Hydrogens stay hidden in a part that selects other atoms too.
        let heavy = try Selection(parsing: "ligand and not hydrogen").atoms(in: s.models[0]).count
        XCTAssertEqual(try prepared(["ball-and-stick: ligand"]).geometry.sphereCount, heavy)
        // Benzene: hydrogens hidden in a part of all atoms, unless asked for; shown in a part of them alone.
        var xyz: [String] = []
        for k in 0..<6 {
            let a = Float(k) * .pi / 3
            xyz += ["C \(1.39 * cos(a)) \(1.39 * sin(a)) 0", "H \(2.47 * cos(a)) \(2.47 * sin(a)) 0"]
        }
        let benzene = try Rendering.structure(xyz: xyz)
        func spheres(_ show: String, hydrogens: Bool = false) throws -> Int {
            try PreparedMolecule(benzene, shows: [try Show(parsing: show)], filter: AtomFilter(hydrogens: hydrogens),
                                 perception: try BondPerception.standard()).geometry.sphereCount
        }
        XCTAssertEqual(try spheres("ball-and-stick"), 6)
        XCTAssertEqual(try spheres("ball-and-stick", hydrogens: true), 12)
        XCTAssertEqual(try spheres("spacefill: hydrogen"), 6)

        XCTAssertThrowsError(try prepared(["cartoon: resn XYZ", "sticks: chain Q"])) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("1HPV") && text.contains("cartoon: resn XYZ") && text.contains("sticks: chain Q"), text)
        }
    }

    func testShowIsReadAndBadOnesSayWhatIsWrong() throws {
        let s = try Show(parsing: "sticks element: resn HEM or elem Fe")
        XCTAssertEqual(s.representation, .sticks)
        XCTAssertEqual(s.coloring, .theme(.element))
        XCTAssertEqual(s.selection, try Selection(parsing: "resn HEM or elem Fe"))
        XCTAssertEqual(try Show(parsing: "Cartoon").selection, .all)
        XCTAssertEqual(try Show(parsing: "spacefill #ff8000: chain B").coloring, .fixed(0xFF8000))
        XCTAssertEqual(try Show(parsing: "lines red: all").coloring, .fixed(0xFF0000))
        XCTAssertEqual(try Show(parsing: "auto: polymer").representation, .auto)

        for (text, expected) in [
            ("ribbon: polymer", "must start with a representation"),
            ("", "must start with a representation"),
            ("sticks chartreuse: ligand", "color \"chartreuse\" is none of"),
            ("sticks red thick: ligand", "\"thick\" is left over"),
            ("cartoon:", "nothing after the colon"),
            ("cartoon: chain A and", "at character 12"),
            ("cartoon: resi 10-", "selection \"resi 10-\""),
        ] {
            XCTAssertThrowsError(try Show(parsing: text), text) { error in
                XCTAssertTrue("\(error)".hasPrefix("show "), "\(error)")
                XCTAssertTrue("\(error)".contains(expected), "\(text): \(error)")
            }
        }
        // --mode and --show exclude each other, in either order.
        XCTAssertThrowsError(try RenderRequest([("mode", "spacefill"), ("show", "cartoon")]))
        XCTAssertThrowsError(try RenderRequest([("show", "cartoon"), ("mode", "spacefill")]))
        // The shows are part of the settings: thumbnails of other shows get other names.
        let a = try RenderRequest([("show", "cartoon: polymer")]), b = try RenderRequest([("show", "cartoon: chain A")])
        XCTAssertNotEqual(a.settingsKey, b.settingsKey)
        XCTAssertTrue(a.canonical.contains("show=cartoon: polymer"), a.canonical)
    }

    func testExportedShowsKeepTheirColorsAndRadii() throws {
        let p = try prepared(["cartoon #0000FF: polymer", "sticks #FF0000: ligand"])
        let meshes = MoleculeMesh.meshes(p, detail: .low)
        let colors = Set(meshes.flatMap(\.colors))
        XCTAssertEqual(colors, [0x0000FF, 0xFF0000])
    }
}

import Core
import Foundation
import Graphics
import Imaging
import MoleculeView
import Scene
import Structure
import XCTest

/// Pictures for a slide: the auto colours, the colour schemes and names, bond orders and the
/// molecular surface.
final class SlidePictureTests: XCTestCase {
    func load(_ name: String) throws -> Structure {
        try StructureFile.load(path: Rendering.fixtures.appendingPathComponent(name).path)
    }

    func colors(_ s: Structure, _ theme: ColorTheme) throws -> [UInt32] {
        theme.colors(for: s.models[0], elements: try ElementTable.shared(), secondaryStructure: s.secondaryStructure)
    }

    // MARK: Colours

    func testAutoColoursElementsForSmallMoleculesAndChainsForPolymers() throws {
        let caffeine = try load("Caffeine.pdb")
        XCTAssertEqual(try colors(caffeine, .auto), try colors(caffeine, .element), "a small molecule by element")
        let hpv = try load("1hpv.pdb")
        let model = hpv.models[0], auto = try colors(hpv, .auto), element = try colors(hpv, .element)
        var carbonColorOfChain: [String: Set<UInt32>] = [:]
        for (i, atom) in model.atoms.enumerated() {
            let residue = model.residues[Int(atom.residue)]
            let chain = model.chains[Int(residue.chain)].id
            if residue.isHetero {
                XCTAssertEqual(auto[i], element[i], "ligands and waters by element")
            } else if atom.element.symbol == "C" {
                carbonColorOfChain[chain, default: []].insert(auto[i])
            } else {
                XCTAssertEqual(auto[i], element[i], "a polymer's other atoms by element")
            }
        }
        XCTAssertEqual(carbonColorOfChain["A"]?.count, 1)
        XCTAssertEqual(carbonColorOfChain["B"]?.count, 1)
        XCTAssertNotEqual(carbonColorOfChain["A"], carbonColorOfChain["B"], "each chain's carbons in its own colour")
    }

    func testRainbowRunsBlueToRedAlongEachChain() throws {
        let crn = try load("1crn.pdb")
        let model = crn.models[0], c = try colors(crn, .rainbow)
        let first = Int(model.residues[0].atoms.lowerBound), last = Int(model.residues[45].atoms.lowerBound)
        XCTAssertEqual(c[first], 0x0000FF, "the N terminus blue")
        XCTAssertEqual(c[last], 0xFF0000, "the C terminus red")
        let middle = c[Int(model.residues[23].atoms.lowerBound)]
        XCTAssertGreaterThan(middle >> 8 & 0xFF, 200, "the middle green")
        // Both strands of DNA run blue to red each.
        let dna = try load("1bna.pdb")
        let d = try colors(dna, .rainbow), m = dna.models[0]
        for chain in m.chains where (chain.id == "A" || chain.id == "B") && !m.residues[Int(chain.residues.lowerBound)].isWater {
            XCTAssertEqual(d[Int(m.residues[Int(chain.residues.lowerBound)].atoms.lowerBound)], 0x0000FF, "chain \(chain.id)")
        }
    }

    func testSecondaryStructureHydrophobicityAndEntityColours() throws {
        let crn = try load("1crn.pdb")
        let model = crn.models[0], ss = try colors(crn, .secondaryStructure), h = try colors(crn, .hydrophobicity)
        func atom(_ number: Int32) -> Int { Int(model.residues.first { $0.number == number }!.atoms.lowerBound) }
        XCTAssertEqual(ss[atom(10)], 0xFF3333, "residue 10 lies in the file's first helix (7-19)")
        XCTAssertEqual(ss[atom(2)], 0xFFD91A, "residue 2 in the first strand")
        XCTAssertEqual(ss[atom(21)], 0x33CC33, "residue 21 between the helices: coil")
        let ile = model.residues.firstIndex { $0.name.description == "ILE" }!, arg = model.residues.firstIndex { $0.name.description == "ARG" }!
        XCTAssertEqual(h[Int(model.residues[ile].atoms.lowerBound)], 0xDAA520, "isoleucine, the most hydrophobic, goldenrod")
        XCTAssertEqual(h[Int(model.residues[arg].atoms.lowerBound)], 0x008B8B, "arginine, the least, dark cyan")
        // HIV protease is a dimer of one sequence: one entity, two chains.
        let hpv = try load("1hpv.pdb")
        let e = try colors(hpv, .entity), chain = try colors(hpv, .chain), m = hpv.models[0]
        let a = Int(m.residues[Int(m.chains[0].residues.lowerBound)].atoms.lowerBound)
        let b = Int(m.residues[Int(m.chains[1].residues.lowerBound)].atoms.lowerBound)
        XCTAssertEqual(e[a], e[b], "the same entity")
        XCTAssertNotEqual(chain[a], chain[b], "different chains")
        // The file's entities decide, not the residues observed: 1f2n's three capsid chains (265,
        // 249 and 278 residues seen) are entity 1, one colour (where the corpus is beside the checkout).
        let capsid = Rendering.fixtures.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("shared/corpus/1f2n.cif")
        if FileManager.default.fileExists(atPath: capsid.path) {
            let s = try StructureFile.load(path: capsid.path)
            let m = s.models[0], c = try colors(s, .entity)
            let capsidChains = m.chains.filter { $0.entity == "1" }
            let firsts = capsidChains.map { c[Int(m.residues[Int($0.residues.lowerBound)].atoms.lowerBound)] }
            XCTAssertEqual(capsidChains.count, 3)
            XCTAssertEqual(Set(firsts).count, 1, "one entity, one colour: \(firsts.map { String($0, radix: 16) })")
        }
    }

    func testColourNamesAliasesAndNearMisses() throws {
        XCTAssertEqual(try RenderRequest([("color", "marine")]).color, .fixed(0x0080FF))
        XCTAssertEqual(try RenderRequest([("color", "#FF8000")]).color, .fixed(0xFF8000))
        XCTAssertEqual(try RenderRequest([("color", "Spectrum")]).color, .theme(.rainbow))
        XCTAssertEqual(try RenderRequest([("color", "ss")]).color, .theme(.secondaryStructure))
        XCTAssertEqual(try RenderRequest([("color", "cpk")]).color, .theme(.element))
        XCTAssertEqual(try RenderRequest([("mode", "SURF")]).modes, [.surface])
        XCTAssertThrowsError(try RenderRequest([("color", "rainbw")])) { e in
            XCTAssertTrue("\(e)".hasSuffix("(did you mean rainbow?)"), "\(e)")
        }
        XCTAssertThrowsError(try RenderRequest([("color", "forrest")])) { e in
            XCTAssertTrue("\(e)".hasSuffix("(did you mean forest?)"), "\(e)")
        }
        // One colour for all: every atom that colour.
        let p = try PreparedMolecule(try load("Caffeine.pdb"), mode: .spacefill, color: .fixed(0x0080FF), perception: try BondPerception.standard())
        XCTAssertEqual(Set(p.atomColors), [0x0080FF])
        // A request's default is auto, in settings text too; thumbnails keep element.
        XCTAssertEqual(RenderRequest().modes, [.auto])
        XCTAssertTrue(RenderRequest().canonical.contains("color=auto"))
    }

    // MARK: Bond orders

    static let ethylene = """
    ethylene
      test

      6  5  0  0  0  0  0  0  0  0999 V2000
       -0.6650    0.0000    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0
        0.6650    0.0000    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0
       -1.2300    0.9200    0.0000 H   0  0  0  0  0  0  0  0  0  0  0  0
       -1.2300   -0.9200    0.0000 H   0  0  0  0  0  0  0  0  0  0  0  0
        1.2300    0.9200    0.0000 H   0  0  0  0  0  0  0  0  0  0  0  0
        1.2300   -0.9200    0.0000 H   0  0  0  0  0  0  0  0  0  0  0  0
      1  2  ORDER  0
      1  3  1  0
      1  4  1  0
      2  5  1  0
      2  6  1  0
    M  END
    $$$$

    """

    /// Runs of drawn pixels down the picture's middle column, across the C-C bond.
    func runsAcrossTheBond(order: Int, mode: DrawMode) throws -> Int {
        let text = SlidePictureTests.ethylene.replacingOccurrences(of: "ORDER", with: String(order))
        let s = try StructureFile.parse(Array(text.utf8), source: "ethylene.sdf")
        let p = try Rendering.prepared(s, mode, hydrogens: true)
        var style = RenderStyle.transparent
        style.antialias = 0
        let image = try Rendering.draw(p, size: 200, style: style) { $0.zoom = 3 }
        var runs = 0, inside = false
        for y in 40..<160 {
            let drawn = image.pixel(100, y).a > 127
            if drawn && !inside { runs += 1 }
            inside = drawn
        }
        return runs
    }

    func testDoubleAndTripleBondsAreParallelCylinders() throws {
        for mode: DrawMode in [.ballAndStick, .sticks] {
            XCTAssertEqual(try runsAcrossTheBond(order: 1, mode: mode), 1, "\(mode): a single bond is one cylinder")
            XCTAssertEqual(try runsAcrossTheBond(order: 2, mode: mode), 2, "\(mode): a double bond two, with a gap between")
            XCTAssertEqual(try runsAcrossTheBond(order: 3, mode: mode), 3, "\(mode): a triple bond three")
        }
    }

    func testHemeAndALigandInAProteinDrawTheirBondOrders() throws {
        let perception = try BondPerception.standard()
        // Heme from an SDF file: each double bond two cylinders.
        let heme = try load("Heme.sdf")
        let bonds = perception.bonds(of: heme.models[0])
        let doubles = bonds.filter { $0.order == 2 && !$0.aromatic }.count
        XCTAssertGreaterThan(doubles, 5)
        let p = try Rendering.prepared(heme, .ballAndStick)
        let shownBonds = bonds.filter { heme.models[0].atoms[Int($0.a)].element.symbol != "H" && heme.models[0].atoms[Int($0.b)].element.symbol != "H" }
        let expected = shownBonds.reduce(0) { $0 + ($1.aromatic ? 4 : max(1, Int($1.order))) }
        XCTAssertEqual(p.geometry.cylinderCount, expected, "singles one, doubles two, aromatic one and three dashes")
        // Caffeine as an SDF (the fixture's coordinates, its Kekulé structure: two C=O, C=C, C=N).
        let pdb = try load("Caffeine.pdb").models[0]
        let doubleBonds: Set<[Int]> = [[1, 14], [4, 13], [5, 6], [9, 10]]
        let pairs = [[1, 2], [1, 7], [1, 14], [2, 3], [2, 4], [3, 16], [3, 17], [3, 18], [4, 5], [4, 13], [5, 6], [5, 11], [6, 7], [6, 9],
                     [7, 8], [8, 19], [8, 20], [8, 21], [9, 10], [10, 11], [10, 15], [11, 12], [12, 22], [12, 23], [12, 24]]
        var sdf = "caffeine\n  test\n\n\(String(format: "%3d%3d", pdb.atoms.count, pairs.count))  0  0  0  0  0  0  0  0999 V2000\n"
        for a in pdb.atoms {
            let symbol = a.element.symbol.padding(toLength: 3, withPad: " ", startingAt: 0)
            sdf += String(format: "%10.4f%10.4f%10.4f ", a.position.x, a.position.y, a.position.z) + symbol + " 0  0  0  0  0  0  0  0  0  0  0  0\n"
        }
        for p in pairs { sdf += String(format: "%3d%3d%3d  0\n", p[0], p[1], doubleBonds.contains(p) ? 2 : 1) }
        sdf += "M  END\n$$$$\n"
        let caffeine = try StructureFile.parse(Array(sdf.utf8), source: "caffeine.sdf")
        let cp = try Rendering.prepared(caffeine, .ballAndStick)
        XCTAssertEqual(cp.geometry.cylinderCount, 15 + 4, "15 bonds between heavy atoms, four of them double")
        // 1hpv's inhibitor (478): CONECT records give no orders; the dictionary's are taken, so its
        // benzene rings are aromatic and its carbamate C=O double.
        let hpv = try load("1hpv.pdb")
        let model = hpv.models[0]
        let ligand = perception.bonds(of: model).filter { model.residues[Int(model.atoms[Int($0.a)].residue)].name.description == "478" }
        XCTAssertEqual(ligand.filter(\.aromatic).count, 12, "two six-membered aromatic rings")
        XCTAssertGreaterThanOrEqual(ligand.filter { $0.order == 2 && !$0.aromatic }.count, 1)
    }

    // MARK: Surfaces

    /// Every edge of `mesh` is shared by exactly two triangles, one each way round.
    func assertClosed(_ mesh: Mesh, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        var edges: [UInt64: Int] = [:]
        for t in stride(from: 0, to: mesh.indices.count, by: 3) {
            for k in 0..<3 {
                let a = UInt64(mesh.indices[t + k]), b = UInt64(mesh.indices[t + (k + 1) % 3])
                edges[a << 32 | b, default: 0] += 1
            }
        }
        var open = 0, wrong = 0
        for (e, n) in edges {
            if n != 1 { wrong += 1 }
            if edges[(e & 0xFFFF_FFFF) << 32 | e >> 32] != 1 { open += 1 }
        }
        XCTAssertGreaterThan(mesh.indices.count, 0, what, file: file, line: line)
        XCTAssertEqual(open, 0, "\(what): every edge has its twin the other way round", file: file, line: line)
        XCTAssertEqual(wrong, 0, "\(what): no directed edge is used twice", file: file, line: line)
    }

    func area(_ mesh: Mesh) -> Float {
        var sum: Float = 0
        for t in stride(from: 0, to: mesh.indices.count, by: 3) {
            let a = mesh.positions[Int(mesh.indices[t])], b = mesh.positions[Int(mesh.indices[t + 1])], c = mesh.positions[Int(mesh.indices[t + 2])]
            sum += length(cross(b - a, c - a)) / 2
        }
        return sum
    }

    func testSurfacesAreClosedMeshes() throws {
        // As exports build them (pictures merge close vertices and need not be closed).
        for file in ["1crn.pdb", "Caffeine.pdb", "1hpv.pdb"] {
            let model = try load(file).models[0]
            let g = Surface(spacing: 0.7).geometry(of: model, bonds: [], visible: AtomFilter().visible(model), elements: try ElementTable.shared())
            XCTAssertEqual(g.meshes.count, 1)
            assertClosed(g.meshes[0], file)
        }
        let picture = try PreparedMolecule(try load("1crn.pdb"), mode: .surface, perception: try BondPerception.standard(), pixelsPerÅngström: 2)
        let export = try PreparedMolecule(try load("1crn.pdb"), mode: .surface, perception: try BondPerception.standard(), pixelsPerÅngström: nil)
        XCTAssertLessThan(picture.geometry.meshes[0].triangleCount * 3, export.geometry.meshes[0].triangleCount,
                          "a picture's surface is coarser than an export's")
    }

    func testAnExportedSurfaceIsAClosedSTL() throws {
        // Through export's own path (meshes of the prepared molecule, STL bytes), read back: every
        // edge, matched by its two corners' positions, is shared by exactly two triangles.
        let p = try PreparedMolecule(try load("Caffeine.pdb"), mode: .surface, perception: try BondPerception.standard())
        let stl = MeshFormat.stl.files(MoleculeMesh.meshes(p), path: "x.stl")[0].1
        let triangles = Int(stl[80]) | Int(stl[81]) << 8 | Int(stl[82]) << 16 | Int(stl[83]) << 24
        XCTAssertEqual(stl.count, 84 + 50 * triangles)
        func point(_ at: Int) -> [UInt32] {
            (0..<3).map { k in (0..<4).reduce(UInt32(0)) { $0 | UInt32(stl[at + 4 * k + $1]) << (8 * $1) } }
        }
        var edges: [[UInt32]: Int] = [:]
        for t in 0..<triangles {
            let base = 84 + 50 * t + 12
            let corners = [point(base), point(base + 12), point(base + 24)]
            for k in 0..<3 {
                let a = corners[k], b = corners[(k + 1) % 3]
                edges[a.lexicographicallyPrecedes(b) ? a + b : b + a, default: 0] += 1
            }
        }
        XCTAssertGreaterThan(triangles, 1000)
        XCTAssertEqual(edges.values.filter { $0 != 2 }.count, 0, "every edge of the printed surface shared by two triangles")
    }

    func testTheSurfaceGridStaysUnderItsCapHoweverFarApartTheAtoms() {
        // A small box keeps the spacing asked for; a box of 3,000 Å a side (atoms far apart) gets
        // the spacing that fills the cap, not more voxels than it.
        XCTAssertEqual(Surface.gridSpacing(extent: SIMD3(40, 30, 20), requested: 0.5), 0.5)
        for extent in [SIMD3<Float>(3000, 3000, 3000), SIMD3(300, 300, 300), SIMD3(100_000, 20, 20)] {
            let h = Surface.gridSpacing(extent: extent, requested: 0.5)
            let voxels = Double(extent.x / h) * Double(extent.y / h) * Double(extent.z / h)
            XCTAssertLessThanOrEqual(voxels, Double(Surface.maximumVoxels), "\(extent)")
            XCTAssertGreaterThan(voxels, 0.99 * Double(Surface.maximumVoxels), "\(extent): no coarser than needed")
        }
        // Atoms whose span is past a float's range: no surface, and no crash.
        let apart = Surface.mesh(centers: [SIMD3(repeating: 3e38), SIMD3(repeating: -3e38), .zero], radii: [1.7, 1.7, 1.7],
                                 probe: 1.4, spacing: 0.5)
        XCTAssertTrue(apart.indices.isEmpty)
    }

    func testSurfaceAreasMatchValuesComputedAnotherWay() throws {
        let r: Float = 1.7, probe: Float = 1.4
        // One atom: its sphere, whatever the probe.
        for spacing: Float in [0.25, 0.5] {
            let one = Surface.mesh(centers: [.zero], radii: [r], probe: probe, spacing: spacing)
            assertClosed(one, "one atom")
            XCTAssertEqual(area(one), 4 * .pi * r * r, accuracy: 0.05 * 4 * .pi * r * r, "spacing \(spacing)")
        }
        // Two atoms 3 Å apart: two spherical caps and the probe's toroidal patch between them,
        // worked out by Pappus's theorem.
        let d: Float = 3
        let sinφ = (d / 2) / (r + probe), φ = asin(sinφ), ρ = ((r + probe) * (r + probe) - d * d / 4).squareRoot()
        let exact = 2 * (2 * .pi * r * r * (1 + sinφ)) + 2 * .pi * probe * (2 * ρ * φ - 2 * probe * sinφ)
        let two = Surface.mesh(centers: [SIMD3(-d / 2, 0, 0), SIMD3(d / 2, 0, 0)], radii: [r, r], probe: probe, spacing: 0.25)
        assertClosed(two, "two atoms")
        XCTAssertEqual(area(two), exact, accuracy: 0.05 * exact)
        // Caffeine's van der Waals surface (probe 0) against a Shrake-Rupley count of the points on
        // each sphere that no other sphere covers.
        let model = try load("Caffeine.pdb").models[0]
        let elements = try ElementTable.shared()
        let heavy = model.atoms.filter { $0.element.symbol != "H" }
        let centers = heavy.map(\.position), radii = heavy.map { elements.vanDerWaalsRadius($0.element) }
        let n = 4000
        var shrakeRupley: Float = 0
        for (i, c) in centers.enumerated() {
            var exposed = 0
            for k in 0..<n {
                // Points spread evenly over the sphere (a golden-angle spiral).
                let z = 1 - 2 * (Float(k) + 0.5) / Float(n), ring = (1 - z * z).squareRoot(), θ = Float(k) * 2.399963
                let p = c + SIMD3(ring * cos(θ), ring * sin(θ), z) * radii[i]
                if !centers.indices.contains(where: { $0 != i && length(p - centers[$0]) < radii[$0] }) { exposed += 1 }
            }
            shrakeRupley += 4 * .pi * radii[i] * radii[i] * Float(exposed) / Float(n)
        }
        let union = Surface.mesh(centers: centers, radii: radii, probe: 0, spacing: 0.2)
        assertClosed(union, "caffeine, probe 0")
        XCTAssertEqual(area(union), shrakeRupley, accuracy: 0.05 * shrakeRupley, "mesh \(area(union)) Å², Shrake-Rupley \(shrakeRupley) Å²")
    }

    func testATransparentSurfaceShowsTheCartoonInside() throws {
        let s = try load("1hpv.pdb")
        func bluish(_ transparency: String) throws -> Int {
            let request = try RenderRequest([("show", "surface #FF0000: polymer"), ("show", "cartoon #0000FF: polymer"),
                                             ("transparency", transparency), ("size", "300")])
            let p = try PreparedMolecule(s, mode: Show.mode, request: request, perception: try BondPerception.standard())
            return try Rendering.draw(p, size: 300, style: .transparent).coverage { r, _, b in Int(b) > Int(r) + 30 }.count
        }
        XCTAssertLessThan(try bluish("0"), 50, "an opaque surface hides the cartoon")
        XCTAssertGreaterThan(try bluish("0.6"), 2000, "through a surface 60% transparent the cartoon shows")
        XCTAssertThrowsError(try RenderRequest([("transparency", "1.5")]))
    }

    func testASurfaceSelectionIsDrawnWithACartoon() throws {
        let s = try load("1hpv.pdb")
        let p = try PreparedMolecule(s, shows: [try Show(parsing: "surface #FF0000: chain A"), try Show(parsing: "cartoon #0000FF: chain B")],
                                     perception: try BondPerception.standard(), pixelsPerÅngström: 3)
        XCTAssertEqual(p.geometry.meshes.map(\.name).sorted(), ["cartoon", "surface"])
        let image = try Rendering.draw(p, size: 300, style: .transparent)
        let red = image.coverage { r, g, b in r > 120 && g < 60 && b < 60 }
        let blue = image.coverage { r, g, b in b > 120 && r < 60 && g < 60 }
        XCTAssertGreaterThan(red.count, 5000, "chain A's surface in red")
        XCTAssertGreaterThan(blue.count, 2000, "chain B's cartoon in blue")
        XCTAssertGreaterThan(abs(red.centroid.x - blue.centroid.x) + abs(red.centroid.y - blue.centroid.y), 20, "side by side")
    }
}

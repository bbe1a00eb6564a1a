import Core
import Foundation
import Scene
import Structure

/// Proteins and nucleic acids as cartoons: a smooth curve (Catmull-Rom through the CA atoms, or
/// the P atoms of nucleic acids) swept with a cross-section that follows the secondary structure:
/// helices as broad ribbons, strands as flat arrows, loops and nucleic acid backbones as tubes,
/// nucleic acid bases as slabs on rungs from the phosphate, each residue in its CA's (or P's) color. The file's helices and strands where it states any,
/// else DSSP's assignment (`Model.secondaryStructure(stated:)`). Residues the cartoon cannot
/// show (ligands, waters, a lone residue) are drawn as ball-and-stick would draw them.
public struct Cartoon: Representation {
    public static let name = "cartoon"
    public static let usesBonds = true
    /// Curve points per residue, and points around the cross-section, at full detail.
    public static let fullSamples = 8
    public static let fullSides = 12
    public let samples: Int
    public let sides: Int
    /// A putty (`Putty`): every residue a tube whose radius follows its B-factor, no bases.
    let putty: Bool

    public init() {
        samples = Cartoon.fullSamples
        sides = Cartoon.fullSides
        putty = false
    }

    init(_ detail: Cartoon, putty: Bool) {
        samples = detail.samples
        sides = detail.sides
        self.putty = putty
    }

    /// As fine as a picture of `pixelsPerÅngström` shows: a curve point every 5 pixels or so along
    /// the backbone (3.8 Å a residue) and a section point every 4 pixels around a ribbon (2.2 Å
    /// wide), from 2 and 4 up to full detail. A thumbnail of a chaperonin draws 12 times fewer
    /// triangles, and looks the same.
    public init(pixelsPerÅngström scale: Float) {
        // Full detail is reached long before 1,000 pixels an ångström: a larger scale (or an infinite
        // one) is full detail, and none converts past what an Int holds.
        let p = scale.isNaN ? 0 : min(max(scale, 0), 1000)
        samples = max(2, min(Cartoon.fullSamples, Int((3.8 * p / 5).rounded(.up))))
        let around = Int((2.2 * p * .pi / 4).rounded(.up))
        sides = around <= 4 ? 4 : around <= 6 ? 6 : around <= 8 ? 8 : Cartoon.fullSides
        putty = false
    }

    /// From this scale up, `init(pixelsPerÅngström:)` is full detail.
    public static let fullDetailPixelsPerÅngström: Float = 10.5

    public static func make(pixelsPerÅngström: Float?) -> Cartoon {
        pixelsPerÅngström.map { Cartoon(pixelsPerÅngström: $0) } ?? Cartoon()
    }

    public func geometry(of model: Model, bonds: [Bond], visible: [Bool], elements: ElementTable) -> MoleculeGeometry {
        geometry(of: model, bonds: bonds, visible: visible, elements: elements, secondaryStructure: [])
    }

    /// One traced residue: its guide atom (CA or P), the direction its cross-section's width takes
    /// (the carbonyl's, for proteins), and its state.
    struct Trace {
        var atom: Int32
        var position: SIMD3<Float>
        var side: SIMD3<Float>?
        var state: SecondaryStructure
        /// The putty's tube diameter here (0 in a cartoon).
        var diameter: Float = 0
    }

    private static let ca = ShortName("CA"), phosphorus = ShortName("P"), o5 = ShortName("O5'"), o5Star = ShortName("O5*")
    private static let carbon = ShortName("C"), oxygen = ShortName("O")

    /// A residue's guide atom (CA, P, or a strand's first O5'), whether it is a nucleotide, and its
    /// carbonyl's C and O.
    static func backbone(of residue: Residue, in model: Model) -> (guide: Int32?, nucleic: Bool, c: SIMD3<Float>?, o: SIMD3<Float>?) {
        var guide: Int32?, isNucleic = false, c: SIMD3<Float>?, o: SIMD3<Float>?, o5: Int32?
        for a in residue.atoms {
            // Names compared as the integers they are held in (no string an atom).
            let atom = model.atoms[Int(a)]
            let name = atom.name
            if name == Cartoon.ca {
                if guide == nil && atom.element.symbol == "C" { guide = a }
            } else if name == Cartoon.phosphorus {
                if guide == nil { guide = a; isNucleic = true }
            } else if name == Cartoon.o5 || name == Cartoon.o5Star {
                o5 = a
            } else if name == Cartoon.carbon {
                c = atom.position
            } else if name == Cartoon.oxygen {
                o = atom.position
            }
        }
        // The first nucleotide of a strand has no phosphate: its O5', bonded to where the
        // phosphate would be, starts the backbone, as PyMOL's cartoon starts there (no
        // ball-and-stick blob at the strand's end).
        if guide == nil, let o5, residue.inPolymer,
           Selection.nucleotides.contains(residue.name.description.uppercased()) || residue.isModified {
            guide = o5
            isNucleic = true
        }
        return (guide, isNucleic, c, o)
    }

    /// Whether the cartoon draws `residue` (its atoms then are not drawn as balls and sticks).
    static func traces(_ residue: Residue, guide: Int32, nucleic: Bool, visible: [Bool]) -> Bool {
        visible[Int(guide)] && (residue.inPolymer || nucleic)
    }

    /// The atoms of the residues the cartoon does not draw: the only ones whose bonds it shows
    /// (ligands, waters and lone residues as ball-and-stick), so the only ones whose bonds need
    /// perceiving.
    public static func bondedAtoms(_ model: Model, visible: [Bool]) -> [Bool]? {
        var open = [Bool](repeating: true, count: model.atoms.count)
        for run in runs(of: model, visible: visible) {
            for piece in run.residues {
                for a in model.residues[piece.residue].atoms { open[Int(a)] = false }
            }
        }
        return open
    }

    /// A residue the cartoon traces, with its backbone (`backbone`).
    struct Piece {
        var residue: Int
        var guide: Int32
        var c: SIMD3<Float>?, o: SIMD3<Float>?
    }

    /// The runs the cartoon sweeps: consecutive traced residues of a chain, their guide atoms
    /// close enough to join (a gap, a change between protein and nucleic acid or a residue it
    /// does not trace ends one). A run of one residue is none: a residue the cartoon cannot join
    /// falls back to its atoms (ball-and-stick: a lone CA a sphere), as PyMOL and Mol* draw it,
    /// where it had been left out of both and drawn not at all.
    static func runs(of model: Model, visible: [Bool]) -> [(residues: [Piece], nucleic: Bool)] {
        var runs: [(residues: [Piece], nucleic: Bool)] = []
        for chain in model.chains {
            var run: [Piece] = []
            var nucleic = false
            func flush() {
                if run.count >= 2 { runs.append((run, nucleic)) }
                run = []
            }
            for r in chain.residues {
                let residue = model.residues[Int(r)]
                let (guide, isNucleic, c, o) = Cartoon.backbone(of: residue, in: model)
                guard let g = guide, Cartoon.traces(residue, guide: g, nucleic: isNucleic, visible: visible) else {
                    flush()
                    continue
                }
                let p = model.atoms[Int(g)].position
                if let last = run.last.map({ model.atoms[Int($0.guide)].position }), ((last - p) * (last - p)).sum() > (isNucleic ? 64 : 18) {
                    flush()
                }
                if run.isEmpty { nucleic = isNucleic }
                if isNucleic != nucleic { flush(); nucleic = isNucleic }
                run.append(Piece(residue: Int(r), guide: g, c: c, o: o))
            }
            flush()
        }
        return runs
    }

    public func geometry(of model: Model, bonds: [Bond], visible: [Bool], elements: ElementTable,
                         secondaryStructure ranges: [SecondaryStructureRange]) -> MoleculeGeometry {
        let states = model.secondaryStructure(stated: ranges)
        var traced = [Bool](repeating: false, count: model.atoms.count)
        var mesh = Mesh(name: putty ? Putty.name : Cartoon.name)
        var runs: [(trace: [Trace], nucleic: Bool)] = []
        for run in Cartoon.runs(of: model, visible: visible) {
            var trace: [Trace] = []
            for piece in run.residues {
                let residue = model.residues[piece.residue]
                var side: SIMD3<Float>?
                if let c = piece.c, let o = piece.o { side = o - c }
                trace.append(Trace(atom: piece.guide, position: model.atoms[Int(piece.guide)].position, side: side,
                                   state: run.nucleic ? .coil : states[piece.residue]))
                for a in residue.atoms { traced[Int(a)] = true }
                if run.nucleic && !putty { base(of: residue, in: model, from: model.atoms[Int(piece.guide)].position, into: &mesh) }
            }
            runs.append((trace, run.nucleic))
        }
        if putty { Cartoon.puttyDiameters(&runs, model: model) }
        for run in runs { sweep(run.trace, nucleic: run.nucleic, into: &mesh) }
        // Colors come from `atoms` once the theme is known.
        mesh.colors = []
        // What the cartoon does not show (ligands, waters, unconnected residues): ball-and-stick.
        let rest = zip(visible, traced).map { $0 && !$1 }
        var g = BallAndStick().geometry(of: model, bonds: bonds, visible: rest, elements: elements)
        if !mesh.indices.isEmpty { g.meshes = [mesh] }
        return g
    }

    /// The putty scale after PyMOL's (its `cartoon_putty_*` defaults): a residue's B-factor as standard
    /// deviations from the mean of the traced residues, z, gives a tube radius of
    /// 0.4 Å x ((z + 2) / 2)^1.5, kept between 0.6x and 4x that radius; every residue 0.4 Å where
    /// the B-factors do not vary.
    static let puttyRadius: Float = 0.4, puttyRange: Float = 2, puttyPower: Float = 1.5
    static let puttyScale: ClosedRange<Float> = 0.6...4

    static func puttyDiameters(_ runs: inout [(trace: [Trace], nucleic: Bool)], model: Model) {
        var sum = 0.0, squares = 0.0, count = 0.0
        for run in runs {
            for t in run.trace {
                let b = Double(model.atoms[Int(t.atom)].bFactor)
                sum += b; squares += b * b; count += 1
            }
        }
        guard count > 0 else { return }
        let mean = sum / count, deviation = (max(0, squares / count - mean * mean)).squareRoot()
        for r in runs.indices {
            for i in runs[r].trace.indices {
                let b = Double(model.atoms[Int(runs[r].trace[i].atom)].bFactor)
                let z = deviation > 1e-6 ? Float((b - mean) / deviation) : 0
                let scale = Float(pow(Double(max(0, (z + puttyRange) / puttyRange)), Double(puttyPower)))
                runs[r].trace[i].diameter = 2 * puttyRadius * min(max(scale, puttyScale.lowerBound), puttyScale.upperBound)
            }
        }
    }

    /// Ring atoms of the bases: the six-membered ring, and the five-membered one of purines.
    static let sixRing = ["N1", "C2", "N3", "C4", "C5", "C6"].map { ShortName($0) }
    static let fiveRing = ["C4", "C5", "N7", "C8", "N9"].map { ShortName($0) }
    private static let c1 = ShortName("C1'"), n9 = ShortName("N9"), n1 = ShortName("N1")

    /// A nucleotide's base as a slab (its rings, 0.5 Å thick) joined to the backbone curve at its
    /// phosphate by a tube to the glycosidic nitrogen, in the color of its C1'.
    private func base(of residue: Residue, in model: Model, from backbone: SIMD3<Float>, into mesh: inout Mesh) {
        // The residue's atom of a name (the last of it, as a table by name keeps), compared as integers.
        func named(_ name: ShortName) -> (Int32, SIMD3<Float>)? {
            var found: (Int32, SIMD3<Float>)?
            for a in residue.atoms where model.atoms[Int(a)].name == name { found = (a, model.atoms[Int(a)].position) }
            return found
        }
        let color = named(Cartoon.c1)?.0 ?? named(Cartoon.phosphorus)?.0 ?? residue.atoms.lowerBound
        let six = Cartoon.sixRing.compactMap { named($0)?.1 }
        guard six.count == 6 else { return }
        slab(six, atom: color, into: &mesh)
        let five = Cartoon.fiveRing.compactMap { named($0)?.1 }
        let purine = five.count == 5
        if purine { slab(five, atom: color, into: &mesh) }
        if let glycosidic = named(purine ? Cartoon.n9 : Cartoon.n1)?.1 {
            let start = mesh.positions.count
            MoleculeMesh.cylinder(&mesh, from: backbone, to: glycosidic, radius: 0.3, sides: 8, color: 0)
            mesh.atoms += [Int32](repeating: color, count: mesh.positions.count - start)
        }
    }

    /// A flat prism over a ring of points: top and bottom faces as fans about the center, and walls.
    private func slab(_ ring: [SIMD3<Float>], atom: Int32, into mesh: inout Mesh, thickness: Float = 0.5) {
        let center = ring.reduce(SIMD3<Float>(repeating: 0), +) / Float(ring.count)
        var normal = SIMD3<Float>(repeating: 0)
        for i in ring.indices { normal += cross(ring[i] - center, ring[(i + 1) % ring.count] - center) }
        guard length(normal) > 1e-4 else { return }
        normal = normalize(normal)
        let offset = normal * (thickness / 2)
        func add(_ p: SIMD3<Float>, _ n: SIMD3<Float>) -> UInt32 {
            mesh.positions.append(p)
            mesh.normals.append(n)
            mesh.atoms.append(atom)
            return UInt32(mesh.positions.count - 1)
        }
        for side: Float in [1, -1] {
            let c = add(center + offset * side, normal * side)
            let rim = ring.map { add($0 + offset * side, normal * side) }
            for i in ring.indices {
                let a = rim[i], b = rim[(i + 1) % ring.count]
                mesh.indices += side > 0 ? [c, a, b] : [c, b, a]
            }
        }
        for i in ring.indices {
            let p = ring[i], q = ring[(i + 1) % ring.count]
            let out = normalize(cross(q - p, normal))
            let a = add(p + offset, out), b = add(q + offset, out), c = add(q - offset, out), d = add(p - offset, out)
            mesh.indices += [a, d, c, a, c, b]
        }
    }

    /// Sweeps the cross-sections along the curve through `run`.
    private func sweep(_ run: [Trace], nucleic: Bool, into mesh: inout Mesh) {
        let n = run.count, k = samples
        let points = run.map(\.position)
        func point(_ i: Int) -> SIMD3<Float> { points[max(0, min(n - 1, i))] }
        // Widths and thicknesses of the states: tube, ribbon, arrow body.
        func size(_ i: Int) -> SIMD2<Float> {
            if putty { let d = run[max(0, min(n - 1, i))].diameter; return SIMD2(d, d) }
            if nucleic { return SIMD2(0.9, 0.9) }
            switch run[max(0, min(n - 1, i))].state {
            case .coil: return SIMD2(0.5, 0.5)
            case .helix: return SIMD2(2.2, 0.45)
            case .strand: return SIMD2(1.8, 0.5)
            }
        }
        // Side directions made perpendicular to the curve and kept from flipping.
        var directions: [SIMD3<Float>] = []
        var previous: SIMD3<Float>?
        for i in 0..<n {
            let tangent = normalize(point(i + 1) - point(i - 1))
            var s = run[i].side ?? (previous ?? perpendicular(tangent))
            s -= tangent * dot(s, tangent)
            if length(s) < 1e-3 { s = previous ?? perpendicular(tangent) }
            s = normalize(s)
            if let previous, dot(s, previous) < 0 { s = -s }
            directions.append(s)
            previous = s
        }
        var ring = 0
        let total = (n - 1) * k + 1
        for step in 0..<total {
            let i = min(step / k, n - 2), t = Float(step - i * k) / Float(k)
            let p0 = point(i - 1), p1 = point(i), p2 = point(i + 1), p3 = point(i + 2)
            // Catmull-Rom position and tangent.
            let t2 = t * t, t3 = t2 * t
            let a1: SIMD3<Float> = p2 - p0
            let a2: SIMD3<Float> = 2 * p0 - 5 * p1 + 4 * p2 - p3
            let a3: SIMD3<Float> = 3 * p1 - p0 - 3 * p2 + p3
            let position: SIMD3<Float> = 0.5 * (2 * p1 + a1 * t + a2 * t2 + a3 * t3)
            let derivative: SIMD3<Float> = 0.5 * (a1 + 2 * t * a2 + 3 * t2 * a3)
            let tangent = normalize(length(derivative) > 1e-5 ? derivative : p2 - p1)
            var side = directions[i] * (1 - t) + directions[i + 1] * t
            side -= tangent * dot(side, tangent)
            side = length(side) > 1e-4 ? normalize(side) : perpendicular(tangent)
            let up = cross(tangent, side)
            // The section's size, blended between residues; a strand ends in an arrowhead.
            let residue = t < 0.5 ? i : i + 1
            var w = size(i) * (1 - t) + size(i + 1) * t
            // (A putty's radius changes smoothly from residue to residue: no arrowheads, no steps.)
            if !putty && run[i].state == .strand && run[i + 1].state == .strand && !nucleic
                && (i + 2 >= n || run[i + 2].state != .strand) {
                w.x = 2.8 * (1 - t) + 0.3 * t
            } else if !putty && run[i].state != run[i + 1].state {
                // Keep the shape of the residue the point belongs to: no bulges between a ribbon and a tube.
                w = size(residue)
            }
            let atom = run[residue].atom
            let base = UInt32(mesh.positions.count)
            for s in 0..<sides {
                let a = Float(s) * 2 * .pi / Float(sides)
                let c = cosine(a), si = sine(a)
                mesh.positions.append(position + side * (c * w.x / 2) + up * (si * w.y / 2))
                mesh.normals.append(normalize(side * (c / max(w.x, 0.05)) + up * (si / max(w.y, 0.05))))
                mesh.atoms.append(atom)
            }
            if ring > 0 {
                let prev = base - UInt32(sides)
                for s in 0..<UInt32(sides) {
                    let s1 = (s + 1) % UInt32(sides)
                    mesh.indices += [prev + s, prev + s1, base + s, prev + s1, base + s1, base + s]
                }
            }
            ring += 1
        }
    }
}

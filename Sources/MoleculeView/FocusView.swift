import Core
import Scene
import Structure

/// The view of a selection (`focus`): turned along the selection's principal axes (its longest
/// spread across the picture), then about that axis to whichever of eight sides has the fewest
/// other atoms between the viewer and the selection, fitted to the selection with room for its
/// surroundings. The camera's depth still takes the whole molecule, which stays drawn. A flat
/// selection (a heme, a nucleobase, a benzotriazole: its heavy atoms nearly in a plane) is seen
/// face-on, as PyMOL's orient shows it, turned only to its other face. A binding site (`site`)
/// also frames and keeps inside the slab every atom its interactions end on.
enum FocusView {
    /// Room around each selected atom, Å: a ligand's binding residues come into the frame.
    static let padding: Float = 7
    /// Room around each atom a site's interaction ends on, Å: its residue's label.
    static let partnerPadding: Float = 3
    /// Flat: the heavy atoms' spread off their plane (root mean square, Å) at most this, and at
    /// most `flatRatio` of their spread along the longest axis.
    static let flatSpread: Float = 0.6, flatRatio: Float = 0.25

    static func camera(_ selection: Selection, in prepared: PreparedMolecule, request: RenderRequest) -> Camera? {
        let model = prepared.model
        let chosen = selection.atoms(in: model)
        guard !chosen.isEmpty else { return nil }
        let points = chosen.map { model.atoms[$0].position }
        let heavy = chosen.filter { model.atoms[$0].element.atomicNumber > 1 }.map { model.atoms[$0].position }
        let axesFrom = heavy.count >= 3 ? heavy : points
        let base = axesFrom.count >= 3 ? Orientation.principalAxes(axesFrom) : prepared.principalAxes
        let flat = axesFrom.count >= 5 && isFlat(axesFrom, base)
        // Candidate turns about the screen's x axis, which keep the longest spread across (a flat
        // selection's two faces only).
        let turns: [(Float, Float)] = (flat ? [0, 180] : [0, 180, 90, -90, 45, -45, 135, -135]).map { ($0, 0) }
        // What a site frames and keeps in its slab besides: the atoms its interactions end on.
        var partners: [SIMD3<Float>] = []
        if let site = request.site, let found = try? InteractionPartners.interactions(of: site.selection, with: request.annotations.interactionPartners?.selection, in: model) {
            for i in found {
                partners += i.partnerAtoms.map { model.atoms[$0].position }
                if let w = i.water { partners.append(model.atoms[w].position) }
            }
        }
        let inside = Set(chosen)
        // The atoms drawn (spheres and bonds, and those a cartoon stands for) may hide it; every
        // one once (a stride keeps this to ~200k atoms on the largest assemblies).
        var drawn = Set(prepared.geometry.sphereAtoms.map(Int.init))
        for m in prepared.geometry.meshes { for a in m.atoms { drawn.insert(Int(a)) } }
        let blockers = drawn.isEmpty ? Array(model.atoms.indices) : drawn.sorted()
        let stride = max(1, blockers.count / 200_000)
        var best: (camera: Camera, blocked: Int)?
        if request.site != nil {
            best = siteView(base: base, flat: flat, ligand: points, partners: partners, blockers: blockers.filter { !inside.contains($0) }, model: model)
        }
        for (x, y) in turns where best == nil || best!.blocked > 0 && request.site == nil {
            var turned = Camera(center: .zero, radius: 1)
            turned.rotation = base
            turned.rotate(degreesX: x, degreesY: y, degreesZ: 0)
            let m = turned.rotation.matrix
            let right = SIMD3(m.0.x, m.1.x, m.2.x), up = SIMD3(m.0.y, m.1.y, m.2.y), toward = SIMD3(m.0.z, m.1.z, m.2.z)
            var lo = SIMD2<Float>(repeating: .greatestFiniteMagnitude), hi = -lo
            var depth: Float = 0
            for p in points {
                let v = SIMD2((p * right).sum(), (p * up).sum())
                lo = pointwiseMin(lo, v)
                hi = pointwiseMax(hi, v)
                depth += (p * toward).sum()
            }
            depth /= Float(points.count)
            lo -= 1.5
            hi += 1.5
            var blocked = 0
            var k = 0
            while k < blockers.count {
                defer { k += stride }
                let i = blockers[k]
                if inside.contains(i) { continue }
                let p = model.atoms[i].position
                guard (p * toward).sum() > depth else { continue }
                let v = SIMD2((p * right).sum(), (p * up).sum())
                if v.x >= lo.x && v.x <= hi.x && v.y >= lo.y && v.y <= hi.y { blocked += 1 }
            }
            if best == nil || blocked < best!.blocked { best = (turned, blocked) }
            if blocked == 0 { break }
        }
        guard var rotation = best?.camera else { return nil }
        rotation.rotate(degreesX: request.rotate.x, degreesY: request.rotate.y, degreesZ: request.rotate.z)
        var spheres: [Float] = []
        spheres.reserveCapacity(points.count * 4)
        for p in points { spheres += [p.x, p.y, p.z, padding] }
        for p in partners { spheres += [p.x, p.y, p.z, partnerPadding] }
        var camera = Camera.fitted(spheres: spheres, rotation: rotation.rotation)
        // Deep enough for the whole molecule about the new center.
        let all = prepared.geometry.extentSpheres
        var radius = camera.radius
        for k in 0..<(all.count / 4) {
            let d = SIMD3(all[4 * k], all[4 * k + 1], all[4 * k + 2]) - camera.center
            radius = max(radius, d.length + all[4 * k + 3])
        }
        camera.radius = radius
        camera.clip = request.slab.given
        if request.slab == .auto {
            // From just in front of the focused atoms to well behind them: nothing in front hides
            // them, and the pocket behind stays (Mol*'s ligand view).
            let toward = camera.rotation.matrix
            let axis = SIMD3(toward.0.z, toward.1.z, toward.2.z)
            var front: Float = 0, back: Float = 0
            for p in points + partners {
                let z = ((p - camera.center) * axis).sum()
                front = max(front, z + 1.5)
                back = max(back, -z + 1.5)
            }
            camera.clip = SIMD2(front + RenderRequest.focusSlabFront, back + RenderRequest.focusSlabBack)
        }
        if request.perspective { camera.projection = .perspective(fieldOfView: 30) }
        camera.zoom = request.zoom
        camera.pan = request.pan
        return camera
    }

    /// A binding site's view: of turns of `base` (about the screen's x axis, and tilted about y;
    /// a flat ligand's two faces, tilted at most 20 degrees), the one where the fewest of the
    /// ligand's atoms and its interactions' midpoints are hidden: a drawn atom (or a point of a
    /// cartoon's trace between its CAs) in front of one, within 1.8 Å across the picture and inside
    /// the slab that view would have (what the slab cuts away hides nothing). The first of equals:
    /// the principal axes' view where it is clear.
    static func siteView(base: Quaternion, flat: Bool, ligand: [SIMD3<Float>], partners: [SIMD3<Float>], blockers: [Int],
                         model: Model) -> (camera: Camera, blocked: Int)? {
        let turns: [(Float, Float)] = flat
            ? [(0, 0), (180, 0), (20, 0), (-20, 0), (0, 20), (0, -20), (160, 0), (200, 0), (180, 20), (180, -20)]
            : [0, 180, 90, -90, 45, -45, 135, -135].flatMap { x in [(x, 0), (x, 35), (x, -35)] }
        let targets = ligand + partners.map { p in
            // Midway to each partner: where the interaction's line runs.
            let nearest = ligand.min { (($0 - p) * ($0 - p)).sum() < (($1 - p) * ($1 - p)).sum() } ?? p
            return (nearest + p) / 2
        }
        guard !targets.isEmpty else { return nil }
        let centre = targets.reduce(SIMD3<Float>(repeating: 0), +) / Float(targets.count)
        let reach = targets.map { ($0 - centre).length }.max()! + RenderRequest.focusSlabFront + 8
        var near = blockers.map { model.atoms[$0].position }.filter { ($0 - centre).length < reach }
        // A cartoon's tube runs between its CAs: the midpoint of each drawn CA and the next
        // residue's (3.8 Å on, not across a gap) blocks too.
        let drawn = Set(blockers), ca = ShortName("CA")
        for i in blockers where model.atoms[i].name == ca {
            let following = Int(model.residues[Int(model.atoms[i].residue)].atoms.upperBound)
            guard following < model.atoms.count else { continue }
            let r = model.residues[Int(model.atoms[following].residue)]
            guard let j = (Int(r.atoms.lowerBound)..<Int(r.atoms.upperBound)).first(where: { model.atoms[$0].name == ca }), drawn.contains(j) else { continue }
            let a = model.atoms[i].position, b = model.atoms[j].position, m = (a + b) / 2
            if (a - b).length < 4.3, (m - centre).length < reach { near.append(m) }
        }
        var best: (camera: Camera, blocked: Int)?
        for (x, y) in turns {
            var turned = Camera(center: .zero, radius: 1)
            turned.rotation = base
            turned.rotate(degreesX: x, degreesY: y, degreesZ: 0)
            let m = turned.rotation.matrix
            let right = SIMD3(m.0.x, m.1.x, m.2.x), up = SIMD3(m.0.y, m.1.y, m.2.y), toward = SIMD3(m.0.z, m.1.z, m.2.z)
            let front = (ligand + partners).map { ($0 * toward).sum() }.max()! + 1.5 + RenderRequest.focusSlabFront
            let flatTargets = targets.map { (SIMD2(($0 * right).sum(), ($0 * up).sum()), ($0 * toward).sum()) }
            // The targets something lies in front of.
            let inFront = near.compactMap { p -> (SIMD2<Float>, Float)? in
                let z = (p * toward).sum()
                return z < front ? (SIMD2((p * right).sum(), (p * up).sum()), z) : nil
            }
            var blocked = 0
            for (t, tz) in flatTargets where inFront.contains(where: { $0.1 > tz + 0.5 && (($0.0 - t) * ($0.0 - t)).sum() < 1.8 * 1.8 }) {
                blocked += 1
            }
            if best == nil || blocked < best!.blocked { best = (turned, blocked) }
            if blocked == 0 { break }
        }
        return best
    }

    /// Whether `points` lie nearly in the plane `axes` puts square to the view (their smallest spread).
    static func isFlat(_ points: [SIMD3<Float>], _ axes: Quaternion) -> Bool {
        let m = axes.matrix
        let x = SIMD3(m.0.x, m.1.x, m.2.x), z = SIMD3(m.0.z, m.1.z, m.2.z)
        let centre = points.reduce(SIMD3<Float>(repeating: 0), +) / Float(points.count)
        var sx: Float = 0, sz: Float = 0
        for p in points {
            let d = p - centre
            sx += (d * x).sum() * (d * x).sum()
            sz += (d * z).sum() * (d * z).sum()
        }
        let rx = (sx / Float(points.count)).squareRoot(), rz = (sz / Float(points.count)).squareRoot()
        return rz <= flatSpread && rz <= flatRatio * rx
    }
}

import Core
import Scene
import Structure

/// The view of a selection (`focus`): turned along the selection's principal axes (its longest
/// spread across the picture), then about that axis to whichever of eight sides has the fewest
/// other atoms between the viewer and the selection, fitted to the selection with room for its
/// surroundings. The camera's depth still takes the whole molecule, which stays drawn.
enum FocusView {
    /// Room around each selected atom, Å: a ligand's binding residues come into the frame.
    static let padding: Float = 7

    static func camera(_ selection: Selection, in prepared: PreparedMolecule, request: RenderRequest) -> Camera? {
        let model = prepared.model
        let chosen = selection.atoms(in: model)
        guard !chosen.isEmpty else { return nil }
        let points = chosen.map { model.atoms[$0].position }
        let base = points.count >= 3 ? Orientation.principalAxes(points) : prepared.principalAxes
        // Candidate turns about the screen's x axis, which keep the longest spread across.
        let turns: [(Float, Float)] = [0, 180, 90, -90, 45, -45, 135, -135].map { ($0, 0) }
        let inside = Set(chosen)
        // The atoms drawn (spheres and bonds, and those a cartoon stands for) may hide it; every
        // one once (a stride keeps this to ~200k atoms on the largest assemblies).
        var drawn = Set(prepared.geometry.sphereAtoms.map(Int.init))
        for m in prepared.geometry.meshes { for a in m.atoms { drawn.insert(Int(a)) } }
        let blockers = drawn.isEmpty ? Array(model.atoms.indices) : drawn.sorted()
        let stride = max(1, blockers.count / 200_000)
        var best: (camera: Camera, blocked: Int)?
        for (x, y) in turns {
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
            for p in points {
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
}

@testable import MoleculeView
import Scene
import XCTest

/// `SphereOcclusion.visible` against a scan: every sphere that is the nearest surface at some
/// point of the view plane is kept, whatever the runs, the grid and the order did; and spheres
/// behind a wall are found hidden.
final class SphereOcclusionTests: XCTestCase {
    /// Blobs of atoms along a chain (as a structure lists them), some far apart, as a capsid's
    /// copies are: `count` spheres of radii 1 to 2 near `blobs` centers up to `spread` apart.
    private func blobs(_ count: Int, blobs: Int, spread: Float, using g: inout some RandomNumberGenerator) -> [Float] {
        let centers = (0..<blobs).map { _ in SIMD3<Float>.random(in: -spread...spread, using: &g) }
        var spheres: [Float] = []
        var p = centers[0]
        for i in 0..<count {
            // A walk of 1.5 A steps, jumping to the next blob now and then.
            if i % max(1, count / blobs) == 0 { p = centers[(i / max(1, count / blobs)) % blobs] }
            p += SIMD3<Float>.random(in: -1...1, using: &g) * 1.5
            spheres += [p.x, p.y, p.z, Float.random(in: 1...2, using: &g)]
        }
        return spheres
    }

    /// The sphere nearest the viewer at each point of a fine lattice over the view plane (view
    /// space looks down -z: larger z is nearer; ties to the lower index).
    private func seen(_ spheres: [Float], rotation: Quaternion, steps: Int) -> Set<Int32> {
        let m = rotation.matrix
        let n = spheres.count / 4
        var view: [SIMD4<Float>] = []
        for i in 0..<n {
            let x: SIMD3<Float> = m.0 * spheres[4 * i], y: SIMD3<Float> = m.1 * spheres[4 * i + 1], z: SIMD3<Float> = m.2 * spheres[4 * i + 2]
            view.append(SIMD4<Float>(x + y + z, spheres[4 * i + 3]))
        }
        var lo = SIMD2<Float>(repeating: .infinity), hi = SIMD2<Float>(repeating: -.infinity)
        for s in view {
            lo = pointwiseMin(lo, SIMD2<Float>(s.x - s.w, s.y - s.w))
            hi = pointwiseMax(hi, SIMD2<Float>(s.x + s.w, s.y + s.w))
        }
        let stepX: Float = (hi.x - lo.x) / Float(steps), stepY: Float = (hi.y - lo.y) / Float(steps)
        let side = steps + 1
        var nearest = [Float](repeating: -.infinity, count: side * side)
        var ids = [Int32](repeating: -1, count: side * side)
        for (k, s) in view.enumerated() {
            let i0 = max(0, Int(((s.x - s.w - lo.x) / stepX).rounded(.down)))
            let i1 = min(steps, Int(((s.x + s.w - lo.x) / stepX).rounded(.up)))
            let j0 = max(0, Int(((s.y - s.w - lo.y) / stepY).rounded(.down)))
            let j1 = min(steps, Int(((s.y + s.w - lo.y) / stepY).rounded(.up)))
            for j in j0...j1 {
                for i in i0...i1 {
                    let dx: Float = lo.x + Float(i) * stepX - s.x, dy: Float = lo.y + Float(j) * stepY - s.y
                    let h: Float = s.w * s.w - dx * dx - dy * dy
                    guard h >= 0 else { continue }
                    let z: Float = s.z + h.squareRoot()
                    let at = j * side + i
                    if z > nearest[at] {
                        nearest[at] = z
                        ids[at] = Int32(k)
                    }
                }
            }
        }
        return Set(ids.filter { $0 >= 0 })
    }

    func testEverySphereSeenSomewhereIsKept() {
        var g = SystemRandomNumberGenerator()
        for (count, blobCount, spread) in [(400, 1, Float(5)), (3000, 3, 40), (20_000, 8, 300), (6000, 2, 2000)] {
            let spheres = blobs(count, blobs: blobCount, spread: spread, using: &g)
            for turn in 0..<3 {
                let rotation = turn == 0 ? Quaternion.identity
                    : Quaternion(angle: Float.random(in: 0...6.2, using: &g), axis: SIMD3<Float>.random(in: -1...1, using: &g)).normalized
                let kept = Set(SphereOcclusion.visible(spheres, rotation: rotation))
                let visible = seen(spheres, rotation: rotation, steps: 700)
                XCTAssertTrue(visible.isSubset(of: kept), "\(count) spheres, turn \(turn): \(visible.subtracting(kept).count) seen but culled")
                XCTAssertLessThan(kept.count, count, "\(count) spheres, turn \(turn): some are hidden")
                // Radii raised to a least one: the same holds for the drawn spheres.
                var drawn = spheres
                for k in stride(from: 3, to: drawn.count, by: 4) { drawn[k] = max(drawn[k], 1.7) }
                let keptDrawn = Set(SphereOcclusion.visible(spheres, rotation: rotation, minimumRadius: 1.7))
                XCTAssertTrue(seen(drawn, rotation: rotation, steps: 500).isSubset(of: keptDrawn), "\(count) spheres, least radius 1.7")
            }
        }
    }

    func testSpheresBehindAWallAreHiddenAndTheRunsHoldTheirSpheres() {
        // A wall of large spheres at z = 10 and a chain of small ones behind it at z = 0.
        var spheres: [Float] = []
        for i in 0..<1000 { spheres += [Float(i % 40) * 0.8, Float(i / 40) * 0.8, 0, 0.5] }
        for i in 0..<400 { spheres += [Float(i % 20) * 1.5 + 0.5, Float(i / 20) * 1.5 + 0.5, 10, 2] }
        let kept = SphereOcclusion.visible(spheres, rotation: .identity)
        XCTAssertTrue(kept.filter { $0 < 1000 }.count < 200, "\(kept.filter { $0 < 1000 }.count) of the 1,000 behind the wall kept")
        XCTAssertEqual(kept.filter { $0 >= 1000 }.count, 400, "the wall is kept")

        let runs = SphereRuns(spheres + [Float.nan, 0, 0, 1, 5, 5, 5, 1])
        XCTAssertEqual(runs.starts.first, 0)
        XCTAssertEqual(Int(runs.starts.last!), spheres.count / 4 + 2)
        for k in 0..<runs.count {
            let first = Int(runs.starts[k]), end = Int(runs.starts[k + 1])
            XCTAssertTrue(end > first && end - first <= SphereRuns.longest)
            for i in first..<end where i < spheres.count / 4 {
                let d = SIMD3(spheres[4 * i], spheres[4 * i + 1], spheres[4 * i + 2]) - SIMD3(runs.bounds[k].x, runs.bounds[k].y, runs.bounds[k].z)
                XCTAssertLessThanOrEqual((d * d).sum().squareRoot(), runs.bounds[k].w * 1.0001 + 1e-4)
                XCTAssertLessThanOrEqual(spheres[4 * i + 3], runs.largestRadius[k])
            }
        }
        // The NaN sphere is a run of its own.
        XCTAssertTrue(runs.starts.contains(Int32(spheres.count / 4)) && runs.starts.contains(Int32(spheres.count / 4 + 1)))
    }

    func testSpheresAsFarApartAsAFileCanPutThemAreCulledWithoutATrap() {
        // Coordinates a file may hold (mmCIF reads 1e30 and 3e38): the grid's cells grow with the
        // extent, and every sphere alone in its part of the view is kept.
        for far: Float in [1e30, -1e30, 3e38] {
            var spheres: [Float] = []
            for i in 0..<400 { spheres += [Float(i % 20) * 1.5, Float(i / 20) * 1.5, 0, 1.7] }
            spheres[4 * 5] = far
            spheres[4 * 6 + 1] = -far
            spheres[4 * 6 + 2] = far
            let kept = SphereOcclusion.visible(spheres, rotation: .identity)
            XCTAssertTrue(kept.contains(5) && kept.contains(6), "\(far)")
            let turned = SphereOcclusion.visible(spheres, rotation: Quaternion(angle: 0.7, axis: SIMD3(1, 1, 0)).normalized)
            XCTAssertTrue(turned.contains(5) && turned.contains(6), "\(far), turned")
            // Balls drawn no smaller than a pixel of such a view: radii whose squares overflow.
            XCTAssertFalse(SphereOcclusion.visible(spheres, rotation: .identity, minimumRadius: abs(far) / 500).isEmpty)
        }
    }

    func testRoughOrderIsNearestFirstByStepsTiesByIndex() {
        let fronts: [Float] = [1, 5, 3, 5, -2, .nan, 3.00001]
        let order = fronts.withUnsafeBufferPointer { SphereOcclusion.roughlyFrontToBack($0, nearest: 5, farthest: -2) }
        XCTAssertEqual(order, [1, 3, 5, 2, 6, 0, 4])
        // One front for all: index order.
        let same = [Float](repeating: 2, count: 600)
        XCTAssertEqual(same.withUnsafeBufferPointer { SphereOcclusion.roughlyFrontToBack($0, nearest: 2, farthest: 2) }, (0..<600).map(Int32.init))
    }
}

import Foundation
import Structure

/// A coarse stand-in for a large picture of spheres, drawn while a live view moves: runs of
/// atoms that follow each other in the file, within one residue or a few neighbouring ones of
/// one chain and close in space, each drawn as one sphere at their centre. Mol* draws large
/// structures at a residue's detail while the camera moves in the same spirit; here the full
/// picture comes back once the view is still (`LevelOfDetail`), so the stand-in only has to
/// show the same shape, colours and depth while it turns.
public enum CoarseSpheres {
    /// The spheres a stand-in aims at: residues are joined with their neighbours until a
    /// structure has no more than this many groups (one residue a group below it).
    public static let budget = 25_000
    /// A group takes the next atom only while it lies this near (Å) the group's first atom: a
    /// residue's atoms reach about 9 Å from its nitrogen, two neighbours' about 12; waters and ions
    /// a run apart stay apart.
    public static let reach: Float = 12

    /// Whether `geometry` has a stand-in: spheres alone (spacefill), no bonds or meshes.
    public static func applies(to geometry: MoleculeGeometry) -> Bool {
        geometry.sphereCount > 0 && geometry.cylinderCount == 0 && geometry.meshes.isEmpty
    }

    /// The stand-in of `geometry` (drawn from `model`, each sphere in `colors`, 0xRRGGBB a sphere):
    /// its spheres, and the colour of each, the mean of its atoms'.
    public static func make(_ geometry: MoleculeGeometry, model: Model, sphereColors colors: [UInt32],
                            budget: Int = CoarseSpheres.budget) -> (geometry: MoleculeGeometry, colors: [UInt32]) {
        let n = geometry.sphereCount
        // Atoms a group gathers before it ends at the next residue's start.
        let least = max(1, n / max(1, budget))
        var out = MoleculeGeometry()
        var outColors: [UInt32] = []
        out.spheres.reserveCapacity(4 * min(n, budget * 2))
        let reach2 = reach * reach
        geometry.spheres.withUnsafeBufferPointer { s in
            var start = 0
            while start < n {
                // The group: spheres start..<end.
                let a0 = Int(geometry.sphereAtoms[start])
                let first = SIMD3(s[4 * start], s[4 * start + 1], s[4 * start + 2])
                let chain = a0 < model.atoms.count ? model.residues[Int(model.atoms[a0].residue)].chain : -1
                var residue = a0 < model.atoms.count ? model.atoms[a0].residue : -1
                var end = start + 1
                while end < n {
                    let a = Int(geometry.sphereAtoms[end])
                    guard a < model.atoms.count else { break }
                    let r = model.atoms[a].residue
                    if r != residue {
                        // A new residue: joined only while the group is short of `least` atoms, in the same chain.
                        if end - start >= least || model.residues[Int(r)].chain != chain { break }
                        residue = r
                    }
                    let p = SIMD3(s[4 * end], s[4 * end + 1], s[4 * end + 2])
                    let d = p - first
                    if (d * d).sum() > reach2 { break }
                    end += 1
                }
                // At its atoms' centre, as large as their spheres together (the overlaps between
                // atoms counted in, as they fill the gaps between stand-ins).
                var c = SIMD3<Float>(repeating: 0), volume: Float = 0
                for k in start..<end {
                    c += SIMD3(s[4 * k], s[4 * k + 1], s[4 * k + 2])
                    let r = s[4 * k + 3]
                    volume += r * r * r
                }
                c /= Float(end - start)
                out.spheres.append(c.x); out.spheres.append(c.y); out.spheres.append(c.z)
                out.spheres.append(Float(cbrt(Double(volume))))
                outColors.append(mean(colors, start..<end))
                start = end
            }
        }
        out.sphereAtoms = (0..<Int32(outColors.count)).map { $0 }
        return (out, outColors)
    }

    /// The mean of `range`'s colours, channel by channel: what a picture that shows them too small
    /// to tell apart blends them to (a residue's carbons, nitrogens and oxygens alike).
    static func mean(_ colors: [UInt32], _ range: Range<Int>) -> UInt32 {
        var sum = SIMD3<UInt32>(repeating: 0)
        for i in range {
            let c = colors[i]
            sum &+= SIMD3(c >> 16 & 0xFF, c >> 8 & 0xFF, c & 0xFF)
        }
        let n = UInt32(range.count), half = n / 2
        let m = (sum &+ SIMD3(repeating: half)) / SIMD3(repeating: n)
        return m.x << 16 | m.y << 8 | m.z
    }
}

import Foundation

/// The rotation axes of an assembly's point symmetry, found from its operators: the 5-, 3- and
/// 2-fold axes of an icosahedral capsid, the 3-fold of a trimer. Views down them are how
/// virologists and the EMDB show a capsid (ChimeraX's `view` along `sym` axes, Mol*'s
/// assembly-symmetry axes).
public enum SymmetryAxes {
    /// One axis (a unit vector through the assembly's centre) for each fold 2, 3 and 5 that some
    /// operator of `operators` turns about; the axis of the smallest turn of that fold found first.
    /// Operators that also translate along their axis (helices) or whose rotation is not proper
    /// are left out.
    public static func find(_ operators: [Assembly.Operator]) -> [Int: SIMD3<Float>] {
        var out: [Int: SIMD3<Float>] = [:]
        for op in operators where op.rotation.count == 9 && op.translation.count == 3 {
            let r = op.rotation
            let trace = r[0] + r[4] + r[8]
            let cosine = max(-1, min(1, (trace - 1) / 2))
            let degrees = acos(cosine) * 180 / .pi
            guard let fold = [5, 3, 2].first(where: { n in
                // The smallest turn of an n-fold (72° for 5, 120° for 3, 180° for 2); 144° is a 5-fold too.
                (1...n / 2).contains { k in abs(degrees - 360 * Double(k) / Double(n)) < 2 }
            }), out[fold] == nil else { continue }
            var axis: SIMD3<Double>
            if fold == 2 {
                // R + I has rank one along the axis: its largest column.
                let columns = (0..<3).map { j in SIMD3<Double>(r[j] + (j == 0 ? 1 : 0), r[3 + j] + (j == 1 ? 1 : 0), r[6 + j] + (j == 2 ? 1 : 0)) }
                axis = columns.max { length($0) < length($1) }!
            } else {
                axis = SIMD3(r[7] - r[5], r[2] - r[6], r[3] - r[1])
            }
            guard length(axis) > 1e-6 else { continue }
            axis /= length(axis)
            // A screw (a helix's operator) moves along its axis: not a point symmetry.
            let t = SIMD3(op.translation[0], op.translation[1], op.translation[2])
            guard abs((t * axis).sum()) < 0.5 else { continue }
            if axis.z < 0 || (axis.z == 0 && axis.y < 0) { axis = -axis }
            out[fold] = SIMD3<Float>(Float(axis.x), Float(axis.y), Float(axis.z))
        }
        return out
    }

    /// The operators of the assembly's largest row, each copy's product composed: where its symmetry is read from.
    public static func find(in assembly: Assembly) -> [Int: SIMD3<Float>] {
        guard let row = assembly.generators.max(by: { $0.operators.count < $1.operators.count }), row.operators.count >= 2 else { return [:] }
        return find(row.operators.prefix(1000).map { combination in
            combination.reversed().reduce(Assembly.Operator.identity) { partial, name in (assembly.operators[name] ?? .identity).after(partial) }
        })
    }

    private static func length(_ v: SIMD3<Double>) -> Double { (v * v).sum().squareRoot() }
}

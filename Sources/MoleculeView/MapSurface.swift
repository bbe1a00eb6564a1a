import Core
import Foundation
import Density
import Structure

/// How a density map is drawn: its isosurface at a level, solid, as a mesh of lines (PyMOL's
/// `isomesh`, the crystallographer's look) or see-through, in one colour, coloured by distance
/// from the map's centre (EMDB's radial colouring), or by the nearest atom of a model (ChimeraX's
/// `color zone`: each part of the map in its chain's colour).
public struct MapLook: Sendable, Equatable {
    public enum Style: String, Sendable, CaseIterable { case surface, mesh, transparent }
    public enum Coloring: Sendable, Equatable {
        case single(UInt32)
        case radial
        /// The nearest atom's colour within this many Å, else the single colour.
        case zone(Double)
    }

    public var level: MapLevel = .sigma(1.5)
    public var style: Style = .surface
    public var coloring: Coloring = .single(MapLook.defaultColor)
    /// ChimeraX's default colour for a map: light blue-violet.
    public static let defaultColor: UInt32 = 0xB2B2FF
    /// The mesh's colour where nothing else is asked for: PyMOL's `isomesh` blue.
    public static let meshColor: UInt32 = 0x3366FF

    public init() {}

    /// The colouring as its parameter value.
    public var coloringText: String {
        switch coloring {
        case .single(let c): return "#" + String(format: "%06X", c)
        case .radial: return "radial"
        case .zone(let r): return r == 5 ? "zone" : "zone:\(r)"
        }
    }

    /// The isosurface of `map` as a mesh to draw beside a molecule. `model` and `atomColors`
    /// (one per atom) colour it by zone.
    /// `carve`: only the triangles whose corners all lie within `radius` of one of `points` (PyMOL's
    /// `carve`, Coot's map around a ligand). Levels in sigma count in the whole map's statistics
    /// (`statistics`), not the part drawn.
    public func mesh(_ map: DensityMap, statistics: DensityMap.Statistics? = nil, model: Model? = nil, atomColors: [UInt32] = [],
                     carve: (points: [SIMD3<Float>], radius: Float)? = nil, file: String = "the map") throws -> Mesh {
        if case .recommended = level {
            throw RequestError(field: "level", "recommended: \(file) comes with no EMDB header here; give a level (1.5s, 0.02, 12000A3)")
        }
        let surface = try Isosurface.make(map, level: level.value(in: map, statistics: statistics), lines: style == .mesh, file: file)
        var mesh = Mesh(name: "map")
        mesh.positions = surface.positions
        mesh.normals = surface.normals
        mesh.indices = surface.indices
        mesh.lines = surface.lines
        if let carve, carve.radius > 0 {
            let grid = CellGrid(positions: carve.points, cellSize: max(carve.radius, 1))
            // (`within` takes the distance squared.)
            let near = mesh.positions.map { grid.hasPoint(near: $0, carve.points, within: carve.radius * carve.radius) }
            var kept: [UInt32] = [], keptLines: [UInt32] = []
            for t in stride(from: 0, to: mesh.indices.count - 2, by: 3)
            where near[Int(mesh.indices[t])] && near[Int(mesh.indices[t + 1])] && near[Int(mesh.indices[t + 2])] {
                kept += [mesh.indices[t], mesh.indices[t + 1], mesh.indices[t + 2]]
            }
            for l in stride(from: 0, to: mesh.lines.count - 1, by: 2) where near[Int(mesh.lines[l])] && near[Int(mesh.lines[l + 1])] {
                keptLines += [mesh.lines[l], mesh.lines[l + 1]]
            }
            // Only the vertices kept triangles use: the picture's extent is what is drawn.
            var renumber = [Int32](repeating: -1, count: mesh.positions.count)
            var positions: [SIMD3<Float>] = [], normals: [SIMD3<Float>] = []
            func renumbered(_ i: UInt32) -> UInt32 {
                if renumber[Int(i)] < 0 {
                    renumber[Int(i)] = Int32(positions.count)
                    positions.append(mesh.positions[Int(i)])
                    normals.append(mesh.normals[Int(i)])
                }
                return UInt32(renumber[Int(i)])
            }
            mesh.indices = kept.map(renumbered)
            mesh.lines = keptLines.map(renumbered)
            mesh.positions = positions
            mesh.normals = normals
        }
        mesh.opacity = style == .transparent ? 0.5 : 1
        let fallback: UInt32
        if case .single(let c) = coloring { fallback = c } else { fallback = style == .mesh ? MapLook.meshColor : MapLook.defaultColor }
        switch coloring {
        case .single:
            mesh.colors = [UInt32](repeating: fallback, count: mesh.positions.count)
        case .radial:
            // Red at the centre through yellow, green and cyan to blue at the farthest point (ChimeraX's `color radial` palette).
            let c = map.corners.reduce(SIMD3<Double>(repeating: 0), +) / 8
            let centre = SIMD3<Float>(c)
            // Over the surface's own range of distances, nearest to farthest, as ChimeraX's (and
            // EMDB's) radial colouring spans it: a compact map is not all one colour.
            let distances = mesh.positions.map { ($0 - centre).length }
            let near = distances.min() ?? 0, span = max((distances.max() ?? 1) - near, 1e-3)
            let palette: [SIMD3<Float>] = [SIMD3(1, 0, 0), SIMD3(1, 1, 0), SIMD3(0, 1, 0), SIMD3(0, 1, 1), SIMD3(0, 0, 1)]
            mesh.colors = distances.map { d in
                let t = min(1, max(0, (d - near) / span)) * Float(palette.count - 1)
                let k = min(Int(t), palette.count - 2), f = t - Float(k)
                let rgb = palette[k] * (1 - f) + palette[k + 1] * f
                return UInt32(rgb.x * 255) << 16 | UInt32(rgb.y * 255) << 8 | UInt32(rgb.z * 255)
            }
        case .zone(let reach):
            guard let model, !model.atoms.isEmpty, atomColors.count == model.atoms.count else {
                mesh.colors = [UInt32](repeating: fallback, count: mesh.positions.count)
                break
            }
            let positions = model.atoms.map(\.position)
            let grid = CellGrid(positions: positions, cellSize: Float(max(reach, 1)))
            mesh.colors = mesh.positions.map { p in
                var best: (Int, Float)? = nil
                grid.forEachPoint(near: p, positions, within: Float(reach * reach)) { i, d in
                    if best == nil || d < best!.1 { best = (i, d) }
                }
                return best.map { atomColors[$0.0] } ?? fallback
            }
        }
        return mesh
    }

    /// The part of `map` a picture with `model` draws: where the map holds its whole cell (a
    /// crystallographic map), the density round every atom, 3 Å beyond (read anywhere by
    /// periodicity); otherwise the stored block (an EM map, or one cut to its model already).
    /// Nil where nothing of the map is near the model.
    public static func part(of map: DensityMap, around model: Model?, file: String) throws -> DensityMap? {
        guard let model, !model.atoms.isEmpty, !map.coversCell.contains(false) else { return map }
        return try map.around(model.atoms.map(\.position), margin: 3, file: file)
    }

    /// The volume (Å³) a model's atoms take as protein does, 1.21 Å³ a dalton (a partial specific
    /// volume of 0.73 cm³/g), its heavy atoms' masses with one hydrogen each; waters left out.
    /// The level enclosing it is where a map without a recommended contour is drawn round its model.
    public static func proteinVolume(of model: Model) -> Double {
        var dalton = 0.0
        // Hydrogens written in the file are the ones counted with their heavy atoms already.
        for a in model.atoms where a.element != .hydrogen && !model.residues[Int(a.residue)].isWater {
            switch a.element {
            case .carbon: dalton += 12.011 + 1.008
            case .nitrogen: dalton += 14.007 + 1.008
            case .oxygen: dalton += 15.999 + 1.008
            case .sulfur: dalton += 32.06 + 1.008
            case .phosphorus: dalton += 30.974
            default: dalton += 14
            }
        }
        return dalton * 1.21
    }
}

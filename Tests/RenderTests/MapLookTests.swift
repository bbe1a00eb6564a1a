import Density
import Foundation
@testable import MoleculeView
import Structure
import XCTest

/// A map's mesh as the picture settings ask: carved to a distance of atoms, coloured by zone.
final class MapLookTests: XCTestCase {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/maps")

    /// `carve` keeps the surface within the radius of the atoms, and reaches out to it: every
    /// vertex kept within 2 Å of the atom, and some past 1.5 Å (not the radius's square root).
    func testCarvingKeepsTheSurfaceWithinTheRadius() throws {
        let map = try DensityMap.load(path: MapLookTests.fixtures.appendingPathComponent("5wkd_2fofc.ccp4.gz").path)
        let model = try StructureFile.load(path: MapLookTests.fixtures.appendingPathComponent("5wkd.pdb").path).models[0]
        let atom = try XCTUnwrap(model.atoms.first { $0.element == .carbon }).position
        var look = MapLook()
        look.level = .sigma(1)
        let region = try XCTUnwrap(try map.region(from: SIMD3<Double>(atom) - 4, to: SIMD3<Double>(atom) + 4, file: "5wkd"))
        let mesh = try look.mesh(region, statistics: map.statistics, carve: ([atom], 2))
        XCTAssertFalse(mesh.indices.isEmpty, "density round a carbon at 1 sigma")
        let distances = mesh.positions.map { ($0 - atom).length }
        XCTAssertLessThanOrEqual(distances.max() ?? 0, 2.0001)
        XCTAssertGreaterThan(distances.max() ?? 0, 1.5)
    }
}

import Core
import Foundation
import Graphics
import MoleculeView
import Pathways
import Structure

/// What the one render thread holds: the GL device and a drawer for molecules and one for pathways.
public final class ServiceRenderers {
    let molecules: MoleculeRenderer
    let pathways: PathwayRenderer

    init() throws {
        let device = try GraphicsDevice()
        molecules = try MoleculeRenderer(device: device)
        pathways = try PathwayRenderer(device: device)
    }

    /// A PNG of `structure` as `request` asks (run on the render thread).
    func png(_ structure: Structure, request: RenderRequest, perception: BondPerception) throws -> [UInt8] {
        let prepared = try PreparedMolecule(structure, mode: try request.singleMode(), request: request, perception: perception)
        let scene = molecules.makeScene(prepared.geometry, atomColors: prepared.atomColors)
        let image = try molecules.render(scene, camera: request.camera(for: prepared), width: request.width, height: request.height,
                                         style: request.style)
        return try request.pngEncoder.encode(image)
    }
}

/// A value handed between threads that the compiler cannot prove safe (a parsed structure is
/// read by one thread at a time here).
struct Handed<T>: @unchecked Sendable {
    let value: T
}

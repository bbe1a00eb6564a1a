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
}

/// A value handed between threads that the compiler cannot prove safe (a parsed structure is
/// read by one thread at a time here).
struct Handed<T>: @unchecked Sendable {
    let value: T
}

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

    /// The scenes of the pyramid levels asked for last, newest at the end.
    private var scenes: [(key: String, scene: PathwayScene)] = []
    static let keptScenes = ServiceLimits.keptScenes.value

    /// The scene kept under `key`, or the one `make` builds (and then keeps).
    func tileScene(_ key: String, make: () throws -> PathwayScene) rethrows -> PathwayScene {
        if let k = scenes.firstIndex(where: { $0.key == key }) {
            let kept = scenes.remove(at: k)
            scenes.append(kept)
            return kept.scene
        }
        let scene = try make()
        scenes.append((key, scene))
        if scenes.count > ServiceRenderers.keptScenes { scenes.removeFirst() }
        return scene
    }

    init() throws {
        let device = try GraphicsDevice()
        molecules = try MoleculeRenderer(device: device)
        pathways = try PathwayRenderer(device: device)
    }
}


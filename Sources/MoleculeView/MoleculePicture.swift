import Core
import Graphics
import Scene
import Structure
import Synchronization

/// What a picture of a molecule is made of before any GL: the model shown, its bonds, the
/// geometry of a representation, and a color per atom. Its `id` names its scene in a renderer's
/// cache, so a session that only moves its camera draws without uploading again.
public struct PreparedMolecule: Sendable {
    public var model: Model
    public var bonds: [Bond]
    public var geometry: MoleculeGeometry
    public var atomColors: [UInt32]
    /// Unique in this process.
    public let id: UInt64

    private static let ids = Atomic<UInt64>(0)

    /// A camera fitted to the geometry's bounding sphere, looking down -z.
    public var fittedCamera: Camera {
        let bounds = geometry.boundingSphere()
        return Camera(center: bounds.center, radius: bounds.radius)
    }

    /// The rotation that shows the shown atoms along their principal axes (`Orientation`).
    public var principalAxes: Quaternion {
        let s = geometry.extentSpheres
        return Orientation.principalAxes((0..<(s.count / 4)).map { SIMD3(s[4 * $0], s[4 * $0 + 1], s[4 * $0 + 2]) })
    }

    /// Builds everything for `mode` ("ball-and-stick", "spacefill") from the first model of `structure`.
    public init(_ structure: Structure, mode: String, color: ColorTheme = .element, filter: AtomFilter = AtomFilter(),
                perception: BondPerception) throws {
        guard let model = structure.models.first else {
            throw InputFileError(file: structure.metadata.id.isEmpty ? "the structure" : structure.metadata.id, message: "has no model")
        }
        let mode = mode == Representations.automatic ? Representations.automatic(for: model) : mode
        guard let representation = Representations.named(mode) else {
            throw RequestError(field: "mode", "must be one of: \(Representations.names.joined(separator: ", ")), auto (got \(mode))")
        }
        self.model = model
        var visible = filter.visible(model)
        if !visible.contains(true) {
            // Nothing but hydrogens or waters (H2, a water box): show them rather than nothing.
            visible = model.defaultConformerMask()
        }
        bonds = representation.usesBonds ? perception.bonds(of: model, embedded: structure.embeddedTemplates) : []
        geometry = representation.init().geometry(of: model, bonds: bonds, visible: visible, elements: perception.elements,
                                                   secondaryStructure: structure.secondaryStructure)
        let colors = color.colors(for: model, elements: perception.elements)
        atomColors = colors
        id = PreparedMolecule.ids.add(1, ordering: .relaxed).newValue
        // Element colors make a cartoon all carbon gray: its ribbons take chain colors then, as in
        // PyMOL and Mol*, and the atoms drawn beside it keep their elements'.
        if !geometry.meshes.isEmpty && color == .element {
            let chains = ColorTheme.chain.colors(for: model, elements: perception.elements)
            for k in geometry.meshes.indices {
                geometry.meshes[k].colors = geometry.meshes[k].atoms.map { chains[Int($0)] }
            }
        } else {
            for k in geometry.meshes.indices { geometry.meshes[k].colors = geometry.meshes[k].atoms.map { colors[Int($0)] } }
        }
    }

    /// Builds what `request` asks for, in `mode` (one of the request's modes).
    public init(_ structure: Structure, mode: String, request: RenderRequest, perception: BondPerception) throws {
        try self.init(structure, mode: mode, color: request.color, filter: request.filter, perception: perception)
    }
}

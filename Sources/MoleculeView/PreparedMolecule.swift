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
    /// What each part of the picture draws: a representation, the selection as written, and the
    /// atoms its geometry stands on (a cartoon's, the atoms its ribbon passes through), for a
    /// figure's caption.
    public struct Part: Sendable {
        public var representation: DrawMode
        public var selection: String
        public var atoms: [Int32]
    }
    public private(set) var parts: [Part] = []
    /// The entry's names for its components (`HETNAM`, `_chem_comp.name`) and its entities'
    /// descriptions by id, for a caption's sentence.
    public private(set) var componentNames: [String: String] = [:]
    public private(set) var entityNames: [String: String] = [:]
    /// The interactions the request asks for, found once as the geometry is made: a view's frames
    /// draw their key again, and a figure's caption lists them, without looking for them again.
    public private(set) var interactions: [Interaction]?
    /// The scale (pixels per Å) the geometry has the detail for, where it has less than full
    /// detail: a view zoomed in past it should build it again.
    public private(set) var detailScale: Float?

    private static let ids = Atomic<UInt64>(0)

    static func nextID() -> UInt64 { ids.add(1, ordering: .relaxed).newValue }

    /// A camera fitted to the geometry's bounding sphere, looking down -z.
    public var fittedCamera: Camera {
        let bounds = geometry.boundingSphere()
        return Camera(center: bounds.center, radius: bounds.radius)
    }

    /// The atoms the picture shows, whatever represents them (the filter's atoms, or those of the
    /// `--show` selections together): what the view is oriented on. Set by both initializers.
    var shown: [Bool]

    /// The rotation that shows the shown atoms along their principal axes (`Orientation`): the
    /// atoms themselves, not the representation's geometry, so that changing only the
    /// representation (spacefill to surface, cartoon to ball-and-stick) or the colours keeps the
    /// view, as the view is of the molecule.
    public var principalAxes: Quaternion {
        var points: [SIMD3<Float>] = []
        for (atom, on) in zip(model.atoms, shown) where on { points.append(atom.position) }
        return Orientation.principalAxes(points)
    }

    /// Builds everything for `mode` ("ball-and-stick", "spacefill") from the first model of `structure`.
    /// `pixelsPerÅngström`, where given, lets a representation (cartoons) leave out detail a picture
    /// of that scale cannot show.
    public init(_ structure: Structure, mode: DrawMode, color: AtomColoring = .theme(.element), filter: AtomFilter = AtomFilter(),
                perception: BondPerception, pixelsPerÅngström: Float? = nil) throws {
        let model = try PreparedMolecule.firstModel(of: structure)
        let representation = try PreparedMolecule.representation(mode, for: model, field: "mode")
        self.model = model
        var visible = filter.visible(model)
        if !visible.contains(true) {
            // Nothing but hydrogens or waters (H2, a water box): show them rather than nothing.
            visible = model.defaultConformerMask()
        }
        shown = visible
        // Only the bonds the representation can show (a cartoon's: those of what it does not trace).
        bonds = representation.usesBonds
            ? perception.bonds(of: model, embedded: structure.embeddedTemplates, among: representation.bondedAtoms(model, visible: visible))
            : []
        geometry = representation.make(pixelsPerÅngström: pixelsPerÅngström).geometry(of: model, bonds: bonds, visible: visible, elements: perception.elements,
                                                   secondaryStructure: structure.secondaryStructure)
        let colors = color.colors(for: model, elements: perception.elements, secondaryStructure: structure.secondaryStructure, traced: mode.isTrace)
        atomColors = colors
        id = PreparedMolecule.nextID()
        detailScale = PreparedMolecule.detailScale(pixelsPerÅngström, geometry)
        PreparedMolecule.colorMeshes(&geometry, colors, theme: color.theme, model: model, elements: perception.elements)
        parts = [Part(representation: mode == .auto ? Representations.automatic(for: model) : mode, selection: "all",
                      atoms: PreparedMolecule.atomsDrawn(geometry))]
    }

    /// The atoms a geometry stands on: its spheres', its bonds' ends and its meshes' atoms, once each, in order.
    static func atomsDrawn(_ g: MoleculeGeometry) -> [Int32] {
        var seen = Set<Int32>()
        for a in g.sphereAtoms { seen.insert(a) }
        for a in g.cylinderAtoms { seen.insert(a) }
        for m in g.meshes { for a in m.atoms { seen.insert(a) } }
        return seen.sorted()
    }

    /// The first model of `structure`, or an error naming it.
    private static func firstModel(of structure: Structure) throws -> Model {
        guard let model = structure.models.first else { throw InputFileError(file: fileName(structure), message: "has no model") }
        return model
    }

    private static func fileName(_ structure: Structure) -> String {
        structure.metadata.id.isEmpty ? "the structure" : structure.metadata.id
    }

    /// The representation `name` stands for (`auto`: the one `model` calls for), or an error for `field`.
    private static func representation(_ mode: DrawMode, for model: Model, field: String) throws -> any Representation.Type {
        let mode = mode == .auto ? Representations.automatic(for: model) : mode
        guard let representation = mode.representation else {
            throw RequestError(field: field, "must be one of: \(Representations.names.joined(separator: ", ")), auto (got \(mode))")
        }
        return representation
    }

    /// The scale a geometry built for `pixelsPerÅngström` has the detail for, nil where it has it all.
    private static func detailScale(_ pixelsPerÅngström: Float?, _ geometry: MoleculeGeometry) -> Float? {
        pixelsPerÅngström.flatMap { $0 < Cartoon.fullDetailPixelsPerÅngström && !geometry.meshes.isEmpty ? $0 : nil }
    }

    /// Element colors make a cartoon all carbon gray: its ribbons take chain colors then, as in
    /// PyMOL and Mol*, and the atoms drawn beside it keep their elements' (`ColorTheme.meshColors`).
    private static func colorMeshes(_ geometry: inout MoleculeGeometry, _ colors: [UInt32], theme: ColorTheme?, model: Model,
                                    elements: ElementTable) {
        guard !geometry.meshes.isEmpty else { return }
        // Surfaces take the colors of the atoms beneath, blended across their boundaries; under
        // `auto`, polymers' surfaces take their chain's colour (their entity's in an assembly), as
        // Mol*'s do, rather than carbon's chain colour specked with oxygen red and nitrogen blue.
        let ribbons = geometry.meshes.contains { $0.name != Surface.name }
        let meshColors = ribbons ? theme?.meshColors(for: model, atomColors: colors, elements: elements) ?? colors : colors
        let surfaces = geometry.meshes.contains { $0.name == Surface.name }
        let surfaceColors = surfaces && theme == .auto ? ColorTheme.surfaceColors(for: model, atomColors: colors, elements: elements) : colors
        for k in geometry.meshes.indices {
            if geometry.meshes[k].name == Surface.name {
                geometry.meshes[k].colors = geometry.meshes[k].vertexColors(surfaceColors)
            } else {
                geometry.meshes[k].colors = geometry.meshes[k].atoms.map { meshColors[Int($0)] }
            }
        }
    }

    /// Builds a picture of several parts (`Show`), each a representation of the atoms its selection
    /// names in its own colors, drawn together. A selection's atoms less the hydrogens and waters
    /// `filter` hides, unless that leaves none of them (`sticks: water` shows the waters). Parts
    /// that select nothing in this structure are left out; where all do, it is an error.
    public init(_ structure: Structure, shows: [Show], color: AtomColoring = .theme(.element), filter: AtomFilter = AtomFilter(),
                perception: BondPerception, pixelsPerÅngström: Float? = nil) throws {
        let model = try PreparedMolecule.firstModel(of: structure)
        guard !shows.isEmpty else { throw RequestError(field: "show", "is empty: give at least one") }
        self.model = model
        let filtered = filter.visible(model)
        let conformer = model.defaultConformerMask()
        var bonds: [Bond]?
        let requested = color.colors(for: model, elements: perception.elements, secondaryStructure: structure.secondaryStructure)
        var geometry = MoleculeGeometry()
        var shown = [Bool](repeating: false, count: model.atoms.count)
        var parts: [Part] = []
        // Residues a cartoon or putty draws: sticks on them leave out the main chain's N, C and O
        // (the trace passes through CA, where the side chain then attaches), as PyMOL's
        // cartoon_side_chain_helper and Mol* draw a binding site's residues.
        var traced = [Bool](repeating: false, count: model.residues.count)
        let polymer = ColorTheme.polymerResidues(model)
        for show in shows where show.representation == .cartoon || show.representation == .putty {
            for (i, on) in show.selection.mask(in: model).enumerated() where on && polymer[Int(model.atoms[i].residue)] {
                traced[Int(model.atoms[i].residue)] = true
            }
        }
        let mainChain: Set<ShortName> = [ShortName("N"), ShortName("C"), ShortName("O"), ShortName("OXT")]
        for show in shows {
            try WorkDeadline.check()
            var selected = show.selection.mask(in: model)
            if show.representation != .cartoon && show.representation != .putty && show.representation != .surface && !show.keepsMainChain && traced.contains(true) {
                for i in selected.indices where selected[i] && traced[Int(model.atoms[i].residue)] && mainChain.contains(model.atoms[i].name) {
                    // A proline's N closes its ring: kept.
                    if model.atoms[i].name == ShortName("N") && model.residues[Int(model.atoms[i].residue)].name == ShortName("PRO") { continue }
                    selected[i] = false
                }
            }
            try WorkDeadline.check()
            var visible = zip(selected, filtered).map { $0 && $1 }
            if !visible.contains(true) { visible = zip(selected, conformer).map { $0 && $1 } }
            guard visible.contains(true) else { continue }
            for i in visible.indices where visible[i] { shown[i] = true }
            let representation = try PreparedMolecule.representation(show.representation, for: model, field: "show")
            if representation.usesBonds && bonds == nil {
                bonds = perception.bonds(of: model, embedded: structure.embeddedTemplates)
            }
            var part = representation.make(pixelsPerÅngström: pixelsPerÅngström).geometry(of: model, bonds: representation.usesBonds ? bonds ?? [] : [], visible: visible,
                                                      elements: perception.elements, secondaryStructure: structure.secondaryStructure)
            let colors = show.colors(for: model, theme: color, elements: perception.elements, secondaryStructure: structure.secondaryStructure)
            PreparedMolecule.colorMeshes(&part, colors, theme: show.theme(color), model: model, elements: perception.elements)
            parts.append(Part(representation: show.representation, selection: show.selectionText, atoms: PreparedMolecule.atomsDrawn(part)))
            geometry.merge(part, atomColors: requested, otherColors: colors)
        }
        guard geometry.sphereCount > 0 || geometry.cylinderCount > 0 || !geometry.meshes.isEmpty else {
            throw InputFileError(file: PreparedMolecule.fileName(structure), message: "has no atom in any --show selection (\(Excerpt.of(shows.map(\.text).joined(separator: "; "))))")
        }
        self.bonds = bonds ?? []
        self.geometry = geometry
        self.shown = shown
        self.parts = parts
        atomColors = requested
        id = PreparedMolecule.nextID()
        detailScale = PreparedMolecule.detailScale(pixelsPerÅngström, geometry)
    }

    /// Builds what `request` asks for, in `mode` (one of the request's modes; `Show.mode` for its
    /// shows). `fixedView`: the picture is drawn at the request's size and zoom, so detail it cannot
    /// show is left out; views that zoom in later (replay, live sessions) and exports keep it all.
    public init(_ structure: Structure, mode: DrawMode, request: RenderRequest, perception: BondPerception, fixedView: Bool = true) throws {
        let scale = fixedView ? PreparedMolecule.pixelsPerÅngström(structure, request) : nil
        // A predicted model (AlphaFold, ModelCIF) opens in its confidence colours, as the AlphaFold DB shows it.
        let color = request.color == .theme(.auto) && structure.metadata.predicted ? AtomColoring.theme(.plddt) : request.color
        if mode == Show.mode {
            try self.init(structure, shows: request.shows, color: color, filter: request.filter, perception: perception,
                          pixelsPerÅngström: scale)
        } else {
            try self.init(structure, mode: mode, color: color, filter: request.filter, perception: perception,
                          pixelsPerÅngström: scale)
        }
        for k in geometry.meshes.indices where geometry.meshes[k].name == Surface.name {
            geometry.meshes[k].opacity = 1 - request.transparency
        }
        componentNames = structure.componentNames
        for e in structure.entities { entityNames[e.id] = e.description }
        // Interactions are drawn in the scene, hidden by what lies in front of them.
        if let asked = request.annotations.interactions {
            let found = try Annotations.interactions(asked, in: model, partners: request.annotations.interactionPartners)
            geometry.meshes.append(InteractionLines.mesh(found, model: model))
            interactions = found
        }
        // Loops below stop early past the request's deadline (a surface, a selection): said here.
        try WorkDeadline.check()
        let strength = request.atomOcclusion(shownAtoms: geometry.sphereCount, bonds: geometry.cylinderCount > 0)
        if strength > 0 { darkenBuriedAtoms(strength) }
        try WorkDeadline.check()
    }

    /// Colors darkened by `AtomOcclusion`: the atoms' and, where it has its own, the geometry's.
    mutating func darkenBuriedAtoms(_ strength: Float) {
        var shown = [Bool](repeating: false, count: model.atoms.count)
        for a in geometry.sphereAtoms { shown[Int(a)] = true }
        for m in geometry.meshes { for a in m.atoms { shown[Int(a)] = true } }
        let f = AtomOcclusion.factors(model, shown: shown, strength: strength)
        func dark(_ c: UInt32, _ k: Float) -> UInt32 {
            let r = Float(c >> 16 & 0xFF) * k, g = Float(c >> 8 & 0xFF) * k, b = Float(c & 0xFF) * k
            return UInt32(r.rounded()) << 16 | UInt32(g.rounded()) << 8 | UInt32(b.rounded())
        }
        atomColors = zip(atomColors, f).map { dark($0, $1) }
        if geometry.hasOwnColors {
            geometry.sphereColors = zip(geometry.sphereColors, geometry.sphereAtoms).map { dark($0, f[Int($1)]) }
            geometry.cylinderColors = zip(geometry.cylinderColors, geometry.cylinderAtoms).map { dark($0, f[Int($1)]) }
        }
        // Meshes of atoms' colours (not the interactions' lines, which have no atoms).
        for k in geometry.meshes.indices where geometry.meshes[k].atoms.count == geometry.meshes[k].colors.count {
            geometry.meshes[k].colors = zip(geometry.meshes[k].colors, geometry.meshes[k].atoms).map { dark($0, f[Int($1)]) }
        }
    }

    /// About how many pixels an Ångström of `structure` takes in `request`'s picture, at most: the
    /// first model's atoms in a sphere about their box's center across the longer side, zoomed,
    /// and a fifth more for views that fit tighter than that sphere (oriented, perspective).
    static func pixelsPerÅngström(_ structure: Structure, _ request: RenderRequest) -> Float? {
        guard let atoms = structure.models.first?.atoms, !atoms.isEmpty else { return nil }
        var lo = SIMD3<Float>(repeating: .greatestFiniteMagnitude), hi = -lo
        for a in atoms { lo = pointwiseMin(lo, a.position); hi = pointwiseMax(hi, a.position) }
        let center = (lo + hi) / 2
        var r2: Float = 0
        for a in atoms { let d = a.position - center; r2 = max(r2, (d * d).sum()) }
        let radius = max(r2.squareRoot(), 1)
        return 1.2 * request.zoom * Float(max(request.width, request.height)) / (2 * radius)
    }
}

extension PreparedMolecule {
    /// A picture of meshes alone (a density map without a model).
    public init(meshes: [Mesh]) {
        model = Model(number: 1)
        bonds = []
        geometry = MoleculeGeometry()
        geometry.meshes = meshes
        geometry.hasOwnColors = true
        atomColors = []
        shown = []
        id = PreparedMolecule.nextID()
        detailScale = nil
    }
}

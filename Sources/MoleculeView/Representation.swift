import Core
import Structure

/// A way of drawing a molecule. A new one is one type and one line in `Representations.all`.
public protocol Representation: Sendable {
    static var name: String { get }
    /// Whether its geometry draws bonds (so they must be perceived first).
    static var usesBonds: Bool { get }
    init()
    /// One as fine as a picture of `pixelsPerÅngström` shows (nil: full detail, for views that
    /// zoom in); most draw the same at every size.
    static func make(pixelsPerÅngström: Float?) -> Self
    func geometry(of model: Model, bonds: [Bond], visible: [Bool], elements: ElementTable) -> MoleculeGeometry
    /// The atoms whose bonds its geometry can show, given `visible`: bonds are perceived among
    /// these only (nil: every atom).
    static func bondedAtoms(_ model: Model, visible: [Bool]) -> [Bool]?
    /// The same, knowing the helices and strands the file states (cartoons draw them).
    func geometry(of model: Model, bonds: [Bond], visible: [Bool], elements: ElementTable,
                  secondaryStructure: [SecondaryStructureRange]) -> MoleculeGeometry
}

extension Representation {
    public static func make(pixelsPerÅngström: Float?) -> Self { Self() }
    public static func bondedAtoms(_ model: Model, visible: [Bool]) -> [Bool]? { nil }

    public func geometry(of model: Model, bonds: [Bond], visible: [Bool], elements: ElementTable,
                         secondaryStructure: [SecondaryStructureRange]) -> MoleculeGeometry {
        geometry(of: model, bonds: bonds, visible: visible, elements: elements)
    }
}

/// How a molecule is drawn, as every front end names it (`--mode`, `mode=`, event files, the
/// viewer): one representation, `auto` (chosen from the structure) or `shows` (several
/// representations on selections, `show=`). Typed, so that a mode is checked where it is read
/// and every `switch` over modes is complete.
public enum DrawMode: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    case ballAndStick = "ball-and-stick"
    case spacefill
    case sticks
    case lines
    case cartoon
    /// The cartoon's curve as a tube, its radius by B-factor.
    case putty
    case surface
    /// Chosen from the structure when it is drawn (`Representations.automatic(for:)`).
    case auto
    /// The representations of `show=` together (`Show.mode`).
    case shows

    /// Draws a polymer as its trace (its CA and P atoms' curve): a scale over values spans those atoms'.
    public var isTrace: Bool { self == .putty || self == .cartoon }

    /// The name front ends use.
    public var name: String { rawValue }
    public var description: String { rawValue }

    /// The representation this mode draws, for the seven that are one.
    public var representation: (any Representation.Type)? { Representations.named(rawValue) }

    /// The mode a name means, in any case and by PyMOL's, ChimeraX's and Jmol's names for it.
    public init?(named name: String) {
        guard let canonical = Representations.canonical(name) ?? (name == DrawMode.shows.rawValue ? name : nil) else { return nil }
        self.init(rawValue: canonical)
    }
}

public enum Representations {
    public static let all: [any Representation.Type] = [BallAndStick.self, Spacefill.self, Sticks.self, Lines.self, Cartoon.self, Putty.self, Surface.self]

    public static func named(_ name: String) -> (any Representation.Type)? {
        all.first { $0.name == name }
    }

    /// Other names PyMOL, ChimeraX and Jmol users type for the same representations.
    static let aliases: [String: String] = [
        "spheres": Spacefill.name, "sphere": Spacefill.name, "cpk": Spacefill.name, "vdw": Spacefill.name,
        "stick": Sticks.name, "licorice": Sticks.name, "line": Lines.name, "wire": Lines.name, "wireframe": Lines.name,
        "cartoons": Cartoon.name, "cartoon_putty": Putty.name, "surf": Surface.name, "surfaces": Surface.name, "ses": Surface.name, "ball_and_stick": BallAndStick.name, "ballandstick": BallAndStick.name, "balls": BallAndStick.name,
    ]

    /// The representation (or `auto`) a name means, in any case and by its aliases; nil for none.
    public static func canonical(_ name: String) -> String? {
        let lower = name.lowercased()
        if named(lower) != nil || lower == automatic { return lower }
        return aliases[lower]
    }

    /// What a name that means no representation is told: the names, and the nearest one.
    public static func unknown(_ name: String) -> String {
        "must be one of: \((names + [automatic]).joined(separator: ", ")) (got \(name))"
            + NearMiss.hint(for: name, among: names + [automatic] + Array(aliases.keys))
    }

    /// `--mode auto`: the representation a PyMOL or Mol* user expects for this model: cartoon for
    /// polymers (ligands drawn as ball-and-stick beside it), spacefill for very large assemblies
    /// (more than `spacefillResidues` polymer residues: cartoons of them are a tangle at thumbnail
    /// size), ball-and-stick for small molecules.
    public static let automatic = DrawMode.auto.rawValue
    public static let spacefillResidues = 5000

    public static func automatic(for model: Model) -> DrawMode {
        // The polymer's residues as the residues' classification has them (a free amino acid
        // among the ligands is none; a selenomethionine of the chain is one).
        var polymer = 0
        for residue in model.residues where residue.inPolymer { polymer += 1 }
        if polymer > spacefillResidues { return .spacefill }
        return polymer >= 3 ? .cartoon : .ballAndStick
    }

    public static var names: [String] { all.map { $0.name } }

    /// What `thumbnails` makes by default: one picture a person would want to see in a grid, the
    /// automatic representation (cartoon for polymers, spacefill for large assemblies,
    /// ball-and-stick for small molecules). The sample browser's two classic cards stay by name
    /// (`--mode ball-and-stick,spacefill`).
    public static let thumbnailModes: [DrawMode] = [.auto]
}

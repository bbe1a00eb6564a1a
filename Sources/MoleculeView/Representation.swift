import Structure

/// A way of drawing a molecule. A new one is one type and one line in `Representations.all`.
public protocol Representation: Sendable {
    static var name: String { get }
    /// Whether its geometry draws bonds (so they must be perceived first).
    static var usesBonds: Bool { get }
    init()
    func geometry(of model: Model, bonds: [Bond], visible: [Bool], elements: ElementTable) -> MoleculeGeometry
    /// The same, knowing the helices and strands the file states (cartoons draw them).
    func geometry(of model: Model, bonds: [Bond], visible: [Bool], elements: ElementTable,
                  secondaryStructure: [SecondaryStructureRange]) -> MoleculeGeometry
}

extension Representation {
    public func geometry(of model: Model, bonds: [Bond], visible: [Bool], elements: ElementTable,
                         secondaryStructure: [SecondaryStructureRange]) -> MoleculeGeometry {
        geometry(of: model, bonds: bonds, visible: visible, elements: elements)
    }
}

public enum Representations {
    public static let all: [any Representation.Type] = [BallAndStick.self, Spacefill.self, Sticks.self, Lines.self, Cartoon.self]

    public static func named(_ name: String) -> (any Representation.Type)? {
        all.first { $0.name == name }
    }

    public static var names: [String] { all.map { $0.name } }

    /// What `thumbnails` makes by default: the two classic pictures of the sample browser.
    public static let thumbnailModes = [BallAndStick.name, Spacefill.name]
}

// The events target's build holds no MoleculeView (its renderers reach Mesa): this stands in for
// the three names of it the event reader uses, a mode's name and the list an unknown one is told.
// The names are MoleculeView's own (`Sources/MoleculeView/Representation.swift`); what is fuzzed
// is the reader around them (JSON, fields, times, touches).
public enum DrawMode: String, Sendable, Hashable, CaseIterable {
    case ballAndStick = "ball-and-stick", spacefill, sticks, lines, cartoon, putty, surface, auto, shows
    public var name: String { rawValue }
    public init?(named name: String) { self.init(rawValue: name.lowercased()) }
}

enum Representations {
    static var names: [String] { DrawMode.allCases.map(\.name).filter { $0 != "auto" && $0 != "shows" } }
}

struct Show {
    static let mode = DrawMode.shows
}

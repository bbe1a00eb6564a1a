import Foundation
import Scene
import Structure

/// What a figure shows, as JSON beside it (`render --caption`): the camera in the file's
/// coordinates, each part drawn with the atoms it stands on (serial numbers as in the file), the
/// interactions with the atoms at each end, the labels set, and a sentence a figure legend can
/// start from. For legends, and for tests that check the figure's promises (every line ends on a
/// drawn atom).
public struct FigureCaption: Codable, Sendable, Equatable {
    public struct View: Codable, Sendable, Equatable {
        /// Where the eye is, what it looks at, and the picture's up, Å in the file's coordinates.
        public var eye: [Float]
        public var target: [Float]
        public var up: [Float]
        public var projection: String
    }

    public struct Drawn: Codable, Sendable, Equatable {
        public var representation: String
        public var selection: String
        public var atoms: [Int32]
    }

    public struct Contact: Codable, Sendable, Equatable {
        public var kind: String
        /// The serials at each end: one atom, a charged group's atoms or a ring's.
        public var atoms: [[Int32]]
        /// A water bridge's water (its oxygen's serial).
        public var water: Int32?
        public var distance: Float
    }

    public var camera: View
    public var drawn: [Drawn]
    public var interactions: [Contact]
    public var labels: [String]
    public var sentence: String

    /// The caption of `picture` as drawn, with the labels its finishing step set.
    public init(_ picture: MoleculePicture, labels: [Annotations.PlacedLabel]) throws {
        let prepared = picture.prepared, model = prepared.model, request = picture.request
        let c = picture.camera
        let m = c.rotation.matrix
        let right = SIMD3(m.0.x, m.1.x, m.2.x), up = SIMD3(m.0.y, m.1.y, m.2.y), toward = SIMD3(m.0.z, m.1.z, m.2.z)
        let perPixel = c.worldUnitsPerPixel(width: request.width, height: request.height)
        let target = c.center - right * (c.pan.x * perPixel) + up * (c.pan.y * perPixel)
        let eye = target + toward * c.distance
        func list(_ v: SIMD3<Float>) -> [Float] { [v.x, v.y, v.z].map { ($0 * 1000).rounded() / 1000 } }
        camera = View(eye: list(eye), target: list(target), up: list(up), projection: c.isOrthographic ? "orthographic" : "perspective")
        func serial(_ i: Int) -> Int32 { model.atoms[i].serial }
        drawn = prepared.parts.map { Drawn(representation: $0.representation.name, selection: $0.selection, atoms: $0.atoms.map { serial(Int($0)) }) }
        var found: [Interaction] = []
        if let asked = request.annotations.interactions {
            found = try prepared.interactions ?? Annotations.interactions(asked, in: model, partners: request.annotations.interactionPartners)
        }
        interactions = found.map { i in
            Contact(kind: i.kind.rawValue, atoms: [i.atoms.map(serial), i.partnerAtoms.map(serial)], water: i.water.map(serial),
                    distance: (i.distance * 100).rounded() / 100)
        }
        self.labels = labels.map(\.text)
        sentence = Self.sentence(prepared: prepared, request: request, found: found, labelled: labels.count, elements: try ElementTable.shared())
    }

    /// "The inhibitor 478 (chain A 401; ball-and-stick, magenta carbons) in HIV-1 protease chains A
    /// and B: 6 hydrogen bonds (blue), ...; 18 interacting residues labelled."
    static func sentence(prepared: PreparedMolecule, request: RenderRequest, found: [Interaction], labelled: Int, elements: ElementTable) -> String {
        let model = prepared.model
        guard let asked = request.site.map({ ($0.selection, $0.text) }) ?? request.annotations.interactions.map({ ($0.selection, $0.text) }) else {
            let parts = prepared.parts.map { "\($0.representation.name) of \($0.selection)" }.joined(separator: ", ")
            return "\(prepared.model.atoms.count) atoms drawn as \(parts)."
        }
        // The selection's residues, named.
        var residues: [Int32] = []
        for i in asked.0.atoms(in: model) where !residues.contains(model.atoms[i].residue) { residues.append(model.atoms[i].residue) }
        var named: String
        if residues.count > 1, residues.allSatisfy({ model.residues[Int($0)].inPolymer }) {
            // A stretch of a polymer: its chain, numbers and names.
            let first = model.residues[Int(residues[0])], last = model.residues[Int(residues[residues.count - 1])]
            let chain = model.chains[Int(first.chain)].id
            named = "residues \(first.number)-\(last.number)\(chain.isEmpty ? "" : " of chain \(chain)") ("
                + residues.prefix(8).map { model.residues[Int($0)].name.description }.joined(separator: " ") + (residues.count > 8 ? " ..." : "") + ")"
        } else {
            named = residues.prefix(4).map { r -> String in
                let res = model.residues[Int(r)]
                let chain = model.chains[Int(res.chain)].id
                let place = "\(res.name), \(chain.isEmpty ? "" : "chain \(chain), ")residue \(res.number)"
                if let name = prepared.componentNames[res.name.description], !name.isEmpty { return "\(name.lowercased()) (\(place))" }
                return "ligand \(place.replacingOccurrences(of: ", ", with: " (", range: place.range(of: ", ")) + ")")"
            }.joined(separator: ", ") + (residues.count > 4 ? " and \(residues.count - 4) more" : "")
        }
        var subject = named
        if request.site != nil, asked.0.atoms(in: model).contains(where: { model.atoms[$0].element.atomicNumber == 6 }) {
            let carbon = ColorTheme.ligandCarbon(model, elements: elements)
            let colour = [0xE040C0: "magenta", 0x00B8C8: "cyan", 0xF0A800: "gold"][carbon] ?? "coloured"
            subject += " (ball-and-stick, \(colour) carbons)"
        }
        // The polymers it touches: their entities' names and chains.
        var chains: [String] = [], entities: [String] = []
        for i in found {
            for a in i.partnerAtoms {
                let r = model.residues[Int(model.atoms[a].residue)]
                guard r.inPolymer else { continue }
                let chain = model.chains[Int(r.chain)]
                if !chains.contains(chain.id) { chains.append(chain.id) }
                if let e = prepared.entityNames[chain.entity], !e.isEmpty, !entities.contains(e) { entities.append(e) }
            }
        }
        let host = (entities.isEmpty ? "the polymer" : entities.joined(separator: " and ")) + (chains.isEmpty ? "" : (chains.count == 1 ? " chain " : " chains ") + Self.and(chains))
        let colours: [InteractionKind: String] = [.hbond: "blue", .hydrophobic: "grey", .saltbridge: "yellow", .pistacking: "green",
                                                  .pication: "orange", .halogen: "turquoise", .metal: "purple", .waterbridge: "light blue"]
        let plurals: [InteractionKind: String] = [.hbond: "hydrogen bonds", .hydrophobic: "hydrophobic contacts", .saltbridge: "salt bridges",
                                                  .pistacking: "π-stacking contacts", .pication: "cation-π contacts", .halogen: "halogen bonds",
                                                  .metal: "metal coordinations", .waterbridge: "water bridges"]
        let counts = InteractionKind.allCases.compactMap { kind -> String? in
            let n = found.filter { $0.kind == kind }.count
            guard n > 0 else { return nil }
            return "\(n) \(n == 1 ? kind.title : plurals[kind]!) (\(colours[kind]!))"
        }
        var text = "\(subject.prefix(1).uppercased())\(subject.dropFirst()) in \(host)"
        text += counts.isEmpty ? ": no interactions found" : ": " + counts.joined(separator: ", ")
        if labelled > 0 { text += "; \(labelled) interacting residue\(labelled == 1 ? "" : "s") labelled" }
        return text + "."
    }

    static func and(_ items: [String]) -> String {
        items.count <= 1 ? items.joined() : items.dropLast().joined(separator: ", ") + " and " + items.last!
    }

    /// The caption as JSON, keys sorted, for a file beside the figure.
    public func json() throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(self)) + [10]
    }
}

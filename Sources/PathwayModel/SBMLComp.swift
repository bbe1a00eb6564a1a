import Core

/// SBML's Hierarchical Model Composition (`comp`): a model made of submodels, each an instance of
/// a model definition in the same file. The model is flattened as libSBML's flattening names
/// things: each instance's compartments, species and reactions copied in with its id and a
/// double underscore before theirs (`A__glc`), nested instances one prefix after another, and the
/// references between them renamed alike. What is not read: replacements and deletions (a species
/// an instance shares with the model is drawn once per instance), external model definitions in
/// other files (left out with a warning), and the definitions' own layouts (a flattened model
/// without a layout of its own is laid out as a graph).
enum SBMLComp {
    /// Instances in all: nested submodels multiply (ten of ten of ten ...), so a file of a few
    /// lines could ask for millions; past this the file is refused before anything is copied.
    static let maxInstances = 1_000
    static let maxDepth = 16

    /// The model with its submodels' parts copied in, and what was left out; nil when it has none.
    static func flattened(_ model: XMLElementNode, root: XMLElementNode, file: String) throws -> (model: XMLElementNode, warnings: [String])? {
        guard model.child("listOfSubmodels")?.all("submodel").isEmpty == false else { return nil }
        var definitions: [String: XMLElementNode] = [:]
        for d in root.child("listOfModelDefinitions")?.all("modelDefinition") ?? [] {
            if let id = d.attribute(local: "id") { definitions[id] = d }
        }
        // Count the instances first, without copying: a fan-out is refused before any work.
        var warnings: [String] = []
        var instances: [(definition: XMLElementNode, prefix: String)] = [(model, "")]
        var next = 0
        while next < instances.count {
            let (m, prefix) = instances[next]
            next += 1
            for s in m.child("listOfSubmodels")?.all("submodel") ?? [] {
                guard let id = s.attribute(local: "id"), let ref = s.attribute(local: "modelRef") else {
                    throw PathwayError(file: file, at: s.place, "a submodel needs an id and a modelRef")
                }
                guard let d = definitions[ref] else {
                    warnings.append("submodel \(prefix)\(id): model \(ref) is not defined in this file (an external definition is not read); left out")
                    continue
                }
                guard instances.count < maxInstances else {
                    throw PathwayError(file: file, at: s.place, "submodels make more than \(maxInstances) instances in all (nested submodels multiply): past what a map holds")
                }
                guard prefix.components(separatedBy: "__").count <= maxDepth else {
                    throw PathwayError(file: file, at: s.place, "submodels nest more than \(maxDepth) deep (a model definition that contains itself?)")
                }
                instances.append((d, prefix + id + "__"))
            }
        }
        let flat = XMLElementNode(name: "model", attributes: model.attributes, line: model.line)
        let lists = ["listOfCompartments", "listOfSpecies", "listOfReactions"]
        // The model's own other parts (its layout, annotation) stay as they are.
        flat.children = model.children.filter { !lists.contains($0.name) && $0.name != "listOfSubmodels" }
        for list in lists {
            let merged = XMLElementNode(name: list, attributes: [:], line: model.line)
            for (m, prefix) in instances {
                for e in m.child(list)?.children ?? [] { merged.children.append(renamed(e, prefix)) }
            }
            flat.children.append(merged)
        }
        return (flat, warnings)
    }

    /// A copy of an element with its ids and the ids it refers to prefixed.
    static func renamed(_ e: XMLElementNode, _ prefix: String) -> XMLElementNode {
        guard !prefix.isEmpty else { return e }
        var attributes = e.attributes
        for key in ["id", "species", "compartment"] {
            if let k = attributes.keys.first(where: { $0 == key || $0.hasSuffix(":" + key) }) { attributes[k] = prefix + attributes[k]! }
        }
        let copy = XMLElementNode(name: e.name, attributes: attributes, line: e.line)
        copy.text = e.text
        copy.children = e.children.map { renamed($0, prefix) }
        return copy
    }
}

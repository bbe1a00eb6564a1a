import Core

/// SBML's Hierarchical Model Composition (`comp`): a model made of submodels, each an instance of
/// a model definition in the same file. The model is flattened as libSBML's flattening names
/// things: each instance's compartments, species and reactions copied in with its id and a
/// double underscore before theirs (`A__glc`), nested instances one prefix after another, and the
/// references between them renamed alike. Replacements make one element of many, as libSBML's
/// flattening does: a `replacedElement` leaves the instance's element out and points its
/// references at the replacing one, `replacedBy` the other way round, and a submodel's
/// `deletion` leaves its element out (by `idRef`, or `portRef` through the definition's ports).
/// What is not read: external model definitions in other files (left out with a warning), and the
/// definitions' own layouts (libSBML's flattening leaves them out too; a flattened model without a
/// layout of its own is laid out as a graph).
enum SBMLComp {
    /// Instances in all: nested submodels multiply (ten of ten of ten ...), so a file of a few
    /// lines could ask for millions; past this the file is refused before anything is copied.
    static let maxInstances = 1_000
    static let maxDepth = 16
    /// XML elements the flattening may copy in all (each instance copies its definition's
    /// compartments, species and reactions with everything inside them): 999 instances of a
    /// 10,000-species definition would be ten million, from a file of half a megabyte.
    static let maxCopiedElements = 2_000_000

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
        let lists = ["listOfCompartments", "listOfSpecies", "listOfReactions"]
        // The elements the copies will hold, counted before any is made (each definition's once).
        var weights: [ObjectIdentifier: Int] = [:]
        var copied = 0
        for (m, _) in instances {
            let weight = weights[ObjectIdentifier(m)] ?? lists.reduce(0) { $0 + (m.child($1).map(elementCount) ?? 0) }
            weights[ObjectIdentifier(m)] = weight
            copied += weight
            guard copied <= maxCopiedElements else {
                throw PathwayError(file: file, at: m.place, "submodels copy more than \(maxCopiedElements) elements in all (each instance copies its model's species and reactions): past what a map holds")
            }
        }
        // Replacements and deletions, as flat ids: what goes (`gone`) and where its references go (`moved`).
        var moved: [String: String] = [:]
        var gone = Set<String>()
        let byPrefix = Dictionary(instances.map { ($0.prefix, $0.definition) }, uniquingKeysWith: { a, _ in a })
        // An instance's element named by idRef, or by portRef through its definition's ports
        // (the instance `submodel`, else the reference's submodelRef).
        func target(_ ref: XMLElementNode, in prefix: String, submodel: String? = nil) -> String? {
            guard let sub = submodel ?? ref.attribute(local: "submodelRef"), let definition = byPrefix[prefix + sub + "__"] else { return nil }
            if let id = ref.attribute(local: "idRef") { return prefix + sub + "__" + id }
            if let port = ref.attribute(local: "portRef"),
               let p = definition.child("listOfPorts")?.all("port").first(where: { $0.attribute(local: "id") == port }),
               let id = p.attribute(local: "idRef") {
                return prefix + sub + "__" + id
            }
            return nil
        }
        for (m, prefix) in instances {
            for list in lists {
                for e in m.child(list)?.children ?? [] {
                    guard let id = e.attribute(local: "id") else { continue }
                    for r in e.child("listOfReplacedElements")?.all("replacedElement") ?? [] {
                        if let t = target(r, in: prefix) { moved[t] = prefix + id; gone.insert(t) }
                    }
                    if let r = e.child("replacedBy"), let t = target(r, in: prefix) {
                        // The instance's element stands in, under this one's id (as libSBML keeps it).
                        moved[t] = prefix + id
                        gone.insert(prefix + id)
                    }
                }
            }
            for sub in m.child("listOfSubmodels")?.all("submodel") ?? [] {
                guard let sid = sub.attribute(local: "id") else { continue }
                for d in sub.child("listOfDeletions")?.all("deletion") ?? [] {
                    if let t = target(d, in: prefix, submodel: sid) { gone.insert(t) }
                }
            }
        }
        // Where a reference ends after every replacement (chains followed, a cycle cut).
        func resolved(_ id: String) -> String {
            var id = id, steps = 0
            while let next = moved[id], steps < instances.count + 16 { id = next; steps += 1 }
            return id
        }
        let flat = XMLElementNode(name: "model", attributes: model.attributes, line: model.line)
        // The model's own other parts (its layout, annotation) stay as they are.
        flat.children = model.children.filter { !lists.contains($0.name) && $0.name != "listOfSubmodels" }
        for list in lists {
            let merged = XMLElementNode(name: list, attributes: [:], line: model.line)
            for (m, prefix) in instances {
                for e in m.child(list)?.children ?? [] where !gone.contains(prefix + (e.attribute(local: "id") ?? "")) {
                    merged.children.append(renamed(e, prefix, resolved))
                }
            }
            flat.children.append(merged)
        }
        return (flat, warnings)
    }

    /// Elements in `e`'s subtree, itself included (walked without recursion).
    static func elementCount(_ e: XMLElementNode) -> Int {
        var n = 0
        var stack = [e]
        while let top = stack.popLast() {
            n += 1
            stack.append(contentsOf: top.children)
        }
        return n
    }

    /// A copy of an element with its id and the ids it refers to prefixed and then followed through
    /// `resolved` (to the element that replaces theirs, or the id it stands in under).
    static func renamed(_ e: XMLElementNode, _ prefix: String, _ resolved: (String) -> String) -> XMLElementNode {
        var attributes = e.attributes
        for key in ["id", "species", "compartment"] {
            if let k = attributes.keys.first(where: { $0 == key || $0.hasSuffix(":" + key) }) { attributes[k] = resolved(prefix + attributes[k]!) }
        }
        let copy = XMLElementNode(name: e.name, attributes: attributes, line: e.line)
        copy.text = e.text
        copy.children = e.children.map { renamed($0, prefix, resolved) }
        return copy
    }
}

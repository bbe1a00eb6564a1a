/// What the small-molecule readers (SDF, MOL2, XYZ) share: one record becomes one model with
/// a single unnamed chain and residue, atoms named by element and count (C1, C2, O1, ...).
struct SmallMoleculeRecord {
    var title = ""
    var residueName = ShortName("UNL")
    var elements: [Element] = []
    var positions: [SIMD3<Float>] = []
    var charges: [Int8] = []
    var names: [ShortName?] = []
    var bonds: [Bond] = []

    mutating func addAtom(_ element: Element, _ position: SIMD3<Float>, charge: Int8 = 0, name: ShortName? = nil) {
        elements.append(element)
        positions.append(position)
        charges.append(charge)
        names.append(name)
    }

    func model(number: Int, bondsAreComplete: Bool) -> Model {
        var builder = ModelBuilder(number: number, reserve: elements.count)
        var counts = [Int](repeating: 0, count: Element.count)
        for i in elements.indices {
            let z = Int(elements[i].atomicNumber)
            counts[z] += 1
            let name = names[i] ?? ShortName(elements[i].symbol.uppercased() + String(counts[z]))
            builder.add(Atom(position: positions[i], serial: Int32(i + 1), name: name, element: elements[i], charge: charges[i]),
                        chain: .empty, residueName: residueName, residueNumber: 1, insertionCode: 0, hetero: true)
        }
        var model = builder.finish()
        model.explicitBonds = bonds
        model.bondsAreComplete = bondsAreComplete
        return model
    }
}

/// Blank-separated fields of a line, as byte ranges.
@inline(__always)
func splitFields(_ b: UnsafeBufferPointer<UInt8>, _ line: Range<Int>) -> [Range<Int>] {
    var fields: [Range<Int>] = []
    var i = line.lowerBound
    while i < line.upperBound {
        while i < line.upperBound && (b[i] == 0x20 || b[i] == 0x09) { i += 1 }
        let start = i
        while i < line.upperBound && b[i] != 0x20 && b[i] != 0x09 { i += 1 }
        if i > start { fields.append(start..<i) }
    }
    return fields
}

func lineText(_ b: UnsafeBufferPointer<UInt8>, _ r: Range<Int>) -> String {
    ByteFields.text(b, r.lowerBound, r.upperBound)
}

/// Reads XYZ: an atom count, a comment line, then `element x y z` per atom; frames repeat
/// and become models. Elements may be symbols or atomic numbers. Bonds come from distances.
public enum XYZReader {
    public static func read(_ b: UnsafeBufferPointer<UInt8>, source: String) throws -> Structure {
        var structure = Structure(format: .xyz)
        var lines = LineCursor(b)
        func fail(_ message: String) -> StructureError { StructureError(file: source, line: lines.lineNumber, message: message) }
        while let countLine = lines.next() {
            let countText = lineText(b, countLine)
            if countText.isEmpty { continue }
            guard let count = Int(countText), count >= 0, count < 100_000_000 else {
                throw fail("expected an atom count, found '\(countText)'")
            }
            var record = SmallMoleculeRecord()
            record.title = lines.next().map { lineText(b, $0) } ?? ""
            for _ in 0..<count {
                guard let r = lines.next() else { throw fail("frame ends after \(record.elements.count) of \(count) atoms") }
                let f = splitFields(b, r)
                guard f.count >= 4, let x = ByteFields.float(b, f[1].lowerBound, f[1].upperBound),
                      let y = ByteFields.float(b, f[2].lowerBound, f[2].upperBound),
                      let z = ByteFields.float(b, f[3].lowerBound, f[3].upperBound), x.isFinite, y.isFinite, z.isFinite else {
                    throw fail("bad atom line '\(lineText(b, r))': expected element x y z")
                }
                var element = Element.symbol(in: b, f[0].lowerBound, f[0].upperBound)
                if element == nil, let z = ByteFields.int(b, f[0].lowerBound, f[0].upperBound), z > 0, z < Element.count {
                    element = Element(atomicNumber: UInt8(z))
                }
                guard let element else { throw fail("unknown element '\(lineText(b, f[0]))'") }
                record.addAtom(element, SIMD3(x, y, z))
            }
            if structure.models.isEmpty { structure.metadata.title = record.title }
            structure.models.append(record.model(number: structure.models.count + 1, bondsAreComplete: false))
        }
        guard structure.models.contains(where: { !$0.atoms.isEmpty }) else {
            throw StructureError(file: source, line: nil, message: "no atoms")
        }
        return structure
    }
}

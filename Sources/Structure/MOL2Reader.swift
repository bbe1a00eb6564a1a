/// Reads Tripos MOL2: MOLECULE, ATOM and BOND sections; several molecules become models.
public enum MOL2Reader {
    public static func read(_ b: UnsafeBufferPointer<UInt8>, source: String) throws -> Structure {
        var structure = Structure(format: .mol2)
        var lines = LineCursor(b)
        var record: SmallMoleculeRecord? = nil
        var section = ""
        var moleculeLine = 0
        func fail(_ message: String) -> StructureError { StructureError(file: source, line: lines.lineNumber, message: message) }
        func finish() {
            if let r = record, !r.elements.isEmpty {
                if structure.models.isEmpty { structure.metadata.title = r.title }
                structure.models.append(r.model(number: structure.models.count + 1, bondsAreComplete: true))
            }
            record = nil
        }
        while let r = lines.next() {
            let text = lineText(b, r)
            if text.hasPrefix("@<TRIPOS>") {
                section = String(text.dropFirst(9)).uppercased()
                if section == "MOLECULE" {
                    finish()
                    record = SmallMoleculeRecord()
                    moleculeLine = 0
                }
                continue
            }
            if text.isEmpty || text.hasPrefix("#") { continue }
            switch section {
            case "MOLECULE":
                moleculeLine += 1
                if moleculeLine == 1 { record?.title = text }
            case "ATOM":
                guard record != nil else { throw fail("ATOM section before any MOLECULE") }
                let f = splitFields(b, r)
                guard f.count >= 6, let x = ByteFields.float(b, f[2].lowerBound, f[2].upperBound),
                      let y = ByteFields.float(b, f[3].lowerBound, f[3].upperBound),
                      let z = ByteFields.float(b, f[4].lowerBound, f[4].upperBound), x.isFinite, y.isFinite, z.isFinite else {
                    throw fail("bad atom line '\(text)': expected id, name, x, y, z, type")
                }
                let element = Self.element(ofType: b, f[5])
                record?.addAtom(element, SIMD3(x, y, z), name: ShortName(b, f[1].lowerBound, f[1].upperBound))
            case "BOND":
                guard record != nil else { throw fail("BOND section before any MOLECULE") }
                let f = splitFields(b, r)
                guard f.count >= 4, let a = ByteFields.int(b, f[1].lowerBound, f[1].upperBound),
                      let c = ByteFields.int(b, f[2].lowerBound, f[2].upperBound) else {
                    throw fail("bad bond line '\(text)': expected id, atom, atom, type")
                }
                let type = lineText(b, f[3]).lowercased()
                if type == "nc" { continue }
                let count = record?.elements.count ?? 0
                guard a >= 1, c >= 1, a <= count, c <= count, a != c else {
                    throw fail("bond joins atoms \(a) and \(c); the molecule has \(count) atoms")
                }
                let order: UInt8 = type == "2" ? 2 : type == "3" ? 3 : type == "ar" ? 0 : 1
                record?.bonds.append(Bond(Int32(a - 1), Int32(c - 1), order: order, aromatic: type == "ar", source: .explicit))
            default:
                break
            }
        }
        finish()
        guard !structure.models.isEmpty else {
            throw StructureError(file: source, line: nil, message: "no atoms in any @<TRIPOS>MOLECULE")
        }
        return structure
    }

    /// The element of an atom type: SYBYL's is the part before the dot (C.ar, N.am, Cl, Fe);
    /// GAFF's (antechamber) are lower case (ca, c3, nb, nh, oh, cl, br) and AMBER's upper case
    /// (CT, CA, N3, HC, OH), the element their first letter, but GAFF's cl and br: read as
    /// symbols they made calcium, niobium and nihonium of carbons and nitrogens.
    static func element(ofType b: UnsafeBufferPointer<UInt8>, _ field: Range<Int>) -> Element {
        var e = field.lowerBound
        while e < field.upperBound && b[e] != 0x2E { e += 1 }
        let length = e - field.lowerBound
        guard length > 0 else { return .unknown }
        let first = b[field.lowerBound]
        let isLower = { (c: UInt8) in c >= 0x61 && c <= 0x7A }, isUpper = { (c: UInt8) in c >= 0x41 && c <= 0x5A }
        // AMBER's upper-case types are told from SYBYL's element symbols (Mg, Zn) by their first
        // letter: C, H, N, O, S or P (its NA is a nitrogen, its CA a carbon).
        let amber = length >= 2 && "CHNOSP".utf8.contains(first) && !isLower(b[field.lowerBound + 1])
        let forceField = e == field.upperBound && (isLower(first) || (isUpper(first) && amber))
        if forceField {
            let second = length >= 2 ? b[field.lowerBound + 1] : 0
            if isLower(first) && ((first, second) == (0x63, 0x6C) || (first, second) == (0x62, 0x72)) {
                return Element.symbol(first, second) ?? .unknown
            }
            return Element.symbol(first) ?? .unknown
        }
        return Element.symbol(in: b, field.lowerBound, e) ?? .unknown
    }
}

/// Reads MDL molfiles and SD files: V2000 and V3000 connection tables, any number of records
/// separated by `$$$$`, each record a model. Bonds and their orders are taken as written.
public enum SDFReader {
    public static func read(_ b: UnsafeBufferPointer<UInt8>, source: String) throws -> Structure {
        var structure = Structure(format: .sdf)
        var lines = LineCursor(b)
        while true {
            // A molfile's header is three lines whatever they hold: a blank title line (RDKit,
            // Marvin and Open Babel write them) is still the title. Only blank lines that run to
            // the end of the file end the records.
            guard let header = lines.next() else { break }
            if lineText(b, header).isEmpty && onlyBlanks(b, from: lines.position) { break }
            var record = SmallMoleculeRecord()
            record.title = lineText(b, header)
            try readRecord(b, &lines, &record, source: source)
            if structure.models.isEmpty { structure.metadata.title = record.title }
            structure.models.append(record.model(number: structure.models.count + 1, bondsAreComplete: true))
            // Data items up to the record separator.
            while let r = lines.next() {
                if lineText(b, r) == "$$$$" { break }
            }
        }
        guard !structure.models.isEmpty, structure.models.contains(where: { !$0.atoms.isEmpty }) else {
            throw StructureError(file: source, line: nil, message: "no atoms in any molfile record")
        }
        return structure
    }

    static func onlyBlanks(_ b: UnsafeBufferPointer<UInt8>, from start: Int) -> Bool {
        var i = start
        while i < b.count {
            switch b[i] {
            case 0x20, 0x09, 0x0A, 0x0D: i += 1
            default: return false
            }
        }
        return true
    }

    static func readRecord(_ b: UnsafeBufferPointer<UInt8>, _ lines: inout LineCursor, _ record: inout SmallMoleculeRecord,
                           source: String) throws {
        func fail(_ message: String) -> StructureError { StructureError(file: source, line: lines.lineNumber, message: message) }
        guard lines.next() != nil, lines.next() != nil, let counts = lines.next() else { throw fail("record ends before its counts line") }
        let countsText = lineText(b, counts)
        if countsText.contains("V3000") {
            try readV3000(b, &lines, &record, source: source)
            return
        }
        let s = counts.lowerBound
        guard let atomCount = ByteFields.int(b, s, min(counts.upperBound, s + 3)),
              let bondCount = ByteFields.int(b, s + 3, min(counts.upperBound, s + 6)), atomCount >= 0, bondCount >= 0 else {
            throw fail("bad counts line '\(countsText)': expected atom and bond counts in columns 1-6")
        }
        guard atomCount < 10_000_000, bondCount < 10_000_000 else { throw fail("counts line claims too many atoms or bonds") }
        for _ in 0..<atomCount {
            guard let r = lines.next() else { throw fail("record ends inside its atom block") }
            let s = r.lowerBound, e = r.upperBound
            var position: SIMD3<Float>
            var element: Element
            var charge: Int8 = 0
            if e - s >= 34, let x = ByteFields.float(b, s, s + 10), let y = ByteFields.float(b, s + 10, s + 20),
               let z = ByteFields.float(b, s + 20, s + 30) {
                position = SIMD3(x, y, z)
                element = Element.symbol(in: b, s + 31, min(e, s + 34)) ?? .unknown
                if e - s >= 39, let code = ByteFields.int(b, s + 36, s + 39), code >= 1, code <= 7, code != 4 {
                    charge = Int8(4 - code)
                }
            } else {
                // Not in fixed columns: x y z symbol separated by blanks.
                let f = splitFields(b, r)
                guard f.count >= 4, let x = ByteFields.float(b, f[0].lowerBound, f[0].upperBound),
                      let y = ByteFields.float(b, f[1].lowerBound, f[1].upperBound),
                      let z = ByteFields.float(b, f[2].lowerBound, f[2].upperBound) else {
                    throw fail("bad atom line '\(lineText(b, r))': expected x, y, z and an element")
                }
                position = SIMD3(x, y, z)
                element = Element.symbol(in: b, f[3].lowerBound, f[3].upperBound) ?? .unknown
            }
            guard position.x.isFinite && position.y.isFinite && position.z.isFinite else { throw fail("coordinate is not finite") }
            record.addAtom(element, position, charge: charge)
        }
        for _ in 0..<bondCount {
            guard let r = lines.next() else { throw fail("record ends inside its bond block") }
            let s = r.lowerBound, e = r.upperBound
            var a = ByteFields.int(b, s, min(e, s + 3)), c = ByteFields.int(b, s + 3, min(e, s + 6)), t = ByteFields.int(b, s + 6, min(e, s + 9))
            if a == nil || c == nil || t == nil {
                let f = splitFields(b, r)
                if f.count >= 3 {
                    a = ByteFields.int(b, f[0].lowerBound, f[0].upperBound)
                    c = ByteFields.int(b, f[1].lowerBound, f[1].upperBound)
                    t = ByteFields.int(b, f[2].lowerBound, f[2].upperBound)
                }
            }
            guard let a, let c, let t else { throw fail("bad bond line '\(lineText(b, r))'") }
            try addBond(a, c, type: t, &record, fail)
        }
        // Properties block up to M  END; M  CHG overrides the atom block's charges.
        while let r = lines.next() {
            let text = lineText(b, r)
            if text == "M  END" { return }
            if text.hasPrefix("M  CHG") {
                let f = text.split(separator: " ").compactMap { Int($0) }
                var k = 1
                while k + 1 < f.count {
                    if f[k] >= 1 && f[k] <= record.charges.count { record.charges[f[k] - 1] = Int8(clamping: f[k + 1]) }
                    k += 2
                }
            }
            if text == "$$$$" { throw fail("record ends without M  END") }
        }
    }

    static func addBond(_ a: Int, _ c: Int, type: Int, _ record: inout SmallMoleculeRecord,
                        _ fail: (String) -> StructureError) throws {
        guard a >= 1, c >= 1, a <= record.elements.count, c <= record.elements.count, a != c else {
            throw fail("bond joins atoms \(a) and \(c); the record has \(record.elements.count) atoms")
        }
        let order: UInt8 = (1...3).contains(type) ? UInt8(type) : 0
        record.bonds.append(Bond(Int32(a - 1), Int32(c - 1), order: order, aromatic: type == 4, source: .explicit))
    }

    static func readV3000(_ b: UnsafeBufferPointer<UInt8>, _ lines: inout LineCursor, _ record: inout SmallMoleculeRecord,
                          source: String) throws {
        func fail(_ message: String) -> StructureError { StructureError(file: source, line: lines.lineNumber, message: message) }
        var section = ""
        var pending = ""
        while let r = lines.next() {
            var text = lineText(b, r)
            if text == "M  END" { return }
            guard text.hasPrefix("M  V30 ") else {
                if text == "$$$$" { throw fail("record ends without M  END") }
                continue
            }
            text = pending + String(text.dropFirst(7))
            // A trailing '-' continues the line.
            if text.hasSuffix("-") {
                pending = String(text.dropLast())
                continue
            }
            pending = ""
            let f = text.split(separator: " ")
            guard let head = f.first else { continue }
            if head == "BEGIN" || head == "END" {
                section = head == "BEGIN" && f.count > 1 ? String(f[1]) : ""
                continue
            }
            switch section {
            case "ATOM":
                guard f.count >= 5, let x = Float(f[2]), let y = Float(f[3]), let z = Float(f[4]) else {
                    throw fail("bad V3000 atom line '\(text)'")
                }
                var charge: Int8 = 0
                for item in f.dropFirst(6) where item.hasPrefix("CHG=") { charge = Int8(clamping: Int(item.dropFirst(4)) ?? 0) }
                record.addAtom(Element.symbol(String(f[1])) ?? .unknown, SIMD3(x, y, z), charge: charge)
            case "BOND":
                guard f.count >= 4, let t = Int(f[1]), let a = Int(f[2]), let c = Int(f[3]) else {
                    throw fail("bad V3000 bond line '\(text)'")
                }
                try addBond(a, c, type: t, &record, fail)
            default:
                break
            }
        }
        throw fail("record ends without M  END")
    }
}

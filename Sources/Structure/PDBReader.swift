/// Reads PDB files by fixed columns (wwPDB format 3.3), including old layouts with an id
/// and line number in columns 73-80, blank atom names, CRLF endings and hybrid-36 numbers.
public enum PDBReader {
    public static func read(_ b: UnsafeBufferPointer<UInt8>, source: String) throws -> Structure {
        try read(b, source: source, feed: nil)
    }

    static func read(_ b: UnsafeBufferPointer<UInt8>, source: String, feed: InflatingBuffer?) throws -> Structure {
        var structure = Structure(format: .pdb)
        var lines = LineCursor(b, feed: feed)
        var builder = ModelBuilder(number: 1, reserve: b.count / 81)
        var modelNumber = 1
        var conect: [(Int32, Int32)] = []
        var titleParts: [String] = [], compoundParts: [String] = [], sourceParts: [String] = [], authorParts: [String] = [], keywordParts: [String] = []
        var lastSerial: Int32 = 0
        var idCode = ShortName.empty
        var remark350 = Remark350()
        var seqres: [String: [String]] = [:]
        var seqresOrder: [String] = []
        var hetnam: [String: String] = [:]

        func fail(_ line: Int, _ message: String) -> StructureError {
            StructureError(file: source, line: line, message: message)
        }
        func finishModel() {
            if builder.atomCount > 0 { structure.models.append(builder.finish()) }
        }

        while let range = lines.next() {
            let s = range.lowerBound, e = range.upperBound
            let length = e - s
            guard length >= 3 else { continue }
            let c0 = b[s], c1 = b[s + 1], c2 = b[s + 2], c3 = length > 3 ? b[s + 3] : 0
            let isAtom = c0 == 0x41 && c1 == 0x54 && c2 == 0x4F && c3 == 0x4D  // ATOM
            let isHetatm = c0 == 0x48 && c1 == 0x45 && c2 == 0x54 && c3 == 0x41 && length > 5 && b[s + 4] == 0x54 && b[s + 5] == 0x4D
            if isAtom || isHetatm {
                let line = lines.lineNumber
                guard length >= 54 else { throw fail(line, "\(isAtom ? "ATOM" : "HETATM") record is \(length) columns long; coordinates need columns 31-54") }
                func coordinate(_ from: Int, _ name: String) throws -> Float {
                    guard let v = ByteFields.float(b, s + from - 1, s + from + 7), v.isFinite else {
                        throw fail(line, "bad \(name) coordinate '\(ByteFields.text(b, s + from - 1, s + from + 7))' (columns \(from)-\(from + 7))")
                    }
                    return v
                }
                let x = try coordinate(31, "x"), y = try coordinate(39, "y"), z = try coordinate(47, "z")
                let serial: Int32
                if let v = ByteFields.hybrid36(b, s + 6, s + 11) { serial = Int32(clamping: v) } else { serial = lastSerial + 1 }
                lastSerial = serial
                let name = ShortName(b, s + 12, s + 16)
                let altLoc = b[s + 16] == 0x20 ? 0 : b[s + 16]
                // Columns 18-20 hold the residue name; some programs spill a fourth letter into column 21.
                let residueName = ShortName(b, s + 17, s + 21)
                let chain = ShortName(b, s + 21, s + 22)
                guard let resSeq = ByteFields.hybrid36(b, s + 22, s + 26) ?? (isBlankField(b, s + 22, s + 26) ? 0 : nil) else {
                    throw fail(line, "bad residue number '\(ByteFields.text(b, s + 22, s + 26))' (columns 23-26)")
                }
                let iCode = b[s + 26] == 0x20 ? 0 : b[s + 26]
                let occupancy = length >= 60 ? ByteFields.float(b, s + 54, s + 60) ?? 1 : 1
                let bFactor = length >= 66 ? ByteFields.float(b, s + 60, s + 66) ?? 0 : 0
                var element: Element? = nil
                var charge: Int8 = 0
                if length >= 78 && !lineIDInColumns73(b, s, length, idCode: idCode) {
                    element = Element.symbol(in: b, s + 76, s + 78)
                    if length >= 80 { charge = formalCharge(b[s + 78], b[s + 79]) }
                }
                let atom = Atom(position: SIMD3(x, y, z), occupancy: occupancy, bFactor: bFactor, serial: serial,
                                name: name, element: element ?? inferElement(b, s + 12, residueName: residueName, hetero: isHetatm),
                                altLoc: altLoc, charge: charge)
                builder.add(atom, chain: chain, residueName: residueName, residueNumber: Int32(clamping: resSeq),
                            insertionCode: iCode, hetero: isHetatm)
                continue
            }
            let record = recordName(b, s, e)
            switch record {
            case "MODEL":
                finishModel()
                modelNumber = ByteFields.int(b, s + 10, min(e, s + 14)) ?? (structure.models.count + 1)
                builder = ModelBuilder(number: modelNumber, reserve: builder.atomCount)
            case "ENDMDL":
                finishModel()
                builder = ModelBuilder(number: modelNumber + 1, reserve: builder.atomCount)
            case "TER":
                builder.terminateChain()
            case "CONECT":
                // Columns 7-11 the atom, 12-31 up to four bonded atoms; later columns are old H-bond fields.
                guard let from = ByteFields.int(b, s + 6, min(e, s + 11)), from > 0 else { break }
                var col = 11
                while col + 5 <= min(length, 31) {
                    if let to = ByteFields.int(b, s + col, s + col + 5), to > 0, to != from {
                        conect.append((Int32(clamping: from), Int32(clamping: to)))
                    }
                    col += 5
                }
            case "HEADER":
                structure.metadata.classification = ByteFields.text(b, s + 10, min(e, s + 50))
                // The id is in columns 63-66; in old files columns 73-80 repeat it with a line number.
                if length >= 66 {
                    structure.metadata.id = ByteFields.text(b, s + 62, s + 66)
                    idCode = ShortName(structure.metadata.id)
                }
            case "TITLE":
                titleParts.append(recordText(b, s, e, idCode: idCode))
            case "COMPND":
                compoundParts.append(recordText(b, s, e, idCode: idCode))
            case "SOURCE":
                sourceParts.append(recordText(b, s, e, idCode: idCode))
            case "AUTHOR":
                authorParts.append(recordText(b, s, e, idCode: idCode))
            case "KEYWDS":
                keywordParts.append(recordText(b, s, e, idCode: idCode))
            case "EXPDTA":
                structure.metadata.method = recordText(b, s, e, idCode: idCode)
            case "REMARK":
                let number = ByteFields.int(b, s + 6, min(e, s + 10))
                if number == 2, length > 22, ByteFields.text(b, s + 11, s + 22) == "RESOLUTION." {
                    // REMARK   2 RESOLUTION. 1.74 ANGSTROMS. (the number's columns vary between writers)
                    let rest = recordText(b, s, e, idCode: idCode).dropFirst("RESOLUTION.".count)
                    if let word = rest.split(separator: " ").first, let v = Float(word), v.isFinite, v > 0 {
                        structure.metadata.resolution = v
                    }
                } else if number == 350 {
                    remark350.read(Substring(recordText(b, s, e, idCode: idCode)))
                }
            case "MODRES":
                // MODRES 4TRA 2MG A   10    G  2N-METHYLGUANOSINE...: residue name 13-15, standard name 25-27.
                if length >= 27 {
                    let name = ShortName(b, s + 12, s + 15), parent = ShortName(b, s + 24, s + 27)
                    if !name.isEmpty && !parent.isEmpty { structure.statedModifications[name] = parent }
                }
            case "SEQRES":
                // Chain in column 12, residue names from column 20 in 4-column fields.
                if length >= 20 {
                    let chain = ByteFields.text(b, s + 11, s + 12)
                    if seqres[chain] == nil { seqresOrder.append(chain) }
                    let names = ByteFields.text(b, s + 19, min(e, s + 70)).split(separator: " ").map(String.init)
                    seqres[chain, default: []] += names
                }
            case "HETNAM":
                // Continuation in 9-10, the component 12-14, its name from 16.
                if length >= 16 {
                    let id = ByteFields.text(b, s + 11, s + 14)
                    let text = ByteFields.text(b, s + 15, min(e, s + 70))
                    if let old = hetnam[id] { hetnam[id] = old + (old.hasSuffix("-") ? "" : " ") + text } else { hetnam[id] = text }
                }
            case "HELIX":
                // Chain 20, start 22-25 and 26 (insertion), end chain 32, end 34-37 and 38.
                if length >= 38, let a = ByteFields.int(b, s + 21, s + 25), let z = ByteFields.int(b, s + 33, s + 37) {
                    structure.secondaryStructure.append(SecondaryStructureRange(
                        kind: .helix, chain: ByteFields.text(b, s + 19, s + 20), start: Int32(clamping: a), startInsertion: insertion(b[s + 25]),
                        end: Int32(clamping: z), endInsertion: insertion(b[s + 37])))
                }
            case "SHEET":
                // Chain 22, start 23-26 and 27, end chain 33, end 34-37 and 38.
                if length >= 38, let a = ByteFields.int(b, s + 22, s + 26), let z = ByteFields.int(b, s + 33, s + 37) {
                    structure.secondaryStructure.append(SecondaryStructureRange(
                        kind: .strand, chain: ByteFields.text(b, s + 21, s + 22), start: Int32(clamping: a), startInsertion: insertion(b[s + 26]),
                        end: Int32(clamping: z), endInsertion: insertion(b[s + 37])))
                }
            case "END":
                break
            default:
                break
            }
        }
        finishModel()
        // CONECT records stand after the last ENDMDL in multi-model files: they bond every model.
        for m in structure.models.indices {
            structure.models[m].explicitBonds = resolveConect(conect, in: structure.models[m])
        }
        structure.assemblies = remark350.assemblies()
        structure.componentNames = hetnam
        structure.entities = compoundEntities(compoundParts, seqres: seqres, order: seqresOrder)
        // Each chain knows its entity (selections `entity 1`, colours by entity), by author id.
        var entityOf: [String: String] = [:]
        for e in structure.entities { for c in e.chains where entityOf[c] == nil { entityOf[c] = e.id } }
        if !entityOf.isEmpty {
            for m in structure.models.indices {
                for c in structure.models[m].chains.indices {
                    if let e = entityOf[structure.models[m].chains[c].id], structure.models[m].chains[c].entity.isEmpty {
                        structure.models[m].chains[c].entity = e
                    }
                }
            }
        }
        structure.metadata.compound = joinContinuation(compoundParts)
        // Files from before TITLE existed (1996) name their content in COMPND.
        structure.metadata.title = titleParts.isEmpty ? structure.metadata.compound : joinContinuation(titleParts)
        structure.metadata.source = joinContinuation(sourceParts)
        structure.metadata.authors = joinContinuation(authorParts)
        structure.metadata.keywords = joinContinuation(keywordParts)
        guard !structure.models.isEmpty else {
            throw StructureError(file: source, line: nil, message: "no ATOM or HETATM records: not a structure")
        }
        return structure
    }

    /// The molecules COMPND lists (MOL_ID, MOLECULE, CHAIN), with SEQRES sequences; where COMPND
    /// has no MOL_ID, one entity a SEQRES chain.
    static func compoundEntities(_ parts: [String], seqres: [String: [String]], order: [String]) -> [Entity] {
        var entities: [Entity] = []
        // Tokens `KEY: value;` over the joined continuation lines.
        let text = parts.map { $0.count > 0 && $0.first!.isNumber ? String($0.drop(while: { !$0.isWhitespace })) : $0 }.joined(separator: " ")
        for item in text.split(separator: ";") {
            guard let colon = item.firstIndex(of: ":") else { continue }
            let key = item[..<colon].trimmingCharacters(in: .whitespaces).uppercased()
            let value = item[item.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            switch key {
            case "MOL_ID": entities.append(Entity(id: value, type: "polymer", description: ""))
            case "MOLECULE": if !entities.isEmpty { entities[entities.count - 1].description = value }
            case "CHAIN":
                if !entities.isEmpty {
                    entities[entities.count - 1].chains = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                        .map { $0 == "NULL" ? "" : $0 }
                }
            default: break
            }
        }
        if entities.isEmpty {
            // No MOL_ID: chains with the same SEQRES sequence are one entity, in SEQRES order (as
            // wwPDB's remediation groups them).
            var bySequence: [[String]: Int] = [:]
            for chain in order {
                let names = seqres[chain] ?? [chain]
                if let k = bySequence[names] {
                    entities[k].chains.append(chain)
                } else {
                    bySequence[names] = entities.count
                    entities.append(Entity(id: String(entities.count + 1), type: "polymer", description: "", chains: [chain]))
                }
            }
        }
        for i in entities.indices {
            guard let chain = entities[i].chains.first, let names = seqres[chain] else { continue }
            entities[i].sequence = String(names.map { ResidueLetters.letter(ShortName($0)) ?? "X" })
            entities[i].polymerType = names.contains(where: { ResidueLetters.aminoAcid(ShortName($0)) }) ? "polypeptide(L)"
                : names.contains(where: { ["DA", "DC", "DG", "DT"].contains($0) }) ? "polydeoxyribonucleotide" : "polyribonucleotide"
        }
        return entities.filter { !$0.chains.isEmpty || $0.sequence != nil }
    }

    /// REMARK 350's biomolecules: each `APPLY THE FOLLOWING TO CHAINS:` with the BIOMT operators after it.
    struct Remark350 {
        var assemblyList: [Assembly] = []
        var chains: [String] = []
        var collectingChains = false
        var rows: [Int: [Double]] = [:]
        var operators: [(String, Assembly.Operator)] = []

        mutating func read(_ line: Substring) {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.hasPrefix("BIOMOLECULE:") {
                close()
                let id = text.dropFirst("BIOMOLECULE:".count).trimmingCharacters(in: .whitespaces)
                assemblyList.append(Assembly(id: id, details: "", generators: [], operators: [:], byAuthorChain: true))
            } else if text.hasPrefix("AUTHOR DETERMINED BIOLOGICAL UNIT:") || text.hasPrefix("SOFTWARE DETERMINED QUATERNARY STRUCTURE:") {
                if !assemblyList.isEmpty && assemblyList[assemblyList.count - 1].details.isEmpty {
                    let value = text.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
                    assemblyList[assemblyList.count - 1].details = (text.hasPrefix("AUTHOR") ? "author_defined_assembly " : "software_defined_assembly ") + value.lowercased()
                }
            } else if text.hasPrefix("APPLY THE FOLLOWING TO CHAINS:") || (collectingChains && text.hasPrefix("AND CHAINS:")) {
                if !text.hasPrefix("AND") { closeGenerator() }
                let list = text.split(separator: ":", maxSplits: 1).last ?? ""
                chains += list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                collectingChains = true
            } else if text.hasPrefix("BIOMT") {
                collectingChains = false
                let fields = text.split(separator: " ")
                guard fields.count >= 6, let row = Int(fields[0].dropFirst(5)), (1...3).contains(row) else { return }
                let values = fields[2...5].compactMap { Double($0) }
                guard values.count == 4, values.allSatisfy(\.isFinite) else { return }
                rows[row] = values
                if row == 3, let r1 = rows[1], let r2 = rows[2] {
                    operators.append((String(fields[1]), Assembly.Operator(rotation: [r1[0], r1[1], r1[2], r2[0], r2[1], r2[2], values[0], values[1], values[2]],
                                                                           translation: [r1[3], r2[3], values[3]])))
                    rows = [:]
                }
            } else {
                collectingChains = false
            }
        }

        mutating func closeGenerator() {
            guard !assemblyList.isEmpty, !chains.isEmpty, !operators.isEmpty else { chains = []; operators = []; return }
            let a = assemblyList.count - 1
            // A second generator may reuse an operator's number for another matrix: that one is told apart.
            var names: [[String]] = []
            for (name, op) in operators {
                var key = name
                if let known = assemblyList[a].operators[key], known != op { key = "\(assemblyList[a].generators.count + 1).\(name)" }
                assemblyList[a].operators[key] = op
                names.append([key])
            }
            assemblyList[a].generators.append(.init(operators: names, chains: chains))
            chains = []
            operators = []
        }

        mutating func close() { closeGenerator() }

        mutating func assemblies() -> [Assembly] {
            close()
            return assemblyList.filter { !$0.generators.isEmpty }
        }
    }

    /// An insertion code byte, 0 for none.
    @inline(__always)
    static func insertion(_ byte: UInt8) -> UInt8 { byte == 0x20 ? 0 : byte }

    @inline(__always)
    static func isBlankField(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Bool {
        var i = start
        while i < end { if b[i] != 0x20 { return false }; i += 1 }
        return true
    }

    static func recordName(_ b: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int) -> String {
        var end = min(e, s + 6)
        while end > s && b[end - 1] == 0x20 { end -= 1 }
        return String(decoding: UnsafeBufferPointer(rebasing: b[s..<end]), as: UTF8.self)
    }

    /// True when columns 73-80 hold an old-style id and line number ("1HPV 186"), not segid, element and charge.
    @inline(__always)
    static func lineIDInColumns73(_ b: UnsafeBufferPointer<UInt8>, _ s: Int, _ length: Int, idCode: ShortName) -> Bool {
        guard length >= 80, idCode.length == 4 else { return false }
        return ShortName(b, s + 72, s + 76) == idCode && ByteFields.isDigit(b[s + 79])
    }

    /// PDB formal charge, "2+" or "1-" in columns 79-80.
    static func formalCharge(_ digit: UInt8, _ sign: UInt8) -> Int8 {
        guard ByteFields.isDigit(digit) else { return 0 }
        let v = Int8(digit - 0x30)
        if sign == 0x2D { return -v }
        if sign == 0x2B { return v }
        return 0
    }

    /// The element from a four-column atom name, as the PDB convention places it: a one-letter
    /// element sits in column 14, a two-letter one starts in column 13 ("CA  " is calcium,
    /// " CA " an alpha carbon); a digit in column 13 is a hydrogen's number ("1HB "), and
    /// hydrogens with four-character names start in column 13 ("HD21", "HO5'").
    static func inferElement(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, residueName: ShortName, hetero: Bool) -> Element {
        let c13 = b[start], c14 = b[start + 1], c15 = b[start + 2], c16 = b[start + 3]
        if c13 == 0x20 || ByteFields.isDigit(c13) {
            return Element.symbol(c14) ?? Element.symbol(c15) ?? .unknown
        }
        guard Element.isLetter(c13) else { return .unknown }
        let upper13 = Element.upper(c13)
        let nameLength = c16 != 0x20 ? 4 : c15 != 0x20 ? 3 : c14 != 0x20 ? 2 : 1
        if upper13 == 0x48 && nameLength >= 3 { return .hydrogen }
        // In polymer records a name in column 13 is a misplaced organic atom, not an ion.
        if !hetero, [0x43, 0x4E, 0x4F, 0x53, 0x50, 0x48].contains(upper13), let one = Element.symbol(c13) { return one }
        if Element.isLetter(c14), let two = Element.symbol(c13, c14) { return two }
        return Element.symbol(c13) ?? .unknown
    }

    static func resolveConect(_ pairs: [(Int32, Int32)], in model: Model) -> [Bond] {
        guard !pairs.isEmpty, !model.atoms.isEmpty else { return [] }
        // Serial to atom index (the first atom of a serial): a table over the serials' span where
        // it is dense, as files number their atoms; a dictionary where it is not.
        var lo = Int32.max, hi = Int32.min
        for atom in model.atoms {
            lo = min(lo, atom.serial)
            hi = max(hi, atom.serial)
        }
        let span = Int(hi) - Int(lo) + 1
        var table: [Int32] = []
        var bySerial: [Int32: Int32] = [:]
        if span <= 4 * model.atoms.count + 1024 {
            table = [Int32](repeating: -1, count: span)
            for (i, atom) in model.atoms.enumerated() where table[Int(atom.serial) - Int(lo)] < 0 {
                table[Int(atom.serial) - Int(lo)] = Int32(i)
            }
        } else {
            bySerial.reserveCapacity(model.atoms.count)
            for (i, atom) in model.atoms.enumerated() where bySerial[atom.serial] == nil {
                bySerial[atom.serial] = Int32(i)
            }
        }
        func index(_ serial: Int32) -> Int32? {
            guard !table.isEmpty else { return bySerial[serial] }
            guard serial >= lo, serial <= hi else { return nil }
            let i = table[Int(serial) - Int(lo)]
            return i < 0 ? nil : i
        }
        var seen = Set<UInt64>()
        var bonds: [Bond] = []
        for (from, to) in pairs {
            guard let a = index(from), let b = index(to) else { continue }
            let bond = Bond(a, b, order: 1, source: .explicit)
            let key = UInt64(UInt32(bond.a)) << 32 | UInt64(UInt32(bond.b))
            if seen.insert(key).inserted { bonds.append(bond) }
        }
        // Each bond once, whichever end listed it; CONECT's repeated partners (old double-bond
        // notation) are not read as orders.
        return bonds
    }

    static func joinContinuation(_ parts: [String]) -> String {
        var out = ""
        for part in parts where !part.isEmpty {
            // A word broken at the line end carries a hyphen; otherwise lines join with a space.
            if out.isEmpty { out = part } else { out += (out.hasSuffix("-") ? "" : " ") + part }
        }
        return out
    }

    /// Columns 11-80 of a text record, less an old-style id and line number in columns 73-80.
    static func recordText(_ b: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int, idCode: ShortName) -> String {
        let end = lineIDInColumns73(b, s, e - s, idCode: idCode) ? s + 72 : min(e, s + 80)
        return ByteFields.text(b, s + 10, end)
    }
}

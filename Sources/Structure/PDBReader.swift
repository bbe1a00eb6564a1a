import Core
/// Reads PDB files by fixed columns (wwPDB format 3.3), including old layouts with an id
/// and line number in columns 73-80, blank atom names, CRLF endings and hybrid-36 numbers.
public enum PDBReader {
    /// `firstModelOnly`: the atom lines of later models are passed over unread (a picture of the first).
    public static func read(_ b: UnsafeBufferPointer<UInt8>, source: String, firstModelOnly: Bool = false) throws -> Structure {
        try read(b, source: source, readAhead: .whereLarge, firstModelOnly: firstModelOnly)
    }

    /// Whether the atom lines are read ahead on the other cores (`PDBAtomReadAhead`): in files of
    /// `PDBAtomReadAhead.minimumBytes` and more, never (every line on this thread), or whatever the
    /// size (tests and the fuzzer compare the two ways on small inputs).
    enum ReadAhead {
        case whereLarge, never, always
    }

    /// `filling`: `b` is still being inflated, and its lines are read as they come.
    static func read(_ b: UnsafeBufferPointer<UInt8>, source: String, readAhead: ReadAhead, firstModelOnly: Bool = false,
                     filling: InflatingBytes? = nil) throws -> Structure {
        var structure = Structure(format: .pdb)
        var lines = LineCursor(b, filling: filling)
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
        // The atom lines of a large file are read ahead on the other cores.
        var ahead = readAhead == .never ? nil : PDBAtomReadAhead(b, separator: lines.separatorByte, anySize: readAhead == .always, filling: filling)
        defer { ahead?.stop() }

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
            let kind = PDBAtomRecord.kind(b, s, length)
            if kind.atom {
                // Past the first model, where only it is read: its lines are not, nor read ahead.
                if firstModelOnly && !structure.models.isEmpty {
                    ahead?.stop()
                    ahead = nil
                    continue
                }
                var record: PDBAtomRecord
                if let read = ahead?.take(at: s, idCode: idCode) {
                    record = read
                } else {
                    do {
                        record = try PDBAtomRecord.read(b, s, length, hetero: kind.hetero, idCode: idCode)
                    } catch {
                        throw fail(lines.lineNumber, error.message)
                    }
                }
                record.atom.serial = record.hasSerial ? record.atom.serial : lastSerial + 1
                lastSerial = record.atom.serial
                builder.add(record.atom, chain: record.chain, residueName: record.residueName, residueNumber: record.residueNumber,
                            insertionCode: record.insertionCode, hetero: record.hetero)
                continue
            }
            switch Record.key(b, s, e) {
            case Record.model:
                finishModel()
                modelNumber = ByteFields.int(b, s + 10, min(e, s + 14)) ?? (structure.models.count + 1)
                builder = ModelBuilder(number: modelNumber, reserve: builder.atomCount)
            case Record.endmdl:
                finishModel()
                builder = ModelBuilder(number: modelNumber + 1, reserve: builder.atomCount)
            case Record.ter:
                builder.terminateChain()
            case Record.conect:
                // Columns 7-11 the atom, 12-31 up to four bonded atoms; later columns are old H-bond fields.
                guard let from = ByteFields.int(b, s + 6, min(e, s + 11)), from > 0 else { break }
                var col = 11
                while col + 5 <= min(length, 31) {
                    if let to = ByteFields.int(b, s + col, s + col + 5), to > 0, to != from {
                        conect.append((Int32(clamping: from), Int32(clamping: to)))
                    }
                    col += 5
                }
            case Record.header:
                structure.metadata.classification = ByteFields.text(b, s + 10, min(e, s + 50))
                // The id is in columns 63-66; in old files columns 73-80 repeat it with a line number.
                if length >= 66 {
                    structure.metadata.id = ByteFields.text(b, s + 62, s + 66)
                    idCode = ShortName(structure.metadata.id)
                }
            case Record.title:
                titleParts.append(recordText(b, s, e, idCode: idCode))
            case Record.compnd:
                compoundParts.append(recordText(b, s, e, idCode: idCode))
            case Record.source:
                sourceParts.append(recordText(b, s, e, idCode: idCode))
            case Record.author:
                authorParts.append(recordText(b, s, e, idCode: idCode))
            case Record.keywds:
                keywordParts.append(recordText(b, s, e, idCode: idCode))
            case Record.expdta:
                structure.metadata.method = recordText(b, s, e, idCode: idCode)
            case Record.remark:
                let number = ByteFields.int(b, s + 6, min(e, s + 10))
                if number == 2, length > 22, ByteFields.text(b, s + 11, s + 22) == "RESOLUTION." {
                    // REMARK   2 RESOLUTION. 1.74 ANGSTROMS. (the number's columns vary between writers)
                    let rest = recordText(b, s, e, idCode: idCode).dropFirst("RESOLUTION.".count)
                    if let word = rest.split(separator: " ").first, let v = Float(word), v.isFinite, v > 0 {
                        structure.metadata.resolution = v
                    }
                } else if number == 3, structure.metadata.resolution == nil, length > 40 {
                    // REMARK   3   RESOLUTION RANGE HIGH (ANGSTROMS) : 1.50 (Refmac, phenix and
                    // PDB-REDO write this where they write no REMARK 2, which comes before it).
                    let text = recordText(b, s, e, idCode: idCode)
                    if text.hasPrefix("RESOLUTION RANGE HIGH"), let colon = text.lastIndex(of: ":"),
                       let v = Float(text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)), v.isFinite, v > 0 {
                        structure.metadata.resolution = v
                    }
                } else if number == 900 {
                    // REMARK 900 RELATED ID: EMD-8249   RELATED DB: EMDB
                    let text = recordText(b, s, e, idCode: idCode)
                    if text.uppercased().contains("RELATED DB: EMDB"), let id = text.split(separator: " ").first(where: { $0.uppercased().hasPrefix("EMD-") }),
                       let emd = Metadata.emdbID(String(id)), !structure.metadata.relatedMaps.contains(emd) {
                        structure.metadata.relatedMaps.append(emd)
                    }
                } else if number == 350 {
                    remark350.read(b, s + 10, lineIDInColumns73(b, s, length, idCode: idCode) ? s + 72 : min(e, s + 80))
                }
            case Record.modres:
                // MODRES 4TRA 2MG A   10    G  2N-METHYLGUANOSINE...: residue name 13-15, standard name 25-27.
                if length >= 27 {
                    let name = ShortName(b, s + 12, s + 15), parent = ShortName(b, s + 24, s + 27)
                    if !name.isEmpty && !parent.isEmpty { structure.statedModifications[name] = parent }
                }
            case Record.seqres:
                // Chain in column 12, residue names from column 20 in 4-column fields.
                if length >= 20 {
                    let chain = ByteFields.text(b, s + 11, s + 12)
                    if seqres[chain] == nil { seqresOrder.append(chain) }
                    let names = ByteFields.words(b, s + 19, min(e, s + 70))
                    seqres[chain, default: []] += names
                }
            case Record.hetnam:
                // Continuation in 9-10, the component 12-14, its name from 16.
                if length >= 16 {
                    let id = ByteFields.text(b, s + 11, s + 14)
                    let text = ByteFields.text(b, s + 15, min(e, s + 70))
                    if let old = hetnam[id] { hetnam[id] = old + (old.hasSuffix("-") ? "" : " ") + text } else { hetnam[id] = text }
                }
            case Record.helix:
                // Chain 20, start 22-25 and 26 (insertion), end chain 32, end 34-37 and 38.
                if length >= 38, let a = ByteFields.int(b, s + 21, s + 25), let z = ByteFields.int(b, s + 33, s + 37) {
                    structure.secondaryStructure.append(SecondaryStructureRange(
                        kind: .helix, chain: ByteFields.text(b, s + 19, s + 20), start: Int32(clamping: a), startInsertion: insertion(b[s + 25]),
                        end: Int32(clamping: z), endInsertion: insertion(b[s + 37])))
                }
            case Record.sheet:
                // Chain 22, start 23-26 and 27, end chain 33, end 34-37 and 38.
                if length >= 38, let a = ByteFields.int(b, s + 22, s + 26), let z = ByteFields.int(b, s + 33, s + 37) {
                    structure.secondaryStructure.append(SecondaryStructureRange(
                        kind: .strand, chain: ByteFields.text(b, s + 21, s + 22), start: Int32(clamping: a), startInsertion: insertion(b[s + 26]),
                        end: Int32(clamping: z), endInsertion: insertion(b[s + 37])))
                }
            case Record.end:
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
        // AlphaFold DB's PDB files say so in their title ("ALPHAFOLD MONOMER V2.0 PREDICTION FOR ..."):
        // their B-factor column is pLDDT, as ModelCIF's `_ma_qa_metric` says in the mmCIF.
        let upperTitle = structure.metadata.title.uppercased()
        if upperTitle.contains("ALPHAFOLD") && upperTitle.contains("PREDICTION") { structure.metadata.predicted = true }
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
            let key = item[..<colon].trimmedBlanks.uppercased()
            let value = String(item[item.index(after: colon)...].trimmedBlanks)
            switch key {
            case "MOL_ID": entities.append(Entity(id: value, type: "polymer", description: ""))
            case "MOLECULE": if !entities.isEmpty { entities[entities.count - 1].description = value }
            case "CHAIN":
                if !entities.isEmpty {
                    entities[entities.count - 1].chains = value.split(separator: ",").map { String($0.trimmedBlanks) }
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

        /// One REMARK 350 record's text (columns 11 on, without an old line id), read as bytes.
        mutating func read(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) {
            var (s, e) = (start, min(end, b.count))
            while s < e && ByteFields.isBlank(b[s]) { s += 1 }
            while e > s && ByteFields.isBlank(b[e - 1]) { e -= 1 }
            func has(_ prefix: StaticString) -> Bool {
                let n = prefix.utf8CodeUnitCount
                guard e - s >= n else { return false }
                for i in 0..<n where b[s + i] != prefix.utf8Start[i] { return false }
                return true
            }
            /// The text after the first colon, trimmed.
            func afterColon() -> (Int, Int) {
                var i = s
                while i < e && b[i] != 0x3A { i += 1 }
                return i < e ? (i + 1, e) : (s, e)
            }
            if has("BIOMOLECULE:") {
                close()
                let id = ByteFields.text(b, s + 12, e)
                assemblyList.append(Assembly(id: id, details: "", generators: [], operators: [:], byAuthorChain: true))
            } else if has("AUTHOR DETERMINED BIOLOGICAL UNIT:") || has("SOFTWARE DETERMINED QUATERNARY STRUCTURE:") {
                if !assemblyList.isEmpty && assemblyList[assemblyList.count - 1].details.isEmpty {
                    let (vs, ve) = afterColon()
                    assemblyList[assemblyList.count - 1].details = (has("AUTHOR") ? "author_defined_assembly " : "software_defined_assembly ")
                        + ByteFields.text(b, vs, ve).lowercased()
                }
            } else if has("APPLY THE FOLLOWING TO CHAINS:") || (collectingChains && has("AND CHAINS:")) {
                if !has("AND") { closeGenerator() }
                var (i, le) = afterColon()
                while i < le {
                    var j = i
                    while j < le && b[j] != 0x2C { j += 1 }
                    let chain = ByteFields.text(b, i, j)
                    if !chain.isEmpty { chains.append(chain) }
                    i = j + 1
                }
                collectingChains = true
            } else if has("BIOMT") {
                collectingChains = false
                // BIOMTn, the operator's number, then the row's three rotation terms and its translation.
                var fields: [(Int, Int)] = []
                var i = s
                while i < e && fields.count < 6 {
                    while i < e && b[i] == 0x20 { i += 1 }
                    let f = i
                    while i < e && b[i] != 0x20 { i += 1 }
                    if i > f { fields.append((f, i)) }
                }
                guard fields.count >= 6, let row = ByteFields.int(b, fields[0].0 + 5, fields[0].1), (1...3).contains(row) else { return }
                let values = fields[2...5].compactMap { ByteFields.double(b, $0.0, $0.1) }
                guard values.count == 4, values.allSatisfy(\.isFinite) else { return }
                rows[row] = values
                if row == 3, let r1 = rows[1], let r2 = rows[2] {
                    let name = ByteFields.text(b, fields[1].0, fields[1].1)
                    operators.append((name, Assembly.Operator(rotation: [r1[0], r1[1], r1[2], r2[0], r2[1], r2[2], values[0], values[1], values[2]],
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
            // Copies counted across the file, as for mmCIF: past the limit an assembly is listed with the reason, not built.
            var copiesLeft = AssemblyBuilder.maxCopies
            return assemblyList.filter { !$0.generators.isEmpty }.map { a in
                let copies = a.generators.reduce(0) { $0 + $1.operators.count }
                guard copies <= copiesLeft else {
                    var refused = a
                    refused.generators = []
                    refused.problem = "the file's assemblies list more than \(AssemblyBuilder.maxCopies) copies in all (max-copies)"
                    return refused
                }
                copiesLeft -= copies
                return a
            }
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

    /// Record names as the six bytes of columns 1-6 (blank-padded) in one integer: a line's record
    /// is told by one comparison a case, without making a string of it.
    enum Record {
        @inline(__always)
        static func key(_ b: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int) -> UInt64 {
            var k: UInt64 = 0
            for i in 0..<6 { k |= UInt64(s + i < e ? b[s + i] : 0x20) << (8 * i) }
            return k
        }
        static func key(_ name: StaticString) -> UInt64 {
            var k: UInt64 = 0
            for i in 0..<6 { k |= UInt64(i < name.utf8CodeUnitCount ? name.utf8Start[i] : 0x20) << (8 * i) }
            return k
        }
        // Written out, not `key("MODEL")`: a global worked out at run time is reached through
        // swift_once at every use, up to 17 times a line in the switch (3% of reading 1crn).
        // `PDBReaderTests.testRecordKeys` checks each against `key(_:)`.
        static let model: UInt64 = 0x204C45444F4D // "MODEL"
        static let endmdl: UInt64 = 0x4C444D444E45 // "ENDMDL"
        static let ter: UInt64 = 0x202020524554 // "TER"
        static let conect: UInt64 = 0x5443454E4F43 // "CONECT"
        static let header: UInt64 = 0x524544414548 // "HEADER"
        static let title: UInt64 = 0x20454C544954 // "TITLE"
        static let compnd: UInt64 = 0x444E504D4F43 // "COMPND"
        static let source: UInt64 = 0x454352554F53 // "SOURCE"
        static let author: UInt64 = 0x524F48545541 // "AUTHOR"
        static let keywds: UInt64 = 0x53445759454B // "KEYWDS"
        static let expdta: UInt64 = 0x415444505845 // "EXPDTA"
        static let remark: UInt64 = 0x4B52414D4552 // "REMARK"
        static let modres: UInt64 = 0x534552444F4D // "MODRES"
        static let seqres: UInt64 = 0x534552514553 // "SEQRES"
        static let hetnam: UInt64 = 0x4D414E544548 // "HETNAM"
        static let helix: UInt64 = 0x2058494C4548 // "HELIX"
        static let sheet: UInt64 = 0x205445454853 // "SHEET"
        static let end: UInt64 = 0x202020444E45 // "END"
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

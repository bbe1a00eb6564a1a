/// Reads PQR (PDB2PQR, APBS): ATOM and HETATM records like PDB's, but with the fields separated
/// by blanks rather than in fixed columns, and occupancy and B-factor replaced by a partial
/// charge and a radius: `ATOM serial name resName [chain] resSeq x y z charge radius`. The radii
/// are kept (`Model.radii`) for spacefill; MODEL/ENDMDL and TER work as in PDB.
public enum PQRReader {
    public static func read(_ b: UnsafeBufferPointer<UInt8>, source: String) throws -> Structure {
        var structure = Structure(format: .pqr)
        var lines = LineCursor(b)
        var builder = ModelBuilder(number: 1)
        var radii: [Float] = []
        func finishModel() {
            guard builder.atomCount > 0 else { return }
            var model = builder.finish()
            model.radii = radii
            structure.models.append(model)
            builder = ModelBuilder(number: structure.models.count + 1)
            radii = []
        }
        while let r = lines.next() {
            let f = splitFields(b, r)
            guard let first = f.first else { continue }
            let record = ByteFields.text(b, first.lowerBound, min(first.upperBound, first.lowerBound + 6))
            switch record {
            case "ATOM", "HETATM":
                // With a chain id there are 11 fields, without one 10; extra trailing fields are ignored.
                guard f.count >= 10 else {
                    throw StructureError(file: source, line: lines.lineNumber,
                                         message: "expected ATOM serial name residue [chain] number x y z charge radius, found \(f.count) fields")
                }
                // A chain field is not a number, or is followed by a whole residue number (chain "1").
                let hasChain = f.count >= 11 && (ByteFields.float(b, f[4].lowerBound, f[4].upperBound) == nil
                                                 || ByteFields.int(b, f[5].lowerBound, f[5].upperBound) != nil)
                let k = hasChain ? 5 : 4
                func number(_ i: Int, _ what: String) throws -> Float {
                    guard let v = ByteFields.float(b, f[i].lowerBound, f[i].upperBound), v.isFinite else {
                        throw StructureError(file: source, line: lines.lineNumber, message: "bad \(what) '\(lineText(b, f[i]))' (field \(i + 1))")
                    }
                    return v
                }
                let x = try number(k + 1, "x coordinate"), y = try number(k + 2, "y coordinate"), z = try number(k + 3, "z coordinate")
                let radius = try number(k + 5, "radius")
                guard let resSeq = ByteFields.int(b, f[k].lowerBound, f[k].upperBound) else {
                    throw StructureError(file: source, line: lines.lineNumber, message: "bad residue number '\(lineText(b, f[k]))' (field \(k + 1))")
                }
                let name = ShortName(b, f[2].lowerBound, min(f[2].upperBound, f[2].lowerBound + 4))
                let residueName = ShortName(b, f[3].lowerBound, min(f[3].upperBound, f[3].lowerBound + 4))
                let chain = hasChain ? ShortName(b, f[4].lowerBound, min(f[4].upperBound, f[4].lowerBound + 4)) : ShortName.empty
                let serial = Int32(clamping: ByteFields.int(b, f[1].lowerBound, f[1].upperBound) ?? builder.atomCount + 1)
                let atom = Atom(position: SIMD3(x, y, z), serial: serial, name: name,
                                element: element(b, f[2], residue: residueName))
                builder.add(atom, chain: chain, residueName: residueName, residueNumber: Int32(clamping: resSeq), insertionCode: 0,
                            hetero: record == "HETATM")
                radii.append(max(0, radius))
            case "MODEL":
                finishModel()
            case "ENDMDL":
                finishModel()
            case "TER":
                builder.terminateChain()
            default:
                continue
            }
        }
        finishModel()
        guard !structure.models.isEmpty else {
            throw StructureError(file: source, line: nil, message: "no ATOM or HETATM records: not a PQR file")
        }
        return structure
    }

    /// The element of an atom name with no column to place it: leading digits dropped ("1HD1");
    /// a name that is the residue's own (an ion such as "ZN" in "ZN") is a two-letter element;
    /// otherwise the first letter where it is one of the common ones, else the first two.
    static func element(_ b: UnsafeBufferPointer<UInt8>, _ field: Range<Int>, residue: ShortName) -> Element {
        var s = field.lowerBound
        while s < field.upperBound && b[s] >= 0x30 && b[s] <= 0x39 { s += 1 }
        guard s < field.upperBound else { return .unknown }
        let whole = ShortName(b, field.lowerBound, min(field.upperBound, field.lowerBound + 4))
        if whole == residue, field.upperBound - s >= 2, let two = Element.symbol(b[s], b[s + 1]) { return two }
        if [0x43, 0x4E, 0x4F, 0x53, 0x50, 0x48].contains(Element.upper(b[s])), let one = Element.symbol(b[s]) { return one }
        if field.upperBound - s >= 2, let two = Element.symbol(b[s], b[s + 1]) { return two }
        return Element.symbol(b[s]) ?? .unknown
    }
}

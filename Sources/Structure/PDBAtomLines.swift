import Core
import Foundation

/// An ATOM or HETATM record read on its own: everything in the line, nothing that depends on
/// the lines before it but the file's id code (old files repeat it in columns 73-76). A blank
/// serial is resolved by the reader, which knows the serial before.
struct PDBAtomRecord {
    var atom: Atom
    var chain: ShortName
    var residueName: ShortName
    var residueNumber: Int32
    var insertionCode: UInt8
    var hetero: Bool
    var hasSerial: Bool
    /// False for a line read ahead that failed: the reader reads it again to say why, by line.
    var isRead = true
    /// Where the line starts in the file, so that a record is only ever used for its own line.
    var offset: Int

    struct Failure: Error {
        var message: String
    }

    /// Reads the record on `b[s..<s+length]`; throws what is wrong with it, naming the columns.
    @inline(__always)
    static func read(_ b: UnsafeBufferPointer<UInt8>, _ s: Int, _ length: Int, hetero: Bool, idCode: ShortName) throws(Failure) -> PDBAtomRecord {
        guard length >= 54 else {
            throw Failure(message: "\(hetero ? "HETATM" : "ATOM") record is \(length) columns long; coordinates need columns 31-54")
        }
        let x = ByteFields.coordinate(b, end: s + 38), y = ByteFields.coordinate(b, end: s + 46)
        let z = ByteFields.coordinate(b, end: s + 54)
        guard let x, let y, let z, x.isFinite, y.isFinite, z.isFinite else {
            for (from, name, v) in [(31, "x", x), (39, "y", y), (47, "z", z)] where !(v?.isFinite ?? false) {
                throw Failure(message: "bad \(name) coordinate '\(ByteFields.text(b, s + from - 1, s + from + 7))' (columns \(from)-\(from + 7))")
            }
            throw Failure(message: "bad coordinates")
        }
        let serial = ByteFields.hybrid36(b, s + 6, s + 11)
        let residueName = ShortName(b, s + 17, s + 21)
        guard let resSeq = ByteFields.hybrid36(b, s + 22, s + 26) ?? (PDBReader.isBlankField(b, s + 22, s + 26) ? 0 : nil) else {
            throw Failure(message: "bad residue number '\(ByteFields.text(b, s + 22, s + 26))' (columns 23-26)")
        }
        let occupancy = length >= 60 ? ByteFields.fixedPoint6x2(b, end: s + 60) ?? 1 : 1
        let bFactor = length >= 66 ? ByteFields.fixedPoint6x2(b, end: s + 66) ?? 0 : 0
        var element: Element? = nil
        var charge: Int8 = 0
        if length >= 78 && !PDBReader.lineIDInColumns73(b, s, length, idCode: idCode) {
            element = Element.symbol(in: b, s + 76, s + 78)
            if length >= 80 { charge = PDBReader.formalCharge(b[s + 78], b[s + 79]) }
        }
        let atom = Atom(position: SIMD3(x, y, z), occupancy: occupancy, bFactor: bFactor, serial: Int32(clamping: serial ?? 0),
                        name: ShortName(b, s + 12, s + 16),
                        element: element ?? PDBReader.inferElement(b, s + 12, residueName: residueName, hetero: hetero),
                        altLoc: b[s + 16] == 0x20 ? 0 : b[s + 16], charge: charge)
        // Columns 18-20 hold the residue name; some programs spill a fourth letter into column 21.
        return PDBAtomRecord(atom: atom, chain: ShortName(b, s + 21, s + 22), residueName: residueName,
                             residueNumber: Int32(clamping: resSeq), insertionCode: b[s + 26] == 0x20 ? 0 : b[s + 26],
                             hetero: hetero, hasSerial: serial != nil, offset: s)
    }

    /// Whether a line is an ATOM or HETATM record, and which.
    @inline(__always)
    static func kind(_ b: UnsafeBufferPointer<UInt8>, _ s: Int, _ length: Int) -> (atom: Bool, hetero: Bool) {
        guard length >= 4 else { return (false, false) }
        let c0 = b[s], c1 = b[s + 1], c2 = b[s + 2], c3 = b[s + 3]
        let isAtom = c0 == 0x41 && c1 == 0x54 && c2 == 0x4F && c3 == 0x4D
        let isHetatm = c0 == 0x48 && c1 == 0x45 && c2 == 0x54 && c3 == 0x41 && length > 5 && b[s + 4] == 0x54 && b[s + 5] == 0x4D
        return (isAtom || isHetatm, isHetatm)
    }
}

/// Atom records read ahead on both cores, a window of the file at a time: the reader's loop
/// then only groups them into chains and residues, in order, and reads everything else. Each
/// window is cut at a line boundary into as many parts as there are cores; each part's lines
/// are read as the reader would read them (the same line ends), and a record that fails is
/// left for the reader to read again, so that its error names the line.
struct PDBAtomReadAhead {
    /// Files smaller than this are read on one thread: starting a second costs more than it saves.
    static let minimumBytes = 96 * 1024
    /// Text a window: about 12,000 atoms, so that the records waiting take a few megabytes at most.
    static let windowBytes = 1 << 20

    let bytes: UnsafeBufferPointer<UInt8>
    let separator: UInt8
    let parts: Int
    private(set) var idCode: ShortName
    /// Each part's records, and the next to hand out: part, then index in it.
    private var parted: [[PDBAtomRecord]] = []
    private var part = 0, next = 0
    private(set) var windowEnd = 0

    init?(_ bytes: UnsafeBufferPointer<UInt8>, separator: UInt8, idCode: ShortName) {
        let cores = Cores.active
        guard bytes.count >= Self.minimumBytes, cores >= 2 else { return nil }
        self.bytes = bytes
        self.separator = separator
        self.parts = min(cores, 4)
        self.idCode = idCode
    }

    /// The record of the atom line at `offset`, read ahead, or nil where the reader must read it
    /// itself (a failed record, a line not read ahead, a window read with another id code).
    @inline(__always)
    mutating func take(at offset: Int, idCode current: ShortName) -> PDBAtomRecord? {
        if offset >= windowEnd || current != idCode {
            guard current == idCode || offset >= windowEnd else { return nil }
            idCode = current
            fill(from: offset)
        }
        while part < parted.count && next == parted[part].count { part += 1; next = 0 }
        guard part < parted.count, parted[part][next].offset == offset else { return nil }
        defer { next += 1 }
        return parted[part][next].isRead ? parted[part][next] : nil
    }

    /// Reads the atom lines of the window starting at line start `start` on every core.
    private mutating func fill(from start: Int) {
        let end = lineBoundary(after: min(bytes.count, start + Self.windowBytes))
        var cutsFound = [start]
        for k in 1..<parts { cutsFound.append(max(cutsFound[k - 1], lineBoundary(after: start + (end - start) * k / parts))) }
        cutsFound.append(end)
        var results = [[PDBAtomRecord]](repeating: [], count: parts)
        let separator = separator, idCode = idCode, n = parts, cuts = cutsFound
        // The file's bytes are only read while the parts run; each part writes its own slot.
        nonisolated(unsafe) let b = bytes
        results.withUnsafeMutableBufferPointer { out in
            nonisolated(unsafe) let out = out
            DispatchQueue.concurrentPerform(iterations: n) { k in
                out[k] = Self.read(b, cuts[k], cuts[k + 1], separator: separator, idCode: idCode)
            }
        }
        parted = results
        part = 0
        next = 0
        windowEnd = end
    }

    /// The start of the line after the one holding `position` (or the end of the bytes).
    private func lineBoundary(after position: Int) -> Int {
        guard position < bytes.count, let base = bytes.baseAddress else { return bytes.count }
        if position > 0 && base[position - 1] == separator { return position }
        guard let hit = memchr(base + position, Int32(separator), bytes.count - position) else { return bytes.count }
        return base.distance(to: hit.assumingMemoryBound(to: UInt8.self)) + 1
    }

    /// The atom records of lines `start..<end`, with the reader's line ends.
    private static func read(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, separator: UInt8,
                             idCode: ShortName) -> [PDBAtomRecord] {
        guard start < end else { return [] }
        var records: [PDBAtomRecord] = []
        records.reserveCapacity((end - start) / 81 + 1)
        // The reader's own line ends, over this part.
        var lines = LineCursor(UnsafeBufferPointer(rebasing: b[start..<end]), separator: separator)
        while let range = lines.next() {
            let s = start + range.lowerBound, e = start + range.upperBound
            let kind = PDBAtomRecord.kind(b, s, e - s)
            guard kind.atom else { continue }
            do {
                records.append(try PDBAtomRecord.read(b, s, e - s, hetero: kind.hetero, idCode: idCode))
            } catch {
                records.append(PDBAtomRecord(atom: Atom(position: .zero, name: .empty, element: .unknown), chain: .empty,
                                             residueName: .empty, residueNumber: 0, insertionCode: 0, hetero: false,
                                             hasSerial: false, isRead: false, offset: s))
            }
        }
        return records
    }
}

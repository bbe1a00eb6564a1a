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
        var chain = ShortName(b, s + 21, s + 22)
        // Columns 73-80 hold segid, element and charge, unless an old file's id and line number.
        let segidAndElement = length >= 73 && (length >= 78 || chain.isEmpty) && !PDBReader.lineIDInColumns73(b, s, length, idCode: idCode)
        // A blank chain id and a segment id (columns 73-76, CHARMM, NAMD, MDAnalysis): the
        // segment is the chain, as ChimeraX reads it (CHARMM-GUI's segments PROA and PROB were
        // one chain).
        if chain.isEmpty, segidAndElement {
            var end = s + min(length, 76)
            while end > s + 72 && (b[end - 1] == 0x0D || b[end - 1] == 0x0A) { end -= 1 }
            chain = ShortName(b, s + 72, end)
        }
        if length >= 78 && segidAndElement {
            element = Element.symbol(in: b, s + 76, s + 78)
            if length >= 80 { charge = PDBReader.formalCharge(b[s + 78], b[s + 79]) }
        }
        let atom = Atom(position: SIMD3(x, y, z), occupancy: occupancy, bFactor: bFactor, serial: Int32(clamping: serial ?? 0),
                        name: ShortName(b, s + 12, s + 16),
                        element: element ?? PDBReader.inferElement(b, s + 12, residueName: residueName, hetero: hetero),
                        altLoc: b[s + 16] == 0x20 ? 0 : b[s + 16], charge: charge)
        // Columns 18-20 hold the residue name; some programs spill a fourth letter into column 21.
        return PDBAtomRecord(atom: atom, chain: chain, residueName: residueName,
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

/// Atom records read ahead on the other cores while the reader's loop groups the ones before
/// into chains and residues and reads everything else. The text from the first atom line is cut
/// into windows every `windowBytes`, each holding the lines that start in it (read to their ends,
/// past it), so that windows are cut before the bytes are there: over a file still being
/// inflated (`InflatingBytes`), each waits for its own. Helper threads (one fewer than the cores,
/// at most three) each take the next window nobody has taken, up to `windowsAhead` beyond the
/// reader; the reader reads a window itself when it reaches one nobody has taken yet, and, while
/// a helper reads the one it needs, the next one nobody has taken. So the two halves of the work
/// overlap and both cores stay busy (before, the reader waited while both read a window, and the
/// other core waited while the reader grouped it: 2axd's 1.3 MB in 1.1-1.35 ms against 1.4-1.8),
/// and nobody waits for a thread that has not started. Each window's lines are read as the reader
/// would read them (the same line ends), and a record that fails is left for the reader to
/// read again, so that its error names the line.
struct PDBAtomReadAhead {
    /// Files smaller than this are read on one thread: waking a helper costs more than it saves.
    /// Measured on the corpus (`measure-parse --repeats 301`, four alternating runs), files of
    /// 107-208 KB (1aki, 1d66, 1dix, 1k6p, 2BEG, Insulin, TransferRNA) load in 128-220 µs on one
    /// thread against 164-342 µs with a helper; from about 290 KB (1LCD, 3pqr) the helper wins.
    static let minimumBytes = 256 * 1024
    /// Text a window: about 800 atom lines, so that a helper is seldom waited for.
    static let windowBytes = 64 * 1024
    /// Windows read ahead of the reader at most: a megabyte of text, about 1.2 MB of records.
    static let windowsAhead = 16

    let bytes: UnsafeBufferPointer<UInt8>
    let separator: UInt8
    let helpers: Int
    let filling: InflatingBytes?
    /// The id code the windows were read with: the reader's when it asked first (its HEADER comes
    /// before the atoms). A file whose id code changes after that is read on by the reader alone.
    private var idCode = ShortName.empty
    private var shared: Windows?
    private var stopped = false
    /// The reader's window, its records, and the next record to hand out.
    private var current = 0
    private var records: [PDBAtomRecord] = []
    private var next = 0
    /// Where the reader's window ends (0 before the first, `Int.max` once the read-ahead ended).
    private var windowEnd = 0

    /// Nil on one core, or below `minimumBytes` unless `anySize`. `filling`: the bytes are still
    /// being inflated into `bytes`.
    init?(_ bytes: UnsafeBufferPointer<UInt8>, separator: UInt8, anySize: Bool = false, filling: InflatingBytes? = nil) {
        let cores = Cores.active
        guard anySize || bytes.count >= Self.minimumBytes, cores >= 2 else { return nil }
        self.bytes = bytes
        self.separator = separator
        self.filling = filling
        self.helpers = min(cores, 4) - 1
    }

    /// Stops the helpers, and waits for any reading a window: the reader calls it before it
    /// returns (or throws), for they read the file's bytes, which are the caller's.
    func stop() { shared?.stop() }

    /// The record of the atom line at `offset`, read ahead, or nil where the reader must read it
    /// itself (a failed record, a line not read ahead, a file whose id code changed). Within a
    /// window it touches nothing shared (the windows' lock and their references are for `advance`).
    @inline(__always)
    mutating func take(at offset: Int, idCode current: ShortName) -> PDBAtomRecord? {
        if offset >= windowEnd || current != idCode { advance(to: offset, idCode: current) }
        guard next < records.count, records[next].offset == offset else { return nil }
        defer { next += 1 }
        return records[next].isRead ? records[next] : nil
    }

    /// Makes the window holding `offset` the reader's (the first time, cuts the windows and starts
    /// the helpers), or ends the read-ahead: past the last window, or where the id code changed.
    @inline(never)
    private mutating func advance(to offset: Int, idCode current: ShortName) {
        guard !stopped else { return }
        guard let windows = shared else {
            start(at: offset, idCode: current)
            return
        }
        if current != idCode {
            end()
            return
        }
        while offset >= windows.cuts[self.current + 1] {
            self.current += 1
            guard self.current + 1 < windows.cuts.count else {
                end()
                return
            }
            records = windows.records(of: self.current)
            next = 0
        }
        windowEnd = windows.cuts[self.current + 1]
    }

    /// No more records: the reader reads every line from here itself.
    private mutating func end() {
        stopped = true
        shared?.stop()
        records = []
        next = 0
        windowEnd = .max
    }

    /// Cuts the text from the first atom line into windows of `windowBytes` (the last cut is the
    /// end of the bytes) and sets the helpers going.
    private mutating func start(at offset: Int, idCode: ShortName) {
        self.idCode = idCode
        let cuts = Array(stride(from: offset, to: bytes.count, by: Self.windowBytes)) + [bytes.count]
        let separator = separator, filling = filling
        nonisolated(unsafe) let b = bytes
        let windows = Windows(cuts: cuts, helpers: helpers) { start, end in
            Self.read(b, start, end, first: start == offset, separator: separator, idCode: idCode, filling: filling)
        }
        shared = windows
        records = windows.records(of: 0)
        next = 0
        windowEnd = cuts[1]
    }

    /// The windows and who has read which, shared by the reader and the helpers under one lock.
    /// Windows are taken in order: the next one nobody has taken is `taken`.
    final class Windows: @unchecked Sendable {
        let cuts: [Int]
        private let readWindow: @Sendable (Int, Int) -> [PDBAtomRecord]
        private let condition = NSCondition()
        // Under `condition`:
        private var done: [[PDBAtomRecord]?]
        private var taken = 0
        private var reached = 0
        private var stopping = false
        /// Helpers reading a window now. Only these are waited for: a helper the system has not
        /// started yet finds the windows stopped and reads nothing, so that no reader waits for a
        /// thread (were the pool's threads all readers waiting so, none would ever start).
        private var reading = 0

        init(cuts: [Int], helpers: Int, read: @escaping @Sendable (Int, Int) -> [PDBAtomRecord]) {
            self.cuts = cuts
            readWindow = read
            done = Array(repeating: nil, count: cuts.count - 1)
            // On the one pool for blocking work (a helper it has no thread for yet reads nothing: see `reading`).
            for _ in 0..<helpers { BlockingPool.shared.submit { self.help() } }
        }

        /// A helper's loop: the next window nobody has taken, while it is not too far ahead.
        private func help() {
            condition.lock()
            while true {
                while !stopping && taken < done.count && taken - reached >= PDBAtomReadAhead.windowsAhead { condition.wait() }
                guard !stopping, taken < done.count else { break }
                let k = taken
                taken += 1
                reading += 1
                condition.unlock()
                let result = readWindow(cuts[k], cuts[k + 1])
                condition.lock()
                reading -= 1
                done[k] = result
                condition.broadcast()
            }
            condition.unlock()
        }

        /// Window `k`'s records for the reader, who asks for each in order: read here if nobody
        /// has taken it, else waited for.
        func records(of k: Int) -> [PDBAtomRecord] {
            condition.lock()
            reached = k
            if taken <= k {
                taken = k + 1
                condition.broadcast()
                condition.unlock()
                return readWindow(cuts[k], cuts[k + 1])
            }
            // While a helper reads it, the reader reads the next window nobody has taken, as a
            // helper would: it would otherwise wait, for the helpers have more to do than it has.
            while done[k] == nil {
                if !stopping && taken < done.count && taken - k < PDBAtomReadAhead.windowsAhead {
                    let j = taken
                    taken += 1
                    condition.unlock()
                    let result = readWindow(cuts[j], cuts[j + 1])
                    condition.lock()
                    done[j] = result
                } else {
                    condition.wait()
                }
            }
            let result = done[k]!
            done[k] = nil
            condition.broadcast()
            condition.unlock()
            return result
        }

        /// Stops the helpers and waits until none is reading the file.
        func stop() {
            condition.lock()
            stopping = true
            condition.broadcast()
            while reading > 0 { condition.wait() }
            condition.unlock()
        }
    }

    /// The atom records of the lines that start in `start..<end` (`first`: the first starts at
    /// `start`), with the reader's line ends.
    private static func read(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, first: Bool, separator: UInt8,
                             idCode: ShortName, filling: InflatingBytes?) -> [PDBAtomRecord] {
        guard start < end else { return [] }
        var records: [PDBAtomRecord] = []
        records.reserveCapacity((end - start) / 81 + 1)
        // The reader's own line ends. A line starts after a separator: from the byte before the
        // window, the cursor's first line ends at the first separator from there, where the
        // window's first line starts (an empty line where the byte before is one).
        var lines = LineCursor(b, separator: separator, filling: filling)
        lines.position = first ? start : start - 1
        if !first { _ = lines.next() }
        while lines.position < end, let range = lines.next() {
            let s = range.lowerBound, e = range.upperBound
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

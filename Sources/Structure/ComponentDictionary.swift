import Core
import Foundation

/// The bonds of one chemical component (a residue or ligand type), by atom name.
public struct ComponentTemplate: Sendable, Equatable {
    public struct TemplateBond: Sendable, Equatable {
        public var a: ShortName
        public var b: ShortName
        public var order: UInt8
        public var aromatic: Bool
    }

    public var name: ShortName
    public var bonds: [TemplateBond]

    /// Every atom name that takes part in a bond.
    public var atomNames: Set<ShortName> {
        var names = Set<ShortName>()
        for bond in bonds {
            names.insert(bond.a)
            names.insert(bond.b)
        }
        return names
    }
}

/// Bond templates of the wwPDB Chemical Component Dictionary, from `Assets/ccd-bonds.tsv`
/// (all 49,086 components with bonds; see its header). The file is mapped, not read: its
/// lines are sorted by component name, so a lookup is a binary search that touches a few
/// pages, and a component's line is parsed the first time a structure asks for it.
public final class ComponentDictionary: Sendable {
    private let text: Data
    /// Templates parsed so far (nil: the dictionary has none for that name).
    private let parsed = Locked<[ShortName: ComponentTemplate?]>([:])
    public let source: String

    /// A shipped table that is missing or broken is the installation's fault, not the input's.
    private static let loaded: Result<ComponentDictionary, MachineError> = {
        do { return .success(try ComponentDictionary(contentsOf: Resources.asset("ccd-bonds.tsv"))) } catch let error as MachineError {
            return .failure(error)
        } catch {
            return .failure(MachineError("Molshot's ccd-bonds.tsv cannot be read: \(error)"))
        }
    }()

    /// The dictionary shipped in `Assets/`.
    public static func shared() throws -> ComponentDictionary { try loaded.get() }

    public init(contentsOf url: URL) throws {
        source = url.path
        do {
            text = try Data(contentsOf: url, options: .alwaysMapped)
        } catch {
            throw StructureError(file: url.path, line: nil, message: "cannot read the bond dictionary: \(error.localizedDescription)")
        }
    }

    /// How many components the file lists.
    public var count: Int {
        text.withUnsafeBytes { raw in
            let b = raw.bindMemory(to: UInt8.self)
            var cursor = LineCursor(b)
            var n = 0
            while let line = cursor.next() {
                if !line.isEmpty && b[line.lowerBound] != 0x23 { n += 1 }
            }
            return n
        }
    }

    /// The component's template, or nil when the dictionary has no bonds for it (ions, unknown names).
    public func template(_ name: ShortName) -> ComponentTemplate? {
        if let cached = parsed.withLock({ $0[name] }) { return cached }
        // Parsed outside the lock (two threads may parse the same line once each: the same answer).
        let template: ComponentTemplate? = text.withUnsafeBytes { raw in
            let b = raw.bindMemory(to: UInt8.self)
            return find(name, in: b).map { parse(name, b, $0) }
        }
        parsed.withLock { $0[name] = template }
        return template
    }

    /// The bond list (after the tab) of the line for `name`, by binary search over byte offsets.
    private func find(_ name: ShortName, in b: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        let key = Array(name.description.utf8)
        var lo = 0, hi = b.count
        while lo < hi {
            var start = (lo + hi) / 2
            while start > lo && b[start - 1] != 0x0A { start -= 1 }
            var end = start
            while end < b.count && b[end] != 0x0A { end += 1 }
            var tab = start
            while tab < end && b[tab] != 0x09 { tab += 1 }
            if b[start] == 0x23 || tab == end {  // the header comment sorts first
                lo = end + 1
                continue
            }
            let order = compare(b, start, tab, key)
            if order == 0 { return (tab + 1)..<end }
            if order < 0 { lo = end + 1 } else { hi = start }
        }
        return nil
    }

    private func compare(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, _ key: [UInt8]) -> Int {
        var i = 0
        while start + i < end && i < key.count {
            if b[start + i] != key[i] { return b[start + i] < key[i] ? -1 : 1 }
            i += 1
        }
        return (end - start) - key.count
    }

    private func parse(_ name: ShortName, _ b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> ComponentTemplate {
        var bonds: [ComponentTemplate.TemplateBond] = []
        var i = range.lowerBound
        while i < range.upperBound {
            // "A1 A2 2a," : two names, an order digit, an optional aromatic mark.
            var j = i
            while j < range.upperBound && b[j] != 0x20 { j += 1 }
            let a = ShortName(b, i, j)
            var k = j + 1
            while k < range.upperBound && b[k] != 0x20 { k += 1 }
            let second = ShortName(b, j + 1, k)
            var m = k + 1
            while m < range.upperBound && b[m] != 0x2C { m += 1 }
            let order = k + 1 < m && ByteFields.isDigit(b[k + 1]) ? b[k + 1] - 0x30 : 1
            let aromatic = m > k + 1 && b[m - 1] == 0x61
            bonds.append(.init(a: a, b: second, order: order, aromatic: aromatic))
            i = m + 1
        }
        return ComponentTemplate(name: name, bonds: bonds)
    }
}

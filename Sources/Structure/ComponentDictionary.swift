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
/// (all 49,086 components with bonds; see its header). The file is read once per process;
/// a component's line is parsed the first time a structure asks for it.
public final class ComponentDictionary: @unchecked Sendable {
    private let text: [UInt8]
    private let lines: [ShortName: Range<Int>]
    private let lock = NSLock()
    private var parsed: [ShortName: ComponentTemplate?] = [:]
    public let source: String

    private static let loaded: Result<ComponentDictionary, StructureError> = {
        do { return .success(try ComponentDictionary(contentsOf: Assets.url("ccd-bonds.tsv"))) } catch let error as StructureError {
            return .failure(error)
        } catch {
            return .failure(StructureError(file: "ccd-bonds.tsv", line: nil, message: "\(error)"))
        }
    }()

    /// The dictionary shipped in `Assets/`.
    public static func shared() throws -> ComponentDictionary { try loaded.get() }

    public init(contentsOf url: URL) throws {
        source = url.path
        do { text = try FileInput.readAll(path: url.path, limit: 1 << 30) } catch let error as StructureError {
            throw error
        }
        var index: [ShortName: Range<Int>] = [:]
        index.reserveCapacity(50_000)
        text.withUnsafeBufferPointer { b in
            var cursor = LineCursor(b)
            while let line = cursor.next() {
                guard !line.isEmpty, b[line.lowerBound] != 0x23 else { continue }
                var tab = line.lowerBound
                while tab < line.upperBound && b[tab] != 0x09 { tab += 1 }
                guard tab < line.upperBound else { continue }
                index[ShortName(b, line.lowerBound, tab)] = (tab + 1)..<line.upperBound
            }
        }
        lines = index
    }

    public var count: Int { lines.count }

    /// The component's template, or nil when the dictionary has no bonds for it (ions, unknown names).
    public func template(_ name: ShortName) -> ComponentTemplate? {
        lock.lock()
        defer { lock.unlock() }
        if let cached = parsed[name] { return cached }
        let template = lines[name].map { parse(name, $0) }
        parsed[name] = template
        return template
    }

    private func parse(_ name: ShortName, _ range: Range<Int>) -> ComponentTemplate {
        var bonds: [ComponentTemplate.TemplateBond] = []
        text.withUnsafeBufferPointer { b in
            var i = range.lowerBound
            while i < range.upperBound {
                // "A1 A2 2a," : two names, an order digit, an optional aromatic mark.
                var j = i
                while j < range.upperBound && b[j] != 0x20 { j += 1 }
                let a = ShortName(b, i, j)
                var k = j + 1
                while k < range.upperBound && b[k] != 0x20 { k += 1 }
                let bName = ShortName(b, j + 1, k)
                var m = k + 1
                while m < range.upperBound && b[m] != 0x2C { m += 1 }
                let order = UInt8(clamping: ByteFields.int(b, k + 1, m) ?? parseOrder(b, k + 1, m))
                let aromatic = m > k + 1 && b[m - 1] == 0x61
                bonds.append(.init(a: a, b: bName, order: order, aromatic: aromatic))
                i = m + 1
            }
        }
        return ComponentTemplate(name: name, bonds: bonds)
    }

    private func parseOrder(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Int {
        start < end && ByteFields.isDigit(b[start]) ? Int(b[start] - 0x30) : 1
    }
}

import Core
import Foundation

/// Radii and colors per element, read from `Assets/elements.tsv` and indexed by atomic number.
public struct ElementTable: Sendable {
    /// Single-bond covalent radius in angstroms.
    public let covalentRadius: [Float]
    /// Van der Waals radius in angstroms.
    public let vanDerWaalsRadius: [Float]
    /// sRGB color as 0xRRGGBB.
    public let color: [UInt32]

    /// A shipped table that is missing or broken is the installation's fault, not the input's.
    private static let loaded: Result<ElementTable, MachineError> = {
        do { return .success(try ElementTable(contentsOf: Resources.asset("elements.tsv"))) } catch let error as MachineError {
            return .failure(error)
        } catch {
            return .failure(MachineError("Molshot's elements.tsv cannot be read: \(error)"))
        }
    }()

    /// The table shipped in `Assets/`, read once per process.
    public static func shared() throws -> ElementTable { try loaded.get() }

    public init(contentsOf url: URL) throws {
        let text = try String(contentsOf: url, encoding: .utf8)
        var cov = [Float](repeating: 0, count: Element.count)
        var vdw = [Float](repeating: 0, count: Element.count)
        var col = [UInt32](repeating: 0, count: Element.count)
        var seen = 0
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix("z\t") { continue }
            let f = line.split(separator: "\t")
            let fail = { (what: String) in
                StructureError(file: url.path, line: index + 1, message: what)
            }
            guard f.count == 5, let z = Int(f[0]), z >= 0, z < Element.count else { throw fail("expected 5 columns: z symbol covalent vdw color") }
            guard f[1] == Element.symbols[z] else { throw fail("symbol \(f[1]) does not match atomic number \(z) (\(Element.symbols[z]))") }
            guard let c = Float(f[2]), let v = Float(f[3]), let rgb = UInt32(f[4], radix: 16) else { throw fail("bad number") }
            cov[z] = c
            vdw[z] = v
            col[z] = rgb
            seen += 1
        }
        guard seen == Element.count else {
            throw StructureError(file: url.path, line: nil, message: "has \(seen) elements, expected \(Element.count)")
        }
        covalentRadius = cov
        vanDerWaalsRadius = vdw
        color = col
    }

    @inline(__always) public func covalentRadius(_ e: Element) -> Float { covalentRadius[Int(e.atomicNumber)] }
    @inline(__always) public func vanDerWaalsRadius(_ e: Element) -> Float { vanDerWaalsRadius[Int(e.atomicNumber)] }
}

import Core
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// What an XML pathway map may hold.
public enum XMLLimits {
    /// Elements inside one another: real maps nest a dozen deep (SBGN's complexes in
    /// compartments, GPML's groups); a hostile one of 100,000 would exhaust the stack of
    /// whatever walks the tree, and the tree's own release.
    public static let depth = 256
    /// Elements kept in the tree: Recon3D's 29 MB SBML keeps about 400,000 once its RDF
    /// annotations are passed over; a document of millions more holds nothing a map draws and
    /// would take gigabytes as a tree.
    public static let elements = 3_000_000
    /// Subtrees no reader uses, passed over as they stream by (genome-scale models' MIRIAM
    /// annotations are most of their bytes).
    static let skipped: Set<String> = ["RDF"]
}

/// A parsed XML document as plain elements (name without namespace prefix, attributes,
/// children, text, and the line each starts on), for the XML pathway formats.
final class XMLElementNode {
    let name: String
    let attributes: [String: String]
    let line: Int
    var children: [XMLElementNode] = []
    var text = ""

    init(name: String, attributes: [String: String], line: Int) {
        self.name = name
        self.attributes = attributes
        self.line = line
    }

    func child(_ name: String) -> XMLElementNode? { children.first { $0.name == name } }
    func all(_ name: String) -> [XMLElementNode] { children.filter { $0.name == name } }

    /// Every element below this one named `name`, in document order.
    func descendants(_ name: String) -> [XMLElementNode] {
        var out: [XMLElementNode] = []
        for c in children {
            if c.name == name { out.append(c) }
            out += c.descendants(name)
        }
        return out
    }

    /// A number attribute; nil where it is missing or not a finite number ("nan", "inf", "1e999"),
    /// so that a reader treats it as not given and says so, as for any other bad value.
    func double(_ key: String) -> Double? {
        attributes[key].flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }.flatMap { $0.isFinite ? $0 : nil }
    }

    /// An attribute by its local name (`layout:x` and `x` alike), as SBML's packages and the
    /// render extension write them with or without a prefix.
    func attribute(local name: String) -> String? {
        if let v = attributes[name] { return v }
        return attributes.first { $0.key.hasSuffix(":" + name) }?.value
    }

    /// "line 12 <glyph id=...>", for errors.
    var place: String { "line \(line) <\(name)\(attributes["id"].map { " id=\"\($0)\"" } ?? "")>" }

    static func parse(_ data: Data, file: String) throws -> XMLElementNode {
        let builder = Builder()
        // Fed as a stream (libxml2's push parser takes it a chunk at a time): handed the whole document
        // at once, libxml2 refuses one past its 10,000,000-byte lookup limit at its end, so that every
        // genome-scale SBML and large disease map failed "not well-formed" on a line past the last.
        var text = try utf8(data, file: file)
        switch text.withUnsafeBytes({ XMLPreflight.check($0) }) {
        case .unchanged: break
        case .changed(let safe): text = Data(safe)
        case .refused(let why): throw PathwayError(file: file, at: "line \(why.line)", why.message)
        }
        let parser = XMLParser(stream: InputStream(data: text))
        parser.delegate = builder
        parser.shouldProcessNamespaces = false
        parser.shouldResolveExternalEntities = false
        builder.parser = parser
        let parsed = parser.parse()
        if let deep = builder.tooDeep {
            throw PathwayError(file: file, at: "line \(deep)", "elements nest more than \(XMLLimits.depth) deep, past what a map holds")
        }
        if let many = builder.tooMany {
            throw PathwayError(file: file, at: "line \(many)", "more than \(XMLLimits.elements) elements, past what a map holds")
        }
        guard parsed, let root = builder.root else {
            let line = parser.lineNumber
            let reason = parser.parserError.map { ($0 as NSError).localizedDescription } ?? "not well-formed XML"
            throw PathwayError(file: file, at: "line \(line)", "not well-formed XML (\(reason))")
        }
        if let open = builder.stack.last {
            // libxml2 through Foundation does not always report a file that ends early.
            throw PathwayError(file: file, at: "line \(parser.lineNumber)",
                               "cut short: <\(open.name)> opened at line \(open.line) is not closed")
        }
        return root
    }

    /// The document as UTF-8: Foundation's parser stops the process on names that are not valid
    /// UTF-8, so the bytes are checked first. A Latin-1 document (so declared) is converted.
    static func utf8(_ data: Data, file: String) throws -> Data {
        if String(validating: data, as: UTF8.self) != nil { return data }
        let head = String(decoding: data.prefix(200), as: UTF8.self).lowercased()
        if head.hasPrefix("<?xml"), let declared = head.range(of: #"encoding\s*=\s*["']([a-z0-9_-]+)["']"#, options: .regularExpression) {
            let name = head[declared]
            if ["iso-8859-1", "latin1", "latin-1", "windows-1252", "cp1252"].contains(where: { name.contains($0) }),
               let text = String(data: data, encoding: name.contains("1252") ? .windowsCP1252 : .isoLatin1) {
                let fixed = text.replacingOccurrences(of: #"encoding\s*=\s*["'][A-Za-z0-9_-]+["']"#, with: "encoding=\"UTF-8\"",
                                                      options: .regularExpression)
                return Data(fixed.utf8)
            }
        }
        // Where the first bad byte is, for the message.
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = data.makeIterator()
        var offset = 0, line = 1
        scan: while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let scalar):
                if scalar.count == 1 && scalar.first == 0x0A { line += 1 }
                offset += scalar.count
            case .error, .emptyInput: break scan
            }
        }
        throw PathwayError(file: file, at: "line \(line)", "not valid UTF-8 text at byte \(offset + 1); save the file as UTF-8")
    }

    private final class Builder: NSObject, XMLParserDelegate {
        var root: XMLElementNode?
        var stack: [XMLElementNode] = []
        weak var parser: XMLParser?
        /// The line where elements went past `XMLLimits.depth` (parsing stops there).
        var tooDeep: Int?
        /// The line where the tree passed `XMLLimits.elements`.
        var tooMany: Int?
        /// Elements kept so far.
        var count = 0
        /// How deep inside a skipped subtree the parser is (0: outside one).
        var skipping = 0

        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            guard stack.count + skipping < XMLLimits.depth else {
                if tooDeep == nil { tooDeep = parser.lineNumber }
                parser.abortParsing()
                return
            }
            let local = elementName.split(separator: ":").last.map(String.init) ?? elementName
            if skipping > 0 || XMLLimits.skipped.contains(local) {
                skipping += 1
                return
            }
            count += 1
            guard count <= XMLLimits.elements else {
                if tooMany == nil { tooMany = parser.lineNumber }
                parser.abortParsing()
                return
            }
            let node = XMLElementNode(name: local, attributes: attributes, line: parser.lineNumber)
            if let parent = stack.last { parent.children.append(node) } else { root = node }
            stack.append(node)
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
            guard tooDeep == nil, tooMany == nil else { return }
            if skipping > 0 {
                skipping -= 1
                return
            }
            _ = stack.popLast()
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            guard skipping == 0 else { return }
            stack.last?.text += string
        }
    }
}

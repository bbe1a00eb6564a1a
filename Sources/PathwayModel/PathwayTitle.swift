import Foundation

/// A map's title for lists: what the file calls it, read from its first bytes without reading the
/// map (GPML's Pathway Name, GPML 2021's title, KGML's title, SBML's model name, Escher's map_name, SBGN's mapName
/// from Newt or its notes, the pathway JSON's title), or the file's name where the file names it
/// nothing better than an id such as "map1".
public enum PathwayTitle {
    /// Bytes of a file's start looked at for its title.
    public static let headBytes = 65_536

    /// The title the start of a map file gives, if any.
    public static func peek(_ head: [UInt8]) -> String? {
        let text = String(decoding: head.prefix(headBytes), as: UTF8.self)
        let patterns = [
            #"<Pathway\b[^>]*?\bName="([^"]+)""#,
            #"<Pathway\b[^>]*?\btitle="([^"]+)""#,
            #"<pathway\b[^>]*?\btitle="([^"]+)""#,
            #"<model\b[^>]*?\bname="([^"]+)""#,
            #"<mapName>([^<]+)</mapName>"#,
            #""map_name"\s*:\s*"([^"]+)""#,
            #""title"\s*:\s*"([^"]+)""#,
        ]
        for p in patterns {
            guard let regex = try? NSRegularExpression(pattern: p),
                  let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
                  let range = Range(match.range(at: 1), in: text) else { continue }
            let clean = unescape(String(text[range])).trimmingCharacters(in: .whitespacesAndNewlines)
            if !clean.isEmpty { return String(clean.prefix(200)) }
        }
        return nil
    }

    /// `title` unless it is empty or only an id ("map1", "map"): then the file's name, its
    /// underscores and dashes as spaces.
    public static func shown(_ title: String, file: String) -> String {
        let t = title.trimmingCharacters(in: .whitespacesAndNewlines)
        if !t.isEmpty && t.range(of: #"^(map|pathway|model)?[_-]?\d*$"#, options: [.regularExpression, .caseInsensitive]) == nil { return t }
        return stem(of: file).replacingOccurrences(of: "_", with: " ").replacingOccurrences(of: "-", with: " ")
    }

    /// A map file's name without its folder and its extensions (`.xml.gz` both): the service's id of the map.
    public static func stem(of file: String) -> String {
        var stem = (file as NSString).lastPathComponent
        for ext in [".gz", ".json", ".xml", ".kgml", ".sbgn", ".gpml", ".sbml"] where stem.lowercased().hasSuffix(ext) { stem = String(stem.dropLast(ext.count)) }
        return stem
    }

    static func unescape(_ s: String) -> String {
        s.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&quot;", with: "\"")
            .replacingOccurrences(of: "&apos;", with: "'").replacingOccurrences(of: "&#10;", with: " ").replacingOccurrences(of: "&amp;", with: "&")
    }
}

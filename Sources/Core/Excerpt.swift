/// A short piece of text a user sent, for an error message: a message that quoted a 1 MB
/// event line or a 60 KB selection whole would cost the server more than the request did.
public enum Excerpt {
    /// Characters an error quotes at most.
    public static let length = 80

    /// `text` itself when short, else its start and how much was left out.
    public static func of(_ text: some StringProtocol, length: Int = Excerpt.length) -> String {
        var out = "", count = 0
        for c in text {
            if count == length { return out + "... (\(text.utf8.count) bytes in all)" }
            out.append(c)
            count += 1
        }
        return out
    }

    /// The characters around the 1-based `position` of `text` (at most `length`), the position's
    /// place in that window (1-based), and whether it starts after the text's start.
    public static func around(_ text: String, position: Int, length: Int = Excerpt.length) -> (window: String, position: Int) {
        let chars = Array(text.prefix(position + length))
        if chars.count <= length { return (String(chars), position) }
        let start = max(0, min(position - 1 - length / 2, chars.count - length))
        let window = String(chars[start..<min(chars.count, start + length)])
        return (window, position - start)
    }
}

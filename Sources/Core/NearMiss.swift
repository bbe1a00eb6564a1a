/// "Did you mean ...?" for a word that is one or two letters from a known one (`catoon`).
public enum NearMiss {
    /// The known word nearest `word` (edit distance, any case), if it is within two edits and
    /// nearer than any other; nil otherwise.
    public static func suggestion(for word: String, among known: [String]) -> String? {
        let w = Array(word.lowercased())
        var best: (distance: Int, word: String)?
        var tied = false
        for k in known {
            let d = distance(w, Array(k.lowercased()))
            if best == nil || d < best!.distance { best = (d, k); tied = false } else if d == best!.distance { tied = true }
        }
        guard let best, best.distance <= min(2, max(1, w.count / 2)), !tied else { return nil }
        return best.word
    }

    /// " (did you mean X?)", or "" where nothing is near.
    public static func hint(for word: String, among known: [String]) -> String {
        suggestion(for: word, among: known).map { " (did you mean \($0)?)" } ?? ""
    }

    /// Levenshtein distance.
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        var row = Array(0...b.count)
        for i in 1...a.count {
            var previous = row[0]
            row[0] = i
            for j in stride(from: 1, through: b.count, by: 1) {
                let kept = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = kept
            }
        }
        return row[b.count]
    }
}

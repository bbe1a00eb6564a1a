import Core

/// Part K of N of a collection, chosen by a hash of each input's path as given: N machines
/// (a Slurm array, a Kubernetes indexed Job) each take one part, with no coordination, and
/// together cover the collection exactly once.
public struct Shard: Sendable, Equatable {
    public let index: Int
    public let count: Int

    public static let whole = Shard(index: 1, count: 1)

    public init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    /// "K/N" with 1 <= K <= N.
    public init?(_ text: String) {
        let parts = text.split(separator: "/").map { Int($0) }
        guard parts.count == 2, let k = parts[0], let n = parts[1], n >= 1, k >= 1, k <= n else { return nil }
        self.init(index: k, count: n)
    }

    public func contains(_ path: String) -> Bool {
        count == 1 || Int(FNV1a.hash(path.utf8) % UInt64(count)) == index - 1
    }
}

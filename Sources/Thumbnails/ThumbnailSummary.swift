import Foundation

/// How a run ended.
public struct ThumbnailSummary: Sendable, Codable {
    public struct Failure: Sendable, Codable, Equatable {
        public var source: String
        public var error: String
    }

    public var total = 0
    public var rendered = 0
    public var skipped = 0
    public var failed = 0
    public var images = 0
    public var seconds = 0.0
    public var failures: [Failure] = []
    /// Contact sheet pages written.
    public var sheets: [String] = []

    public var line: String {
        let rate = seconds > 0 ? Double(rendered) / seconds : 0
        return "\(rendered) rendered, \(skipped) up to date, \(failed) failed of \(total) in \(String(format: "%.1f", seconds)) s"
            + " (\(String(format: "%.1f", rate)) structures/s, \(images) images)"
    }
}

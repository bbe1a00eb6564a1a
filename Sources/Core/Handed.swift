/// A value passed whole from one thread to another, which the compiler cannot prove safe: the
/// sender gives it up when it hands it over (a job for the GL thread, a parsed structure for the
/// one thread that draws it) and only the receiver uses it after that.
///
/// Safe because of how it is used, not because of what it holds: every use hands the value to
/// exactly one thread and keeps no other reference that it reads or writes afterwards. A value
/// that is `Sendable` goes across as it is, never in one of these.
public struct Handed<T>: @unchecked Sendable {
    public let value: T
    public init(_ value: T) { self.value = value }
}

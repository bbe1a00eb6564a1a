extension String {
    /// The text of a NUL-terminated C buffer (a C library's message, a GL info log).
    public init(nulTerminated buffer: [CChar]) {
        self = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

import CZlib

/// Joins PNG images of one size into an animated PNG (APNG): the first frame is also the
/// default image, so viewers without APNG support show it.
public enum APNGWriter {
    /// `frames` are whole PNG files; `delays` seconds each frame stays; `loops` 0 is forever.
    public static func make(frames: [[UInt8]], delays: [Double], loops: Int = 0) throws -> [UInt8] {
        guard let first = frames.first, frames.count == delays.count else { throw ImagingError("APNG needs frames and one delay each") }
        let header = try chunks(first)
        guard let ihdr = header.first(where: { $0.type == "IHDR" }) else { throw ImagingError("frame 1 has no IHDR") }
        var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        append(&out, "IHDR", ihdr.data)
        append(&out, "acTL", be32(frames.count) + be32(loops))
        var sequence = 0
        for (i, frame) in frames.enumerated() {
            let parts = try chunks(frame)
            guard let h = parts.first(where: { $0.type == "IHDR" }), h.data == ihdr.data else {
                throw ImagingError("frame \(i + 1) differs in size or format from frame 1")
            }
            let ms = max(10, min(65535, Int((delays[i] * 1000).rounded())))
            // fcTL: sequence, width, height, x, y, delay numerator/denominator, dispose none, blend source.
            append(&out, "fcTL", be32(sequence) + Array(ihdr.data[0..<8]) + be32(0) + be32(0) + be16(ms) + be16(1000) + [0, 0])
            sequence += 1
            for data in parts where data.type == "IDAT" {
                if i == 0 {
                    append(&out, "IDAT", data.data)
                } else {
                    append(&out, "fdAT", be32(sequence) + data.data)
                    sequence += 1
                }
            }
        }
        append(&out, "IEND", [])
        return out
    }

    struct Chunk {
        var type: String
        var data: [UInt8]
    }

    static func chunks(_ png: [UInt8]) throws -> [Chunk] {
        guard png.count >= 8, png[0] == 0x89, png[1] == 0x50 else { throw ImagingError("not a PNG") }
        var i = 8
        var out: [Chunk] = []
        while i + 12 <= png.count {
            let length = Int(png[i]) << 24 | Int(png[i + 1]) << 16 | Int(png[i + 2]) << 8 | Int(png[i + 3])
            guard i + 12 + length <= png.count else { throw ImagingError("truncated PNG chunk") }
            let type = String(decoding: png[(i + 4)..<(i + 8)], as: UTF8.self)
            out.append(Chunk(type: type, data: Array(png[(i + 8)..<(i + 8 + length)])))
            i += 12 + length
        }
        return out
    }

    static func append(_ out: inout [UInt8], _ type: String, _ data: [UInt8]) {
        let typeBytes = Array(type.utf8)
        out += be32(data.count) + typeBytes + data
        let body = typeBytes + data
        let crc = body.withUnsafeBufferPointer { UInt32(crc32(0, $0.baseAddress, UInt32($0.count))) }
        out += be32(Int(crc))
    }

    static func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    static func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
}

@testable import Core
import XCTest

final class SHA256Tests: XCTestCase {
    func testKnownDigests() {
        XCTAssertEqual(SHA256.hex(Array("".utf8)), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(SHA256.hex(Array("abc".utf8)), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(SHA256.hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)),
                       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        XCTAssertEqual(SHA256.hex([UInt8](repeating: 0x61, count: 1000)), "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
    }

    /// Lengths either side of the padding's boundaries (55/56 bytes fit one block or need two),
    /// whole blocks read straight from the input, and FIPS 180-2's million 'a's; from Python's hashlib.
    func testBlockBoundariesAndLongInputs() {
        let expected = [55: "e7313d333c272e639f790978283f9eb392e843d0f29b7016828bb1daa4aac70b",
                        56: "4324d65f3c103567f5589c710bc08f8523f929a9272e3af36fc968e52abc6c27",
                        63: "81c80242132f230c3bd41b3e63bbcff16107339549214a99614ff26664625055",
                        64: "39e3d7b6b5d075d37d053ad89b24b41bef4f3c29760c84447cab3f3be1882241",
                        65: "aacca6ff74fdbb296d165a45cecfa04e5127bc008770fbbdd48006f2d2fae95e",
                        119: "9ce7368e4daf32341631b492e80359dc9f594b48453cd0dd5bf0b19279cc177e",
                        120: "7836b787757e95e58b3ca5aec90b1b004e8deba1e50e9675af9cabf1a13a04b5",
                        128: "d2742f1f4ac6bb7ca2b239ee18402ba8b3f9f8e652d2a72973c2b9ba11c08cf6"]
        for (n, digest) in expected {
            let bytes = (0..<n).map { UInt8(($0 * 7 + 3) % 256) }
            XCTAssertEqual(SHA256.hex(bytes), digest, "\(n) bytes")
            XCTAssertEqual(SHA256.hex(bytes.lazy.map { $0 }), digest, "\(n) bytes, not contiguous")
        }
        XCTAssertEqual(SHA256.hex([UInt8](repeating: 0x61, count: 1_000_000)), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// The CPU's SHA instructions (where it has them) and the portable loop give the same digest
    /// for every length from 0 to 300 bytes and some long inputs of random bytes.
    func testInstructionsAndPortableLoopAgree() {
        var generator = SystemRandomNumberGenerator()
        for n in Array(0...300) + [4_095, 4_096, 65_537, 1_000_003] {
            let bytes = (0..<n).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let fast = bytes.withUnsafeBufferPointer { SHA256.hash(bytes: $0, instructions: true) }
            let portable = bytes.withUnsafeBufferPointer { SHA256.hash(bytes: $0, instructions: false) }
            XCTAssertEqual(fast, portable, "\(n) bytes")
        }
        let million = [UInt8](repeating: 0x61, count: 1_000_000)
        XCTAssertEqual(million.withUnsafeBufferPointer { SHA256.hash(bytes: $0, instructions: false) }, SHA256.hash(million))
    }
}

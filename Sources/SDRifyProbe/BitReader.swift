/// Reads a bitstream most-significant bit first, as H.26x syntax is written: fixed-width fields and Exp-Golomb
/// codes. Reading past the end throws instead of inventing bits.
struct BitReader {
    struct Overrun: Error {}
    private let bytes: [UInt8]
    private(set) var position = 0  // in bits

    package init(_ bytes: [UInt8]) { self.bytes = bytes }

    var bitsLeft: Int { bytes.count * 8 - position }

    mutating func bits(_ n: Int) throws -> Int {
        guard n >= 0, n <= 32, n <= bitsLeft else { throw Overrun() }
        var v = 0
        for _ in 0..<n {
            v = v << 1 | Int((bytes[position >> 3] >> (7 - UInt8(position & 7))) & 1)
            position += 1
        }
        return v
    }

    mutating func flag() throws -> Bool { try bits(1) == 1 }

    mutating func skip(_ n: Int) throws {
        guard n >= 0, n <= bitsLeft else { throw Overrun() }
        position += n
    }

    /// ue(v). Codes longer than 32 bits are damage.
    mutating func unsignedGolomb() throws -> Int {
        var zeros = 0
        while try bits(1) == 0 {
            zeros += 1
            guard zeros <= 32 else { throw Overrun() }
        }
        return (1 << zeros) - 1 + (try bits(zeros))
    }

    /// se(v).
    mutating func signedGolomb() throws -> Int {
        let k = try unsignedGolomb()
        return k & 1 == 1 ? (k + 1) / 2 : -(k / 2)
    }

    mutating func byteAlign() throws { try skip((8 - position & 7) & 7) }
}

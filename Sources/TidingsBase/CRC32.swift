/// The CRC-32 checksum of zlib, gzip and PNG (IEEE 802.3): the reflected
/// polynomial 0xEDB88320, an initial value and final XOR of 0xFFFFFFFF,
/// computed a byte at a time with a 256-entry table.
///
/// `CRC32.checksum(Array("123456789".utf8))` is `0xCBF43926`; the checksum of
/// no bytes is 0. Updating with several pieces gives the checksum of the
/// pieces joined, as zlib's `crc32(crc, buffer, length)` does.
package struct CRC32: Sendable, Equatable {
    /// The checksum of every byte given so far.
    package private(set) var value: UInt32

    /// A checksum continuing from `value`, the checksum of the bytes before (0 for none).
    package init(_ value: UInt32 = 0) {
        self.value = value
    }

    /// Adds `bytes` to the checksum.
    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        var crc = ~value
        Self.table.withUnsafeBufferPointer { table in
            for byte in bytes {
                crc = table[Int(UInt8(truncatingIfNeeded: crc) ^ byte)] ^ (crc >> 8)
            }
        }
        value = ~crc
    }

    /// Adds `bytes` to the checksum.
    package mutating func update(_ bytes: some Collection<UInt8>) {
        let done: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            update(UnsafeRawBufferPointer(buffer))
        }
        if done == nil { Array(bytes).withUnsafeBytes { update($0) } }
    }

    /// The checksum of `bytes`.
    package static func checksum(_ bytes: some Collection<UInt8>) -> UInt32 {
        var crc = CRC32()
        crc.update(bytes)
        return crc.value
    }

    /// The checksum of every byte value alone, before the final XOR: entry `n`
    /// is `n` shifted right eight times through the polynomial.
    private static let table: [UInt32] = (0..<256).map { index in
        var entry = UInt32(index)
        for _ in 0..<8 {
            entry = entry & 1 == 1 ? (entry >> 1) ^ 0xEDB8_8320 : entry >> 1
        }
        return entry
    }
}

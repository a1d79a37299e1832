/// The CRC-32 checksum of zlib, gzip and PNG (IEEE 802.3): the reflected
/// polynomial 0xEDB88320, an initial value and final XOR of 0xFFFFFFFF,
/// computed eight bytes at a time with eight 256-entry tables ("slicing by
/// 8"), the rest a byte at a time.
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
        Self.tables.withUnsafeBufferPointer { tables in
            var position = 0
            // Eight bytes at a time: table k holds a byte's effect k bytes further on.
            while position + 8 <= bytes.count {
                let low = crc ^ (UInt32(bytes[position]) | UInt32(bytes[position + 1]) << 8
                    | UInt32(bytes[position + 2]) << 16 | UInt32(bytes[position + 3]) << 24)
                crc = tables[7 * 256 + Int(low & 0xFF)] ^ tables[6 * 256 + Int((low >> 8) & 0xFF)]
                    ^ tables[5 * 256 + Int((low >> 16) & 0xFF)] ^ tables[4 * 256 + Int(low >> 24)]
                    ^ tables[3 * 256 + Int(bytes[position + 4])] ^ tables[2 * 256 + Int(bytes[position + 5])]
                    ^ tables[256 + Int(bytes[position + 6])] ^ tables[Int(bytes[position + 7])]
                position += 8
            }
            while position < bytes.count {
                crc = tables[Int(UInt8(truncatingIfNeeded: crc) ^ bytes[position])] ^ (crc >> 8)
                position += 1
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

    /// Eight tables of 256 entries, one after the other. Table 0 is the
    /// checksum of every byte value alone, before the final XOR (`n` shifted
    /// right eight times through the polynomial); table k is table k − 1
    /// carried one byte further.
    private static let tables: [UInt32] = {
        var tables = (0..<256).map { index in
            var entry = UInt32(index)
            for _ in 0..<8 {
                entry = entry & 1 == 1 ? (entry >> 1) ^ 0xEDB8_8320 : entry >> 1
            }
            return entry
        }
        for slice in 1..<8 {
            for index in 0..<256 {
                let previous = tables[(slice - 1) * 256 + index]
                tables.append(tables[Int(previous & 0xFF)] ^ (previous >> 8))
            }
        }
        return tables
    }()
}

/// Reads what `ByteWriter` wrote, in the order it was written. Every read
/// checks that the bytes are there and well formed, and throws
/// `ByteReader.Malformed` when they are not, so that damaged or foreign bytes
/// are refused rather than misread.
package struct ByteReader: Sendable {
    /// Why bytes could not be read.
    package struct Malformed: Error, Equatable, Sendable, CustomStringConvertible {
        /// What was wrong, as a phrase: "the bytes end inside a string".
        package var description: String

        /// Bytes that are wrong because of `description`.
        package init(description: String) {
            self.description = description
        }
    }

    /// The bytes being read.
    private let bytes: [UInt8]
    /// Where the next read starts.
    private var offset: Int
    /// Where reading must stop.
    private let end: Int

    /// Reads `bytes[range]`, all of `bytes` by default.
    package init(_ bytes: [UInt8], range: Range<Int>? = nil) {
        self.bytes = bytes
        offset = range?.lowerBound ?? 0
        end = range?.upperBound ?? bytes.count
    }

    /// True when every byte has been read.
    package var isAtEnd: Bool { offset == end }

    /// An unsigned LEB128 varint of at most ten bytes.
    package mutating func readVarint() throws(Malformed) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard offset < end else { throw Malformed(description: "the bytes end inside a number") }
            let byte = bytes[offset]
            offset += 1
            guard shift < 64, shift < 63 || byte <= 1 else { throw Malformed(description: "a number is too large") }
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
    }

    /// A count or index, at most `limit` (by default the bytes left, since
    /// every counted thing takes at least one byte).
    package mutating func readCount(atMost limit: Int? = nil) throws(Malformed) -> Int {
        let value = try readVarint()
        guard value <= UInt64(limit ?? end - offset) else { throw Malformed(description: "a count of \(value) is too large") }
        return Int(value)
    }

    /// Eight bytes, least significant first.
    package mutating func readInt64() throws(Malformed) -> Int64 {
        let raw = try take(8, "a number")
        return (0..<8).reduce(0) { value, index in value | Int64(bytes[raw.lowerBound + index]) << (8 * index) }
    }

    /// An IEEE 754 double from its eight bytes.
    package mutating func readDouble() throws(Malformed) -> Double {
        Double(bitPattern: UInt64(bitPattern: try readInt64()))
    }

    /// One byte.
    package mutating func readByte() throws(Malformed) -> UInt8 {
        bytes[try take(1, "a byte").lowerBound]
    }

    /// A Boolean: 0 or 1, nothing else. Also what says whether an optional value follows.
    package mutating func readBool() throws(Malformed) -> Bool {
        switch try readByte() {
        case 0: return false
        case 1: return true
        case let other: throw Malformed(description: "\(other) is not a Boolean")
        }
    }

    /// A string: its UTF-8 length, then bytes that must be valid UTF-8.
    package mutating func readString() throws(Malformed) -> String {
        let range = try take(try readCount(), "a string")
        let text: String? = bytes.withUnsafeBufferPointer { buffer in
            ValidUTF8.string(UnsafeBufferPointer(rebasing: buffer[range]))
        }
        guard let text else { throw Malformed(description: "a string is not valid UTF-8") }
        return text
    }

    /// The string after a 1, nil after a 0 (what `ByteWriter.write(optional:)` writes for a string).
    package mutating func readOptionalString() throws(Malformed) -> String? {
        try readBool() ? try readString() : nil
    }

    /// The range of the next `count` bytes, skipped.
    package mutating func skip(_ count: Int) throws(Malformed) -> Range<Int> {
        try take(count, "a block")
    }

    /// The next `count` bytes' range, or `Malformed` naming `what` when they are not all there.
    private mutating func take(_ count: Int, _ what: String) throws(Malformed) -> Range<Int> {
        guard count <= end - offset else { throw Malformed(description: "the bytes end inside \(what)") }
        defer { offset += count }
        return offset..<offset + count
    }
}

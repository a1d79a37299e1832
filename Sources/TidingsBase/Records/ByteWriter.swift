/// Builds a compact binary encoding: whole numbers as LEB128 varints,
/// fixed-width numbers least significant byte first, strings as their UTF-8
/// length then bytes. `ByteReader` reads what it writes, in the same order.
package struct ByteWriter: Sendable {
    /// The bytes written so far.
    package private(set) var bytes: [UInt8] = []

    /// An empty writer.
    package init() {}

    /// Appends `value` as an unsigned LEB128 varint: 7 bits a byte, low bits first.
    package mutating func write(varint value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    /// Appends a count or index, which is never negative.
    package mutating func write(count: Int) {
        precondition(count >= 0, "a count is never negative")
        write(varint: UInt64(count))
    }

    /// Appends the eight bytes of `value`, least significant first.
    package mutating func write(int64 value: Int64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// Appends the eight bytes of `value`'s IEEE 754 bit pattern.
    package mutating func write(double value: Double) {
        write(int64: Int64(bitPattern: value.bitPattern))
    }

    /// Appends one byte.
    package mutating func write(byte value: UInt8) {
        bytes.append(value)
    }

    /// Appends 1 for true, 0 for false.
    package mutating func write(bool value: Bool) {
        bytes.append(value ? 1 : 0)
    }

    /// Appends `value`'s UTF-8 length, then its bytes.
    package mutating func write(string value: String) {
        var text = value
        text.withUTF8 { utf8 in
            write(count: utf8.count)
            bytes.append(contentsOf: utf8)
        }
    }

    /// Appends 0 for nil, else 1 and `value` written by `body`.
    package mutating func write<Value>(optional value: Value?, _ body: (inout ByteWriter, Value) -> Void) {
        guard let value else { return bytes.append(0) }
        bytes.append(1)
        body(&self, value)
    }

    /// Appends `values.count`, then each value written by `body`.
    package mutating func write<Values: Collection>(array values: Values, _ body: (inout ByteWriter, Values.Element) -> Void) {
        write(count: values.count)
        for value in values { body(&self, value) }
    }

    /// Appends `raw` as it is.
    package mutating func append(raw: some Collection<UInt8>) {
        bytes.append(contentsOf: raw)
    }
}

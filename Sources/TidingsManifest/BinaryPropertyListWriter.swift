import TidingsBase

/// Writes Apple's binary property lists (`bplist00`).
///
/// Objects are numbered as Python's `plistlib` numbers them: a container
/// before its contents, a dictionary's keys before its values; and, as
/// `plistlib` and CoreFoundation do, equal strings, numbers, Booleans,
/// dates and data are stored once however often they appear. Strings count
/// as equal only when their characters are the same code points, so that no
/// text changes on the way through. Containers are never shared.
struct BinaryPropertyListWriter {
    /// An object to write: a scalar already in bytes, or a container whose
    /// references wait for the reference size, known once all are numbered.
    private enum Object {
        /// The bytes of a string, number, Boolean, date or data, marker included.
        case scalar([UInt8])
        /// The numbers of the elements.
        case array([Int])
        /// The numbers of the keys and of the values, in entry order.
        case dictionary(keys: [Int], values: [Int])
    }

    /// What makes two scalars the same object. Strings by their UTF-8 bytes
    /// (Swift's `==` would merge canonically equivalent ones), reals and
    /// dates by their bits (`==` would merge 0.0 and -0.0).
    private enum ScalarIdentity: Hashable {
        /// A string, by its UTF-8 bytes.
        case string([UInt8])
        /// An integer, by its value.
        case integer(Int64)
        /// A real, by the bits of its double.
        case real(UInt64)
        /// A Boolean, by its value.
        case bool(Bool)
        /// A date, by the bits of its seconds since 2001.
        case date(UInt64)
        /// Data, by its bytes.
        case data([UInt8])
    }

    /// The objects by number; the top object is number 0.
    private var objects: [Object] = []
    /// The numbers of the scalars written so far, to store equal ones once.
    private var numbers: [ScalarIdentity: Int] = [:]
    /// The path to the value being numbered, and the checks every writer makes.
    private var writing = PropertyListWriting()

    /// The binary property list of `value`.
    static func write(_ value: PropertyList) throws(Diagnostic) -> [UInt8] {
        var writer = BinaryPropertyListWriter()
        let top = try writer.flatten(value)
        return writer.serialize(top: top)
    }

    // MARK: Objects

    /// Numbers `value` and everything in it, and returns its number.
    private mutating func flatten(_ value: PropertyList) throws(Diagnostic) -> Int {
        switch value {
        case .array(let values):
            let number = objects.count
            objects.append(.array([]))
            try writing.enterContainer()
            var references: [Int] = []
            references.reserveCapacity(values.count)
            for index in values.indices {
                writing.push(.index(index))
                references.append(try flatten(values[index]))
                writing.pop()
            }
            writing.leaveContainer()
            objects[number] = .array(references)
            return number
        case .dictionary(let entries):
            let number = objects.count
            objects.append(.dictionary(keys: [], values: []))
            try writing.enterContainer()
            try writing.checkKeys(entries)
            var keys: [Int] = []
            keys.reserveCapacity(entries.count)
            for (key, _) in entries {
                keys.append(scalar(.string(Array(key.utf8))) { Self.append(key, to: &$0) })
            }
            var values: [Int] = []
            values.reserveCapacity(entries.count)
            for (key, member) in entries {
                writing.push(.key(key))
                values.append(try flatten(member))
                writing.pop()
            }
            writing.leaveContainer()
            objects[number] = .dictionary(keys: keys, values: values)
            return number
        case .string(let string): return scalar(.string(Array(string.utf8))) { Self.append(string, to: &$0) }
        case .integer(let integer): return scalar(.integer(integer)) { Self.append(integer, to: &$0) }
        case .real(let real):
            return scalar(.real(real.bitPattern)) { Self.append(real.bitPattern, size: 8, after: 0x23, to: &$0) }
        case .bool(let bool): return scalar(.bool(bool)) { $0.append(bool ? 0x09 : 0x08) }
        case .date(let date):
            return scalar(.date(date.bitPattern)) { Self.append(date.bitPattern, size: 8, after: 0x33, to: &$0) }
        case .data(let bytes):
            return scalar(.data(bytes)) {
                Self.appendMarker(0x40, count: bytes.count, to: &$0)
                $0 += bytes
            }
        }
    }

    /// The number of a scalar: the one an equal scalar already has, or a new
    /// one, its bytes made by `encode`.
    private mutating func scalar(_ identity: ScalarIdentity, encode: (inout [UInt8]) -> Void) -> Int {
        if let number = numbers[identity] { return number }
        var bytes: [UInt8] = []
        encode(&bytes)
        let number = objects.count
        objects.append(.scalar(bytes))
        numbers[identity] = number
        return number
    }

    // MARK: Bytes

    /// The header, the objects in number order, the offset table and the trailer.
    private func serialize(top: Int) -> [UInt8] {
        let referenceSize = Self.size(of: UInt64(objects.count))
        var output = Array("bplist00".utf8)
        var offsets: [Int] = []
        offsets.reserveCapacity(objects.count)
        for object in objects {
            offsets.append(output.count)
            Self.append(object, referenceSize: referenceSize, to: &output)
        }
        let offsetTable = output.count
        let offsetSize = Self.size(of: UInt64(offsetTable))
        for offset in offsets { Self.append(UInt64(offset), size: offsetSize, to: &output) }
        // Five unused bytes and the sort version, then the sizes, the count, the top object and the table.
        output += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)]
        for field in [objects.count, top, offsetTable] { Self.append(UInt64(field), size: 8, to: &output) }
        return output
    }

    /// The bytes of `object`, its references `referenceSize` bytes each.
    private static func append(_ object: Object, referenceSize: Int, to output: inout [UInt8]) {
        switch object {
        case .scalar(let bytes):
            output += bytes
        case .array(let references):
            appendMarker(0xA0, count: references.count, to: &output)
            for reference in references { append(UInt64(reference), size: referenceSize, to: &output) }
        case .dictionary(let keys, let values):
            appendMarker(0xD0, count: keys.count, to: &output)
            for reference in keys + values { append(UInt64(reference), size: referenceSize, to: &output) }
        }
    }

    /// A string object: ASCII as such, anything else as UTF-16 code units, big-endian.
    private static func append(_ string: String, to output: inout [UInt8]) {
        if string.utf8.allSatisfy({ $0 < 0x80 }) {
            appendMarker(0x50, count: string.utf8.count, to: &output)
            output += string.utf8
        } else {
            appendMarker(0x60, count: string.utf16.count, to: &output)
            for unit in string.utf16 { append(UInt64(unit), size: 2, to: &output) }
        }
    }

    /// An integer object: 1, 2 or 4 bytes when it fits unsigned, 8 bytes (signed) otherwise, negatives included.
    private static func append(_ value: Int64, to output: inout [UInt8]) {
        let size = value < 0 ? 8 : Self.size(of: UInt64(value))
        append(UInt64(bitPattern: value), size: size, after: 0x10 | UInt8(size.trailingZeroBitCount), to: &output)
    }

    /// The marker `type` with the count in its low nibble, or, from 15 on, followed by the count as an integer.
    private static func appendMarker(_ type: UInt8, count: Int, to output: inout [UInt8]) {
        if count < 15 {
            output.append(type | UInt8(count))
        } else {
            output.append(type | 0x0F)
            append(Int64(count), to: &output)
        }
    }

    /// The `marker`, then the low `size` bytes of `value`, most significant first.
    private static func append(_ value: UInt64, size: Int, after marker: UInt8, to output: inout [UInt8]) {
        output.append(marker)
        append(value, size: size, to: &output)
    }

    /// The low `size` bytes of `value`, most significant first.
    private static func append(_ value: UInt64, size: Int, to output: inout [UInt8]) {
        var shift = 8 * size
        while shift > 0 {
            shift -= 8
            output.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }

    /// How many bytes (1, 2, 4 or 8) hold `value` unsigned.
    private static func size(of value: UInt64) -> Int {
        switch value {
        case ..<(1 << 8): 1
        case ..<(1 << 16): 2
        case ..<(1 << 32): 4
        default: 8
        }
    }
}

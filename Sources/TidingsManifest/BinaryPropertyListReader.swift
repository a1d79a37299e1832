import TidingsBase

/// Reads Apple's binary property lists (`bplist00`), as built bundles carry them.
///
/// The file is a header, the objects, a table of their offsets and a
/// 32-byte trailer. Every offset, length and reference is checked before it
/// is used, and containers that contain themselves are refused, so any input
/// either decodes or throws `plist.binary-corrupt` naming a byte offset.
struct BinaryPropertyListReader {
    private let bytes: [UInt8]
    private let file: String?
    /// The size of an offset table entry, and of an object reference, in bytes (1 to 8).
    private let offsetSize: Int
    private let referenceSize: Int
    private let objectCount: Int
    private let topObject: Int
    /// Where the offset table starts: objects lie between the header and here.
    private let offsetTable: Int
    /// The containers being read, by object number, to catch one that contains itself.
    private var reading: [Bool]
    /// How many more values may be produced: shared containers must not make a small file huge.
    private var valuesLeft: Int
    private var depth = 0
    private var path = PropertyListPath()
    private var warnings: [Diagnostic] = []

    private static let headerSize = 8
    private static let trailerSize = 32

    /// Reads the binary property list in `bytes`.
    static func read(_ bytes: [UInt8], file: String?) throws(Diagnostic) -> PropertyListDocument {
        var reader = try BinaryPropertyListReader(bytes: bytes, file: file)
        let value = try reader.readObject(reader.topObject)
        return PropertyListDocument(value: value, format: .binary, warnings: reader.warnings)
    }

    /// Checks the header and the trailer.
    private init(bytes: [UInt8], file: String?) throws(Diagnostic) {
        self.bytes = bytes
        self.file = file
        // Errors found before the reader exists carry no key path.
        func corrupt(_ message: String) -> Diagnostic {
            .error(.plistBinaryCorrupt, message, at: .init(file: file))
        }
        guard bytes.count >= Self.headerSize + 2 + Self.trailerSize else {
            throw corrupt("The file ends at byte offset \(bytes.count), too short for a header, an object "
                + "and a trailer.")
        }
        guard bytes[6] == UInt8(ascii: "0") && bytes[7] == UInt8(ascii: "0") else {
            let version = String(decoding: bytes[6..<8], as: UTF8.self)
            throw corrupt("Expected version 00 of the binary format at byte offset 6 but found \"\(version)\".")
        }
        let trailer = bytes.count - Self.trailerSize
        func field(_ offset: Int) -> UInt64 { Self.unsigned(bytes[(trailer + offset)..<(trailer + offset + 8)]) }
        offsetSize = Int(bytes[trailer + 6])
        referenceSize = Int(bytes[trailer + 7])
        for (name, size, offset) in [("offset", offsetSize, 6), ("object reference", referenceSize, 7)]
        where !(1...8).contains(size) {
            throw corrupt("The trailer gives an \(name) size of \(size) bytes at byte offset \(trailer + offset); "
                + "expected 1 to 8.")
        }
        let tableStart = field(24)
        guard tableStart > UInt64(Self.headerSize) && tableStart < UInt64(trailer) else {
            throw corrupt("The trailer places the offset table at byte offset \(tableStart), outside the space "
                + "between the header and the trailer (at byte offset \(trailer + 24)).")
        }
        offsetTable = Int(tableStart)
        let count = field(8)
        guard count >= 1 && count <= UInt64((trailer - offsetTable) / offsetSize) else {
            throw corrupt("The trailer claims \(count) objects at byte offset \(trailer + 8), but the offset table "
                + "from byte offset \(offsetTable) has room for \((trailer - offsetTable) / offsetSize).")
        }
        objectCount = Int(count)
        let top = field(16)
        guard top < count else {
            throw corrupt("The trailer names object \(top) as the top object at byte offset \(trailer + 16), "
                + "but there are only \(count) objects.")
        }
        topObject = Int(top)
        reading = Array(repeating: false, count: objectCount)
        valuesLeft = bytes.count
    }

    // MARK: Objects

    private mutating func readObject(_ object: Int) throws(Diagnostic) -> PropertyList {
        let start = try offset(of: object)
        guard valuesLeft > 0 else {
            throw corrupt("The object at byte offset \(start) is one value too many: the file's containers "
                + "are shared so often that it expands to more values than its \(bytes.count) bytes can hold.")
        }
        valuesLeft -= 1
        let marker = bytes[start]
        switch marker >> 4 {
        case 0x0 where marker == 0x08: return .bool(false)
        case 0x0 where marker == 0x09: return .bool(true)
        case 0x0 where marker == 0x00:
            throw corrupt("The object at byte offset \(start) is null, which property lists cannot hold.")
        case 0x1: return .integer(try integer(marker, at: start))
        case 0x2 where marker == 0x22: return .real(Double(Float(bitPattern: UInt32(try number(at: start, size: 4)))))
        case 0x2 where marker == 0x23: return .real(Double(bitPattern: try number(at: start, size: 8)))
        case 0x3 where marker == 0x33: return .date(Double(bitPattern: try number(at: start, size: 8)))
        case 0x4: return .data(Array(bytes[try contents(marker, at: start, unitSize: 1)]))
        case 0x5:
            let text = bytes[try contents(marker, at: start, unitSize: 1)]
            guard text.allSatisfy({ $0 < 0x80 }) else {
                throw corrupt("The ASCII string at byte offset \(start) holds a byte above 0x7F.")
            }
            return .string(String(decoding: text, as: UTF8.self))
        case 0x6:
            let text = bytes[try contents(marker, at: start, unitSize: 2)]
            guard let string = PropertyListReading.utf16String(text, bigEndian: true) else {
                throw corrupt("The UTF-16 string at byte offset \(start) is not valid UTF-16.")
            }
            return .string(string)
        case 0x8:
            throw corrupt("The object at byte offset \(start) is a UID, which only NSKeyedArchiver archives hold; "
                + "a manifest cannot contain one.")
        case 0xA: return try array(object, marker, at: start)
        case 0xD: return try dictionary(object, marker, at: start)
        default:
            throw corrupt("The object at byte offset \(start) has the unknown type marker \(Self.hex(marker)).")
        }
    }

    private mutating func array(_ object: Int, _ marker: UInt8, at start: Int) throws(Diagnostic) -> PropertyList {
        let references = try contents(marker, at: start, unitSize: referenceSize)
        try enter(object, at: start)
        var values: [PropertyList] = []
        values.reserveCapacity(references.count / referenceSize)
        for position in stride(from: references.lowerBound, to: references.upperBound, by: referenceSize) {
            path.push(.index(values.count))
            values.append(try readObject(reference(at: position)))
            path.pop()
        }
        leave(object)
        return .array(values)
    }

    private mutating func dictionary(_ object: Int, _ marker: UInt8, at start: Int) throws(Diagnostic)
        -> PropertyList
    {
        let references = try contents(marker, at: start, unitSize: 2 * referenceSize)
        let count = references.count / (2 * referenceSize)
        try enter(object, at: start)
        var entries = PropertyListEntries()
        for entry in 0..<count {
            let keyPosition = references.lowerBound + entry * referenceSize
            guard case .string(let key) = try readObject(reference(at: keyPosition)) else {
                throw corrupt("Key \(entry) of the dictionary at byte offset \(start) is not a string.")
            }
            path.push(.key(key))
            let value = try readObject(reference(at: keyPosition + count * referenceSize))
            if !entries.insert(key, value) {
                warnings.append(PropertyListReading.duplicateKey(key, at: location))
            }
            path.pop()
        }
        leave(object)
        return .dictionary(entries.entries)
    }

    private mutating func enter(_ container: Int, at start: Int) throws(Diagnostic) {
        guard !reading[container] else {
            throw corrupt("The container at byte offset \(start) contains itself, directly or through others.")
        }
        guard depth < PropertyListReading.maximumDepth else {
            throw PropertyListReading.tooDeep(at: location)
        }
        reading[container] = true
        depth += 1
    }

    private mutating func leave(_ container: Int) {
        reading[container] = false
        depth -= 1
    }

    // MARK: Fields

    /// An integer object: 1, 2 or 4 bytes unsigned, 8 bytes signed, or 16 bytes when the value fits in 64 bits.
    private func integer(_ marker: UInt8, at start: Int) throws(Diagnostic) -> Int64 {
        switch marker & 0x0F {
        case 0, 1, 2: return Int64(try number(at: start, size: 1 << (marker & 0x0F)))
        case 3: return Int64(bitPattern: try number(at: start, size: 8))
        case 4:
            let high = try number(at: start, size: 16)
            let low = Self.unsigned(bytes[(start + 9)..<(start + 17)])
            guard high == 0 && low >> 63 == 0 || high == UInt64.max && low >> 63 == 1 else {
                throw corrupt("The 16-byte integer at byte offset \(start) does not fit in 64 bits.")
            }
            return Int64(bitPattern: low)
        default:
            throw corrupt("The integer at byte offset \(start) has the unsupported size marker \(Self.hex(marker)).")
        }
    }

    /// The first (up to 8) of the `size` bytes after the marker at `start`, as a big-endian number.
    private func number(at start: Int, size: Int) throws(Diagnostic) -> UInt64 {
        guard size <= offsetTable - start - 1 else {
            throw corrupt("The \(size)-byte number at byte offset \(start) runs past the object data.")
        }
        return Self.unsigned(bytes[(start + 1)..<(start + 1 + min(size, 8))])
    }

    /// Where the contents of the data, string, array or dictionary object at `start` lie. Their count is in
    /// the marker's low nibble or, from 15 on, in the integer object that follows it.
    private func contents(_ marker: UInt8, at start: Int, unitSize: Int) throws(Diagnostic) -> Range<Int> {
        var count = UInt64(marker & 0x0F)
        var first = start + 1
        if count == 0x0F {
            let countMarker = first < offsetTable ? bytes[first] : 0
            guard countMarker >> 4 == 0x1 && countMarker & 0x0F <= 3 else {
                throw corrupt("The object at byte offset \(start) should give its count in an integer at byte offset "
                    + "\(first) but found the marker \(Self.hex(countMarker)).")
            }
            let size = 1 << (countMarker & 0x0F)
            count = try number(at: first, size: size)
            first += 1 + size
        }
        guard count <= UInt64((offsetTable - first) / unitSize) else {
            throw corrupt("The object at byte offset \(start) claims \(count) items of \(unitSize) bytes, "
                + "more than the object data holds.")
        }
        return first..<(first + Int(count) * unitSize)
    }

    /// Where object `object` starts, from the offset table.
    private func offset(of object: Int) throws(Diagnostic) -> Int {
        let entry = offsetTable + object * offsetSize
        let offset = Self.unsigned(bytes[entry..<(entry + offsetSize)])
        guard offset >= UInt64(Self.headerSize) && offset < UInt64(offsetTable) else {
            throw corrupt("The offset table entry at byte offset \(entry) places object \(object) at byte offset "
                + "\(offset), outside the object data.")
        }
        return Int(offset)
    }

    /// The object number stored at `position` in an array or dictionary.
    private func reference(at position: Int) throws(Diagnostic) -> Int {
        let object = Self.unsigned(bytes[position..<(position + referenceSize)])
        guard object < UInt64(objectCount) else {
            throw corrupt("The reference at byte offset \(position) names object \(object), "
                + "but there are only \(objectCount) objects.")
        }
        return Int(object)
    }

    private static func unsigned(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }

    private static func hex(_ byte: UInt8) -> String {
        "0x" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16, uppercase: true)
    }

    /// The file and the key path of the value being read.
    private var location: Diagnostic.Location {
        Diagnostic.Location(file: file, path: path.isEmpty ? nil : path.dotted)
    }

    private func corrupt(_ message: String) -> Diagnostic {
        .error(.plistBinaryCorrupt, message, at: location)
    }
}

extension Diagnostic.Code {
    /// A binary property list is damaged: a size, offset, count or reference is impossible, or an object
    /// is of a kind manifests cannot hold.
    package static let plistBinaryCorrupt = Self("plist.binary-corrupt")
}

/// Reads the time zone files of the tz database (TZif, RFC 8536), versions
/// 1 to 4: the 64-bit data of version 2 and later, with the POSIX rule of
/// their footer for the times past the table's end; the 32-bit data of a
/// version 1 file.
///
/// Leap second records ("right/" zones) are skipped: their transition
/// times count leap seconds, so such zones are off by up to 27 seconds.
enum TZifReader {
    /// Why bytes are not a TZif file, as a phrase ("it ends inside its transitions").
    struct Malformed: Error {
        var reason: String
    }

    /// True when `bytes` begin as a TZif file does.
    static func isTZif(_ bytes: some Collection<UInt8>) -> Bool {
        bytes.starts(with: Array("TZif".utf8))
    }

    /// The zone `bytes` describe.
    static func read(_ bytes: [UInt8]) throws(Malformed) -> ZoneTable {
        var reader = BigEndianReader(bytes: bytes)
        let first = try Header(&reader)
        guard first.version == 0 || first.version >= UInt8(ascii: "2") else {
            throw Malformed(reason: "its version byte \(first.version) is not 1, 2, 3 or 4")
        }
        if first.version == 0 { return try block(first, timeSize: 4, &reader, rule: nil) }
        try reader.skip(first.blockSize(timeSize: 4), "its version 1 data")
        let second = try Header(&reader)
        let start = reader.offset
        try reader.skip(second.blockSize(timeSize: 8), "its 64-bit data")
        let rule = try footer(&reader)
        reader.offset = start
        return try block(second, timeSize: 8, &reader, rule: rule)
    }

    /// The transitions and types of one data block.
    private static func block(_ header: Header, timeSize: Int, _ reader: inout BigEndianReader, rule: POSIXTimeZoneRule?)
        throws(Malformed) -> ZoneTable
    {
        var times: [Int64] = []
        times.reserveCapacity(header.transitionCount)
        for _ in 0..<header.transitionCount {
            let time = timeSize == 8 ? try reader.int64() : Int64(try reader.int32())
            guard times.last.map({ $0 < time }) ?? true else { throw Malformed(reason: "its transition times are not ascending") }
            times.append(time)
        }
        var typeIndices: [Int] = []
        typeIndices.reserveCapacity(header.transitionCount)
        for _ in 0..<header.transitionCount {
            let index = Int(try reader.byte())
            guard index < header.typeCount else { throw Malformed(reason: "a transition names type \(index) of \(header.typeCount)") }
            typeIndices.append(index)
        }
        var typeOffsets: [Int32] = []
        for _ in 0..<header.typeCount {
            let offset = try reader.int32()
            guard offset != Int32.min, abs(offset) < 26 * 3600 else { throw Malformed(reason: "an offset of \(offset) seconds is out of range") }
            typeOffsets.append(offset)
            _ = try reader.byte()  // is DST
            _ = try reader.byte()  // abbreviation index
        }
        return ZoneTable(transitions: times, offsets: typeIndices.map { typeOffsets[$0] }, initialOffset: Int(typeOffsets[0]),
                         rule: rule)
    }

    /// The footer: a newline, a POSIX rule (possibly empty), a newline.
    private static func footer(_ reader: inout BigEndianReader) throws(Malformed) -> POSIXTimeZoneRule? {
        guard try reader.byte() == UInt8(ascii: "\n") else { throw Malformed(reason: "its footer does not begin with a newline") }
        var text: [UInt8] = []
        while true {
            let byte = try reader.byte()
            if byte == UInt8(ascii: "\n") { break }
            guard text.count < 256 else { throw Malformed(reason: "its footer is too long") }
            text.append(byte)
        }
        if text.isEmpty { return nil }
        let string = String(decoding: text, as: UTF8.self)
        guard let rule = POSIXTimeZoneRule(string) else { throw Malformed(reason: "its footer \"\(string)\" is not a POSIX TZ rule") }
        return rule
    }

    /// A TZif header: the magic, the version, and the counts of what follows.
    private struct Header {
        var version: UInt8
        var utIndicatorCount: Int
        var standardIndicatorCount: Int
        var leapCount: Int
        var transitionCount: Int
        var typeCount: Int
        var characterCount: Int

        init(_ reader: inout BigEndianReader) throws(Malformed) {
            guard try reader.bytes(4).elementsEqual("TZif".utf8) else { throw Malformed(reason: "it does not begin with \"TZif\"") }
            version = try reader.byte()
            try reader.skip(15, "its header")
            var counts: [Int] = []
            for _ in 0..<6 {
                let count = try reader.int32()
                guard count >= 0, count < 1 << 20 else { throw Malformed(reason: "its header has a count of \(count)") }
                counts.append(Int(count))
            }
            (utIndicatorCount, standardIndicatorCount, leapCount) = (counts[0], counts[1], counts[2])
            (transitionCount, typeCount, characterCount) = (counts[3], counts[4], counts[5])
            guard typeCount > 0 else { throw Malformed(reason: "it has no local time type") }
        }

        /// The bytes of the data block that follows, with times of `timeSize` bytes.
        func blockSize(timeSize: Int) -> Int {
            transitionCount * (timeSize + 1) + typeCount * 6 + characterCount + leapCount * (timeSize + 4)
                + standardIndicatorCount + utIndicatorCount
        }
    }
}

/// Reads big-endian numbers from bytes, refusing to read past their end.
private struct BigEndianReader {
    let bytes: [UInt8]
    var offset = 0

    /// The next `count` bytes.
    mutating func bytes(_ count: Int) throws(TZifReader.Malformed) -> ArraySlice<UInt8> {
        let range = try take(count, "its header")
        return bytes[range]
    }

    mutating func byte() throws(TZifReader.Malformed) -> UInt8 {
        bytes[try take(1, "its data").lowerBound]
    }

    mutating func int32() throws(TZifReader.Malformed) -> Int32 {
        let range = try take(4, "its data")
        return Int32(bitPattern: bytes[range].reduce(0) { $0 << 8 | UInt32($1) })
    }

    mutating func int64() throws(TZifReader.Malformed) -> Int64 {
        let range = try take(8, "its data")
        return Int64(bitPattern: bytes[range].reduce(0) { $0 << 8 | UInt64($1) })
    }

    mutating func skip(_ count: Int, _ what: String) throws(TZifReader.Malformed) {
        _ = try take(count, what)
    }

    private mutating func take(_ count: Int, _ what: String) throws(TZifReader.Malformed) -> Range<Int> {
        guard count <= bytes.count - offset else { throw TZifReader.Malformed(reason: "it ends inside \(what)") }
        defer { offset += count }
        return offset..<offset + count
    }
}

import Testing
import TidingsBase

@Suite("ByteWriter and ByteReader")
struct ByteCodingTests {
    @Test func whatIsWrittenIsReadBackInOrder() throws {
        var writer = ByteWriter()
        writer.write(varint: 0)
        writer.write(varint: 300)
        writer.write(varint: .max)
        writer.write(int64: -5)
        writer.write(double: 0.75)
        writer.write(bool: true)
        writer.write(string: "Grüße")
        writer.write(optional: nil as String?) { $0.write(string: $1) }
        writer.write(optional: "x") { $0.write(string: $1) }
        writer.write(array: ["a", "bc"]) { $0.write(string: $1) }
        var reader = ByteReader(writer.bytes)
        #expect(try reader.readVarint() == 0)
        #expect(try reader.readVarint() == 300)
        #expect(try reader.readVarint() == .max)
        #expect(try reader.readInt64() == -5)
        #expect(try reader.readDouble() == 0.75)
        #expect(try reader.readBool())
        #expect(try reader.readString() == "Grüße")
        #expect(try reader.readOptionalString() == nil)
        #expect(try reader.readOptionalString() == "x")
        #expect(try reader.readCount() == 2)
        #expect(try [reader.readString(), reader.readString()] == ["a", "bc"])
        #expect(reader.isAtEnd)
    }

    @Test func varintsAreLEB128() {
        var writer = ByteWriter()
        writer.write(varint: 300)
        #expect(writer.bytes == [0xAC, 0x02])
    }

    @Test func aReaderSeesOnlyItsRange() throws {
        var writer = ByteWriter()
        writer.write(string: "before")
        let start = writer.bytes.count
        writer.write(string: "inside")
        let end = writer.bytes.count
        writer.write(string: "after")
        var reader = ByteReader(writer.bytes, range: start..<end)
        #expect(try reader.readString() == "inside")
        #expect(reader.isAtEnd)
        #expect(throws: ByteReader.Malformed.self) { try reader.readByte() }
    }

    /// Bytes that are cut short, too large or not what they claim are refused, never misread.
    @Test(arguments: [
        [0x80],                                                  // a varint cut short
        [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02], // more than 64 bits
        [0x05, 0x61, 0x62],                                      // a string longer than the bytes
        [0x02, 0xC3, 0x28],                                      // a string that is not UTF-8
    ] as [[UInt8]])
    func malformedStringsAreRefused(bytes: [UInt8]) {
        var reader = ByteReader(bytes)
        #expect(throws: ByteReader.Malformed.self) { try reader.readString() }
    }

    @Test func countsBeyondTheBytesLeftAndBadFlagsAreRefused() {
        var count = ByteReader([0x03, 0x00])
        #expect(throws: ByteReader.Malformed.self) { try count.readCount() }
        var limited = ByteReader([0x03, 0x00, 0x00, 0x00])
        #expect(throws: ByteReader.Malformed.self) { try limited.readCount(atMost: 2) }
        var flag = ByteReader([0x02])
        #expect(throws: ByteReader.Malformed.self) { try flag.readBool() }
        var number = ByteReader([1, 2, 3])
        #expect(throws: ByteReader.Malformed.self) { try number.readInt64() }
    }
}

import Testing
import TidingsBase
import TidingsManifest

@Suite struct BinaryPropertyListReaderTests {
    static func doubleBits(_ value: Double) -> [UInt8] { bigEndian(value.bitPattern, size: 8) }

    @Test(arguments: [
        ([[0x08]], PropertyList.bool(false)),
        ([[0x09]], .bool(true)),
        ([[0x10, 0xFF]], .integer(255)),
        ([[0x11, 0xFF, 0xFE]], .integer(65_534)),
        ([[0x12, 0xFF, 0xFF, 0xFF, 0xFF]], .integer(4_294_967_295)),
        ([[0x13] + bigEndian(UInt64(bitPattern: -5), size: 8)], .integer(-5)),
        ([[0x14] + bigEndian(0, size: 8) + bigEndian(5, size: 8)], .integer(5)),
        ([[0x14] + bigEndian(.max, size: 8) + bigEndian(UInt64(bitPattern: -5), size: 8)], .integer(-5)),
        ([[0x14] + bigEndian(0, size: 8) + bigEndian(UInt64(Int64.max), size: 8)], .integer(.max)),
        ([[0x22, 0x3F, 0xC0, 0x00, 0x00]], .real(1.5)),
        ([[0x23] + doubleBits(-0.25)], .real(-0.25)),
        ([[0x33] + doubleBits(86_400)], .date(86_400)),
        ([[0x43, 1, 2, 3]], .data([1, 2, 3])),
        ([[0x4F, 0x10, 0x02, 7, 8]], .data([7, 8])),
        ([[0x50]], .string("")),
        ([[0x53] + Array("abc".utf8)], .string("abc")),
        ([[0x5F, 0x11, 0x00, 0x03] + Array("xyz".utf8)], .string("xyz")),
        ([[0x63, 0x00, 0xE9, 0xD8, 0x3D, 0xDE, 0x00]], .string("é😀")),
        ([[0xA2, 0x01, 0x01], [0x51, 0x61]], .array([.string("a"), .string("a")])),
        ([[0xD1, 0x01, 0x02], [0x51, 0x6B], [0xA0]], .dictionary([("k", .array([]))])),
    ] as [([[UInt8]], PropertyList)])
    func objectDecodes(objects: [[UInt8]], expected: PropertyList) throws {
        #expect(try PropertyList.decode(binaryPropertyList(objects)).value == expected)
    }

    @Test func wideOffsetsAndReferencesDecode() throws {
        let objects: [[UInt8]] = [[0xA2, 0x00, 0x01, 0x00, 0x02], [0x51, 0x61], [0x10, 0x01]]
        let bytes = binaryPropertyList(objects, offsetSize: 8, referenceSize: 2)
        #expect(try PropertyList.decode(bytes).value == .array([.string("a"), .integer(1)]))
    }

    @Test func sharedContainersAreNotCycles() throws {
        let bytes = binaryPropertyList([[0xA2, 0x01, 0x01], [0xA1, 0x02], [0x51, 0x61]])
        let shared: PropertyList = .array([.string("a")])
        #expect(try PropertyList.decode(bytes).value == .array([shared, shared]))
    }

    /// Keys are compared by their text: objects 3 and 4 are both "b".
    @Test func repeatedKeyKeepsLastValueAndWarns() throws {
        let bytes = binaryPropertyList([
            [0xD1, 0x01, 0x02], [0x51, 0x61],
            [0xD3, 0x03, 0x05, 0x04, 0x06, 0x07, 0x08], [0x51, 0x62],
            [0x51, 0x62], [0x51, 0x63], [0x10, 0x01], [0x10, 0x02], [0x10, 0x03],
        ])
        let document = try PropertyList.decode(bytes, file: "Info.plist")
        #expect(document.value == .dictionary([("a", .dictionary([("b", .integer(3)), ("c", .integer(2))]))]))
        let warning = try #require(document.warnings.first)
        #expect(warning.code == .plistDuplicateKey)
        #expect(warning.severity == .warning)
        #expect(warning.location == Diagnostic.Location(file: "Info.plist", path: "a.b"))
    }

    @Test(arguments: [
        // A container that contains itself, directly or not.
        ([[0xA1, 0x00]], "The container at byte offset 8 contains itself, directly or through others."),
        ([[0xD1, 0x01, 0x02], [0x51, 0x61], [0xA1, 0x00]],
         "The container at byte offset 8 contains itself, directly or through others."),
        ([[0xA1, 0x01], [0xD1, 0x02, 0x01], [0x51, 0x61]],
         "The container at byte offset 10 contains itself, directly or through others."),
        // Objects no manifest holds.
        ([[0x80, 0x01]], "The object at byte offset 8 is a UID, which only NSKeyedArchiver archives hold; a manifest cannot contain one."),
        ([[0x00]], "The object at byte offset 8 is null, which property lists cannot hold."),
        ([[0x0F]], "The object at byte offset 8 has the unknown type marker 0x0F."),
        ([[0x70]], "The object at byte offset 8 has the unknown type marker 0x70."),
        ([[0xC1, 0x00]], "The object at byte offset 8 has the unknown type marker 0xC1."),
        ([[0xD1, 0x01, 0x01], [0x10, 0x01]], "Key 0 of the dictionary at byte offset 8 is not a string."),
        // Numbers.
        ([[0x14] + bigEndian(1, size: 8) + bigEndian(0, size: 8)],
         "The 16-byte integer at byte offset 8 does not fit in 64 bits."),
        ([[0x14] + bigEndian(0, size: 8) + bigEndian(1 << 63, size: 8)],
         "The 16-byte integer at byte offset 8 does not fit in 64 bits."),
        ([[0x15, 0x00]], "The integer at byte offset 8 has the unsupported size marker 0x15."),
        ([[0x13, 0x00, 0x01]], "The 8-byte number at byte offset 8 runs past the object data."),
        ([[0x21, 0x00, 0x01]], "The object at byte offset 8 has the unknown type marker 0x21."),
        // Strings and counts.
        ([[0x51, 0xE9]], "The ASCII string at byte offset 8 holds a byte above 0x7F."),
        ([[0x61, 0xDC, 0x00]], "The UTF-16 string at byte offset 8 is not valid UTF-16."),
        ([[0x55, 0x61]], "The object at byte offset 8 claims 5 items of 1 bytes, more than the object data holds."),
        ([[0x5F, 0x10, 0xFF, 0x61]],
         "The object at byte offset 8 claims 255 items of 1 bytes, more than the object data holds."),
        ([[0x5F, 0x51, 0x61]],
         "The object at byte offset 8 should give its count in an integer at byte offset 9 but found the marker 0x51."),
        ([[0x5F]], "The object at byte offset 8 should give its count in an integer at byte offset 9 but found the marker 0x00."),
        ([[0x4F, 0x13] + bigEndian(.max, size: 8)],
         "The object at byte offset 8 claims 18446744073709551615 items of 1 bytes, more than the object data holds."),
        ([[0xA1, 0x05]], "The reference at byte offset 9 names object 5, but there are only 1 objects."),
    ] as [([[UInt8]], String)])
    func corruptObjectIsRefused(objects: [[UInt8]], message: String) throws {
        let error = try decodeError(binaryPropertyList(objects), file: "Info.plist")
        #expect(error.code == .plistBinaryCorrupt)
        #expect(error.severity == .error)
        #expect(error.location.file == "Info.plist")
        #expect(error.message == message)
    }

    @Test func errorNamesTheKeyPath() throws {
        let bytes = binaryPropertyList([[0xD1, 0x01, 0x02], [0x51, 0x61], [0xA2, 0x03, 0x04], [0x09], [0x00]])
        #expect(try decodeError(bytes).location.path == "a.1")
    }

    /// A valid file of 59 bytes (objects at 8, offset table at 24, trailer at 27), then one byte
    /// of it changed: where, to what, and the message that must follow.
    @Test(arguments: [
        (33, 0, "The trailer gives an offset size of 0 bytes at byte offset 33; expected 1 to 8."),
        (33, 9, "The trailer gives an offset size of 9 bytes at byte offset 33; expected 1 to 8."),
        (34, 0, "The trailer gives an object reference size of 0 bytes at byte offset 34; expected 1 to 8."),
        (42, 0, "The trailer claims 0 objects at byte offset 35, but the offset table from byte offset 24 has room for 3."),
        (35, 0x10, "The trailer claims 1152921504606846979 objects at byte offset 35, but the offset table from byte offset 24 has room for 3."),
        (50, 3, "The trailer names object 3 as the top object at byte offset 43, but there are only 3 objects."),
        (58, 8, "The trailer places the offset table at byte offset 8, outside the space between the header and the trailer (at byte offset 51)."),
        (58, 200, "The trailer places the offset table at byte offset 200, outside the space between the header and the trailer (at byte offset 51)."),
        (51, 0xFF, "The trailer places the offset table at byte offset 18374686479671623704, outside the space between the header and the trailer (at byte offset 51)."),
        (24, 40, "The offset table entry at byte offset 24 places object 0 at byte offset 40, outside the object data."),
        (24, 3, "The offset table entry at byte offset 24 places object 0 at byte offset 3, outside the object data."),
        (7, UInt8(ascii: "1"), "Expected version 00 of the binary format at byte offset 6 but found \"01\"."),
    ] as [(Int, UInt8, String)])
    func corruptTrailerIsRefused(position: Int, value: UInt8, message: String) throws {
        var bytes = binaryPropertyList([[0xA2, 0x01, 0x02], [0x5A] + Array("ten chars!".utf8), [0x10, 0x2A]])
        #expect(bytes.count == 59)
        #expect(try PropertyList.decode(bytes).value == .array([.string("ten chars!"), .integer(42)]))
        bytes[position] = value
        let error = try decodeError(bytes)
        #expect(error.code == .plistBinaryCorrupt)
        #expect(error.message == message)
    }

    @Test func tooShortFileIsRefused() throws {
        let error = try decodeError(Array("bplist00".utf8) + [UInt8](repeating: 0, count: 20))
        #expect(error.code == .plistBinaryCorrupt)
        #expect(error.message == "The file ends at byte offset 28, too short for a header, an object and a trailer.")
    }

    @Test func everyTruncationIsAnError() throws {
        let bytes = try fixture("ContentExtension.binary.plist")
        for length in 0..<bytes.count {
            let error = try decodeError(Array(bytes[..<length]))
            #expect(error.code == (length < 6 ? .plistUnknownFormat : .plistBinaryCorrupt), "\(length) bytes")
        }
    }

    @Test func nestingIsLimited() throws {
        let depth = 256  // the readers' limit
        func nested(_ count: Int) -> [UInt8] {
            let arrays = (0..<count).map { [0xA1] + bigEndian(UInt64($0 + 1), size: 2) }
            return binaryPropertyList(arrays + [[0x09]], offsetSize: 2, referenceSize: 2)
        }
        #expect(try PropertyList.decode(nested(depth)).format == .binary)
        let error = try decodeError(nested(depth + 1))
        #expect(error.code == .plistTooDeep)
        #expect(error.location.path == Array(repeating: "0", count: depth).joined(separator: "."))
    }

    @Test func sharingCannotExpandASmallFileIntoAHugeValue() throws {
        // Each array holds the next one twice: 40 objects that would expand to 2^40 values.
        let arrays = (0..<40).map { (index: Int) -> [UInt8] in [0xA2, UInt8(index + 1), UInt8(index + 1)] }
        let error = try decodeError(binaryPropertyList(arrays + [[0x09]]))
        #expect(error.code == .plistBinaryCorrupt)
        #expect(error.message.contains("expands to more values than its"))
    }

    @Test(arguments: ["ContentExtension", "AllTypes", "LongValues", "Unicode"])
    func fuzzedFilesDecodeOrThrow(name: String) throws {
        let original = try fixture("\(name).binary.plist")
        var generator = SeededGenerator(state: UInt64(original.count))
        let interesting: [UInt8] = [0x00, 0x01, 0x08, 0x0F, 0x10, 0x13, 0x14, 0x1F, 0x4F, 0x5F, 0x6F, 0x7F, 0x80, 0xA0, 0xAF,
                                    0xD0, 0xDF, 0xFF]
        var outcomes: [Diagnostic.Code: Int] = [:]
        for _ in 0..<3_000 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                // Half of the changes hit the offset table and the trailer, where sizes and positions are.
                let tail = bytes.count - 40
                let position = Bool.random(using: &generator)
                    ? Int.random(in: tail..<bytes.count, using: &generator)
                    : Int.random(in: 8..<bytes.count, using: &generator)
                bytes[position] = Bool.random(using: &generator)
                    ? interesting.randomElement(using: &generator)!
                    : UInt8.random(in: 0...255, using: &generator)
            }
            if Int.random(in: 0..<10, using: &generator) == 0 {
                bytes.removeLast(Int.random(in: 1...16, using: &generator))
            }
            do throws(Diagnostic) {
                let document = try PropertyList.decode(bytes)
                #expect(document.format == .binary)
                outcomes[Diagnostic.Code("decoded"), default: 0] += 1
            } catch {
                #expect(error.severity == .error)
                outcomes[error.code, default: 0] += 1
            }
        }
        #expect(outcomes[.plistBinaryCorrupt, default: 0] > 0)
        #expect(outcomes[Diagnostic.Code("decoded"), default: 0] > 0)
    }
}

import Testing
import TidingsBase
import TidingsManifest

@Suite struct PropertyListDecodingTests {
    @Test(arguments: [
        ("ContentExtension.binary.plist", PropertyListFormat.binary),
        ("ContentExtension.xml.plist", .xml),
        ("BOM.plist", .xml),
    ])
    func formatIsToldByTheFirstBytes(name: String, format: PropertyListFormat) throws {
        #expect(try PropertyList.decode(fixture(name)).format == format)
    }

    @Test func emptyInputIsRefused() throws {
        let error = try decodeError([], file: "Info.plist")
        #expect(error.code == .plistUnknownFormat)
        #expect(error.message == "Info.plist is empty.")
        #expect(error.location.file == "Info.plist")
        #expect(try decodeError([]).message == "The input is empty.")
    }

    @Test(arguments: ["hello", "   \n", "\u{FEFF}", "\u{FEFF} plist", "bplis", "(a = b;)", "\0<plist/>"])
    func otherInputIsRefused(text: String) throws {
        let error = try decodeError(text, file: "Info.plist")
        #expect(error.code == .plistUnknownFormat)
        #expect(error.severity == .error)
        #expect(error.message == "Info.plist is neither an XML, a binary nor a JSON property list.")
    }

    @Test func whiteSpaceAndByteOrderMarkMayPrecedeXML() throws {
        let document = try PropertyList.decode([0xEF, 0xBB, 0xBF] + Array(" \r\n\t<plist><true/></plist>".utf8))
        #expect(document.value == .bool(true))
        #expect(document.format == .xml)
    }

    @Test(arguments: [true, false])
    func utf16WithByteOrderMarkIsTranscoded(bigEndian: Bool) throws {
        let utf8 = try fixture("BOM.plist")
        let text = String(decoding: utf8.dropFirst(3), as: UTF8.self)
        var bytes: [UInt8] = bigEndian ? [0xFE, 0xFF] : [0xFF, 0xFE]
        for unit in text.utf16 {
            bytes += bigEndian ? [UInt8(unit >> 8), UInt8(unit & 0xFF)] : [UInt8(unit & 0xFF), UInt8(unit >> 8)]
        }
        let document = try PropertyList.decode(bytes)
        #expect(document.format == .xml)
        #expect(try document.value == PropertyList.decode(utf8).value)
    }

    @Test func invalidUTF16IsRefused() throws {
        let error = try decodeError([0xFF, 0xFE, 0x3C, 0x00, 0x00, 0xDC], file: "Info.plist")
        #expect(error.code == .plistSyntax)
        #expect(error.message == "Info.plist starts with a UTF-16 byte order mark but is not valid UTF-16.")
    }

    @Test func jsonBecomesAPropertyListInOrder() throws {
        let text = """
            {
              "CFBundleIdentifier": "com.example.json",
              "NSExtension": {
                "NSExtensionAttributes": {
                  "UNNotificationExtensionCategory": ["A", "B"],
                  "UNNotificationExtensionInitialContentSizeRatio": 0.75,
                  "UNNotificationExtensionDefaultContentHidden": true,
                  "Count": 3
                }
              }
            }
            """
        let document = try decode(text)
        #expect(document.format == .json)
        #expect(document.value == .dictionary([
            ("CFBundleIdentifier", .string("com.example.json")),
            ("NSExtension", .dictionary([
                ("NSExtensionAttributes", .dictionary([
                    ("UNNotificationExtensionCategory", .array([.string("A"), .string("B")])),
                    ("UNNotificationExtensionInitialContentSizeRatio", .real(0.75)),
                    ("UNNotificationExtensionDefaultContentHidden", .bool(true)),
                    ("Count", .integer(3)),
                ])),
            ])),
        ]))
        #expect(try decode("\u{FEFF}\n[false, -1]").value == .array([.bool(false), .integer(-1)]))
    }

    @Test(arguments: [
        ("{\"NSExtension\": {\"NSExtensionAttributes\": null}}", "/NSExtension/NSExtensionAttributes"),
        ("{\"a\": [1, null]}", "/a/1"),
        ("{\"a/b\": {\"~c\": null}}", "/a~1b/~0c"),
        ("[null]", "/0"),
    ])
    func jsonNullIsRefusedWithItsPointer(text: String, pointer: String) throws {
        let error = try decodeError(text, file: "Info.json")
        #expect(error.code == .plistJSONNull)
        #expect(error.severity == .error)
        #expect(error.message == "JSON null has no property list equivalent.")
        #expect(error.location == Diagnostic.Location(file: "Info.json", path: pointer))
    }
}

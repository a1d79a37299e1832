import Testing
import TidingsBase
import TidingsManifest

@Suite struct PropertyListEncodingTests {
    // MARK: Helpers

    /// Every fixture, so that the round trips below cover them all (`everyFixtureIsListed` keeps this complete).
    static let fixtures = [
        "AllTypes.binary.plist", "AllTypes.xml.plist", "BOM.plist", "CRLF.plist", "ContentExtension.binary.plist",
        "ContentExtension.xml.plist", "IntegerRatio.plist", "LongValues.binary.plist", "LongValues.xml.plist",
        "Source-Info.plist", "Unicode.binary.plist", "Unicode.xml.plist",
    ]

    /// Encodes `value` in `format` and decodes the bytes, which must give the
    /// same value with the same keys in the same order, in that format, with no warnings.
    @discardableResult
    static func roundTrip(_ value: PropertyList, _ format: PropertyListFormat,
                          sourceLocation: SourceLocation = #_sourceLocation) throws -> [UInt8] {
        let bytes = try PropertyListEncoding.encode(value, as: format)
        let document = try PropertyList.decode(bytes)
        #expect(document.format == format, sourceLocation: sourceLocation)
        #expect(document.value == value, "\(format)", sourceLocation: sourceLocation)
        #expect(keyOrder(document.value) == keyOrder(value), sourceLocation: sourceLocation)
        #expect(document.warnings.isEmpty, sourceLocation: sourceLocation)
        return bytes
    }

    /// The keys of every dictionary in `value`, in order, depth first: the
    /// key order at every level, which `==` on property lists also compares.
    static func keyOrder(_ value: PropertyList) -> [[String]] {
        var orders: [[String]] = []
        func visit(_ value: PropertyList) {
            switch value {
            case .array(let values):
                for element in values { visit(element) }
            case .dictionary(let entries):
                orders.append(entries.map(\.0))
                for (_, member) in entries { visit(member) }
            default:
                break
            }
        }
        visit(value)
        return orders
    }

    /// The path of the first date or data in `value`, and which it is; nil when it holds neither.
    static func firstDateOrData(_ value: PropertyList, prefix: String = "") -> (path: String, value: PropertyList)? {
        func joined(_ component: String) -> String { prefix.isEmpty ? component : prefix + "." + component }
        switch value {
        case .date, .data: return (prefix, value)
        case .array(let values):
            for (index, element) in values.enumerated() {
                if let found = firstDateOrData(element, prefix: joined("\(index)")) { return found }
            }
        case .dictionary(let entries):
            for (key, member) in entries {
                if let found = firstDateOrData(member, prefix: joined(key)) { return found }
            }
        default: break
        }
        return nil
    }

    /// The error encoding `value` in `format` must throw.
    static func encodeError(_ value: PropertyList, _ format: PropertyListFormat,
                            sourceLocation: SourceLocation = #_sourceLocation) throws -> Diagnostic {
        try #require(throws: Diagnostic.self, sourceLocation: sourceLocation) {
            try PropertyListEncoding.encode(value, as: format)
        }
    }

    static func text(_ value: PropertyList, _ format: PropertyListFormat) throws -> String {
        String(decoding: try PropertyListEncoding.encode(value, as: format), as: UTF8.self)
    }

    /// `value` inside `depth` arrays.
    static func nested(_ depth: Int, around value: PropertyList) -> PropertyList {
        (0..<depth).reduce(value) { inner, _ in .array([inner]) }
    }

    // MARK: Fixtures

    @Test func everyFixtureIsListed() throws {
        let directory = Path.join(Path.directory(of: #filePath), "Fixtures")
        let names = try FileSystem.contentsOfDirectory(directory).filter { !$0.hasPrefix(".") }
        #expect(names.sorted() == Self.fixtures.sorted())
    }

    @Test(arguments: fixtures, PropertyListFormat.allCases)
    func fixtureRoundTrips(name: String, format: PropertyListFormat) throws {
        let value = try PropertyList.decode(fixture(name)).value
        if format == .json, let (path, unwritable) = Self.firstDateOrData(value) {
            let error = try Self.encodeError(value, .json)
            #expect(error.code == .plistCannotEncode)
            #expect(error.location.path == path)
            #expect(error.message == "JSON cannot hold \(unwritable.typeDescription); write the property list as XML "
                + "or binary instead.")
        } else {
            try Self.roundTrip(value, format)
        }
    }

    /// Python's plistlib wrote the fixtures as Apple's tools do, down to the
    /// order of binary objects; the writers give the same bytes.
    @Test(arguments: PropertyListFixtureTests.written)
    func writesTheFixturesByteForByte(name: String, value: PropertyList) throws {
        #expect(try PropertyListEncoding.encode(value, as: .xml) == fixture("\(name).xml.plist"))
        #expect(try PropertyListEncoding.encode(value, as: .binary) == fixture("\(name).binary.plist"))
    }

    @Test func contentExtensionKeepsEveryKeyInOrder() throws {
        let value = try PropertyList.decode(fixture("ContentExtension.xml.plist")).value
        for format in PropertyListFormat.allCases {
            let reread = try PropertyList.decode(PropertyListEncoding.encode(value, as: format)).value
            #expect(Self.keyOrder(reread) == Self.keyOrder(contentExtension))
            #expect(reread.dictionaryEntries?.map(\.0) == [
                "CFBundleDevelopmentRegion", "CFBundleDisplayName", "CFBundleExecutable", "CFBundleIdentifier",
                "CFBundleInfoDictionaryVersion", "CFBundleName", "CFBundlePackageType", "CFBundleShortVersionString",
                "CFBundleVersion", "NSExtension",
            ])
            #expect(reread["NSExtension"]?["NSExtensionAttributes"]?.dictionaryEntries?.map(\.0) == [
                "UNNotificationExtensionCategory", "UNNotificationExtensionInitialContentSizeRatio",
                "UNNotificationExtensionDefaultContentHidden",
            ])
        }
    }

    // MARK: XML

    @Test func xmlIsWrittenInXcodeStyle() throws {
        let manifest: PropertyList = .dictionary([
            ("CFBundleIdentifier", .string("com.example.Invite")),
            ("CFBundleVersion", .integer(3)),
            ("NSExtension", .dictionary([
                ("NSExtensionAttributes", .dictionary([
                    ("UNNotificationExtensionCategory", .array([.string("INVITE"), .string("UPDATE")])),
                    ("UNNotificationExtensionInitialContentSizeRatio", .real(0.75)),
                    ("UNNotificationExtensionDefaultContentHidden", .bool(true)),
                    ("UNNotificationExtensionUserInteractionEnabled", .bool(false)),
                ])),
                ("Scale", .real(2)),
                ("Released", .date(730_902_615.75)),
                ("Icon", .data([0, 1, 2, 0xFF])),
            ])),
        ])
        #expect(try Self.text(manifest, .xml) == """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \t<key>CFBundleIdentifier</key>
            \t<string>com.example.Invite</string>
            \t<key>CFBundleVersion</key>
            \t<integer>3</integer>
            \t<key>NSExtension</key>
            \t<dict>
            \t\t<key>NSExtensionAttributes</key>
            \t\t<dict>
            \t\t\t<key>UNNotificationExtensionCategory</key>
            \t\t\t<array>
            \t\t\t\t<string>INVITE</string>
            \t\t\t\t<string>UPDATE</string>
            \t\t\t</array>
            \t\t\t<key>UNNotificationExtensionInitialContentSizeRatio</key>
            \t\t\t<real>0.75</real>
            \t\t\t<key>UNNotificationExtensionDefaultContentHidden</key>
            \t\t\t<true/>
            \t\t\t<key>UNNotificationExtensionUserInteractionEnabled</key>
            \t\t\t<false/>
            \t\t</dict>
            \t\t<key>Scale</key>
            \t\t<real>2</real>
            \t\t<key>Released</key>
            \t\t<date>2024-02-29T12:30:15Z</date>
            \t\t<key>Icon</key>
            \t\t<data>
            \t\tAAEC/w==
            \t\t</data>
            \t</dict>
            </dict>
            </plist>

            """)
    }

    @Test func xmlEscapesMarkupAndCarriageReturns() throws {
        let value: PropertyList = .dictionary([
            ("<&>", .string("a & b < c > d \"e\" 'f'")),
            ("Lines", .string("one\r\ntwo\rthree\n\tfour")),
        ])
        let text = try Self.text(value, .xml)
        #expect(text.contains("\t<key>&lt;&amp;&gt;</key>\n\t<string>a &amp; b &lt; c &gt; d \"e\" 'f'</string>\n"))
        #expect(text.contains("\t<string>one&#13;\ntwo&#13;three\n\tfour</string>\n"))
        try Self.roundTrip(value, .xml)
    }

    @Test func xmlWritesEmptyValuesShort() throws {
        let value: PropertyList = .array([.array([]), .dictionary([]), .string(""), .data([])])
        #expect(try Self.text(value, .xml).hasSuffix("""
            <plist version="1.0">
            <array>
            \t<array/>
            \t<dict/>
            \t<string></string>
            \t<data>
            \t</data>
            </array>
            </plist>

            """))
        try Self.roundTrip(value, .xml)
        #expect(try Self.text(.array([]), .xml).hasSuffix("<plist version=\"1.0\">\n<array/>\n</plist>\n"))
    }

    @Test(arguments: [
        ("\u{0}", "U+0000"), ("a\u{1}b", "U+0001"), ("\u{1F}", "U+001F"), ("\u{FFFE}", "U+FFFE"),
        ("x\u{FFFF}", "U+FFFF"),
    ])
    func xmlRefusesCharactersItCannotCarry(string: String, character: String) throws {
        let error = try Self.encodeError(.dictionary([("Outer", .array([.string(string)]))]), .xml)
        #expect(error.code == .plistCannotEncode)
        #expect(error.location.path == "Outer.0")
        #expect(error.message == "XML 1.0 cannot carry the character \(character), which the string holds; write "
            + "the property list as binary or JSON instead.")
        let keyError = try Self.encodeError(.dictionary([(string, .bool(true))]), .xml)
        #expect(keyError.message.contains("which the key holds"))
        #expect(keyError.location.path == string)
        // Binary and JSON carry them.
        try Self.roundTrip(.array([.string(string)]), .binary)
        try Self.roundTrip(.array([.string(string)]), .json)
    }

    @Test func xmlCarriesEveryOtherCharacter() throws {
        let value: PropertyList = .array([
            .string("\u{7F}\u{80}\u{9F}\u{D7FF}\u{E000}\u{FFFD}\u{EFFF}\u{FEFF}\u{10000}\u{10FFFF}"),
            .string("\t\n\r"), .string("e\u{301}"), .string("é"),
        ])
        try Self.roundTrip(value, .xml)
    }

    @Test(arguments: [
        (0.75, "0.75"), (1, "1"), (-2, "-2"), (100, "100"), (0, "0.0"), (-0.0, "-0.0"), (0.1, "0.1"),
        (1e16, "1e+16"), (123_456_789_012_345, "123456789012345"), (1.5e-7, "1.5e-07"),
        (.leastNonzeroMagnitude, "5e-324"),
        (.greatestFiniteMagnitude, "1.7976931348623157e+308"), (.infinity, "+infinity"), (-.infinity, "-infinity"),
    ] as [(Double, String)])
    func xmlWritesRealsShortestAndReadsThemBackAsReals(value: Double, text: String) throws {
        #expect(try Self.text(.array([.real(value)]), .xml).contains("\t<real>\(text)</real>\n"))
        let reread = try PropertyList.decode(PropertyListEncoding.encode(.array([.real(value)]), as: .xml)).value
        guard case .array(let values) = reread, case .real(let real) = values.first else {
            Issue.record("Expected an array holding a real but found \(reread).")
            return
        }
        #expect(real == value && real.sign == value.sign)
    }

    @Test func xmlWritesNaN() throws {
        let bytes = try PropertyListEncoding.encode(.array([.real(.nan)]), as: .xml)
        #expect(String(decoding: bytes, as: UTF8.self).contains("<real>nan</real>"))
        guard case .array(let values) = try PropertyList.decode(bytes).value, case .real(let real) = values.first
        else {
            Issue.record("Expected an array holding a real.")
            return
        }
        #expect(real.isNaN)
    }

    @Test func xmlDatesKeepWholeSecondsInUTC() throws {
        #expect(try Self.text(.array([.date(0)]), .xml).contains("<date>2001-01-01T00:00:00Z</date>"))
        #expect(try Self.text(.array([.date(-0.5)]), .xml).contains("<date>2000-12-31T23:59:59Z</date>"))
        #expect(try Self.text(.array([.date(59.999)]), .xml).contains("<date>2001-01-01T00:00:59Z</date>"))
        // The fraction is dropped, as Apple's writer drops it; binary keeps it.
        let fractional: PropertyList = .array([.date(730_902_615.75)])
        #expect(try PropertyList.decode(PropertyListEncoding.encode(fractional, as: .xml)).value
            == .array([.date(730_902_615)]))
        try Self.roundTrip(fractional, .binary)
        // The first and last seconds of four-digit years.
        let first = -62_167_219_200 - ISO8601.referenceDateOffset
        let last = 253_402_300_799 - ISO8601.referenceDateOffset
        #expect(try Self.text(.array([.date(first), .date(last)]), .xml)
            .contains("<date>0000-01-01T00:00:00Z</date>\n\t<date>9999-12-31T23:59:59Z</date>"))
        try Self.roundTrip(.array([.date(first), .date(last)]), .xml)
        for outside in [first - 1, last + 1, .infinity, -.infinity, .nan] {
            let error = try Self.encodeError(.dictionary([("When", .date(outside))]), .xml)
            #expect(error.code == .plistCannotEncode)
            #expect(error.location.path == "When")
            try Self.roundTrip(.array([.date(outside.isNaN ? 1 : outside)]), .binary)
        }
    }

    /// CoreFoundation wraps base64 at 76 characters, less 8 for each tab of indentation, and indents by 8 tabs at most.
    @Test(arguments: [0, 1, 3, 8, 9, 12])
    func xmlWrapsDataAsCoreFoundationDoes(depth: Int) throws {
        let bytes = (0..<200).map { UInt8(truncatingIfNeeded: $0 &* 37) }
        let value = Self.nested(depth, around: .data(bytes))
        let text = try Self.text(value, .xml)
        let tabs = String(repeating: "\t", count: min(depth, 8))
        let width = 76 - 8 * min(depth, 8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let open = try #require(lines.firstIndex { $0.hasSuffix("<data>") })
        let close = try #require(lines.firstIndex { $0.hasSuffix("</data>") })
        #expect(lines[open] == Substring(String(repeating: "\t", count: depth) + "<data>"))
        #expect(lines[close] == Substring(String(repeating: "\t", count: depth) + "</data>"))
        let body = lines[(open + 1)..<close]
        #expect(body.allSatisfy { $0.hasPrefix(tabs) && !$0.dropFirst(tabs.count).hasPrefix("\t") })
        let digits = body.map { $0.dropFirst(tabs.count) }
        #expect(digits.dropLast().allSatisfy { $0.count == width })
        #expect(digits.joined().count == 268)
        #expect(digits.last?.hasSuffix("=") == true)
        try Self.roundTrip(value, .xml)
    }

    @Test(arguments: 0..<7)
    func xmlDataOfEveryPaddingRoundTrips(count: Int) throws {
        let value: PropertyList = .array([.data((0..<count).map { UInt8(255 - $0) })])
        try Self.roundTrip(value, .xml)
    }

    // MARK: Binary

    /// The bytes of the top object, which writers place right after the header.
    static func topObject(_ value: PropertyList, count: Int) throws -> [UInt8] {
        Array(try PropertyListEncoding.encode(value, as: .binary)[8..<(8 + count)])
    }

    @Test(arguments: [
        (PropertyList.string(""), [0x50]),
        (.string(String(repeating: "a", count: 14)), [0x5E] + Array(repeating: 0x61, count: 14)),
        (.string(String(repeating: "a", count: 15)), [0x5F, 0x10, 0x0F] + Array(repeating: 0x61, count: 15)),
        (.string(String(repeating: "a", count: 16)), [0x5F, 0x10, 0x10] + Array(repeating: 0x61, count: 16)),
        (.string(String(repeating: "é", count: 14)),
         [0x6E] + Array(repeating: [0x00, 0xE9], count: 14).flatMap { $0 }),
        (.string(String(repeating: "é", count: 15)),
         [0x6F, 0x10, 0x0F] + Array(repeating: [0x00, 0xE9], count: 15).flatMap { $0 }),
        (.string("😀é"), [0x63, 0xD8, 0x3D, 0xDE, 0x00, 0x00, 0xE9]),
        (.string(String(repeating: "x", count: 300)), [0x5F, 0x11, 0x01, 0x2C, 0x78]),
        (.integer(0), [0x10, 0x00]),
        (.integer(255), [0x10, 0xFF]),
        (.integer(256), [0x11, 0x01, 0x00]),
        (.integer(65_535), [0x11, 0xFF, 0xFF]),
        (.integer(65_536), [0x12, 0x00, 0x01, 0x00, 0x00]),
        (.integer(4_294_967_295), [0x12, 0xFF, 0xFF, 0xFF, 0xFF]),
        (.integer(4_294_967_296), [0x13, 0, 0, 0, 1, 0, 0, 0, 0]),
        (.integer(.max), [0x13, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
        (.integer(-1), [0x13, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
        (.integer(.min), [0x13, 0x80, 0, 0, 0, 0, 0, 0, 0]),
        (.real(1.5), [0x23, 0x3F, 0xF8, 0, 0, 0, 0, 0, 0]),
        (.date(-1), [0x33, 0xBF, 0xF0, 0, 0, 0, 0, 0, 0]),
        (.bool(false), [0x08]),
        (.bool(true), [0x09]),
        (.data([]), [0x40]),
        (.data(Array(repeating: 7, count: 15)), [0x4F, 0x10, 0x0F, 7]),
        (.array([]), [0xA0]),
        (.dictionary([]), [0xD0]),
        (.array(Array(repeating: .bool(true), count: 14)), [0xAE, 0x01, 0x01]),
        (.array(Array(repeating: .bool(true), count: 15)), [0xAF, 0x10, 0x0F, 0x01]),
        (.array(Array(repeating: .bool(true), count: 16)), [0xAF, 0x10, 0x10, 0x01]),
        (.dictionary([("b", .integer(1)), ("a", .integer(2))]), [0xD2, 0x01, 0x02, 0x03, 0x04, 0x51, 0x62]),
    ] as [(PropertyList, [UInt8])])
    func binaryObjectsAreWrittenAsAppleWritesThem(value: PropertyList, prefix: [UInt8]) throws {
        #expect(try Self.topObject(value, count: prefix.count) == prefix)
        try Self.roundTrip(value, .binary)
    }

    /// The trailer's offset size, reference size and object count.
    static func trailer(_ bytes: [UInt8]) -> (offsetSize: UInt8, referenceSize: UInt8, objects: Int) {
        let trailer = bytes.count - 32
        let objects = bytes[(trailer + 8)..<(trailer + 16)].reduce(0) { $0 << 8 | Int($1) }
        return (bytes[trailer + 6], bytes[trailer + 7], objects)
    }

    @Test(arguments: [(10, 1, 1), (200, 1, 2), (300, 2, 2), (70_000, 4, 4)])
    func binaryReferencesWidenWithTheObjectCount(count: Int, referenceSize: UInt8, offsetSize: UInt8) throws {
        let value: PropertyList = .array((0..<count).map { .integer(Int64($0) * 3 - 100) })
        let bytes = try Self.roundTrip(value, .binary)
        let trailer = Self.trailer(bytes)
        #expect(trailer.objects == count + 1)
        #expect(trailer.referenceSize == referenceSize)
        #expect(trailer.offsetSize == offsetSize)
    }

    @Test func binaryStoresEqualScalarsOnce() throws {
        let shared: PropertyList = .dictionary([("Name", .string("Name")), ("Count", .integer(2))])
        let value: PropertyList = .array([shared, shared, .integer(2), .string("Name"), .real(2), .date(2), .bool(true),
                                          .bool(true), .data([2]), .data([2])])
        let bytes = try Self.roundTrip(value, .binary)
        // The array, two dictionaries (never shared), "Name", "Count", 2, 2.0, the date, true and the data.
        #expect(Self.trailer(bytes).objects == 10)
    }

    @Test func binaryKeepsCanonicallyEquivalentStringsApart() throws {
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        #expect(composed == decomposed)
        let value: PropertyList = .array([.string(composed), .string(decomposed)])
        let bytes = try Self.roundTrip(value, .binary)
        #expect(Self.trailer(bytes).objects == 3)
        guard case .array(let values) = try PropertyList.decode(bytes).value,
              case .string(let first) = values[0], case .string(let second) = values[1]
        else {
            Issue.record("Expected an array of two strings.")
            return
        }
        #expect(Array(first.unicodeScalars) == Array(composed.unicodeScalars))
        #expect(Array(second.unicodeScalars) == Array(decomposed.unicodeScalars))
    }

    @Test func binaryKeepsSignedZeroAndNaN() throws {
        let bytes = try PropertyListEncoding.encode(.array([.real(0), .real(-0.0), .real(.nan), .date(-0.0)]),
                                                    as: .binary)
        guard case .array(let values) = try PropertyList.decode(bytes).value, values.count == 4,
              case .real(let zero) = values[0], case .real(let negativeZero) = values[1],
              case .real(let nan) = values[2], case .date(let date) = values[3]
        else {
            Issue.record("Expected an array of three reals and a date.")
            return
        }
        #expect(zero.sign == .plus && negativeZero.sign == .minus && nan.isNaN && date.sign == .minus)
        #expect(Self.trailer(bytes).objects == 5)
    }

    @Test func binaryWritesLongAndUnicodeValues() throws {
        let value: PropertyList = .dictionary([
            ("Long", .string(String(repeating: "Long string ", count: 6000))),
            ("Astral", .string("𝄞 music, 😀 faces, 𠀀 ideographs")),
            ("Mixed", .string(String(repeating: "ab😀", count: 40))),
            ("Big data", .data((0..<70_000).map { UInt8(truncatingIfNeeded: $0) })),
            ("Many", .array((0..<1000).map { .string("item \($0)") })),
            ("Wide", .dictionary((0..<40).map { ("key \($0)", .integer(Int64($0) << 40)) })),
        ])
        for format in PropertyListFormat.allCases where format != .json { try Self.roundTrip(value, format) }
    }

    // MARK: Depth and keys

    @Test func nestingUpToWhatReadersAcceptRoundTrips() throws {
        // 256 containers: 254 arrays, a dictionary and an empty array.
        let deepest = Self.nested(254, around: .dictionary([("Leaf", .array([]))]))
        for format in PropertyListFormat.allCases { try Self.roundTrip(deepest, format) }
        let tooDeep = Self.nested(255, around: .dictionary([("Leaf", .array([]))]))
        for format in PropertyListFormat.allCases {
            let error = try Self.encodeError(tooDeep, format)
            #expect(error.code == .plistTooDeep)
            #expect(error.location.path == String(repeating: "0.", count: 255) + "Leaf")
        }
    }

    @Test(arguments: PropertyListFormat.allCases)
    func repeatedKeysAreRefused(format: PropertyListFormat) throws {
        let value: PropertyList = .dictionary([("Outer", .dictionary([
            ("a", .integer(1)), ("caf\u{E9}", .integer(2)), ("cafe\u{301}", .integer(3)),
        ]))])
        let error = try Self.encodeError(value, format)
        #expect(error.code == .plistCannotEncode)
        #expect(error.location.path == "Outer")
        #expect(error.message.contains("more than once"))
    }

    // MARK: JSON

    @Test func jsonIsIndentedByTwoSpacesInKeyOrder() throws {
        let value: PropertyList = .dictionary([
            ("b", .integer(1)), ("a", .real(1)), ("c", .array([.real(0.5), .bool(false), .string("x\n\"y\"")])),
            ("d", .dictionary([])), ("e", .array([])), ("f", .real(-2.5e-8)),
        ])
        #expect(try Self.text(value, .json) == """
            {
              "b": 1,
              "a": 1.0,
              "c": [
                0.5,
                false,
                "x\\n\\"y\\""
              ],
              "d": {},
              "e": [],
              "f": -2.5e-08
            }

            """)
        try Self.roundTrip(value, .json)
    }

    @Test func jsonRefusesDatesDataAndNonFiniteRealsNamingTheirPath() throws {
        for (inner, path) in [(PropertyList.date(0), "List.1.When"), (.data([1]), "List.1.When"),
                              (.real(.infinity), "List.1.When"), (.real(.nan), "List.1.When")] {
            let value: PropertyList = .dictionary([
                ("Name", .string("x")), ("List", .array([.integer(1), .dictionary([("When", inner)])])),
            ])
            let error = try Self.encodeError(value, .json)
            #expect(error.code == .plistCannotEncode)
            #expect(error.location.path == path)
            #expect(error.message.hasSuffix("write the property list as XML or binary instead."))
        }
    }

    @Test(arguments: [PropertyList.string("a"), .integer(1), .real(1), .bool(true)])
    func jsonRefusesAScalarAtTheTop(value: PropertyList) throws {
        let error = try Self.encodeError(value, .json)
        #expect(error.code == .plistCannotEncode)
        #expect(error.location.path == nil)
        // The other formats hold one.
        try Self.roundTrip(value, .xml)
        try Self.roundTrip(value, .binary)
    }

    // MARK: Random trees

    /// Random property lists of at most `maximumDepth` nested containers, from a seeded generator.
    struct TreeGenerator {
        var random: SeededGenerator
        /// Leave out dates, data and non-finite reals, and put a container at the top, as JSON requires.
        let forJSON: Bool

        static let characters: [Character] = [
            "a", "Z", "0", " ", "\t", "\n", "\r", "&", "<", ">", "\"", "'", ".", "/", "~", "é", "e\u{301}", "ß",
            "€",
            "日", "本", "😀", "🎉", "𝄞", "\u{7F}", "\u{FEFF}", "\u{FFFD}", "\u{10FFFF}", "👩‍👩‍👧",
        ]

        mutating func string() -> String {
            let count = Int.random(in: 0...20, using: &random)
            return String((0..<count).map { _ in Self.characters.randomElement(using: &random)! })
        }

        mutating func real() -> Double {
            switch Int.random(in: 0..<6, using: &random) {
            case 0: return Double(Int.random(in: -1000...1000, using: &random))
            case 1: return Double.random(in: -1...1, using: &random)
            case 2 where !forJSON: return [Double.infinity, -.infinity][Int.random(in: 0...1, using: &random)]
            default:
                var value: Double
                repeat { value = Double(bitPattern: random.next()) } while !value.isFinite
                return value
            }
        }

        mutating func value(depth: Int) -> PropertyList {
            switch Int.random(in: 0..<(depth >= 6 ? 6 : 8), using: &random) {
            case 0: return .string(string())
            case 1: return .integer(integer())
            case 2: return .real(real())
            case 3: return .bool(Bool.random(using: &random))
            case 4 where forJSON: return .string(string())
            case 4: return .date(Double(Int64.random(in: -3_000_000_000...8_000_000_000, using: &random)))
            case 5 where forJSON: return .integer(integer())
            case 5:
                let count = Int.random(in: 0...80, using: &random)
                return .data((0..<count).map { _ in UInt8.random(in: 0...255, using: &random) })
            case 6: return array(depth: depth)
            default: return dictionary(depth: depth)
            }
        }

        mutating func integer() -> Int64 {
            let integers: [Int64] = [0, 14, 15, 255, 256, 65_535, 65_536, 4_294_967_296, .max, .min, -1]
            return Bool.random(using: &random)
                ? integers.randomElement(using: &random)! : Int64(bitPattern: random.next())
        }

        mutating func array(depth: Int) -> PropertyList {
            .array((0..<Int.random(in: 0...12, using: &random)).map { _ in value(depth: depth + 1) })
        }

        mutating func dictionary(depth: Int) -> PropertyList {
            var keys = Set<String>()
            var entries: [(String, PropertyList)] = []
            for _ in 0..<Int.random(in: 0...12, using: &random) {
                let key = string()
                if keys.insert(key).inserted { entries.append((key, value(depth: depth + 1))) }
            }
            return .dictionary(entries)
        }

        mutating func tree() -> PropertyList {
            forJSON || Bool.random(using: &random) ? dictionary(depth: 1) : value(depth: 1)
        }
    }

    @Test(arguments: PropertyListFormat.allCases)
    func randomTreesRoundTrip(format: PropertyListFormat) throws {
        var generator = TreeGenerator(random: SeededGenerator(state: 0x7469_6469_6E67_73), forJSON: format == .json)
        for _ in 0..<100 {
            try Self.roundTrip(generator.tree(), format)
        }
    }
}

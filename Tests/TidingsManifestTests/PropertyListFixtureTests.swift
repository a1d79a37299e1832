import Testing
import TidingsManifest

@Suite struct PropertyListFixtureTests {
    static let allTypes: PropertyList = .dictionary([
        ("String", .string("Hello, world")),
        ("EmptyString", .string("")),
        ("Integer1", .integer(7)),
        ("Integer2", .integer(300)),
        ("Integer4", .integer(70_000)),
        ("Integer8", .integer(5_000_000_000)),
        ("Negative", .integer(-42)),
        ("Minimum", .integer(.min)),
        ("Maximum", .integer(.max)),
        ("Real", .real(3.25)),
        ("NegativeReal", .real(-0.5)),
        ("True", .bool(true)),
        ("False", .bool(false)),
        ("Date", .date(730_902_615)),
        ("Data", .data([0, 1, 2, 0xFF])),
        ("EmptyData", .data([])),
        ("Array", .array([.string("one"), .integer(2), .real(3.5), .bool(false)])),
        ("EmptyArray", .array([])),
        ("EmptyDictionary", .dictionary([])),
        ("Nested", .dictionary([("Inner", .dictionary([("Deep", .array([.string("x")]))]))])),
    ])

    static let longValues: PropertyList = .dictionary([
        ("Numbers", .array((0..<20).map { .integer($0) })),
        ("Fourteen chars", .string("ABCDEFGHIJKLMN")),
        ("Fifteen chars!!", .string("ABCDEFGHIJKLMNO")),
        ("LongString", .string("A string that is much longer than fifteen characters")),
        ("Data", .data(Array(0..<40))),
        ("Sixteen", .dictionary((0..<16).map { (($0 < 10 ? "Key0" : "Key") + "\($0)", .integer(Int64($0) * 1000)) })),
    ])

    static let unicode: PropertyList = .dictionary([
        ("Café", .string("Crème brûlée ☕")),
        ("Emoji", .string("Party 🎉 time")),
        ("Japanese", .string("日本語のテキスト")),
        ("Long", .string("Ünïcödé text that is longer than fifteen code units")),
    ])

    /// The files python's plistlib wrote, in both formats.
    static let written: [(String, PropertyList)] = [
        ("ContentExtension", contentExtension),
        ("AllTypes", allTypes),
        ("LongValues", longValues),
        ("Unicode", unicode),
    ]

    @Test(arguments: written)
    func binaryFixtureDecodes(name: String, expected: PropertyList) throws {
        let document = try PropertyList.decode(fixture("\(name).binary.plist"), file: "\(name).binary.plist")
        #expect(document.format == .binary)
        #expect(document.value == expected)
        #expect(document.warnings.isEmpty)
    }

    @Test(arguments: written)
    func xmlFixtureDecodes(name: String, expected: PropertyList) throws {
        let document = try PropertyList.decode(fixture("\(name).xml.plist"))
        #expect(document.format == .xml)
        #expect(document.value == expected)
        #expect(document.warnings.isEmpty)
    }

    @Test(arguments: written.map(\.0))
    func binaryAndXMLFormsDecodeEqual(name: String) throws {
        let binary = try PropertyList.decode(fixture("\(name).binary.plist"))
        let xml = try PropertyList.decode(fixture("\(name).xml.plist"))
        #expect(binary.value == xml.value)
    }

    @Test func xcodeSourceManifestKeepsVariablesAndSkipsComments() throws {
        let document = try PropertyList.decode(fixture("Source-Info.plist"))
        let expected: PropertyList = .dictionary([
            ("CFBundleDevelopmentRegion", .string("$(DEVELOPMENT_LANGUAGE)")),
            ("CFBundleDisplayName", .string("Event Invite")),
            ("CFBundleExecutable", .string("$(EXECUTABLE_NAME)")),
            ("CFBundleIdentifier", .string("$(PRODUCT_BUNDLE_IDENTIFIER)")),
            ("CFBundleInfoDictionaryVersion", .string("6.0")),
            ("CFBundleName", .string("$(PRODUCT_NAME)")),
            ("CFBundlePackageType", .string("$(PRODUCT_BUNDLE_PACKAGE_TYPE)")),
            ("CFBundleShortVersionString", .string("$(MARKETING_VERSION)")),
            ("CFBundleVersion", .string("$(CURRENT_PROJECT_VERSION)")),
            ("NSExtension", .dictionary([
                ("NSExtensionAttributes", .dictionary([
                    ("UNNotificationExtensionCategory", .array([.string("EVENT_INVITE"), .string("EVENT_UPDATE")])),
                    ("UNNotificationExtensionInitialContentSizeRatio", .real(0.75)),
                    ("UNNotificationExtensionDefaultContentHidden", .bool(true)),
                    ("UNNotificationExtensionUserInteractionEnabled", .bool(false)),
                ])),
                ("NSExtensionMainStoryboard", .string("MainInterface")),
                ("NSExtensionPointIdentifier", .string("com.apple.usernotifications.content-extension")),
            ])),
        ])
        #expect(document.value == expected)
        #expect(document.warnings.isEmpty)
    }

    @Test func crlfManifestDecodesWithLineFeeds() throws {
        let bytes = try fixture("CRLF.plist")
        #expect(bytes.contains(0x0D))
        let document = try PropertyList.decode(bytes)
        #expect(document.value == .dictionary([
            ("CFBundleIdentifier", .string("com.example.Windows")),
            ("Message", .string("First line\nSecond line")),
            ("Script", .string("if a < b {\n\tprint(\"&\")\n}")),
        ]))
    }

    @Test func byteOrderMarkIsSkipped() throws {
        let bytes = try fixture("BOM.plist")
        #expect(bytes.starts(with: [0xEF, 0xBB, 0xBF]))
        let document = try PropertyList.decode(bytes)
        #expect(document.value == .dictionary([
            ("CFBundleDisplayName", .string("Zoë’s Café")),
            ("CFBundleIdentifier", .string("com.example.zoe")),
        ]))
    }

    @Test func integerRatioStaysAnInteger() throws {
        let document = try PropertyList.decode(fixture("IntegerRatio.plist"))
        let attributes = document.value["NSExtension"]?["NSExtensionAttributes"]
        #expect(attributes?["UNNotificationExtensionInitialContentSizeRatio"] == .integer(1))
        #expect(attributes?["UNNotificationExtensionCategory"] == .string("SQUARE"))
        #expect(document.value.dictionaryEntries?.map(\.0) == ["CFBundleIdentifier", "NSExtension"])
    }
}

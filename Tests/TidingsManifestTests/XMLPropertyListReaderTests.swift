import Testing
import TidingsBase
import TidingsManifest

@Suite struct XMLPropertyListReaderTests {
    /// `<plist>` around `body`, as every test document has it.
    static func plist(_ body: String) -> String {
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\(body)</plist>"
    }

    @Test(arguments: [
        ("<string>a</string>", PropertyList.string("a")),
        ("<string/>", .string("")),
        ("<string></string>", .string("")),
        ("<string>  spaced \n text  </string>", .string("  spaced \n text  ")),
        ("<dict/>", .dictionary([])),
        ("<dict></dict>", .dictionary([])),
        ("<array/>", .array([])),
        ("<array>\n</array>", .array([])),
        ("<data/>", .data([])),
        ("<true/>", .bool(true)),
        ("<true></true>", .bool(true)),
        ("<false />", .bool(false)),
        ("<dict><key>b</key><integer>2</integer><key>a</key><integer>1</integer></dict>",
         .dictionary([("b", .integer(2)), ("a", .integer(1))])),
        ("<array><string>x</string><array><true/></array><dict/></array>",
         .array([.string("x"), .array([.bool(true)]), .dictionary([])])),
    ])
    func valueDecodes(body: String, expected: PropertyList) throws {
        #expect(try decode(Self.plist(body)).value == expected)
    }

    @Test(arguments: [
        ("0", Int64(0)), ("-1", -1), ("+5", 5), ("  42\n", 42), ("007", 7),
        ("0x1F", 31), ("0XfF", 255), ("-0x10", -16),
        ("9223372036854775807", .max), ("-9223372036854775808", .min), ("0x7FFFFFFFFFFFFFFF", .max),
    ])
    func integerDecodes(text: String, expected: Int64) throws {
        #expect(try decode(Self.plist("<integer>\(text)</integer>")).value == .integer(expected))
    }

    @Test(arguments: [
        ("1.5", 1.5), ("-2e3", -2000), ("1E-2", 0.01), (".5", 0.5), ("10", 10), (" 0.75 ", 0.75),
        ("inf", .infinity), ("+inf", .infinity), ("-inf", -.infinity), ("INF", .infinity),
        ("Infinity", .infinity), ("-infinity", -.infinity),
    ])
    func realDecodes(text: String, expected: Double) throws {
        #expect(try decode(Self.plist("<real>\(text)</real>")).value == .real(expected))
    }

    @Test(arguments: ["nan", "NaN", "-nan"])
    func notANumberDecodes(text: String) throws {
        let value = try decode(Self.plist("<real>\(text)</real>")).value
        guard case .real(let number) = value else {
            Issue.record("Expected a real, got \(value)")
            return
        }
        #expect(number.isNaN)
    }

    @Test(arguments: [
        ("2001-01-01T00:00:00Z", 0.0), ("1970-01-01T00:00:00Z", -978_307_200), ("2000-12-31T23:59:59Z", -1),
        ("2024-02-29T12:30:15Z", 730_902_615), ("2100-03-01T00:00:00Z", 3_129_235_200),
        ("1900-02-28T23:59:59Z", -3_182_198_401),
    ])
    func dateDecodes(text: String, expected: Double) throws {
        #expect(try decode(Self.plist("<date>\(text)</date>")).value == .date(expected))
    }

    @Test(arguments: [
        ("AAEC/w==", [UInt8]([0, 1, 2, 0xFF])), ("AAEC/w", [0, 1, 2, 0xFF]), ("\n\tAA EC\n\t/w==\n", [0, 1, 2, 0xFF]),
        ("YQ==", [0x61]), ("YWI=", [0x61, 0x62]), ("YWJj", [0x61, 0x62, 0x63]), ("", []),
    ])
    func dataDecodes(text: String, expected: [UInt8]) throws {
        #expect(try decode(Self.plist("<data>\(text)</data>")).value == .data(expected))
    }

    @Test(arguments: [
        ("&lt;&gt;&amp;&quot;&apos;", "<>&\"'"),
        ("&#65;&#x42;&#x1F600;", "AB😀"),
        ("<![CDATA[<b>&amp;</b>]]>", "<b>&amp;</b>"),
        ("a<![CDATA[b]]>c&amp;d", "abc&d"),
        ("a<!-- note -->b", "ab"),
        ("a<!-- note --> b", "a b"),
        ("a\rb", "a\nb"),
        ("a\r\nb\r\n", "a\nb\n"),
        ("<![CDATA[x\r\ny\rz]]>", "x\ny\nz"),
        ("héllo wörld ✓", "héllo wörld ✓"),
    ])
    func textDecodes(body: String, expected: String) throws {
        #expect(try decode(Self.plist("<string>\(body)</string>")).value == .string(expected))
    }

    @Test func keysDecodeTextToo() throws {
        let document = try decode(Self.plist("<dict><key>a&amp;b\r\nc</key><true/></dict>"))
        #expect(document.value == .dictionary([("a&b\nc", .bool(true))]))
    }

    @Test func commentsMayAppearWhereverWhiteSpaceMay() throws {
        let text = """
            <?xml version="1.0"?>
            <!-- before the document type -->
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd" [
              <!ENTITY unused "value > with brackets ]">
            ]>
            <!-- before the root --><?editor fold?>
            <plist version='1.0'>
              <!-- before the value -->
              <dict>
                <!-- between entries -->
                <key>a</key> <!-- between a key and its value --> <integer>1</integer>
                <key>b</key>
                <array><!-- in an array --><string>x</string><!-- after --></array>
              </dict>
              <!-- after the value -->
            </plist>
            <!-- after the root -->

            """
        #expect(try decode(text).value == .dictionary([("a", .integer(1)), ("b", .array([.string("x")]))]))
    }

    @Test func bareValueIsAcceptedAsTheRoot() throws {
        #expect(try decode("<dict><key>a</key><string>b</string></dict>").value == .dictionary([("a", .string("b"))]))
        #expect(try decode("\n  <array/>\n").value == .array([]))
    }

    @Test func repeatedKeyKeepsLastValueAtFirstPositionAndWarns() throws {
        let text = """
            <plist version="1.0">
            <dict>
            \t<key>NSExtension</key>
            \t<dict>
            \t\t<key>NSExtensionAttributes</key>
            \t\t<dict>
            \t\t\t<key>UNNotificationExtensionCategory</key>
            \t\t\t<string>FIRST</string>
            \t\t\t<key>UNNotificationExtensionDefaultContentHidden</key>
            \t\t\t<true/>
            \t\t\t<key>UNNotificationExtensionCategory</key>
            \t\t\t<string>SECOND</string>
            \t\t</dict>
            \t</dict>
            </dict>
            </plist>
            """
        let document = try decode(text)
        #expect(document.value["NSExtension"]?["NSExtensionAttributes"] == .dictionary([
            ("UNNotificationExtensionCategory", .string("SECOND")),
            ("UNNotificationExtensionDefaultContentHidden", .bool(true)),
        ]))
        let warning = try #require(document.warnings.first)
        #expect(document.warnings.count == 1)
        #expect(warning.severity == .warning)
        #expect(warning.code == .plistDuplicateKey)
        #expect(warning.location.path == "NSExtension.NSExtensionAttributes.UNNotificationExtensionCategory")
        #expect(warning.location.line == 11)
        #expect(warning.location.column == 4)
        #expect(warning.message.contains("\"UNNotificationExtensionCategory\""))
    }

    @Test func repeatedKeysInLargeDictionariesAreFoundToo() throws {
        let entries = (0..<40).map { "<key>k\($0 % 30)</key><integer>\($0)</integer>" }.joined()
        let document = try decode("<dict>\(entries)</dict>")
        let expected = (0..<30).map { ("k\($0)", PropertyList.integer(Int64($0 < 10 ? $0 + 30 : $0))) }
        #expect(document.value == .dictionary(expected))
        #expect(document.warnings.map(\.location.path) == (0..<10).map { "k\($0)" })
    }

    @Test(arguments: [
        // Structure.
        ("<plist><dict><key>a</key></dict></plist>", "plist.syntax", 1, 26, "Expected a value after the key \"a\" but found </dict>."),
        ("<plist><string>abc", "plist.syntax", 1, 19, "Expected </string> but found the end of the file."),
        ("<plist><string>a</integer></plist>", "plist.syntax", 1, 17, "Expected </string> but found </integer>."),
        ("<plist>\n  <foo/>\n</plist>", "plist.syntax", 2, 3, "Expected a value inside <plist> but found <foo/>."),
        ("<plist><key>a</key></plist>", "plist.syntax", 1, 8, "Expected a value inside <plist> but found <key>."),
        ("<plist><dict>hello</dict></plist>", "plist.syntax", 1, 14, "Expected <key> or </dict> but found text \"hello\"."),
        ("<plist><dict><string>a</string></dict></plist>", "plist.syntax", 1, 14, "Expected <key> or </dict> but found <string>."),
        ("<plist><array><key>a</key></array></plist>", "plist.syntax", 1, 15, "Expected a value or </array> but found <key>."),
        ("<plist><array><true/>", "plist.syntax", 1, 22, "Expected a value or </array> but found the end of the file."),
        ("<plist><true/><false/></plist>", "plist.syntax", 1, 15, "Expected </plist> but found <false>."),
        ("<plist><true/></plist><true/>", "plist.syntax", 1, 23, "Expected the end of the file after the property list but found <true>."),
        ("<plist/>", "plist.syntax", 1, 1, "Expected a value inside <plist> but found <plist/>."),
        ("<plist></plist>", "plist.syntax", 1, 8, "Expected a value inside <plist> but found </plist>."),
        ("<!-- unterminated", "plist.syntax", 1, 1, "Expected the end of the comment (-->) but found the end of the file."),
        ("<plist><string>a<!-- x</string></plist>", "plist.syntax", 1, 17, "Expected the end of the comment (-->) but found the end of the file."),
        ("<plist><string><![CDATA[x</string></plist>", "plist.syntax", 1, 16, "Expected the end of the CDATA section (]]>) but found the end of the file."),
        ("<plist><string>a<b>c</b></string></plist>", "plist.syntax", 1, 17, "Expected </string> but found <b>."),
        ("<plist><string attr=\"x></plist>", "plist.syntax", 1, 32, "Expected > to end the tag <string> but found the end of the file."),
        ("<plist><string</plist>", "plist.syntax", 1, 15, "Expected > to end the tag <string> but found </plist>."),
        ("<plist><true/></plist  x>", "plist.syntax", 1, 24, "Expected > to end </plist> but found text \"x>\"."),
        ("<plist><true>x</true></plist>", "plist.syntax", 1, 14, "Expected </true> but found text \"x\"."),
        ("<plist><string>&foo;</string></plist>", "plist.syntax", 1, 16, "Expected an entity such as &amp; or &#60; but found \"&foo;\"."),
        ("<plist><string>&#0;</string></plist>", "plist.syntax", 1, 16, "Expected an entity such as &amp; or &#60; but found \"&#0;\"."),
        ("<plist><string>&#xD800;</string></plist>", "plist.syntax", 1, 16, "Expected an entity such as &amp; or &#60; but found \"&#xD800;\"."),
        ("<plist><string>a & b</string></plist>", "plist.syntax", 1, 18, "Expected an entity such as &amp; or &#60; but found \"&\"."),
        ("hello <plist/>", "plist.unknown-format", nil, nil, "The input is neither an XML, a binary nor a JSON property list."),
        ("  <", "plist.syntax", 1, 3, "Expected <plist> but found text \"<\"."),
        // Values.
        ("<plist>\n<dict>\n\t<key>a</key>\n\t<integer>x</integer>\n</dict>\n</plist>", "plist.invalid-value", 4, 2, "Expected an integer in <integer> but found \"x\"."),
        ("<plist><integer>12a</integer></plist>", "plist.invalid-value", 1, 8, "Expected an integer in <integer> but found \"12a\"."),
        ("<plist><integer/></plist>", "plist.invalid-value", 1, 8, "Expected an integer in <integer> but found nothing."),
        ("<plist><integer>0x</integer></plist>", "plist.invalid-value", 1, 8, "Expected an integer in <integer> but found \"0x\"."),
        ("<plist><integer>1 2</integer></plist>", "plist.invalid-value", 1, 8, "Expected an integer in <integer> but found \"1 2\"."),
        ("<plist><integer>9223372036854775808</integer></plist>", "plist.invalid-value", 1, 8, "Expected an integer from -9223372036854775808 to 9223372036854775807 in <integer> but found \"9223372036854775808\"."),
        ("<plist><integer>-9223372036854775809</integer></plist>", "plist.invalid-value", 1, 8, "Expected an integer from -9223372036854775808 to 9223372036854775807 in <integer> but found \"-9223372036854775809\"."),
        ("<plist><integer>0x10000000000000000</integer></plist>", "plist.invalid-value", 1, 8, "Expected an integer from -9223372036854775808 to 9223372036854775807 in <integer> but found \"0x10000000000000000\"."),
        ("<plist><real>abc</real></plist>", "plist.invalid-value", 1, 8, "Expected a number in <real> but found \"abc\"."),
        ("<plist><real>1.2.3</real></plist>", "plist.invalid-value", 1, 8, "Expected a number in <real> but found \"1.2.3\"."),
        ("<plist><real></real></plist>", "plist.invalid-value", 1, 8, "Expected a number in <real> but found nothing."),
        ("<plist><date>2023-02-29T00:00:00Z</date></plist>", "plist.invalid-value", 1, 8, "Expected a date such as 2001-01-01T00:00:00Z in <date> but found \"2023-02-29T00:00:00Z\"."),
        ("<plist><date>2024-1-01T00:00:00Z</date></plist>", "plist.invalid-value", 1, 8, "Expected a date such as 2001-01-01T00:00:00Z in <date> but found \"2024-1-01T00:00:00Z\"."),
        ("<plist><date>2024-01-01 00:00:00Z</date></plist>", "plist.invalid-value", 1, 8, "Expected a date such as 2001-01-01T00:00:00Z in <date> but found \"2024-01-01 00:00:00Z\"."),
        ("<plist><date>2024-01-01T24:00:00Z</date></plist>", "plist.invalid-value", 1, 8, "Expected a date such as 2001-01-01T00:00:00Z in <date> but found \"2024-01-01T24:00:00Z\"."),
        ("<plist><date>2024-01-01T00:00:00+0000</date></plist>", "plist.invalid-value", 1, 8, "Expected a date such as 2001-01-01T00:00:00Z in <date> but found \"2024-01-01T00:00:00+0000\"."),
        ("<plist><data>A</data></plist>", "plist.invalid-value", 1, 8, "Expected base64 in <data> but found \"A\"."),
        ("<plist><data>AB=C</data></plist>", "plist.invalid-value", 1, 8, "Expected base64 in <data> but found \"AB=C\"."),
        ("<plist><data>AAAA=</data></plist>", "plist.invalid-value", 1, 8, "Expected base64 in <data> but found \"AAAA=\"."),
        ("<plist><data>@@@@</data></plist>", "plist.invalid-value", 1, 8, "Expected base64 in <data> but found \"@@@@\"."),
    ] as [(String, String, Int?, Int?, String)])
    func errorIsReportedWithItsPlace(text: String, code: String, line: Int?, column: Int?, message: String) throws {
        let error = try decodeError(text, file: "Info.plist")
        #expect(error.severity == .error)
        #expect(error.code.rawValue == code)
        #expect(error.location.file == "Info.plist")
        #expect(error.location.line == line)
        #expect(error.location.column == column)
        #expect(error.message == message.replacing("The input", with: "Info.plist"))
    }

    @Test func errorInsideADictionaryNamesTheKeyPath() throws {
        let error = try decodeError(Self.plist("<dict><key>a</key><dict><key>b</key><real>x</real></dict></dict>"))
        #expect(error.location.path == "a.b")
        let inArray = try decodeError(Self.plist("<dict><key>a</key><array><true/><date/></array></dict>"))
        #expect(inArray.location.path == "a.1")
    }

    @Test func linesAndColumnsCountCharactersAndEveryLineEnd() throws {
        let crlf = try decodeError("<plist>\r\n<dict>\r\n<foo/>")
        #expect((crlf.location.line, crlf.location.column) == (3, 1))
        let cr = try decodeError("<plist>\r<dict>\r\n\r  <foo/>")
        #expect((cr.location.line, cr.location.column) == (4, 3))
        let wide = try decodeError("\u{FEFF}<plist><string>é✓😀</strin></plist>")
        #expect((wide.location.line, wide.location.column) == (1, 19))
    }

    @Test func invalidUTF8IsAnError() throws {
        let bytes = Array("<plist><string>a".utf8) + [0xC3, 0x28] + Array("</string></plist>".utf8)
        let error = try decodeError(bytes)
        #expect(error.code == .plistSyntax)
        #expect(error.message == "Expected UTF-8 text in <string> but found bytes that are not UTF-8.")
    }

    @Test func nestingIsLimited() throws {
        let depth = 256  // the readers' limit
        let accepted = String(repeating: "<array>", count: depth) + String(repeating: "</array>", count: depth)
        #expect(try decode(accepted).value != .array([]))
        let refused = "<array>" + accepted + "</array>"
        let error = try decodeError(refused)
        #expect(error.code == .plistTooDeep)
        #expect(error.location.column == 7 * depth + 1)
        let hostile = try decodeError(String(repeating: "<dict><key>k</key>", count: 100_000))
        #expect(hostile.code == .plistTooDeep)
    }

    @Test func everyTruncationOfAManifestIsAnError() throws {
        let bytes = try fixture("Source-Info.plist")
        let end = bytes.count - "\n".utf8.count
        for length in 0..<end {
            let error = try decodeError(Array(bytes[..<length]))
            #expect(error.code == .plistSyntax || error.code == .plistUnknownFormat, "\(length) bytes: \(error)")
        }
        #expect(try PropertyList.decode(Array(bytes[..<end])).value == PropertyList.decode(bytes).value)
    }

    @Test func fuzzedManifestsDecodeOrThrow() throws {
        let original = try fixture("Source-Info.plist")
        let alphabet = Array("<>/!?-&#;[]\"'=x0 \r\n\u{7F}".utf8) + [0x00, 0xC3, 0xFF]
        var generator = SeededGenerator(state: 0x706C_6973_74)
        var decoded = 0
        for _ in 0..<5_000 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let position = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<4, using: &generator) {
                case 0: bytes[position] = alphabet.randomElement(using: &generator)!
                case 1: bytes.insert(alphabet.randomElement(using: &generator)!, at: position)
                case 2: bytes.remove(at: position)
                default: bytes.removeSubrange(position..<min(bytes.count, position + 40))
                }
                if bytes.isEmpty { bytes = original }
            }
            do throws(Diagnostic) {
                _ = try PropertyList.decode(bytes)
                decoded += 1
            } catch {
                #expect(error.severity == .error)
                #expect(!error.message.isEmpty)
            }
        }
        #expect(decoded > 0)
    }
}

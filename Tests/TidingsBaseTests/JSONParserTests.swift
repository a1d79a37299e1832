import Testing
@testable import TidingsBase

/// Parses `text` as UTF-8.
func parse(_ text: String, maximumDepth: Int = 256) throws(Diagnostic) -> JSON {
    try JSON.parse(Array(text.utf8), maximumDepth: maximumDepth)
}

@Suite("JSON parser: values")
struct JSONParserTests {
    @Test(arguments: [
        ("null", JSON.null),
        ("true", .bool(true)),
        ("false", .bool(false)),
        ("0", .integer(0)),
        ("-0", .integer(0)),
        ("42", .integer(42)),
        ("-17", .integer(-17)),
        ("1.5", .double(1.5)),
        ("-0.25", .double(-0.25)),
        ("1e3", .double(1000)),
        ("1E+3", .double(1000)),
        ("2.5e-2", .double(0.025)),
        ("10.0", .double(10)),
        (#""hi""#, .string("hi")),
        (#""""#, .string("")),
        ("[]", .array([])),
        ("{}", .object([])),
        (#"[1, "a", null]"#, .array([.integer(1), .string("a"), .null])),
    ])
    func parsesEachKind(text: String, expected: JSON) throws {
        #expect(try parse(text) == expected)
    }

    @Test func keepsMemberOrderAndRepeatedNames() throws {
        let value = try parse(#"{"b": 1, "a": 2, "b": 3}"#)
        #expect(value == .object([("b", .integer(1)), ("a", .integer(2)), ("b", .integer(3))]))
        #expect(value["b"] == .integer(1))
    }

    @Test func parsesNestedValues() throws {
        let text = """
            {"aps": {"alert": {"title": "Build", "body": "Passed"}, "badge": 3},
             "items": [[], [{}], [1, [2, [3.5]]]], "ok": true}
            """
        let expected = JSON.object([
            ("aps", .object([
                ("alert", .object([("title", .string("Build")), ("body", .string("Passed"))])),
                ("badge", .integer(3)),
            ])),
            ("items", .array([
                .array([]),
                .array([.object([])]),
                .array([.integer(1), .array([.integer(2), .array([.double(3.5)])])]),
            ])),
            ("ok", .bool(true)),
        ])
        #expect(try parse(text) == expected)
    }

    /// Members and elements gather on one stack while containers are open:
    /// each container must get its own, whatever closed inside it.
    @Test func containersKeepTheirOwnMembersAroundNestedOnes() throws {
        let text = #"{"a": {"b": {"c": 1}, "d": [2, {"e": [3]}, 4], "f": 5}, "g": [[6], {"h": 7}, 8], "i": 9}"#
        let expected = JSON.object([
            ("a", .object([
                ("b", .object([("c", .integer(1))])),
                ("d", .array([.integer(2), .object([("e", .array([.integer(3)]))]), .integer(4)])),
                ("f", .integer(5)),
            ])),
            ("g", .array([.array([.integer(6)]), .object([("h", .integer(7))]), .integer(8)])),
            ("i", .integer(9)),
        ])
        #expect(try parse(text) == expected)
        // After an error inside nested containers, the next text starts afresh.
        #expect(throws: Diagnostic.self) { try parse(#"{"a": [1, {"b": 2,]}"#) }
        #expect(try parse(#"{"z": [0]}"#) == .object([("z", .array([.integer(0)]))]))
    }

    @Test func acceptsEveryRFCWhitespaceAroundTokens() throws {
        let value = try parse(" \t\r\n{ \"a\" \n:\t[ 1 ,\r\n2 ] } \n")
        #expect(value == .object([("a", .array([.integer(1), .integer(2)]))]))
    }

    @Test(arguments: [
        (#""\" \\ \/ \b \f \n \r \t""#, "\" \\ / \u{8} \u{C} \n \r \t"),
        (#""\u0041\u00e9\u00E9\u20AC""#, "Aéé€"),
        (#""\uD83D\uDE00 \ud83d\ude00""#, "😀 😀"),
        (#""\u0000""#, "\u{0}"),
        ("\"héllo 😀 \u{7F}\"", "héllo 😀 \u{7F}"),
        (#""é\n😀\u0021""#, "é\n😀!"),
        (#""ends with escape\n""#, "ends with escape\n"),
    ])
    func decodesStringsAndEscapes(text: String, expected: String) throws {
        #expect(try parse(text) == .string(expected))
    }

    @Test func stringsAfterAnEscapedStringStartAfresh() throws {
        let value = try parse(#"["a\nb", "c", "d\te", "f"]"#)
        #expect(value == .array([.string("a\nb"), .string("c"), .string("d\te"), .string("f")]))
    }

    @Test func skipsALeadingByteOrderMark() throws {
        #expect(try JSON.parse([0xEF, 0xBB, 0xBF] + Array(#" {"a": 1}"#.utf8)) == .object([("a", .integer(1))]))
        #expect(throws: Diagnostic.self) { try JSON.parse([0xEF, 0xBB, 0xBF, 0xEF, 0xBB, 0xBF] + Array("1".utf8)) }
        #expect(throws: Diagnostic.self) { try JSON.parse(Array(" ".utf8) + [0xEF, 0xBB, 0xBF] + Array("1".utf8)) }
    }

    @Test(arguments: [
        ("9223372036854775807", JSON.integer(.max)),
        ("-9223372036854775808", .integer(.min)),
        ("9223372036854775808", .double(0x1p63)),
        ("-9223372036854775809", .double(-0x1p63)),
        ("18446744073709551616", .double(0x1p64)),
        ("123456789012345678901234567890", .double(1.2345678901234568e29)),
        ("0.1", .double(0.1)),
        ("9007199254740993.0", .double(0x1p53)),
        ("2.2250738585072011e-308", .double(Double(bitPattern: 0x000F_FFFF_FFFF_FFFF))),
        ("2.2250738585072012e-308", .double(.leastNormalMagnitude)),
        ("1.7976931348623157e308", .double(.greatestFiniteMagnitude)),
        ("4.9406564584124654e-324", .double(.leastNonzeroMagnitude)),
        ("1e-400", .double(0)),
        ("-1E-2", .double(-0.01)),
    ])
    func parsesNumbers(text: String, expected: JSON) throws {
        #expect(try parse(text) == expected)
    }

    /// An escape, a multi-byte character, a byte no UTF-8 has and a stray
    /// control character are each found wherever they fall in strings up to
    /// 24 bytes long (three words' worth, for a scan that would take eight at a time).
    @Test func readsStringsWhereverTheirSpecialBytesFall() throws {
        for length in 1...24 {
            for position in 0..<length {
                for special in ["\\\"", "\\n", "\\u00e9", "é", "😀"] {
                    let before = String(repeating: "a", count: position)
                    let after = String(repeating: "b", count: length - position - 1)
                    let text = "\"" + before + special + after + "\""
                    let decoded = special.hasPrefix("\\") ? ["\\\"": "\"", "\\n": "\n", "\\u00e9": "é"][special]! : special
                    #expect(try parse(text) == .string(before + decoded + after), "\(text)")
                }
                let raw = Array(("\"" + String(repeating: "a", count: position)).utf8) + [0x01]
                    + Array((String(repeating: "b", count: length - position - 1) + "\"").utf8)
                let error = try parseFailure(raw)
                #expect((error.location.line, error.location.column) == (1, position + 2), "control character at \(position)")
                var invalid = raw
                invalid[position + 1] = 0xFF
                #expect(try parseFailure(invalid).code == .jsonInvalidUTF8, "a byte no UTF-8 has at \(position)")
            }
        }
    }

    @Test func acceptsNestingUpToTheDepthLimit() throws {
        let deepest = String(repeating: "[", count: 256) + String(repeating: "]", count: 256)
        #expect(try parse(deepest).arrayValue?.count == 1)
        #expect(try parse(#"{"a": [1]}"#, maximumDepth: 2) == .object([("a", .array([.integer(1)]))]))
        #expect(try parse("7", maximumDepth: 0) == .integer(7))
    }
}

import Testing
@testable import TidingsBase

/// The diagnostic that parsing `bytes` throws, with "test.json" as the file.
func parseFailure(_ bytes: [UInt8], maximumDepth: Int = 256) throws -> Diagnostic {
    let error = try #require(throws: Diagnostic.self) {
        try JSON.parse(bytes, file: "test.json", maximumDepth: maximumDepth)
    }
    #expect(error.severity == .error)
    #expect(error.location.file == "test.json")
    return error
}

/// The diagnostic that parsing `text` throws.
func parseFailure(_ text: String, maximumDepth: Int = 256) throws -> Diagnostic {
    try parseFailure(Array(text.utf8), maximumDepth: maximumDepth)
}

@Suite("JSON parser: errors")
struct JSONParserErrorTests {
    @Test(arguments: [
        ("", 1, 1, "Expected a JSON value, found the end of input."),
        (" \n  ", 2, 3, "Expected a JSON value, found the end of input."),
        (#"{"a" 1}"#, 1, 6, "Expected ':' after a member name, found '1'."),
        (#"{"a": 1 x}"#, 1, 9, "Expected ',' or '}' after an object member, found 'x'."),
        (#"{"a": 1"#, 1, 8, "Expected ',' or '}' after an object member, found the end of input."),
        ("[1 2]", 1, 4, "Expected ',' or ']' after an array element, found '2'."),
        ("[1,]", 1, 4, "Expected a JSON value, found ']'."),
        (#"{"a": 1,}"#, 1, 9, "Expected a member name in double quotes, found '}'."),
        ("{'a': 1}", 1, 2, "Expected a member name in double quotes, found a single quote."),
        ("{a: 1}", 1, 2, "Expected a member name in double quotes, found 'a'."),
        (#"{"a": }"#, 1, 7, "Expected a JSON value, found '}'."),
        ("[1, 2] 3", 1, 8, "Unexpected content after the JSON value."),
        ("{}{}", 1, 3, "Unexpected content after the JSON value."),
        ("{\"a\":\n  tru}", 2, 6, "Expected the literal 'true', found '}'."),
        ("nul", 1, 4, "Expected the literal 'null', found the end of input."),
        ("nulll", 1, 5, "Unexpected content after the JSON value."),
        ("\"abc", 1, 5, "Unexpected end of input inside a string."),
        ("\"abc\\", 1, 6, "Unexpected end of input inside a string."),
        (#""a\qb""#, 1, 4, #"Expected one of " \ / b f n r t u after a backslash, found 'q'."#),
        (#""\u12G4""#, 1, 6, #"Expected four hexadecimal digits after '\u', found 'G'."#),
        (#""\u12"#, 1, 6, #"Expected four hexadecimal digits after '\u', found the end of input."#),
        (#""x\uD83D""#, 1, 3, "The high surrogate U+D83D is not followed by a low surrogate."),
        (#""\uD83Dx""#, 1, 2, "The high surrogate U+D83D is not followed by a low surrogate."),
        (#""\uD83D\u0041""#, 1, 2, "The high surrogate U+D83D is not followed by a low surrogate."),
        (#""\uD83D\uD83D""#, 1, 2, "The high surrogate U+D83D is not followed by a low surrogate."),
        (#""\uDE00""#, 1, 2, "The low surrogate U+DE00 is not preceded by a high surrogate."),
        ("\"a\tb\"", 1, 3, "A string cannot contain the unescaped control character U+0009."),
        ("[\"a\nb\"]", 1, 4, "A string cannot contain the unescaped control character U+000A."),
        ("[1,\u{0B}2]", 1, 4, "Expected a JSON value, found the control character U+000B."),
        ("[\u{A0}1]", 1, 2, "Expected a JSON value, found '\u{A0}' (U+00A0)."),
        (#"["é", x]"#, 1, 7, "Expected a JSON value, found 'x'."),
        ("{\n  \"a\": 1,\r\n  \"b\": @\n}", 3, 8, "Expected a JSON value, found '@'."),
    ])
    func reportsSyntaxErrors(text: String, line: Int, column: Int, message: String) throws {
        let error = try parseFailure(text)
        #expect(error.code == .jsonSyntax)
        #expect(error.message == message)
        #expect(error.location.line == line)
        #expect(error.location.column == column)
    }

    @Test func countsColumnsAfterTheByteOrderMark() throws {
        let error = try parseFailure([0xEF, 0xBB, 0xBF] + Array("[x]".utf8))
        #expect((error.location.line, error.location.column) == (1, 2))
    }

    @Test(arguments: [
        ("01", 1), ("-01", 2), ("00", 1), ("[1, 012]", 5),
        ("+1", 1), (".5", 1), ("-", 2), ("-a", 2), ("1.", 3), ("1.e5", 3), ("1e", 3), ("1e+", 4), ("1E-x", 4),
        ("NaN", 1), ("Infinity", 1), ("-Infinity", 2), ("0x10", 2), ("1_000", 2),
    ])
    func rejectsMalformedNumbers(text: String, column: Int) throws {
        let error = try parseFailure(text)
        #expect(error.code == .jsonSyntax)
        #expect(error.location.column == column)
    }

    @Test func namesTheProblemWithANumber() throws {
        #expect(try parseFailure("007").message == "A number cannot have a leading zero.")
        #expect(try parseFailure("1.x").message == "Expected a digit after the decimal point, found 'x'.")
        #expect(try parseFailure("1e").message == "Expected a digit in the exponent, found the end of input.")
        #expect(try parseFailure("-I").message == "Expected a digit after '-', found 'I'.")
    }

    @Test(arguments: [("1e309", 1), ("-1e400", 1), ("[0, 2e999]", 5), ("1" + String(repeating: "0", count: 400) + ".5", 1)])
    func rejectsNumbersTooLargeForADouble(text: String, column: Int) throws {
        let error = try parseFailure(text)
        #expect(error.code == .jsonSyntax)
        #expect(error.message == "The number is too large to be represented.")
        #expect(error.location.column == column)
    }

    @Test func rejectsNestingBeyondTheDepthLimit() throws {
        let tooDeep = try parseFailure(String(repeating: "[", count: 257) + String(repeating: "]", count: 257))
        #expect(tooDeep.code == .jsonTooDeep)
        #expect(tooDeep.message == "Arrays and objects are nested more than 256 levels deep.")
        #expect(tooDeep.location.column == 257)

        let object = try parseFailure(#"{"a": {"b": {}}}"#, maximumDepth: 2)
        #expect(object.code == .jsonTooDeep)
        #expect(object.location.column == 13)
        #expect(try parseFailure("[]", maximumDepth: 0).code == .jsonTooDeep)

        // Far past the limit: fails at the limit, without exhausting the stack.
        #expect(try parseFailure(String(repeating: "[", count: 100_000)).location.column == 257)
    }

    @Test(arguments: [
        ([0x22, 0x61, 0xFF, 0x62, 0x22], 3),  // a byte that never occurs in UTF-8
        ([0x22, 0x80, 0x22], 2),  // a continuation byte without a lead byte
        ([0x22, 0xC0, 0x80, 0x22], 2),  // an overlong encoding of U+0000
        ([0x22, 0xE0, 0x80, 0xAF, 0x22], 2),  // an overlong three-byte sequence
        ([0x22, 0xED, 0xA0, 0x80, 0x22], 2),  // an encoded surrogate
        ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], 2),  // beyond U+10FFFF
        ([0x22, 0xF5, 0x80, 0x80, 0x80, 0x22], 2),  // a lead byte beyond U+10FFFF
        ([0x22, 0xE2, 0x82, 0x22], 2),  // a sequence cut short by the quote
        ([0x22, 0xF0, 0x9F, 0x98], 2),  // a sequence cut short by the end of input
        ([0x22, 0xC3, 0xA9, 0xC3, 0x22], 3),  // "é", then a cut sequence: column 3, though byte 4
    ] as [([UInt8], Int)])
    func rejectsInvalidUTF8InStrings(bytes: [UInt8], column: Int) throws {
        let error = try parseFailure(bytes)
        #expect(error.code == .jsonInvalidUTF8)
        #expect(error.message == "A string contains bytes that are not valid UTF-8.")
        #expect(error.location.column == column)
    }

    @Test func rejectsInvalidUTF8OutsideStrings() throws {
        let error = try parseFailure([0x5B, 0xFF, 0x5D])
        #expect(error.code == .jsonInvalidUTF8)
        #expect(error.message == "Expected a JSON value, found the byte 0xFF, which is not valid UTF-8.")
        #expect(error.location.column == 2)
        // A UTF-16 byte order mark is not skipped.
        #expect(try parseFailure([0xFF, 0xFE, 0x31, 0x00]).code == .jsonInvalidUTF8)
    }
}

import Testing
import TidingsBase
import TidingsManifest

/// The name the tables are read under, for diagnostics.
private let stringsFile = "Localizable.strings"

/// The table of `text` (UTF-8), which must parse.
private func table(_ text: String) throws -> [String: String] {
    try StringsTable.parse(Array(text.utf8), file: stringsFile)
}

/// The error `bytes` must be refused with.
private func syntaxError(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) throws -> Diagnostic {
    try #require(throws: Diagnostic.self, sourceLocation: sourceLocation) {
        try StringsTable.parse(bytes, file: stringsFile)
    }
}

/// The error `text` (UTF-8) must be refused with: a `strings.syntax` error in the file.
private func syntaxError(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Diagnostic {
    let error = try syntaxError(Array(text.utf8), sourceLocation: sourceLocation)
    #expect(error.severity == .error, sourceLocation: sourceLocation)
    #expect(error.code == .stringsSyntax, sourceLocation: sourceLocation)
    #expect(error.location.file == stringsFile, sourceLocation: sourceLocation)
    return error
}

/// `text` as UTF-16 with a byte order mark.
private func utf16(_ text: String, bigEndian: Bool) -> [UInt8] {
    let mark: [UInt8] = bigEndian ? [0xFE, 0xFF] : [0xFF, 0xFE]
    return mark + text.utf16.flatMap { unit -> [UInt8] in
        let high = UInt8(unit >> 8)
        let low = UInt8(unit & 0xFF)
        return bigEndian ? [high, low] : [low, high]
    }
}

/// `.strings` files, as iOS bundles carry localized text: syntax, escapes, encodings and errors.
@Suite struct StringsTableTests {
    // MARK: Entries

    @Test func quotedKeysAndValues() throws {
        let strings = try table("""
            "INVITE_TITLE" = "%@ invites you";
            "INVITE BODY" = "Dinner = food; bring a friend";
            "" = "empty key";
            "EMPTY" = "";
            """)
        #expect(strings == [
            "INVITE_TITLE": "%@ invites you", "INVITE BODY": "Dinner = food; bring a friend", "": "empty key", "EMPTY": "",
        ])
    }

    @Test func bareKeysAndValuesOfLettersDigitsAndPunctuation() throws {
        let strings = try table("GREETING = Hello;\npath/to.key_1-x = value$2:3;\nMIXED = \"quoted value\";\n\"quoted\" = bare;")
        #expect(strings == [
            "GREETING": "Hello", "path/to.key_1-x": "value$2:3", "MIXED": "quoted value", "quoted": "bare",
        ])
    }

    @Test func spacingIsFreeIncludingNoneAndWindowsLineEnds() throws {
        let strings = try table("\"a\"=\"A\";\"b\"\t =\t\"B\"  ;\r\n\r\n   \"c\"\n=\n\"C\"\n;\r\n")
        #expect(strings == ["a": "A", "b": "B", "c": "C"])
    }

    @Test func nonASCIITextIsKept() throws {
        #expect(try table("\"CAFÉ\" = \"Café ☕ 🎉\";") == ["CAFÉ": "Café ☕ 🎉"])
    }

    @Test func repeatedKeyKeepsTheLastValue() throws {
        #expect(try table("\"a\" = \"first\";\n\"b\" = \"B\";\n\"a\" = \"second\";") == ["a": "second", "b": "B"])
    }

    @Test func emptyFileAndFileOfOnlyCommentsAreEmptyTables() throws {
        #expect(try table("").isEmpty)
        #expect(try table("  \n\t\r\n").isEmpty)
        #expect(try table("// nothing yet\n/* still\n nothing */\n").isEmpty)
        #expect(try StringsTable.parse([0xEF, 0xBB, 0xBF]).isEmpty)
        #expect(try StringsTable.parse([0xFF, 0xFE]).isEmpty)
    }

    // MARK: Comments

    @Test func lineAndBlockCommentsAreSkippedAnywhereBetweenTokens() throws {
        let strings = try table("""
            // A line comment with "quotes" = and; semicolons
            /* A block comment */ "a" /* between */ = /* here */ "A" /* and here */ ; // after
            /*
             * Several lines,
             * "b" = "not read";
             */
            "c" = "C";//no space
            /**/"d"="D";
            """)
        #expect(strings == ["a": "A", "c": "C", "d": "D"])
    }

    @Test func commentMarkersInsideQuotedStringsAreText() throws {
        let strings = try table(#""url" = "https://example.com/*path*/";"# + "\n" + #""note" = "// not a comment";"#)
        #expect(strings == ["url": "https://example.com/*path*/", "note": "// not a comment"])
    }

    @Test func lineCommentRunsToTheEndOfTheFile() throws {
        #expect(try table("\"a\" = \"A\"; // the last line, without a newline") == ["a": "A"])
    }

    // MARK: Escapes

    @Test func escapesInQuotedStrings() throws {
        let strings = try table(#"""
            "quote" = "Say \"hi\"";
            "backslash" = "C:\\Tidings\\";
            "lines" = "one\ntwo\tthree\rfour";
            "accent" = "Caf\U00E9 and caf\u00e9";
            "other" = "it\'s \q";
            "key \"quoted\"" = "x";
            """#)
        #expect(strings["quote"] == #"Say "hi""#)
        #expect(strings["backslash"] == #"C:\Tidings\"#)
        #expect(strings["lines"] == "one\ntwo\tthree\rfour")
        #expect(strings["accent"] == "Café and café")
        #expect(strings["other"] == "it's q")
        #expect(strings[#"key "quoted""#] == "x")
    }

    @Test func characterBeyondTheBasicPlaneIsASurrogatePairOfEscapes() throws {
        #expect(try table(#""party" = "\UD83C\uDF89!";"#) == ["party": "🎉!"])
    }

    @Test(arguments: [#""a" = "\U00G9";"#, #""a" = "\U12";"#, #""a" = "\U"#])
    func escapeWithoutFourHexadecimalDigitsIsAnError(text: String) throws {
        let error = try syntaxError(text)
        #expect(error.message == "Expected four hexadecimal digits after \\U.")
        #expect(error.location.line == 1)
    }

    @Test(arguments: [#""a" = "\UD83C";"#, #""a" = "\UD83C\U0041";"#, #""a" = "\UDF89\UD83C";"#])
    func unpairedSurrogateEscapeIsAnError(text: String) throws {
        #expect(try syntaxError(text).message.contains("half of a surrogate pair"))
    }

    @Test func newlineInAQuotedStringIsKeptAndCounted() throws {
        #expect(try table("\"poem\" = \"roses\nviolets\";") == ["poem": "roses\nviolets"])
        #expect(try syntaxError("\"poem\" = \"roses\nviolets\";\n\"next\" \"value\";").location.line == 3)
    }

    // MARK: Encodings

    @Test func utf8ByteOrderMarkIsSkipped() throws {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("\"GREETING\" = \"Héllo\";".utf8)
        #expect(try StringsTable.parse(bytes) == ["GREETING": "Héllo"])
    }

    @Test(arguments: [false, true])
    func utf16WithAByteOrderMarkIsRead(bigEndian: Bool) throws {
        let text = "/* Xcode once wrote these. */\n\"GREETING\" = \"Héllo 🎉\";\nBARE = value;\n"
        #expect(try StringsTable.parse(utf16(text, bigEndian: bigEndian)) == ["GREETING": "Héllo 🎉", "BARE": "value"])
    }

    @Test func utf16ErrorsCountLinesToo() throws {
        let error = try syntaxError(utf16("\"a\" = \"A\";\n\"b\" = \"B\"\n", bigEndian: false))
        #expect(error.code == .stringsSyntax)
        #expect(error.location.line == 2)
    }

    @Test func utf16OfAnOddLengthIsAnError() throws {
        let error = try syntaxError(utf16("\"a\" = \"A\";", bigEndian: true) + [0x00])
        #expect(error.severity == .error)
        #expect(error.location.file == stringsFile)
        #expect(error.message.contains("not valid UTF-16"))
    }

    // MARK: Syntax errors

    @Test func missingEqualsSignIsAnErrorOnItsLine() throws {
        let error = try syntaxError("\"a\" = \"A\";\n\"b\" \"B\";\n")
        #expect(error.message == "Expected '=' after the key \"b\".")
        #expect(error.location.line == 2)
    }

    @Test func missingSemicolonIsAnErrorOnTheLineOfTheValue() throws {
        let error = try syntaxError("\"a\" = \"A\";\n\"b\" = \"B\"\n\n\"c\" = \"C\";\n")
        #expect(error.message == "Expected ';' after the value of \"b\".")
        #expect(error.location.line == 2)
    }

    @Test func missingSemicolonAtTheEndOfTheFileIsAnError() throws {
        let error = try syntaxError("// one\n\"a\" = \"A\"")
        #expect(error.message == "Expected ';' after the value of \"a\".")
        #expect(error.location.line == 2)
    }

    @Test func missingKeyOrValueIsAnError() throws {
        let key = try syntaxError("\n= \"A\";")
        #expect(key.message == "Expected a key but found '='.")
        #expect(key.location.line == 2)
        let value = try syntaxError("\"a\" = ;")
        #expect(value.message == "Expected a value for \"a\" but found ';'.")
        let end = try syntaxError("\"a\" =\n")
        #expect(end.message == "Expected a value for \"a\" but found the end of the file.")
        #expect(end.location.line == 2)
    }

    @Test func characterOutsideBareTokensIsAnError() throws {
        let error = try syntaxError("\"a\" = \"A\";\nkey with spaces = x;")
        #expect(error.message == "Expected '=' after the key \"key\".")
        #expect(error.location.line == 2)
        #expect(try syntaxError("a = b!;").message == "Expected ';' after the value of \"a\".")
    }

    @Test func unclosedStringIsAnErrorWhereItOpens() throws {
        let error = try syntaxError("\"a\" = \"A\";\n\"b\" = \"B;\n\"c\" = \"C\";\n\n")
        // The quote before C closes "B;\n", so the string left open is the one after C.
        #expect(error.message == "Expected ';' after the value of \"b\".")
        let open = try syntaxError("\"a\" = \"A\";\n\n\"b\" = \"never closed;\nmore\ntext\n")
        #expect(open.message == "A quoted string is not closed before the end of the file.")
        #expect(open.location.line == 3)
    }

    @Test func unclosedCommentIsAnErrorWhereItOpens() throws {
        let error = try syntaxError("\"a\" = \"A\";\n/* started\n\"b\" = \"B\";\n")
        #expect(error.message == "A comment is not closed before the end of the file.")
        #expect(error.location.line == 2)
        #expect(try syntaxError("\"a\" = \"A\"; /* *").location.line == 1)
    }

    @Test func linesAreCountedThroughCommentsAndStrings() throws {
        let error = try syntaxError("/*\n\n*/\n// c\n\"a\" = \"x\ny\";\n\"b\" = \"B\" \"c\";")
        #expect(error.message == "Expected ';' after the value of \"b\".")
        #expect(error.location.line == 7)
    }
}

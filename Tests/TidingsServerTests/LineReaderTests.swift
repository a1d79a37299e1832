import Testing
@testable import TidingsServer

/// Splitting a client's bytes into messages, whatever the chunks, within the size limit.
@Suite struct LineReaderTests {
    func lines(_ chunks: [String], limit: Int = 64) -> [LineReader.Next] {
        var reader = LineReader(limit: limit)
        var found: [LineReader.Next] = []
        for chunk in chunks {
            Array(chunk.utf8).withUnsafeBytes { reader.append($0) }
            while case let next = reader.next(), next != .needMore { found.append(next) }
        }
        return found
    }

    func line(_ text: String) -> LineReader.Next { .line(Array(text.utf8)) }

    @Test func linesSplitAcrossChunksAreJoined() {
        #expect(lines(["{\"a\"", ": 1}\n{\"b\": 2}\n{\"c\""]) == [line(#"{"a": 1}"#), line(#"{"b": 2}"#)])
    }

    @Test func carriageReturnsAndBlankLinesAreDropped() {
        #expect(lines(["one\r\n\n  \ntwo\n"]) == [line("one"), line("two")])
    }

    @Test func aLineOverTheLimitIsReportedOnceAndSkipped() {
        let long = String(repeating: "x", count: 100)
        #expect(lines([long.prefix(70) + "", long.dropFirst(70) + "\nnext\n"], limit: 64) == [.tooLong, line("next")])
        #expect(lines([long + "\nnext\n"], limit: 64) == [.tooLong, line("next")])
    }

    @Test func theLastLineNeedsNoNewline() {
        var reader = LineReader(limit: 64)
        Array("one\ntwo\r".utf8).withUnsafeBytes { reader.append($0) }
        #expect(reader.next() == line("one"))
        #expect(reader.next() == .needMore)
        #expect(reader.finish() == line("two"))
        #expect(reader.finish() == nil, "taken once")
    }

    @Test func theEndOfInputAfterANewlineOrInALongLineGivesNothing() {
        var ended = LineReader(limit: 8)
        Array("one\n  \t".utf8).withUnsafeBytes { ended.append($0) }
        #expect(ended.next() == line("one"))
        #expect(ended.next() == .needMore)
        #expect(ended.finish() == nil, "blank")
        var long = LineReader(limit: 8)
        Array("0123456789".utf8).withUnsafeBytes { long.append($0) }
        #expect(long.next() == .tooLong)
        #expect(long.finish() == nil, "reported already")
    }

    @Test func aLineOfExactlyTheLimitIsKept() {
        let exact = String(repeating: "y", count: 64)
        #expect(lines([exact + "\n"], limit: 64) == [line(exact)])
    }
}

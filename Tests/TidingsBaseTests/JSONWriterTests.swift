import Testing
@testable import TidingsBase

/// A payload-like value with every kind, nesting, and empty containers.
let sample = JSON.object([
    ("aps", .object([
        ("alert", .object([("title", .string("Build #42")), ("body", .string("Passed in 3 min"))])),
        ("badge", .integer(3)),
    ])),
    ("ratio", .double(0.5)),
    ("tags", .array([.string("ci"), .null, .bool(false)])),
    ("empty", .array([])),
    ("none", .object([])),
])

@Suite("JSON writer")
struct JSONWriterTests {
    @Test func writesCompactText() {
        #expect(JSON.object([("a", .integer(1)), ("b", .array([.bool(true), .null]))]).serialized() == #"{"a":1,"b":[true,null]}"#)
        #expect(sample.serialized() == #"""
            {"aps":{"alert":{"title":"Build #42","body":"Passed in 3 min"},"badge":3},"ratio":0.5,"tags":["ci",null,false],"empty":[],"none":{}}
            """#)
    }

    @Test func writesPrettyText() {
        #expect(sample.serialized(pretty: true) == """
            {
              "aps": {
                "alert": {
                  "title": "Build #42",
                  "body": "Passed in 3 min"
                },
                "badge": 3
              },
              "ratio": 0.5,
              "tags": [
                "ci",
                null,
                false
              ],
              "empty": [],
              "none": {}
            }
            """)
        #expect(JSON.array([]).serialized(pretty: true) == "[]")
        #expect(JSON.string("x").serialized(pretty: true) == #""x""#)
    }

    @Test(arguments: [
        (JSON.null, "null"),
        (.bool(true), "true"),
        (.bool(false), "false"),
        (.integer(0), "0"),
        (.integer(7), "7"),
        (.integer(10), "10"),
        (.integer(-100), "-100"),
        (.integer(1_000_000_000_000_000_000), "1000000000000000000"),
        (.integer(.max), "9223372036854775807"),
        (.integer(.min), "-9223372036854775808"),
        (.double(2), "2.0"),
        (.double(-0.0), "-0.0"),
        (.double(0.1), "0.1"),
        (.double(1e300), "1e+300"),
        (.double(1.5e-7), "1.5e-07"),
        (.double(.leastNonzeroMagnitude), "5e-324"),
        (.double(.greatestFiniteMagnitude), "1.7976931348623157e+308"),
        (.double(.infinity), "null"),
        (.double(-.infinity), "null"),
        (.double(.nan), "null"),
    ])
    func writesScalars(value: JSON, text: String) {
        #expect(value.serialized() == text)
    }

    /// Integral doubles below 2^53 are written from their digits, not their
    /// description: the text must be the description's, and measured alike.
    @Test(arguments: [0.0, -0.0, 1, -1, 360, -5, 1e15, 9_007_199_254_740_991, -9_007_199_254_740_991,
                      9_007_199_254_740_992, 1e16, -1e16, 0.5, -0.25, 4_503_599_627_370_495.5])
    func writesIntegralDoublesAsTheirDescription(value: Double) {
        #expect(JSON.double(value).serialized() == value.description)
        #expect(JSON.double(value).utf8Count() == value.description.utf8.count)
    }

    /// A line is the compact text and a newline, short or longer than the room it is first written into.
    @Test(arguments: [sample, .null, .array(Array(repeating: sample, count: 40))])
    func writesALine(value: JSON) throws {
        #expect(String(decoding: value.line(), as: UTF8.self) == value.serialized() + "\n")
        #expect(value.line(kept: true) == value.line())
        #expect(try JSON.parse(Array(value.line().dropLast())) == value)
        var appended = Array("[".utf8)
        value.serialize(into: &appended)
        #expect(appended == Array("[".utf8) + Array(value.line().dropLast()))
    }

    /// A kept line (an event in the ring a resuming subscriber replays) holds
    /// no more than its bytes, not the room it was first written into.
    @Test func aKeptLineIsNoLargerThanItsText() {
        let kept = sample.line(kept: true)
        #expect(kept.capacity < kept.count + 64, "capacity \(kept.capacity) for \(kept.count) bytes")
    }

    @Test func escapesOnlyWhatRFC8259Requires() {
        let value = JSON.string("\"\\/\n\r\t\u{8}\u{C}\u{0}\u{1}\u{1F}\u{7F} é€😀")
        #expect(value.serialized() == #""\"\\/\n\r\t\b\f\u0000\u0001\u001f"# + "\u{7F} é€😀\"")
        #expect(JSON.object([("a\"b", .null)]).serialized() == #"{"a\"b":null}"#)
    }

    @Test(arguments: [
        sample,
        .string("\"\\/\n\r\t\u{8}\u{C}\u{0}\u{1F}\u{7F} é€😀 \u{FEFF}"),
        .array([.double(2), .double(-0.0), .double(1e-7), .double(123_456_789.125), .integer(-1)]),
        .object([("k", .integer(1)), ("k", .integer(2)), ("", .object([("", .array([.array([])]))]))]),
    ])
    func readsBackWhatItWrites(value: JSON) throws {
        #expect(try JSON.parse(Array(value.serialized().utf8)) == value)
        #expect(try JSON.parse(Array(value.serialized(pretty: true).utf8)) == value)
    }

    @Test(arguments: [
        sample,
        .string("\"\\/\n\r\t\u{8}\u{C}\u{0}\u{1}\u{1F}\u{7F} é€😀 \u{FEFF}"),
        .string("a long string with no escapes in it, well beyond the fifteen bytes of a small string"),
        .array([.integer(0), .integer(9), .integer(10), .integer(-1), .integer(-10), .integer(99), .integer(100),
                .integer(.max), .integer(.min), .integer(.max - 1), .integer(.min + 1)]),
        .array([.double(2), .double(-0.0), .double(1e-7), .double(.nan), .double(.infinity), .double(123_456_789.125)]),
        .object([("k", .integer(1)), ("k\n", .null), ("", .object([("", .array([.array([]), .object([])]))]))]),
        .array([.array([.array([.bool(true), .bool(false)])])]),
        .null, .object([]), .array([]),
    ])
    func measuresExactlyWhatItWrites(value: JSON) {
        #expect(value.utf8Count() == value.serialized().utf8.count)
        #expect(value.utf8Count(pretty: true) == value.serialized(pretty: true).utf8.count)
    }

    /// Escapes found eight bytes at a time must be found wherever they fall:
    /// every position of strings up to 24 bytes, beside multi-byte characters.
    @Test func escapesWhereverTheyFall() throws {
        /// The escaped text the simplest way: one scalar at a time.
        func reference(_ string: String) -> String {
            var text = "\""
            for scalar in string.unicodeScalars {
                switch scalar {
                case "\"": text += #"\""#
                case "\\": text += #"\\"#
                case "\n": text += #"\n"#
                case "\u{1}": text += #"\u0001"#
                default: text.unicodeScalars.append(scalar)
                }
            }
            return text + "\""
        }
        for length in 0...24 {
            for filler in ["a", "é", "\u{7F}", " "] {
                let plain = String(repeating: filler, count: length)
                #expect(JSON.string(plain).serialized() == reference(plain))
                #expect(JSON.string(plain).utf8Count() == reference(plain).utf8.count)
                for position in 0...length {
                    for special in ["\"", "\\", "\n", "\u{1}"] {
                        var scalars = Array(plain.unicodeScalars)
                        scalars.insert(special.unicodeScalars.first!, at: position)
                        let string = String(String.UnicodeScalarView(scalars))
                        #expect(JSON.string(string).serialized() == reference(string), "\(length) \(position)")
                        #expect(JSON.string(string).utf8Count() == reference(string).utf8.count)
                    }
                }
            }
        }
    }

    @Test func appendsAfterWhatTheBufferHeld() {
        var bytes = Array("x=".utf8)
        JSON.array([.integer(1), .string("é")]).serialize(into: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == #"x=[1,"é"]"#)
    }

    /// A text longer than the room first written into is measured and
    /// written again, whole, after what the buffer held.
    @Test func writesTextLongerThanItsFirstRoom() throws {
        let long = JSON.array((0..<2_000).map { .string("item \($0) \"quoted\"") })
        var bytes = Array("x=".utf8)
        long.serialize(into: &bytes)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(bytes.count == 2 + long.utf8Count())
        #expect(text.hasPrefix(#"x=["item 0 \"quoted\"","#) && text.hasSuffix(#""item 1999 \"quoted\""]"#))
        #expect(try JSON.parse(Array(bytes.dropFirst(2))) == long)
        #expect(long.serialized(pretty: true).utf8.count == long.utf8Count(pretty: true))
    }

    @Test func writesDoublesThatReadBackToTheSameBits() throws {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<2_000 {
            // xorshift64: a fixed sequence of arbitrary bit patterns.
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            let double = Double(bitPattern: state)
            guard double.isFinite else { continue }
            let read = try JSON.parse(Array(JSON.double(double).serialized().utf8))
            #expect(read == .double(double), "\(double)")
            #expect(read.doubleValue?.bitPattern == double.bitPattern, "\(double)")
        }
    }

    @Test(arguments: [
        ([], ""),
        ([""], "/"),
        (["aps", "alert"], "/aps/alert"),
        (["a/b", "m~n", "~1", "0"], "/a~1b/m~0n/~01/0"),
        (["é €"], "/é €"),
    ] as [([String], String)])
    func buildsJSONPointers(components: [String], pointer: String) {
        #expect(JSON.pointer(components) == pointer)
    }
}

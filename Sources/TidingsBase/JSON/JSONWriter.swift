extension JSON {
    /// The JSON text of the value: compact (`{"a":1,"b":[true,null]}`) by
    /// default; with `pretty`, indented by two spaces, `"name": value`, and no
    /// newline at the end.
    ///
    /// Strings escape only what RFC 8259 requires: `"`, `\` and control
    /// characters. Doubles are written in their shortest form that reads back
    /// as the same value, always with a fraction or an exponent (`2.0`), and
    /// as `null` when they are not finite.
    package func serialized(pretty: Bool = false) -> String {
        var bytes: [UInt8] = []
        serialize(into: &bytes, pretty: pretty)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the UTF-8 JSON text of the value, as `serialized(pretty:)`
    /// gives it, to `bytes`: no String is made, for callers that copy the
    /// text somewhere anyway.
    ///
    /// One pass, as a rule: the text is written as the value is walked into
    /// room for `JSON.writingRoom` bytes (the answers and records this writes
    /// are a few hundred bytes to a few kilobytes); only a text that does not
    /// fit is measured, then written into room made for it. `bytes` grows by
    /// the text's length only.
    package func serialize(into bytes: inout [UInt8], pretty: Bool = false) {
        let writer = JSONWriter(pretty: pretty)
        // Copied, not adopted: the room's whole capacity would stay with what keeps the text (a journal record is kept
        // with each notification).
        guard let text = written(by: writer, endingLine: false) else {
            return append(measuredBy: writer, endingLine: false, to: &bytes)
        }
        bytes.append(contentsOf: text)
    }

    /// The compact text of the value and a newline: one line of a
    /// line-delimited stream (JSON-RPC answers and events), written once, in
    /// one pass as a rule, into the array returned — which may keep up to
    /// `writingRoom` bytes of capacity, for a line that is sent and dropped.
    /// A line that is `kept` (an event, for the subscribers that resume)
    /// is copied into an array of its size, as `serialize(into:pretty:)` does.
    package func line(kept: Bool = false) -> [UInt8] {
        let writer = JSONWriter(pretty: false)
        guard let text = written(by: writer, endingLine: true) else {
            var bytes: [UInt8] = []
            append(measuredBy: writer, endingLine: true, to: &bytes)
            return bytes
        }
        guard kept else { return text }
        return [UInt8](unsafeUninitializedCapacity: text.count) { buffer, count in
            count = buffer.initialize(fromContentsOf: text)
        }
    }

    /// The text `writer` writes of the value (with a newline when
    /// `endingLine`) in `writingRoom` bytes of room, in an array of that
    /// capacity; nil when it does not fit.
    private func written(by writer: JSONWriter, endingLine: Bool) -> [UInt8]? {
        var fitted = false
        let text = [UInt8](unsafeUninitializedCapacity: Self.writingRoom) { buffer, count in
            var sink = JSONBoundedSink(buffer)
            writer.write(self, depth: 0, to: &sink)
            if endingLine { sink.append(UInt8(ascii: "\n")) }
            fitted = !sink.overflowed
            count = fitted ? sink.count : 0
        }
        return fitted ? text : nil
    }

    /// Appends to `bytes` the text `writer` writes of the value (with a
    /// newline when `endingLine`), measured first, then written into room
    /// made for it: for a text larger than `writingRoom`.
    private func append(measuredBy writer: JSONWriter, endingLine: Bool, to bytes: inout [UInt8]) {
        bytes.append(addingCapacity: writer.count(self, depth: 0) + (endingLine ? 1 : 0)) { output in
            writer.write(self, depth: 0, to: &output)
            if endingLine { output.append(UInt8(ascii: "\n")) }
        }
    }

    /// The room `serialize(into:pretty:)` and `line()` first write into, in bytes.
    static let writingRoom = 4096

    /// The length in bytes of the UTF-8 JSON text `serialized(pretty:)`
    /// gives, found without writing it.
    package func utf8Count(pretty: Bool = false) -> Int {
        JSONWriter(pretty: pretty).count(self, depth: 0)
    }

    /// Appends the UTF-8 JSON text `serialized(pretty:)` gives to `output`,
    /// which must have room for `utf8Count(pretty:)` more bytes.
    package func write(to output: inout OutputSpan<UInt8>, pretty: Bool = false) {
        JSONWriter(pretty: pretty).write(self, depth: 0, to: &output)
    }

    /// The RFC 6901 JSON pointer to the value reached through `components`,
    /// as in `/aps/alert`; `~` is written `~0` and `/` is written `~1`.
    /// The pointer to the whole document (no components) is "".
    package static func pointer(_ components: [String]) -> String {
        components.map { "/" + $0.replacing("~", with: "~0").replacing("/", with: "~1") }.joined()
    }
}

/// Where `JSONWriter` puts the bytes it writes: room lent by a closure, or
/// made beforehand (`OutputSpan`, which must be large enough).
package protocol JSONByteSink: ~Copyable, ~Escapable {
    /// Appends one byte.
    mutating func append(_ byte: UInt8)
    /// Appends a copy of `source`; for use inside the closure that lent it.
    mutating func append(copying source: UnsafeBufferPointer<UInt8>)
}

extension JSONByteSink where Self: ~Copyable & ~Escapable {
    /// Appends the UTF-8 bytes of `string`.
    package mutating func append(utf8 string: String) {
        string.withUTF8Bytes { append(copying: $0) }
    }

    /// Appends the UTF-8 bytes of `literal`, which are where the program keeps them.
    mutating func append(literal: StaticString) {
        literal.withUTF8Buffer { append(copying: $0) }
    }
}

/// Room lent by a `with…` closure that text is written into until it is
/// full: what does not fit is dropped and marks the text `overflowed`.
private struct JSONBoundedSink: JSONByteSink {
    private let buffer: UnsafeMutableBufferPointer<UInt8>
    /// The bytes written.
    private(set) var count = 0
    /// True when something did not fit.
    private(set) var overflowed = false

    /// A sink writing into `buffer`, valid only inside the closure that lent it.
    init(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        self.buffer = buffer
    }

    mutating func append(_ byte: UInt8) {
        guard count < buffer.count else {
            overflowed = true
            return
        }
        buffer[count] = byte
        count += 1
    }

    mutating func append(copying source: UnsafeBufferPointer<UInt8>) {
        guard let start = source.baseAddress, !source.isEmpty else { return }
        guard source.count <= buffer.count - count else {
            overflowed = true
            return
        }
        (buffer.baseAddress! + count).initialize(from: start, count: source.count)
        count += source.count
    }
}

extension OutputSpan: JSONByteSink where Element == UInt8 {
    /// Appends a copy of `source`, which must fit in the free capacity; for
    /// use inside the closure that lent `source`.
    package mutating func append(copying source: UnsafeBufferPointer<UInt8>) {
        guard let start = source.baseAddress, !source.isEmpty else { return }
        withUnsafeMutableBufferPointer { buffer, initialized in
            precondition(source.count <= buffer.count - initialized, "The output span has no room for the bytes.")
            (buffer.baseAddress! + initialized).initialize(from: start, count: source.count)
            initialized += source.count
        }
    }
}

extension String {
    /// Calls `body` with the string's UTF-8 bytes, valid only inside `body`:
    /// in place when the string has them contiguous, as native strings do.
    fileprivate func withUTF8Bytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        if let result = utf8.withContiguousStorageIfAvailable(body) { return result }
        var contiguous = self
        return contiguous.withUTF8(body)
    }
}

/// Writes JSON text, and measures it without writing it (for room made
/// beforehand, and for the size APNs counts). The two must agree byte for
/// byte: `count` mirrors `write`.
private struct JSONWriter {
    /// Indented text, two spaces a level, `"name": value`.
    let pretty: Bool

    /// The length of the text of `value`, nested `depth` containers deep.
    func count(_ value: JSON, depth: Int) -> Int {
        switch value {
        case .null: return 4
        case .bool(let value): return value ? 4 : 5
        case .integer(let value): return Self.count(value)
        case .double(let value):
            if let integral = Self.integral(value) { return Self.count(integral) + (value.sign == .minus && integral == 0 ? 3 : 2) }
            return Self.text(value).utf8.count
        case .string(let value): return Self.count(value)
        case .array(let elements):
            var total = 2 + separators(elements.count, depth: depth)
            for element in elements { total += count(element, depth: depth + 1) }
            return total
        case .object(let members):
            var total = 2 + separators(members.count, depth: depth) + members.count * (pretty ? 2 : 1)
            for offset in members.indices {
                total += Self.count(members[offset].0) + count(members[offset].1, depth: depth + 1)
            }
            return total
        }
    }

    /// Appends the text of `value`, nested `depth` containers deep.
    func write<Sink: JSONByteSink & ~Copyable & ~Escapable>(_ value: JSON, depth: Int, to output: inout Sink) {
        switch value {
        case .null: output.append(literal: "null")
        case .bool(let value): output.append(literal: value ? "true" : "false")
        case .integer(let value): Self.write(value, to: &output)
        case .double(let value): Self.write(value, to: &output)
        case .string(let value): Self.write(value, to: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (offset, element) in elements.enumerated() {
                startItem(offset, depth: depth + 1, to: &output)
                write(element, depth: depth + 1, to: &output)
            }
            endContainer(isEmpty: elements.isEmpty, depth: depth, to: &output)
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            for offset in members.indices {
                startItem(offset, depth: depth + 1, to: &output)
                Self.write(members[offset].0, to: &output)
                output.append(UInt8(ascii: ":"))
                if pretty { output.append(UInt8(ascii: " ")) }
                write(members[offset].1, depth: depth + 1, to: &output)
            }
            endContainer(isEmpty: members.isEmpty, depth: depth, to: &output)
            output.append(UInt8(ascii: "}"))
        }
    }

    /// The length of the commas, and in pretty text the line breaks and
    /// indentation, around the `items` items of a container `depth` deep.
    private func separators(_ items: Int, depth: Int) -> Int {
        guard items > 0 else { return 0 }
        return items - 1 + (pretty ? items * (1 + 2 * (depth + 1)) + 1 + 2 * depth : 0)
    }

    /// The comma before every item but the first, and in pretty text the line break and indentation.
    private func startItem<Sink: JSONByteSink & ~Copyable & ~Escapable>(_ offset: Int, depth: Int, to output: inout Sink) {
        if offset > 0 { output.append(UInt8(ascii: ",")) }
        newline(depth: depth, to: &output)
    }

    /// In pretty text, the line break before the closing bracket of a non-empty container.
    private func endContainer<Sink: JSONByteSink & ~Copyable & ~Escapable>(isEmpty: Bool, depth: Int, to output: inout Sink) {
        if !isEmpty { newline(depth: depth, to: &output) }
    }

    /// In pretty text, a line break and the indentation of `depth`.
    private func newline<Sink: JSONByteSink & ~Copyable & ~Escapable>(depth: Int, to output: inout Sink) {
        guard pretty else { return }
        output.append(UInt8(ascii: "\n"))
        for _ in 0..<2 * depth { output.append(UInt8(ascii: " ")) }
    }

    /// The shortest text that reads back as `value`, always with a fraction
    /// or an exponent; `null` when it is not finite.
    private static func text(_ value: Double) -> String {
        value.isFinite ? value.description : "null"
    }

    /// `value` as an integer when it is integral and below 2^53 in
    /// magnitude: then its shortest text is that integer's digits and `.0`
    /// (`-0.0` for negative zero), as `description` writes it (which turns to
    /// an exponent only from 1e16), and is written without it.
    private static func integral(_ value: Double) -> Int64? {
        guard value.magnitude < 9_007_199_254_740_992, value.rounded(.towardZero) == value else { return nil }
        return Int64(value)
    }

    /// Appends `text(value)`: an integral value's digits directly, any other's description.
    private static func write<Sink: JSONByteSink & ~Copyable & ~Escapable>(_ value: Double, to output: inout Sink) {
        guard let integral = integral(value) else { return output.append(utf8: text(value)) }
        if integral == 0 && value.sign == .minus { output.append(UInt8(ascii: "-")) }
        write(integral, to: &output)
        output.append(UInt8(ascii: "."))
        output.append(UInt8(ascii: "0"))
    }

    /// The length of the decimal text of `value`.
    private static func count(_ value: Int64) -> Int {
        var magnitude = value.magnitude
        var digits = 1
        while magnitude >= 10 {
            magnitude /= 10
            digits += 1
        }
        return value < 0 ? digits + 1 : digits
    }

    /// Appends the decimal text of `value`, most significant digit first.
    private static func write<Sink: JSONByteSink & ~Copyable & ~Escapable>(_ value: Int64, to output: inout Sink) {
        if value < 0 { output.append(UInt8(ascii: "-")) }
        let magnitude = value.magnitude
        var divisor: UInt64 = 1
        while divisor <= magnitude / 10 { divisor *= 10 }
        repeat {
            output.append(UInt8(ascii: "0") + UInt8(magnitude / divisor % 10))
            divisor /= 10
        } while divisor > 0
    }

    /// True for the bytes a string escapes: quotes, backslashes and control characters.
    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    /// The length of the escape sequence of a byte that `needsEscape`.
    private static func escapeCount(_ byte: UInt8) -> Int {
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), 0x0A, 0x0D, 0x09, 0x08, 0x0C: 2
        default: 6
        }
    }

    /// The position of the first byte at or after `start` that needs an
    /// escape, or `bytes.count` when none does. Eight bytes at a time: a
    /// word has such a byte when a byte is below 0x20, or equals `"` or `\`.
    private static func firstEscape(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        /// True when some byte of `word` is below `limit` (at most 0x80).
        func hasByte(below limit: UInt64, in word: UInt64) -> Bool {
            (word &- ones &* limit) & ~word & highs != 0
        }
        let raw = UnsafeRawBufferPointer(bytes)
        var position = start
        while position + 8 <= bytes.count {
            let word = raw.loadUnaligned(fromByteOffset: position, as: UInt64.self)
            if hasByte(below: 0x20, in: word) || hasByte(below: 1, in: word ^ (ones &* 0x22))
                || hasByte(below: 1, in: word ^ (ones &* 0x5C)) {
                break
            }
            position += 8
        }
        while position < bytes.count && !needsEscape(bytes[position]) { position += 1 }
        return position
    }

    /// The length of `string` in quotes, escaped.
    private static func count(_ string: String) -> Int {
        string.withUTF8Bytes { bytes in
            var total = bytes.count + 2
            var position = firstEscape(in: bytes, from: 0)
            while position < bytes.count {
                total += escapeCount(bytes[position]) - 1
                position = firstEscape(in: bytes, from: position + 1)
            }
            return total
        }
    }

    /// The string in quotes. Runs of bytes that need no escape are copied
    /// whole; only quotes, backslashes and control characters are escaped.
    private static func write<Sink: JSONByteSink & ~Copyable & ~Escapable>(_ string: String, to output: inout Sink) {
        output.append(UInt8(ascii: "\""))
        string.withUTF8Bytes { bytes in
            var runStart = 0
            var index = firstEscape(in: bytes, from: 0)
            while index < bytes.count {
                output.append(copying: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                writeEscape(bytes[index], to: &output)
                runStart = index + 1
                index = firstEscape(in: bytes, from: runStart)
            }
            output.append(copying: UnsafeBufferPointer(rebasing: bytes[runStart...]))
        }
        output.append(UInt8(ascii: "\""))
    }

    /// The escape sequence for a quote, a backslash or a control character.
    private static func writeEscape<Sink: JSONByteSink & ~Copyable & ~Escapable>(_ byte: UInt8, to output: inout Sink) {
        output.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): output.append(byte)
        case 0x0A: output.append(UInt8(ascii: "n"))
        case 0x0D: output.append(UInt8(ascii: "r"))
        case 0x09: output.append(UInt8(ascii: "t"))
        case 0x08: output.append(UInt8(ascii: "b"))
        case 0x0C: output.append(UInt8(ascii: "f"))
        default:
            let low = byte & 0xF
            output.append(UInt8(ascii: "u"))
            output.append(UInt8(ascii: "0"))
            output.append(UInt8(ascii: "0"))
            output.append(UInt8(ascii: "0") + byte >> 4)
            output.append(low < 10 ? UInt8(ascii: "0") + low : UInt8(ascii: "a") + low - 10)
        }
    }
}

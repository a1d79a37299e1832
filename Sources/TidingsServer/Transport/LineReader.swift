/// Splits what a client sends into lines (one JSON-RPC message each), never
/// holding more than the size limit of one unfinished line: a longer line is
/// reported once and skipped up to its newline.
struct LineReader {
    /// What comes next.
    enum Next: Equatable {
        /// A complete line, without its newline (nor a carriage return before it).
        case line([UInt8])
        /// A line longer than the limit began; the rest of it is skipped.
        case tooLong
        /// Nothing until more bytes arrive.
        case needMore
    }

    /// The longest line accepted, in bytes.
    let limit: Int
    private var buffer: [UInt8] = []
    /// Where the unread part of `buffer` starts.
    private var start = 0
    /// In a line over the limit, skipping up to its newline.
    private var skipping = false
    /// How far past `start` the buffer is known to hold no newline.
    private var scanned = 0

    /// A reader accepting lines of at most `limit` bytes.
    init(limit: Int) {
        self.limit = limit
    }

    /// True when a line has begun and not ended: bytes after the last
    /// newline, or a line too long being skipped.
    var hasPartialLine: Bool { skipping || start < buffer.count }

    /// Adds bytes as they arrived.
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        if start > 0 && start >= buffer.count / 2 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next line, if a whole one is there.
    mutating func next() -> Next {
        while true {
            guard let newline = buffer[(start + scanned)...].firstIndex(of: UInt8(ascii: "\n")) else {
                scanned = buffer.count - start
                if skipping {
                    buffer.removeAll(keepingCapacity: true)
                    start = 0
                    scanned = 0
                } else if buffer.count - start > limit {
                    skipping = true
                    buffer.removeAll(keepingCapacity: true)
                    start = 0
                    scanned = 0
                    return .tooLong
                }
                return .needMore
            }
            let lineStart = start
            start = newline + 1
            scanned = 0
            if skipping {
                skipping = false
                continue
            }
            var end = newline
            if end > lineStart && buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
            if end - lineStart > limit { return .tooLong }
            // Blank lines between messages are allowed and ignored.
            if buffer[lineStart..<end].allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) { continue }
            return .line(Array(buffer[lineStart..<end]))
        }
    }

    /// At the end of the input: the last line when it has no newline (a
    /// final request needs none), else nil; the reader is then empty.
    mutating func finish() -> Next? {
        defer {
            buffer.removeAll()
            start = 0
            scanned = 0
            skipping = false
        }
        guard !skipping, start < buffer.count else { return nil }
        var end = buffer.count
        if buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        if buffer[start..<end].allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) { return nil }
        return .line(Array(buffer[start..<end]))
    }
}

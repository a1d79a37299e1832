/// A file under inspection by `MediaSniffer`: its size, its first KiB read
/// once, and small reads further in. Every accessor is total: past the end of
/// the file (or of what the reader returns) it gives fewer bytes or nil.
struct SniffedFile {
    /// How many bytes of the file are read up front: enough for every
    /// signature and the header right after it.
    static let headLength = 1024

    /// The file's size in bytes, as the caller states it.
    let size: UInt64
    /// The file's first bytes: `headLength` of them, or fewer in a shorter file.
    let head: [UInt8]
    /// Reads up to `count` bytes at an offset.
    private let read: (_ offset: UInt64, _ count: Int) -> [UInt8]

    /// A file of `size` bytes read through `read`; reads its head at once.
    init(size: UInt64, read: @escaping (_ offset: UInt64, _ count: Int) -> [UInt8]) {
        self.size = size
        self.read = read
        head = size == 0 ? [] : Array(read(0, Self.headLength).prefix(Self.headLength))
    }

    /// Up to `count` bytes at `offset`: from the head when it holds them all
    /// or is the whole file, otherwise read from the file.
    func bytes(at offset: UInt64, count: Int) -> [UInt8] {
        guard count > 0, offset < size else { return [] }
        let isWholeFile = head.count < Self.headLength
        if offset < UInt64(head.count), isWholeFile || head.count - Int(offset) >= count {
            let start = Int(offset)
            return Array(head[start..<min(start + count, head.count)])
        }
        return isWholeFile ? [] : Array(read(offset, count).prefix(count))
    }

    /// True when the bytes at `offset` are `signature`.
    func matches(_ signature: [UInt8], at offset: UInt64 = 0) -> Bool {
        bytes(at: offset, count: signature.count) == signature
    }

    /// True when the bytes at `offset` are the ASCII text `signature`.
    func matches(_ signature: String, at offset: UInt64 = 0) -> Bool {
        matches(Array(signature.utf8), at: offset)
    }

    /// The byte at `offset`, if the file has one there.
    func byte(at offset: UInt64) -> UInt8? {
        bytes(at: offset, count: 1).first
    }

    /// The big-endian integer of `width` bytes (at most 8) at `offset`.
    func bigEndian(at offset: UInt64, width: Int) -> UInt64? {
        let found = bytes(at: offset, count: width)
        guard found.count == width, width <= 8 else { return nil }
        return found.reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// The little-endian integer of `width` bytes (at most 8) at `offset`.
    func littleEndian(at offset: UInt64, width: Int) -> UInt64? {
        let found = bytes(at: offset, count: width)
        guard found.count == width, width <= 8 else { return nil }
        return found.reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// The four-character code at `offset` ("RIFF", "ftyp"), if its four bytes
    /// are printable ASCII.
    func fourCharacterCode(at offset: UInt64) -> String? {
        let found = bytes(at: offset, count: 4)
        guard found.count == 4, found.allSatisfy({ (0x20...0x7E).contains($0) }) else { return nil }
        return String(decoding: found, as: UTF8.self)
    }
}

/// A chunk of a RIFF (WAVE, AVI) or IFF (AIFF) file: a four-character code,
/// a 32-bit size, then that many bytes of body, padded to an even length.
struct Chunk {
    /// How a container writes its chunk sizes: RIFF little-endian, IFF big-endian.
    enum ByteOrder {
        case littleEndian
        case bigEndian
    }

    /// How many chunks a search looks at before it gives up, so that a
    /// sniff stays a few small reads.
    static let searchLimit = 8

    /// The chunk's four-character code ("fmt ", "COMM").
    let identifier: String
    /// Where the chunk's body starts in the file.
    let bodyOffset: UInt64
    /// The body's size in bytes, as the chunk states it.
    let bodySize: UInt64

    /// The chunk whose header is at `offset` in `file`, if it has a whole
    /// header there with a printable code.
    init?(in file: SniffedFile, at offset: UInt64, byteOrder: ByteOrder) {
        guard let identifier = file.fourCharacterCode(at: offset) else { return nil }
        let size = switch byteOrder {
        case .littleEndian: file.littleEndian(at: offset + 4, width: 4)
        case .bigEndian: file.bigEndian(at: offset + 4, width: 4)
        }
        guard let size else { return nil }
        self.identifier = identifier
        bodyOffset = offset + 8
        bodySize = size
    }

    /// Where the chunk after this one starts.
    var nextOffset: UInt64 {
        bodyOffset + bodySize + (bodySize & 1)
    }

    /// The first chunk named `identifier` among the first `searchLimit`
    /// chunks from `offset`, stopping early at the end of the file or at a
    /// malformed chunk header.
    static func first(_ identifier: String, in file: SniffedFile, from offset: UInt64,
                      byteOrder: ByteOrder) -> Chunk? {
        var offset = offset
        for _ in 0..<searchLimit {
            guard let chunk = Chunk(in: file, at: offset, byteOrder: byteOrder) else { return nil }
            if chunk.identifier == identifier { return chunk }
            offset = chunk.nextOffset
        }
        return nil
    }
}

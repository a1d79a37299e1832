/// Recognises a file's media type by its content, never by its name: the
/// signature at its start and the structure right after it.
package enum MediaSniffer {
    /// What the content is.
    package enum Verdict: Sendable, Equatable {
        /// A supported type, intact as far as its header shows.
        case recognized(MediaType)
        /// The signature of `type`, but what follows it is damaged or cut short.
        case corrupt(MediaType, reason: String)
        /// No supported type; `looksLike` names what it is when that is known
        /// ("plain text", "a WebP image").
        case unrecognized(looksLike: String?)
    }

    /// The verdict on a file of `size` bytes whose bytes `read(offset, count)`
    /// returns (fewer than `count` at the end of the file).
    package static func recognize(size: UInt64, read: (_ offset: UInt64, _ count: Int) -> [UInt8]) -> Verdict {
        let header = read(0, 64)
        func starts(with signature: [UInt8], at offset: Int = 0) -> Bool {
            header.count >= offset + signature.count && Array(header[offset..<offset + signature.count]) == signature
        }
        func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }
        if starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .recognized(.png) }
        if starts(with: [0xFF, 0xD8, 0xFF]) { return .recognized(.jpeg) }
        if starts(with: ascii("GIF87a")) || starts(with: ascii("GIF89a")) { return .recognized(.gif) }
        if starts(with: ascii("RIFF")) && starts(with: ascii("WAVE"), at: 8) { return .recognized(.wave) }
        if starts(with: ascii("RIFF")) && starts(with: ascii("AVI "), at: 8) { return .recognized(.avi) }
        if starts(with: ascii("FORM")) && (starts(with: ascii("AIFF"), at: 8) || starts(with: ascii("AIFC"), at: 8)) {
            return .recognized(.aiff)
        }
        if starts(with: ascii("ID3")) { return .recognized(.mp3) }
        if starts(with: ascii("ftyp"), at: 4) {
            return starts(with: ascii("M4A "), at: 8) ? .recognized(.mpeg4Audio) : .recognized(.mpeg4)
        }
        if starts(with: [0x00, 0x00, 0x01, 0xBA]) || starts(with: [0x00, 0x00, 0x01, 0xB3]) { return .recognized(.mpeg) }
        return .unrecognized(looksLike: nil)
    }
}

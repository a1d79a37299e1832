/// Recognises a file's media type by its content, never by its name: the
/// signature at its start and the structure right after it. It reads the
/// file's first KiB and, for some types, a few small pieces further in (the
/// frame after an MP3's ID3 tag, the chunks of a WAVE or AIFF file).
///
/// The sniffer is total: any bytes, of any length, get a verdict.
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
        guard size > 0 else { return .unrecognized(looksLike: "an empty file") }
        return withoutActuallyEscaping(read) { read in
            verdict(on: SniffedFile(size: size, read: read))
        }
    }

    /// The verdict on `file`: the first family whose signature it has
    /// decides; failing all, what it looks like.
    private static func verdict(on file: SniffedFile) -> Verdict {
        ImageSignatures.png(file) ?? ImageSignatures.jpeg(file) ?? ImageSignatures.gif(file)
            ?? AudioSignatures.wave(file) ?? AudioSignatures.aiff(file) ?? VideoSignatures.avi(file)
            ?? ISOMediaSignatures.verdict(file) ?? VideoSignatures.mpeg(file) ?? AudioSignatures.mp3(file)
            ?? .unrecognized(looksLike: UnsupportedSignatures.name(of: file))
    }
}

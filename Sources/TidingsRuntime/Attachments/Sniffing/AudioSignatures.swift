/// The audio types a notification may carry — WAVE, AIFF and MP3 — known by
/// their signatures and the structure right after them. (MPEG-4 audio is an
/// ISO media file: see `ISOMediaSignatures`.)
enum AudioSignatures {
    /// The verdict on a WAVE file: "RIFF", a size, "WAVE", then a format
    /// chunk ("fmt ") among the first chunks, giving channels and a sample rate.
    static func wave(_ file: SniffedFile) -> MediaSniffer.Verdict? {
        guard file.matches("RIFF"), file.matches("WAVE", at: 8) else { return nil }
        guard let format = Chunk.first("fmt ", in: file, from: 12, byteOrder: .littleEndian) else {
            return .corrupt(.wave, reason: "the WAVE format chunk (fmt ) is missing")
        }
        guard format.bodySize >= 16, let channels = file.littleEndian(at: format.bodyOffset + 2, width: 2),
              let sampleRate = file.littleEndian(at: format.bodyOffset + 4, width: 4) else {
            return .corrupt(.wave, reason: "the WAVE format chunk (fmt ) is cut short")
        }
        guard channels > 0, sampleRate > 0 else {
            return .corrupt(.wave, reason: "the WAVE format chunk (fmt ) gives no channels or no sample rate")
        }
        return .recognized(.wave)
    }

    /// The verdict on an AIFF or AIFF-C file: "FORM", a size, "AIFF" or
    /// "AIFC", then a common chunk ("COMM") among the first chunks, giving
    /// channels and a sample size.
    static func aiff(_ file: SniffedFile) -> MediaSniffer.Verdict? {
        guard file.matches("FORM"), file.matches("AIFF", at: 8) || file.matches("AIFC", at: 8) else { return nil }
        guard let common = Chunk.first("COMM", in: file, from: 12, byteOrder: .bigEndian) else {
            return .corrupt(.aiff, reason: "the AIFF common chunk (COMM) is missing")
        }
        guard common.bodySize >= 18, let channels = file.bigEndian(at: common.bodyOffset, width: 2),
              let sampleSize = file.bigEndian(at: common.bodyOffset + 6, width: 2) else {
            return .corrupt(.aiff, reason: "the AIFF common chunk (COMM) is cut short")
        }
        guard channels > 0, sampleSize > 0 else {
            return .corrupt(.aiff, reason: "the AIFF common chunk (COMM) gives no channels or no sample size")
        }
        return .recognized(.aiff)
    }

    /// The verdict on an MP3: an ID3v2 tag followed by a Layer III frame, or
    /// a Layer III frame at the very start. Other MPEG audio layers and AAC
    /// in ADTS frames share the frame sync; they are named, not recognised.
    static func mp3(_ file: SniffedFile) -> MediaSniffer.Verdict? {
        guard file.matches("ID3") else { return frames(in: file, at: 0) }
        switch id3TagEnd(in: file) {
        case .success(let end):
            if let verdict = frames(in: file, at: end) { return verdict }
            if file.matches("fLaC", at: end) { return .unrecognized(looksLike: "FLAC audio") }
            return .corrupt(.mp3, reason: "no MP3 frame follows the ID3 tag")
        case .failure(let damage):
            return .corrupt(.mp3, reason: damage.reason)
        }
    }

    /// What is wrong with an ID3v2 tag.
    private struct ID3Damage: Error {
        /// Says what, as a sentence fragment.
        let reason: String
    }

    /// Where the ID3v2 tag at the start of `file` ends: after its 10-byte
    /// header, the size that header gives (a syncsafe integer: 7 bits a
    /// byte) and, when its flags say so, a 10-byte footer.
    private static func id3TagEnd(in file: SniffedFile) -> Result<UInt64, ID3Damage> {
        let header = file.bytes(at: 0, count: 10)
        guard header.count == 10 else { return .failure(ID3Damage(reason: "the file ends inside the ID3 tag header")) }
        guard header[3] != 0xFF, header[4] != 0xFF, header[6...].allSatisfy({ $0 < 0x80 }) else {
            return .failure(ID3Damage(reason: "the ID3 tag header is malformed"))
        }
        let size = header[6...].reduce(UInt64(0)) { $0 << 7 | UInt64($1) }
        let footer: UInt64 = header[5] & 0x10 == 0 ? 0 : 10
        let end = 10 + size + footer
        guard end < file.size else {
            return .failure(ID3Damage(reason: end == file.size ? "no audio follows the ID3 tag"
                                                                : "the file ends inside the ID3 tag"))
        }
        return .success(end)
    }

    /// The verdict on the MPEG audio frames at `offset`: a Layer III frame is
    /// an MP3 when it ends at the end of the file or where the next frame
    /// starts; Layer I and II frames followed by another frame, and AAC ADTS
    /// frames, are named. Nil when no frame starts there.
    private static func frames(in file: SniffedFile, at offset: UInt64) -> MediaSniffer.Verdict? {
        let bytes = file.bytes(at: offset, count: 7)
        if isADTSHeader(bytes) { return .unrecognized(looksLike: "AAC audio (ADTS)") }
        guard let first = MPEGAudioFrameHeader(bytes) else { return nil }
        let end = offset + UInt64(first.frameLength)
        let isFollowed = end < file.size
            && MPEGAudioFrameHeader(file.bytes(at: end, count: 4)).map(first.isContinued(by:)) == true
        switch first.layer {
        case 3 where isFollowed || end == file.size: return .recognized(.mp3)
        case 3 where end > file.size: return .corrupt(.mp3, reason: "the file ends inside the first MP3 frame")
        case 3: return .corrupt(.mp3, reason: "the second MP3 frame is not where the first one ends")
        case 2 where isFollowed: return .unrecognized(looksLike: "MPEG Layer II audio (MP2)")
        case 1 where isFollowed: return .unrecognized(looksLike: "MPEG Layer I audio (MP1)")
        default: return nil
        }
    }

    /// True when `bytes` start an ADTS frame of AAC: a 12-bit sync, layer 0,
    /// a valid sampling frequency index and a frame length that covers the header.
    private static func isADTSHeader(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 7, bytes[0] == 0xFF, bytes[1] & 0xF6 == 0xF0 else { return false }
        let frequencyIndex = (bytes[2] >> 2) & 0x0F
        let frameLength = Int(bytes[3] & 0x03) << 11 | Int(bytes[4]) << 3 | Int(bytes[5] >> 5)
        return frequencyIndex <= 12 && frameLength >= 7
    }
}

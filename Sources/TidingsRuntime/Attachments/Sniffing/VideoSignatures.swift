/// The video types a notification may carry — AVI, MPEG-1 and MPEG-2 —
/// known by their signatures and the header right after them. (MPEG-4 video
/// is an ISO media file: see `ISOMediaSignatures`.)
enum VideoSignatures {
    /// The verdict on an AVI: "RIFF", a size, "AVI ", then the header list
    /// (a LIST chunk of type "hdrl") opening with the main header ("avih").
    static func avi(_ file: SniffedFile) -> MediaSniffer.Verdict? {
        guard file.matches("RIFF"), file.matches("AVI ", at: 8) else { return nil }
        guard file.matches("LIST", at: 12), file.matches("hdrl", at: 20) else {
            return .corrupt(.avi, reason: "the AVI header list (LIST hdrl) is missing")
        }
        guard file.matches("avih", at: 24) else {
            return .corrupt(.avi, reason: "the AVI main header (avih) is missing")
        }
        return .recognized(.avi)
    }

    /// The verdict on an MPEG program stream (a pack header, 00 00 01 BA) or
    /// an MPEG video elementary stream (a sequence header, 00 00 01 B3).
    static func mpeg(_ file: SniffedFile) -> MediaSniffer.Verdict? {
        if file.matches([0x00, 0x00, 0x01, 0xBA]) { return programStream(file) }
        if file.matches([0x00, 0x00, 0x01, 0xB3]) { return videoStream(file) }
        return nil
    }

    /// The verdict on a program stream, by its first pack header: MPEG-1's
    /// (whose fifth byte starts with the bits 0010, 12 bytes long) or
    /// MPEG-2's (bits 01, 14 bytes and up to 7 of stuffing), each with its
    /// first marker bit set and followed by another start code.
    private static func programStream(_ file: SniffedFile) -> MediaSniffer.Verdict {
        guard let fifth = file.byte(at: 4) else {
            return .corrupt(.mpeg, reason: "the file ends inside the MPEG pack header")
        }
        let type: MediaType
        let headerLength: UInt64
        if fifth >> 4 == 0b0010, fifth & 0x01 != 0 {
            type = .mpeg
            headerLength = 12
        } else if fifth >> 6 == 0b01, fifth & 0x04 != 0 {
            guard let stuffing = file.byte(at: 13) else {
                return .corrupt(.mpeg2Video, reason: "the file ends inside the MPEG pack header")
            }
            type = .mpeg2Video
            headerLength = 14 + UInt64(stuffing & 0x07)
        } else {
            return .corrupt(.mpeg, reason: "the MPEG pack header is malformed")
        }
        guard file.matches([0x00, 0x00, 0x01], at: headerLength) else {
            return .corrupt(type, reason: "the MPEG pack header is not followed by a start code")
        }
        return .recognized(type)
    }

    /// The verdict on a video elementary stream, by its sequence header: a
    /// width and height above zero and a valid aspect ratio and frame rate.
    /// A sequence extension (00 00 01 B5, identifier 1) in the first KiB
    /// makes it MPEG-2 video; without one it is MPEG-1.
    private static func videoStream(_ file: SniffedFile) -> MediaSniffer.Verdict {
        let type: MediaType = hasSequenceExtension(file.head) ? .mpeg2Video : .mpeg
        let fields = file.bytes(at: 4, count: 4)
        guard file.size >= 12, fields.count == 4 else {
            return .corrupt(type, reason: "the file ends inside the MPEG sequence header")
        }
        let width = Int(fields[0]) << 4 | Int(fields[1] >> 4)
        let height = Int(fields[1] & 0x0F) << 8 | Int(fields[2])
        guard width > 0, height > 0 else {
            return .corrupt(type, reason: "the MPEG sequence header gives a zero width or height")
        }
        let aspectRatio = fields[3] >> 4
        let frameRate = fields[3] & 0x0F
        guard (1...14).contains(aspectRatio), (1...8).contains(frameRate) else {
            return .corrupt(type, reason: "the MPEG sequence header gives an invalid aspect ratio or frame rate")
        }
        return .recognized(type)
    }

    /// True when `head` holds a sequence extension: 00 00 01 B5, then 0001 in
    /// the top bits of the next byte.
    private static func hasSequenceExtension(_ head: [UInt8]) -> Bool {
        guard head.count >= 5 else { return false }
        return (0...head.count - 5).contains { start in
            head[start] == 0x00 && head[start + 1] == 0x00 && head[start + 2] == 0x01 && head[start + 3] == 0xB5
                && head[start + 4] >> 4 == 0x1
        }
    }
}

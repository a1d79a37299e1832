/// The image types a notification may carry — PNG, JPEG and GIF — known by
/// their signatures and the header right after them.
enum ImageSignatures {
    /// The verdict on a PNG: the signature, then an IHDR chunk of 13 bytes
    /// with a width and height above zero and a valid colour type and bit depth.
    static func png(_ file: SniffedFile) -> MediaSniffer.Verdict? {
        guard file.matches([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else { return nil }
        guard file.matches("IHDR", at: 12) else {
            return .corrupt(.png, reason: file.size < 16 ? "the file ends before the PNG header chunk (IHDR)"
                                                          : "the PNG header chunk (IHDR) is missing")
        }
        guard let length = file.bigEndian(at: 8, width: 4), length == 13 else {
            return .corrupt(.png, reason: "the PNG header chunk (IHDR) is not 13 bytes long")
        }
        // Bit depth, colour type, compression, filter and interlace method.
        let fields = file.bytes(at: 24, count: 5)
        // The chunk's 13 bytes and its CRC.
        guard file.size >= 33, let width = file.bigEndian(at: 16, width: 4), let height = file.bigEndian(at: 20, width: 4),
              fields.count == 5 else {
            return .corrupt(.png, reason: "the file ends inside the PNG header chunk (IHDR)")
        }
        guard (1...0x7FFF_FFFF).contains(width), (1...0x7FFF_FFFF).contains(height) else {
            return .corrupt(.png, reason: "the PNG header gives a zero or out-of-range width or height")
        }
        guard isValidPNGFormat(bitDepth: fields[0], colourType: fields[1]),
              fields[2] == 0, fields[3] == 0, fields[4] <= 1 else {
            return .corrupt(.png, reason: "the PNG header gives an invalid colour type, bit depth or method")
        }
        return .recognized(.png)
    }

    /// True when PNG allows `bitDepth` for `colourType`.
    private static func isValidPNGFormat(bitDepth: UInt8, colourType: UInt8) -> Bool {
        switch colourType {
        case 0: [1, 2, 4, 8, 16].contains(bitDepth)
        case 3: [1, 2, 4, 8].contains(bitDepth)
        case 2, 4, 6: [8, 16].contains(bitDepth)
        default: false
        }
    }

    /// The verdict on a JPEG: the start-of-image marker FF D8, then a marker
    /// that may open a JPEG (tables, application data, a comment or a frame)
    /// with a segment length that fits the file.
    static func jpeg(_ file: SniffedFile) -> MediaSniffer.Verdict? {
        guard file.matches([0xFF, 0xD8]) else { return nil }
        guard let next = file.byte(at: 2), let marker = file.byte(at: 3) else {
            return .corrupt(.jpeg, reason: "the file ends right after the JPEG start-of-image marker")
        }
        guard next == 0xFF, opensJPEG(marker) else {
            return .corrupt(.jpeg, reason: "the JPEG start-of-image marker is not followed by another marker")
        }
        guard let length = file.bigEndian(at: 4, width: 2), length >= 2, 4 + length <= file.size else {
            return .corrupt(.jpeg, reason: "the first JPEG segment is cut short or has an invalid length")
        }
        return .recognized(.jpeg)
    }

    /// True for the markers that may follow start-of-image: the frames and
    /// Huffman and arithmetic tables (C0–CF), quantisation tables, restart
    /// interval and hierarchical markers (DB–DF), application data (E0–EF)
    /// and comments (FE).
    private static func opensJPEG(_ marker: UInt8) -> Bool {
        (0xC0...0xCF).contains(marker) || (0xDB...0xDF).contains(marker) || (0xE0...0xEF).contains(marker)
            || marker == 0xFE
    }

    /// The verdict on a GIF: "GIF87a" or "GIF89a", a 13-byte header with a
    /// width and height above zero, the global colour table it announces,
    /// then an image or an extension block.
    static func gif(_ file: SniffedFile) -> MediaSniffer.Verdict? {
        guard file.matches("GIF87a") || file.matches("GIF89a") else { return nil }
        guard file.size >= 13, let width = file.littleEndian(at: 6, width: 2),
              let height = file.littleEndian(at: 8, width: 2), let packed = file.byte(at: 10) else {
            return .corrupt(.gif, reason: "the file ends inside the GIF header")
        }
        guard width > 0, height > 0 else {
            return .corrupt(.gif, reason: "the GIF header gives a zero width or height")
        }
        let colourTableSize: UInt64 = packed & 0x80 == 0 ? 0 : 3 << (UInt64(packed & 0x07) + 1)
        switch file.byte(at: 13 + colourTableSize) {
        case 0x2C, 0x21: return .recognized(.gif)
        case 0x3B: return .corrupt(.gif, reason: "the GIF holds no image")
        case nil where file.size < 13 + colourTableSize:
            return .corrupt(.gif, reason: "the file ends inside the GIF colour table")
        case nil: return .corrupt(.gif, reason: "the file ends right after the GIF header")
        default: return .corrupt(.gif, reason: "the GIF header is followed by neither an image nor an extension")
        }
    }
}

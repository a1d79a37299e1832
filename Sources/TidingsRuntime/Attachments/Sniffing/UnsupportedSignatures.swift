/// Names for content that is no supported media type — other media formats,
/// documents, archives, executables, text — so that a rejection can say
/// what the file looks like.
enum UnsupportedSignatures {
    /// What `file` looks like, if Tidings can tell: by a signature, by a
    /// container's form or codec, by MPEG transport stream packets, or as text.
    static func name(of file: SniffedFile) -> String? {
        if let signature = signatures.first(where: { file.matches($0.bytes) }) { return signature.name }
        return containerName(file) ?? oggName(file) ?? matroskaName(file) ?? bitmapName(file)
            ?? transportStreamName(file) ?? TextContent.kind(of: file)
    }

    /// A signature: the bytes a file starts with, and the name of what starts so.
    private struct Signature {
        /// The bytes.
        let bytes: [UInt8]
        /// What a file that starts with them is.
        let name: String

        /// A signature of `bytes`.
        init(_ bytes: [UInt8], _ name: String) {
            self.bytes = bytes
            self.name = name
        }

        /// A signature of the ASCII `text`.
        init(_ text: String, _ name: String) {
            self.init(Array(text.utf8), name)
        }
    }

    /// Signatures at the start of a file that name it by themselves.
    private static let signatures: [Signature] = [
        Signature("%PDF-", "a PDF document"),
        Signature("PK\u{3}\u{4}", "a ZIP archive"),
        Signature("PK\u{5}\u{6}", "a ZIP archive"),
        Signature("PK\u{7}\u{8}", "a ZIP archive"),
        Signature([0x1F, 0x8B], "a gzip archive"),
        Signature([0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00], "an xz archive"),
        Signature([0x28, 0xB5, 0x2F, 0xFD], "a Zstandard archive"),
        Signature([0x37, 0x7A, 0xBC, 0xAF, 0x27, 0x1C], "a 7-Zip archive"),
        Signature("Rar!\u{1A}\u{7}", "a RAR archive"),
        Signature([0x7F, 0x45, 0x4C, 0x46], "an ELF executable"),
        Signature([0xFE, 0xED, 0xFA, 0xCE], "a Mach-O executable"),
        Signature([0xFE, 0xED, 0xFA, 0xCF], "a Mach-O executable"),
        Signature([0xCE, 0xFA, 0xED, 0xFE], "a Mach-O executable"),
        Signature([0xCF, 0xFA, 0xED, 0xFE], "a Mach-O executable"),
        Signature("SQLite format 3\u{0}", "an SQLite database"),
        Signature("bplist00", "a binary property list"),
        Signature("II*\u{0}", "a TIFF image"),
        Signature("MM\u{0}*", "a TIFF image"),
        Signature("II+\u{0}", "a TIFF image"),
        Signature("MM\u{0}+", "a TIFF image"),
        Signature("8BPS", "a Photoshop document"),
        Signature([0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A], "a JPEG 2000 image"),
        Signature([0xFF, 0x4F, 0xFF, 0x51], "a JPEG 2000 image"),
        Signature([0x00, 0x00, 0x00, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A], "a JPEG XL image"),
        Signature([0xFF, 0x0A], "a JPEG XL image"),
        Signature("fLaC", "FLAC audio"),
        Signature("caff", "Core Audio Format audio (CAF)"),
        Signature("#!AMR", "AMR audio"),
        Signature("MThd", "a MIDI file"),
        Signature("RF64", "an RF64 file (WAVE larger than 4 GB)"),
        Signature("FLV\u{1}", "a Flash video (FLV)"),
        Signature([0x30, 0x26, 0xB2, 0x75, 0x8E, 0x66, 0xCF, 0x11], "a Windows Media file (ASF)"),
    ]
}

extension UnsupportedSignatures {
    /// A RIFF or IFF container of another form than WAVE, AVI and AIFF,
    /// named by its form type ("WEBP" is a WebP image).
    private static func containerName(_ file: SniffedFile) -> String? {
        let isRIFF = file.matches("RIFF")
        guard isRIFF || file.matches("FORM") else { return nil }
        let form = file.fourCharacterCode(at: 8)
        switch (isRIFF, form) {
        case (true, "WEBP"): return "a WebP image"
        case (true, "RMID"): return "a MIDI file"
        case (true, let form?): return "a RIFF file of form “\(form)”"
        case (true, nil): return "a RIFF file"
        case (false, let form?): return "an IFF file of form “\(form)”"
        case (false, nil): return "an IFF file"
        }
    }

    /// An Ogg file, named by the codec its first packet announces.
    private static func oggName(_ file: SniffedFile) -> String? {
        guard file.matches("OggS") else { return nil }
        // The first page's header is 27 bytes and a table of as many segment
        // lengths as its last byte says; the first packet follows.
        let packet = 27 + UInt64(file.byte(at: 26) ?? 0)
        let codecs: [(signature: [UInt8], name: String)] = [
            ([0x01] + Array("vorbis".utf8), "Ogg Vorbis audio"),
            (Array("OpusHead".utf8), "Opus audio (Ogg)"),
            ([0x7F] + Array("FLAC".utf8), "FLAC audio (Ogg)"),
            ([0x80] + Array("theora".utf8), "Ogg Theora video"),
        ]
        return codecs.first { file.matches($0.signature, at: packet) }?.name ?? "an Ogg file"
    }

    /// A Matroska or WebM file (an EBML header whose document type is
    /// "matroska" or "webm").
    private static func matroskaName(_ file: SniffedFile) -> String? {
        guard file.matches([0x1A, 0x45, 0xDF, 0xA3]) else { return nil }
        let header = file.head.prefix(64)
        let isWebM = header.indices.contains { header[$0...].starts(with: "webm".utf8) }
        return isWebM ? "a WebM video" : "a Matroska video"
    }

    /// A BMP image: "BM", then (at offset 14) the size of one of the known
    /// bitmap info headers.
    private static func bitmapName(_ file: SniffedFile) -> String? {
        guard file.matches("BM"), let infoSize = file.littleEndian(at: 14, width: 4),
              [12, 40, 52, 56, 64, 108, 124].contains(infoSize) else { return nil }
        return "a BMP image"
    }

    /// An MPEG transport stream: the sync byte 0x47 starting every 188-byte
    /// packet, or every 192-byte packet after a 4-byte time code (M2TS), in
    /// at least two and up to four packets of the head.
    private static func transportStreamName(_ file: SniffedFile) -> String? {
        if hasSyncBytes(file.head, from: 0, every: 188) { return "an MPEG-2 transport stream" }
        if hasSyncBytes(file.head, from: 4, every: 192) { return "an MPEG-2 transport stream (M2TS)" }
        return nil
    }

    /// True when `head` has the sync byte 0x47 at `first` and every `length`
    /// bytes after it, at least twice, looking at up to four places.
    private static func hasSyncBytes(_ head: [UInt8], from first: Int, every length: Int) -> Bool {
        let places = Array(stride(from: first, to: head.count, by: length).prefix(4))
        return places.count >= 2 && places.allSatisfy { head[$0] == 0x47 }
    }
}

/// ISO base media files — MPEG-4 audio and video, and their cousins
/// (QuickTime, 3GPP, HEIF, AVIF) — known by the `ftyp` box that opens them
/// and the brands it lists.
///
/// Brands decide the type: MPEG-4 audio (M4A, M4B, M4P) or MPEG-4 video
/// (ISO, MP4, AVC, M4V, DASH and 3GPP brands: a 3GPP file is an MPEG-4 file
/// iOS plays under the `.mp4` name the store gives it). QuickTime's "qt  "
/// is not among Apple's attachment types, so it is named, not recognised,
/// as are the HEIF image brands. The major brand counts first, then the
/// compatible brands in order; the first brand known decides.
enum ISOMediaSignatures {
    /// What a brand says about the file.
    private enum Meaning {
        /// A supported type.
        case supported(MediaType)
        /// Something else, so named.
        case unsupported(String)
    }

    /// The verdict on an ISO media file: an `ftyp` box at offset 4 whose
    /// brands say a supported type, at least 16 bytes long (size, type, major
    /// brand, minor version) and within the file, followed by another box.
    /// A QuickTime movie from before `ftyp` (a `moov`, `mdat`, `wide`,
    /// `free` or `skip` box first) is named.
    static func verdict(_ file: SniffedFile) -> MediaSniffer.Verdict? {
        guard file.matches("ftyp", at: 4) else {
            let isClassicQuickTime = ["moov", "mdat", "wide", "free", "skip"].contains { file.matches($0, at: 4) }
            return isClassicQuickTime ? .unrecognized(looksLike: "a QuickTime movie") : nil
        }
        let brands = self.brands(file)
        switch brands.lazy.compactMap(meaning(of:)).first {
        case .unsupported(let name): return .unrecognized(looksLike: name)
        case .supported(let type): return boxVerdict(file, type: type)
        case nil:
            guard let major = brands.first else { return .corrupt(.mpeg4, reason: "the ftyp box holds no brand") }
            return .unrecognized(looksLike: "an ISO media file of brand “\(major)”")
        }
    }

    /// The major brand then the compatible brands, as far as the `ftyp` box
    /// (and the head of the file) holds them.
    private static func brands(_ file: SniffedFile) -> [String] {
        guard let major = file.fourCharacterCode(at: 8) else { return [] }
        let boxEnd = min(file.bigEndian(at: 0, width: 4) ?? 0, UInt64(SniffedFile.headLength))
        let compatible = stride(from: UInt64(16), to: boxEnd, by: 4).compactMap { file.fourCharacterCode(at: $0) }
        return [major] + compatible
    }

    /// What `brand` means, if it is a brand Tidings knows.
    private static func meaning(of brand: String) -> Meaning? {
        switch brand {
        case "M4A ", "M4B ", "M4P ": .supported(.mpeg4Audio)
        case "isom", "iso2", "iso3", "iso4", "iso5", "iso6", "mp41", "mp42", "avc1", "M4V ", "M4VH", "M4VP", "dash":
            .supported(.mpeg4)
        case _ where brand.hasPrefix("3gp") || brand.hasPrefix("3g2"): .supported(.mpeg4)
        case "qt  ": .unsupported("a QuickTime movie")
        case "heic", "heix", "heim", "heis", "hevc", "hevx": .unsupported("a HEIC image")
        case "mif1", "msf1", "miaf": .unsupported("a HEIF image")
        case "avif", "avis": .unsupported("an AVIF image")
        case "crx ": .unsupported("a Canon raw photo (CR3)")
        default: nil
        }
    }

    /// The verdict on the `ftyp` box of a file whose brands say `type`: its
    /// size is sane and another box follows it.
    private static func boxVerdict(_ file: SniffedFile, type: MediaType) -> MediaSniffer.Verdict {
        guard let size = file.bigEndian(at: 0, width: 4), size >= 16 else {
            return .corrupt(type, reason: "the ftyp box is too small to hold its brands")
        }
        guard size < file.size else {
            return .corrupt(type, reason: size == file.size ? "nothing follows the ftyp box"
                                                            : "the ftyp box runs past the end of the file")
        }
        guard file.fourCharacterCode(at: size + 4) != nil, let next = file.bigEndian(at: size, width: 4),
              next == 0 || next == 1 || next >= 8 else {
            return .corrupt(type, reason: "the box after the ftyp box is malformed")
        }
        return .recognized(type)
    }
}

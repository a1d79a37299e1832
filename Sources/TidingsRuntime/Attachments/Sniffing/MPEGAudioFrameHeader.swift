/// The four-byte header that starts every frame of MPEG audio (MP1, MP2,
/// MP3): an 11-bit frame sync, the version, the layer, and indexes into the
/// bitrate and sample rate tables. A header with a reserved version or layer,
/// a free-format or bad bitrate, or a reserved sample rate is no header.
struct MPEGAudioFrameHeader {
    /// The MPEG version, which picks the tables.
    enum Version {
        case mpeg1
        case mpeg2
        case mpeg25
    }

    /// The version.
    let version: Version
    /// The layer: 1, 2 or 3 (MP3 is Layer III).
    let layer: Int
    /// The bitrate in kbit/s.
    let bitrate: Int
    /// The sample rate in Hz.
    let sampleRate: Int
    /// True when the frame carries one padding byte (or slot, in Layer I).
    let isPadded: Bool

    /// The header in `bytes` (their first four), if they are one.
    init?(_ bytes: [UInt8]) {
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] & 0xE0 == 0xE0 else { return nil }
        switch (bytes[1] >> 3) & 0b11 {
        case 0b00: version = .mpeg25
        case 0b10: version = .mpeg2
        case 0b11: version = .mpeg1
        default: return nil
        }
        let layerBits = Int((bytes[1] >> 1) & 0b11)
        guard layerBits != 0 else { return nil }
        layer = 4 - layerBits
        let bitrateIndex = Int(bytes[2] >> 4)
        let sampleRateIndex = Int((bytes[2] >> 2) & 0b11)
        guard (1...14).contains(bitrateIndex), sampleRateIndex < 3 else { return nil }
        bitrate = Self.bitrates(version: version, layer: layer)[bitrateIndex - 1]
        sampleRate = [44_100, 48_000, 32_000][sampleRateIndex] / Self.sampleRateDivisor(version)
        isPadded = bytes[2] & 0b10 != 0
    }

    /// The frame's length in bytes, its header included.
    var frameLength: Int {
        let padding = isPadded ? 1 : 0
        switch (layer, version) {
        case (1, _): return (12 * bitrate * 1000 / sampleRate + padding) * 4
        case (3, .mpeg2), (3, .mpeg25): return 72 * bitrate * 1000 / sampleRate + padding
        default: return 144 * bitrate * 1000 / sampleRate + padding
        }
    }

    /// True when `other` could be the next frame of the same stream: same
    /// version, layer and sample rate (the bitrate may vary).
    func isContinued(by other: MPEGAudioFrameHeader) -> Bool {
        other.version == version && other.layer == layer && other.sampleRate == sampleRate
    }

    /// The bitrates (kbit/s) of indexes 1 to 14 for a version and layer.
    private static func bitrates(version: Version, layer: Int) -> [Int] {
        switch (version, layer) {
        case (.mpeg1, 1): [32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448]
        case (.mpeg1, 2): [32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384]
        case (.mpeg1, _): [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320]
        case (_, 1): [32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256]
        default: [8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160]
        }
    }

    /// What divides MPEG-1's sample rates for a version.
    private static func sampleRateDivisor(_ version: Version) -> Int {
        switch version {
        case .mpeg1: 1
        case .mpeg2: 2
        case .mpeg25: 4
        }
    }
}

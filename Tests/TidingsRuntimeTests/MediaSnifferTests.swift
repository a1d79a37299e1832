import RuntimeTestSupport
import Foundation
import Testing
import TestSupport
import TidingsRuntime

/// A committed media file under Tests/Fixtures/Media and the type it is.
struct MediaFixture: Sendable, CustomTestStringConvertible {
    /// The file's name in the fixtures folder.
    let name: String
    /// The type the sniffer must find.
    let type: MediaType

    /// The file's bytes.
    var bytes: [UInt8] {
        get throws {
            let path = Locations.repositoryFile("Tests/Fixtures/Media/" + name)
            return try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        }
    }

    /// The file's name, as the test report shows it.
    var testDescription: String { name }

    /// Every fixture: at least one of each supported type.
    static let all = [
        MediaFixture(name: "image.jpg", type: .jpeg),
        MediaFixture(name: "image.png", type: .png),
        MediaFixture(name: "animated.gif", type: .gif),
        MediaFixture(name: "audio.wav", type: .wave),
        MediaFixture(name: "audio.aiff", type: .aiff),
        MediaFixture(name: "tagged.mp3", type: .mp3),
        MediaFixture(name: "untagged.mp3", type: .mp3),
        MediaFixture(name: "audio.m4a", type: .mpeg4Audio),
        MediaFixture(name: "mpeg1-program-stream.mpg", type: .mpeg),
        MediaFixture(name: "mpeg2-program-stream.mpg", type: .mpeg2Video),
        MediaFixture(name: "mpeg2-video.m2v", type: .mpeg2Video),
        MediaFixture(name: "video.mp4", type: .mpeg4),
        MediaFixture(name: "video.avi", type: .avi),
    ]

    /// The fixture named `name`.
    static func named(_ name: String) throws -> [UInt8] {
        try #require(all.first { $0.name == name }).bytes
    }
}

/// A damaged copy of a fixture and the verdict it must get.
struct DamagedMedia: Sendable, CustomTestStringConvertible {
    /// What the damage is, as the test report shows it.
    let testDescription: String
    /// The fixture damaged.
    let fixture: String
    /// Does the damage.
    let damage: @Sendable ([UInt8]) -> [UInt8]
    /// The verdict on the damaged bytes.
    let verdict: MediaSniffer.Verdict
}

/// Bytes that are no supported media and what the sniffer must say they look like.
struct ForeignContent: Sendable, CustomTestStringConvertible {
    /// What the bytes are, as the test report shows it.
    let testDescription: String
    /// The bytes.
    let bytes: [UInt8]
    /// What the sniffer must say they look like.
    let looksLike: String?
}

/// Counts what a sniff reads.
final class ReadLog: @unchecked Sendable {
    /// How many reads.
    private(set) var calls = 0
    /// How many bytes they asked for in all.
    private(set) var bytesRequested = 0

    /// Notes one read of `count` bytes.
    func note(_ count: Int) {
        calls += 1
        bytesRequested += count
    }
}

/// The content sniffer over real media files made by real tools, damaged
/// copies of them, content that is no supported media, and random bytes.
@Suite struct MediaSnifferTests {
    /// The verdict on `bytes`, read from memory as the store reads a file;
    /// `size` is what the caller claims (by default the true size).
    static func sniff(_ bytes: [UInt8], size: UInt64? = nil, log: ReadLog = ReadLog()) -> MediaSniffer.Verdict {
        MediaSniffer.recognize(size: size ?? UInt64(bytes.count)) { offset, count in
            log.note(count)
            guard offset < UInt64(bytes.count), count > 0 else { return [] }
            let start = Int(offset)
            return Array(bytes[start..<min(start + count, bytes.count)])
        }
    }

    /// `bytes` with `replacement` written over them at `offset`.
    static func overwrite(_ bytes: [UInt8], at offset: Int, with replacement: [UInt8]) -> [UInt8] {
        var result = bytes
        result.replaceSubrange(offset..<offset + replacement.count, with: replacement)
        return result
    }

    /// `bytes` with `text`'s ASCII written over them at `offset`.
    static func overwrite(_ bytes: [UInt8], at offset: Int, with text: String) -> [UInt8] {
        overwrite(bytes, at: offset, with: Array(text.utf8))
    }

    // MARK: Fixtures

    /// Every fixture is recognised as its type.
    @Test(arguments: MediaFixture.all)
    func recognisesEachFixture(_ fixture: MediaFixture) throws {
        #expect(Self.sniff(try fixture.bytes) == .recognized(fixture.type))
    }

    /// The fixtures are small, so that the repository stays light.
    @Test func fixturesStaySmall() throws {
        let sizes = try MediaFixture.all.map { try $0.bytes.count }
        #expect(sizes.allSatisfy { $0 <= 8 * 1024 })
        #expect(sizes.reduce(0, +) < 100 * 1024)
    }

    /// A file's name plays no part: each fixture, saved under the name of
    /// another type and read back through a file handle, gets its own type.
    @Test func ignoresTheFileName() throws {
        let directory = TemporaryDirectory("sniffer")
        let misleadingNames = ["notes.txt", "clip.mp4", "photo.png", "song.mp3", "movie.avi", "picture.jpg"]
        for (index, fixture) in MediaFixture.all.enumerated() {
            let path = directory.file("\(index)-" + misleadingNames[index % misleadingNames.count])
            try Data(try fixture.bytes).write(to: URL(fileURLWithPath: path))
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            defer { try? handle.close() }
            let size = try handle.seekToEnd()
            let verdict = MediaSniffer.recognize(size: size) { offset, count in
                do {
                    try handle.seek(toOffset: offset)
                    return [UInt8](try handle.read(upToCount: count) ?? Data())
                } catch {
                    return []
                }
            }
            #expect(verdict == .recognized(fixture.type), "\(fixture.name) saved as \(path)")
        }
    }

    /// A sniff stays a few small reads: the head, and a few pieces further in.
    @Test(arguments: MediaFixture.all)
    func readsLittle(_ fixture: MediaFixture) throws {
        let log = ReadLog()
        _ = Self.sniff(try fixture.bytes, log: log)
        #expect(log.calls <= 4)
        #expect(log.bytesRequested <= 2048)
    }

    /// An empty file is named as such, and not read.
    @Test func namesAnEmptyFile() {
        let log = ReadLog()
        #expect(Self.sniff([], log: log) == .unrecognized(looksLike: "an empty file"))
        #expect(log.calls == 0)
    }

    // MARK: Damage

    /// Damaged copies of the fixtures: the signature stays, what follows breaks.
    static let damaged: [DamagedMedia] = [
        DamagedMedia(testDescription: "PNG with its IHDR chunk renamed", fixture: "image.png",
                     damage: { overwrite($0, at: 12, with: "IHDX") },
                     verdict: .corrupt(.png, reason: "the PNG header chunk (IHDR) is missing")),
        DamagedMedia(testDescription: "PNG cut inside IHDR", fixture: "image.png", damage: { Array($0.prefix(20)) },
                     verdict: .corrupt(.png, reason: "the file ends inside the PNG header chunk (IHDR)")),
        DamagedMedia(testDescription: "PNG of zero width", fixture: "image.png",
                     damage: { overwrite($0, at: 16, with: [0, 0, 0, 0]) },
                     verdict: .corrupt(.png, reason: "the PNG header gives a zero or out-of-range width or height")),
        DamagedMedia(testDescription: "PNG of colour type 5", fixture: "image.png",
                     damage: { overwrite($0, at: 25, with: [5]) },
                     verdict: .corrupt(.png, reason: "the PNG header gives an invalid colour type, bit depth or method")),
        DamagedMedia(testDescription: "JPEG start-of-image then garbage", fixture: "image.jpg",
                     damage: { [0xFF, 0xD8] + Array("garbage, not a marker".utf8) + $0.dropFirst(2) },
                     verdict: .corrupt(.jpeg, reason: "the JPEG start-of-image marker is not followed by another marker")),
        DamagedMedia(testDescription: "JPEG start-of-image alone", fixture: "image.jpg", damage: { Array($0.prefix(2)) },
                     verdict: .corrupt(.jpeg, reason: "the file ends right after the JPEG start-of-image marker")),
        DamagedMedia(testDescription: "JPEG cut inside its first segment", fixture: "image.jpg",
                     damage: { Array($0.prefix(12)) },
                     verdict: .corrupt(.jpeg, reason: "the first JPEG segment is cut short or has an invalid length")),
        DamagedMedia(testDescription: "GIF cut inside its header", fixture: "animated.gif", damage: { Array($0.prefix(10)) },
                     verdict: .corrupt(.gif, reason: "the file ends inside the GIF header")),
        DamagedMedia(testDescription: "GIF of zero height", fixture: "animated.gif",
                     damage: { overwrite($0, at: 8, with: [0, 0]) },
                     verdict: .corrupt(.gif, reason: "the GIF header gives a zero width or height")),
        DamagedMedia(testDescription: "GIF cut inside its colour table", fixture: "animated.gif",
                     damage: { Array($0.prefix(100)) },
                     verdict: .corrupt(.gif, reason: "the file ends inside the GIF colour table")),
        DamagedMedia(testDescription: "WAVE without its fmt chunk", fixture: "audio.wav",
                     damage: { overwrite($0, at: 12, with: "fmx ") },
                     verdict: .corrupt(.wave, reason: "the WAVE format chunk (fmt ) is missing")),
        DamagedMedia(testDescription: "WAVE of no channels", fixture: "audio.wav",
                     damage: { overwrite($0, at: 22, with: [0, 0]) },
                     verdict: .corrupt(.wave, reason: "the WAVE format chunk (fmt ) gives no channels or no sample rate")),
        DamagedMedia(testDescription: "AIFF without its COMM chunk", fixture: "audio.aiff",
                     damage: { bytes in
                         let common = bytes.indices.first { bytes[$0...].starts(with: "COMM".utf8) } ?? 0
                         return overwrite(bytes, at: common, with: "COMX")
                     },
                     verdict: .corrupt(.aiff, reason: "the AIFF common chunk (COMM) is missing")),
        DamagedMedia(testDescription: "ID3 tag followed by zeros", fixture: "tagged.mp3",
                     damage: { Array($0.prefix(64)) + [UInt8](repeating: 0, count: $0.count - 64) },
                     verdict: .corrupt(.mp3, reason: "no MP3 frame follows the ID3 tag")),
        DamagedMedia(testDescription: "ID3 tag alone", fixture: "tagged.mp3", damage: { Array($0.prefix(64)) },
                     verdict: .corrupt(.mp3, reason: "no audio follows the ID3 tag")),
        DamagedMedia(testDescription: "ID3 tag cut short", fixture: "tagged.mp3", damage: { Array($0.prefix(40)) },
                     verdict: .corrupt(.mp3, reason: "the file ends inside the ID3 tag")),
        DamagedMedia(testDescription: "ID3 tag of a size that is not syncsafe", fixture: "tagged.mp3",
                     damage: { overwrite($0, at: 9, with: [0xB6]) },
                     verdict: .corrupt(.mp3, reason: "the ID3 tag header is malformed")),
        DamagedMedia(testDescription: "MP3 whose second frame is gone", fixture: "untagged.mp3",
                     damage: { overwrite($0, at: 144, with: [0, 0, 0, 0]) },
                     verdict: .corrupt(.mp3, reason: "the second MP3 frame is not where the first one ends")),
        DamagedMedia(testDescription: "MP3 cut inside its first frame", fixture: "untagged.mp3",
                     damage: { Array($0.prefix(50)) },
                     verdict: .corrupt(.mp3, reason: "the file ends inside the first MP3 frame")),
        DamagedMedia(testDescription: "MP4 whose ftyp box is 3 bytes", fixture: "video.mp4",
                     damage: { overwrite($0, at: 0, with: [0, 0, 0, 3]) },
                     verdict: .corrupt(.mpeg4, reason: "the ftyp box is too small to hold its brands")),
        DamagedMedia(testDescription: "M4A whose ftyp box is 3 bytes", fixture: "audio.m4a",
                     damage: { overwrite($0, at: 0, with: [0, 0, 0, 3]) },
                     verdict: .corrupt(.mpeg4Audio, reason: "the ftyp box is too small to hold its brands")),
        DamagedMedia(testDescription: "MP4 whose ftyp box is larger than the file", fixture: "video.mp4",
                     damage: { overwrite($0, at: 0, with: [0, 1, 0, 0]) },
                     verdict: .corrupt(.mpeg4, reason: "the ftyp box runs past the end of the file")),
        DamagedMedia(testDescription: "MP4 of only its ftyp box", fixture: "video.mp4", damage: { Array($0.prefix(32)) },
                     verdict: .corrupt(.mpeg4, reason: "nothing follows the ftyp box")),
        DamagedMedia(testDescription: "AVI without its header list", fixture: "video.avi",
                     damage: { overwrite($0, at: 20, with: "hdrx") },
                     verdict: .corrupt(.avi, reason: "the AVI header list (LIST hdrl) is missing")),
        DamagedMedia(testDescription: "MPEG-1 pack header of no known version", fixture: "mpeg1-program-stream.mpg",
                     damage: { overwrite($0, at: 4, with: [0xF0]) },
                     verdict: .corrupt(.mpeg, reason: "the MPEG pack header is malformed")),
        DamagedMedia(testDescription: "MPEG-2 pack header followed by garbage", fixture: "mpeg2-program-stream.mpg",
                     damage: { overwrite($0, at: 14, with: [0xAB, 0xCD]) },
                     verdict: .corrupt(.mpeg2Video, reason: "the MPEG pack header is not followed by a start code")),
        DamagedMedia(testDescription: "MPEG-2 video of zero width", fixture: "mpeg2-video.m2v",
                     damage: { overwrite($0, at: 4, with: [0x00, 0x00]) },
                     verdict: .corrupt(.mpeg2Video, reason: "the MPEG sequence header gives a zero width or height")),
    ]

    /// Each damaged copy is corrupt, for the reason its damage gives.
    @Test(arguments: damaged)
    func findsDamage(_ damaged: DamagedMedia) throws {
        #expect(Self.sniff(damaged.damage(try MediaFixture.named(damaged.fixture))) == damaged.verdict)
    }

    /// An MPEG video stream without a sequence extension is MPEG-1 video.
    @Test func tellsMPEG1VideoFromMPEG2() throws {
        let video = try MediaFixture.named("mpeg2-video.m2v")
        #expect(Self.sniff(Self.overwrite(video, at: 12, with: [0x00, 0x00, 0x01, 0xB2])) == .recognized(.mpeg))
    }

    // MARK: Brands

    /// An ISO media file's `ftyp` box with the given brands, then a `free` box.
    static func isoMedia(major: String, compatible: [String]) -> [UInt8] {
        let brands = ([major, "\0\0\0\0"] + compatible).flatMap(\.utf8)
        let ftyp = [0, 0, 0, UInt8(8 + brands.count)] + Array("ftyp".utf8) + brands
        return ftyp + [0, 0, 0, 8] + Array("free".utf8)
    }

    /// The brands decide an ISO media file's type: the major brand first, then
    /// the compatible brands in order.
    @Test(arguments: [
        ("M4A ", ["M4A ", "mp42", "isom"], MediaSniffer.Verdict.recognized(.mpeg4Audio)),
        ("M4B ", ["isom"], .recognized(.mpeg4Audio)),
        ("M4P ", ["isom"], .recognized(.mpeg4Audio)),
        ("isom", ["isom", "iso2", "avc1", "mp41"], .recognized(.mpeg4)),
        ("mp42", ["M4A "], .recognized(.mpeg4)),
        ("M4V ", ["M4V ", "mp42"], .recognized(.mpeg4)),
        ("dash", ["iso6"], .recognized(.mpeg4)),
        ("3gp5", ["3gp5", "isom"], .recognized(.mpeg4)),
        ("3g2a", [], .recognized(.mpeg4)),
        ("MSNV", ["MSNV", "mp42"], .recognized(.mpeg4)),
        ("qt  ", ["qt  "], .unrecognized(looksLike: "a QuickTime movie")),
        ("heic", ["mif1", "heic"], .unrecognized(looksLike: "a HEIC image")),
        ("mif1", ["mif1", "heic"], .unrecognized(looksLike: "a HEIF image")),
        ("avif", ["avif", "mif1", "miaf"], .unrecognized(looksLike: "an AVIF image")),
        ("abcd", ["efgh"], .unrecognized(looksLike: "an ISO media file of brand “abcd”")),
    ])
    func decidesByBrand(major: String, compatible: [String], verdict: MediaSniffer.Verdict) {
        #expect(Self.sniff(Self.isoMedia(major: major, compatible: compatible)) == verdict)
    }

    // MARK: Foreign content

    /// Content that is no supported media, with what it looks like.
    static let foreign: [ForeignContent] = [
        ForeignContent(testDescription: "text", bytes: Array("Hello, world.\nSecond line\tand a tab.\n".utf8),
                       looksLike: "plain text"),
        ForeignContent(testDescription: "UTF-8 text", bytes: Array("\u{FEFF}Grüße aus Köln — 日本語".utf8),
                       looksLike: "plain text"),
        ForeignContent(testDescription: "UTF-16 text", bytes: [0xFF, 0xFE] + "Hi there".utf16.flatMap {
                           [UInt8($0 & 0xFF), UInt8($0 >> 8)]
                       }, looksLike: "plain text"),
        ForeignContent(testDescription: "a log line in brackets", bytes: Array("[INFO] started".utf8),
                       looksLike: "plain text"),
        ForeignContent(testDescription: "JSON", bytes: Array(#"  {"aps": {"alert": "Hi", "badge": 1}}"#.utf8),
                       looksLike: "JSON text"),
        ForeignContent(testDescription: "a JSON array", bytes: Array("[1, 2, 3]".utf8), looksLike: "JSON text"),
        ForeignContent(testDescription: "XML", bytes: Array(#"<?xml version="1.0"?><note>Hi</note>"#.utf8),
                       looksLike: "an XML document"),
        ForeignContent(testDescription: "an XML property list",
                       bytes: Array(#"<?xml version="1.0"?><!DOCTYPE plist><plist version="1.0"><dict/></plist>"#.utf8),
                       looksLike: "an XML property list"),
        ForeignContent(testDescription: "SVG", bytes: Array(#"<?xml version="1.0"?><svg xmlns="x"/>"#.utf8),
                       looksLike: "an SVG image"),
        ForeignContent(testDescription: "HTML", bytes: Array("<!DOCTYPE html>\n<html><body>Hi</body></html>".utf8),
                       looksLike: "an HTML document"),
        ForeignContent(testDescription: "an ELF header",
                       bytes: [0x7F, 0x45, 0x4C, 0x46, 0x02, 0x01, 0x01, 0x00] + [UInt8](repeating: 0, count: 56),
                       looksLike: "an ELF executable"),
        ForeignContent(testDescription: "PDF", bytes: Array("%PDF-1.7\n%\u{E2}\u{E3}\n1 0 obj".utf8),
                       looksLike: "a PDF document"),
        ForeignContent(testDescription: "ZIP", bytes: Array("PK\u{3}\u{4}".utf8) + [UInt8](repeating: 0, count: 26),
                       looksLike: "a ZIP archive"),
        ForeignContent(testDescription: "gzip", bytes: [0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0, 3],
                       looksLike: "a gzip archive"),
        ForeignContent(testDescription: "WebP", bytes: Array("RIFF".utf8) + [0x24, 0, 0, 0] + Array("WEBPVP8 ".utf8)
                           + [0x18, 0, 0, 0], looksLike: "a WebP image"),
        ForeignContent(testDescription: "AAC in ADTS frames", bytes: [0xFF, 0xF1, 0x50, 0x80, 0x20, 0x1F, 0xFC]
                           + [UInt8](repeating: 0x21, count: 249), looksLike: "AAC audio (ADTS)"),
        ForeignContent(testDescription: "AAC in ADTS frames after an ID3 tag",
                       bytes: Array("ID3".utf8) + [4, 0, 0, 0, 0, 0, 0] + [0xFF, 0xF1, 0x50, 0x80, 0x20, 0x1F, 0xFC]
                           + [UInt8](repeating: 0x21, count: 249), looksLike: "AAC audio (ADTS)"),
        ForeignContent(testDescription: "MP2 frames", bytes: mpegAudioFrames(header: [0xFF, 0xFD, 0x90, 0x00], length: 522),
                       looksLike: "MPEG Layer II audio (MP2)"),
        ForeignContent(testDescription: "a transport stream", bytes: (0..<4).flatMap { _ in
                           [0x47, 0x40, 0x00, 0x10] + [UInt8](repeating: 0xFF, count: 184)
                       }, looksLike: "an MPEG-2 transport stream"),
        ForeignContent(testDescription: "a QuickTime movie without ftyp",
                       bytes: [0, 0, 0, 8] + Array("wide".utf8) + [0, 0, 0, 8] + Array("mdat".utf8),
                       looksLike: "a QuickTime movie"),
        ForeignContent(testDescription: "Ogg Vorbis",
                       bytes: Array("OggS".utf8) + [0, 2] + [UInt8](repeating: 0, count: 20) + [1, 30]
                           + [1] + Array("vorbis".utf8), looksLike: "Ogg Vorbis audio"),
        ForeignContent(testDescription: "FLAC", bytes: Array("fLaC".utf8) + [0, 0, 0, 34], looksLike: "FLAC audio"),
        ForeignContent(testDescription: "WebM", bytes: [0x1A, 0x45, 0xDF, 0xA3, 0x9F, 0x42, 0x86, 0x81, 0x01, 0x42, 0x82,
                                                         0x84] + Array("webm".utf8), looksLike: "a WebM video"),
        ForeignContent(testDescription: "Matroska", bytes: [0x1A, 0x45, 0xDF, 0xA3, 0x42, 0x82, 0x88]
                           + Array("matroska".utf8), looksLike: "a Matroska video"),
        ForeignContent(testDescription: "BMP", bytes: Array("BM".utf8) + [0x46, 0, 0, 0, 0, 0, 0, 0, 0x36, 0, 0, 0, 40, 0, 0, 0],
                       looksLike: "a BMP image"),
        ForeignContent(testDescription: "TIFF", bytes: Array("II*\u{0}".utf8) + [8, 0, 0, 0], looksLike: "a TIFF image"),
        ForeignContent(testDescription: "a RIFF file of another form", bytes: Array("RIFF\u{4}\u{0}\u{0}\u{0}CDXA".utf8),
                       looksLike: "a RIFF file of form “CDXA”"),
        ForeignContent(testDescription: "zeros", bytes: [UInt8](repeating: 0, count: 100), looksLike: nil),
        ForeignContent(testDescription: "binary", bytes: [0x00, 0x9C, 0xFE, 0x01, 0x80, 0x7F, 0x00, 0x13], looksLike: nil),
    ]

    /// Two MPEG audio frames of `length` bytes, each opening with `header`.
    static func mpegAudioFrames(header: [UInt8], length: Int) -> [UInt8] {
        let frame = header + [UInt8](repeating: 0x55, count: length - header.count)
        return frame + frame
    }

    /// Content that is no supported media is unrecognised, and named.
    @Test(arguments: foreign)
    func namesForeignContent(_ content: ForeignContent) {
        #expect(Self.sniff(content.bytes) == .unrecognized(looksLike: content.looksLike))
    }

    // MARK: Fuzzing

    /// A random number generator that repeats itself from a seed (SplitMix64),
    /// so that a failure can be replayed.
    struct SeededGenerator: RandomNumberGenerator {
        /// The state.
        var state: UInt64

        /// The next 64 random bits.
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// Random bytes of `count`.
    static func randomBytes(_ count: Int, using generator: inout SeededGenerator) -> [UInt8] {
        let words = (0..<(count + 7) / 8).map { _ in generator.next() }
        return Array(words.flatMap { word in (0..<8).map { UInt8(truncatingIfNeeded: word >> ($0 * 8)) } }.prefix(count))
    }

    /// Any bytes get a verdict without a trap, in a few small reads: random
    /// bytes, random bytes after each signature, every fixture cut at every
    /// length and with random bytes changed, and sizes that claim more than
    /// the reader returns.
    @Test func survivesAnyInput() throws {
        var generator = SeededGenerator(state: 2024)
        let signatures: [[UInt8]] = [
            [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], [0xFF, 0xD8], [0xFF, 0xD8, 0xFF], Array("GIF89a".utf8),
            Array("RIFF\u{0}\u{0}\u{0}\u{0}WAVE".utf8), Array("RIFF\u{0}\u{0}\u{0}\u{0}AVI ".utf8),
            Array("FORM\u{0}\u{0}\u{0}\u{0}AIFF".utf8), Array("ID3".utf8), [0xFF, 0xFB], [0xFF, 0xF1],
            [0, 0, 0, 0x20] + Array("ftyp".utf8), [0, 0, 1, 0xBA], [0, 0, 1, 0xB3], Array("OggS".utf8),
            [0x1A, 0x45, 0xDF, 0xA3], [0x47], [0xFF, 0xFE], Array("BM".utf8), Array("RIFF".utf8),
        ]
        var inputs: [(bytes: [UInt8], size: UInt64)] = []
        for _ in 0..<2000 {
            let bytes = Self.randomBytes(Int.random(in: 0...1500, using: &generator), using: &generator)
            inputs.append((bytes, UInt64(bytes.count)))
        }
        for signature in signatures {
            for _ in 0..<200 {
                let bytes = signature + Self.randomBytes(Int.random(in: 0...1200, using: &generator), using: &generator)
                inputs.append((bytes, UInt64(bytes.count)))
                inputs.append((bytes, UInt64(bytes.count) + UInt64.random(in: 1...UInt64.max / 2, using: &generator)))
            }
        }
        for fixture in MediaFixture.all {
            let bytes = try fixture.bytes
            // Every length through the head and a little past it, then every 61st.
            for length in Array(0...min(bytes.count, 1100)) + Array(stride(from: 1101, through: bytes.count, by: 61)) {
                inputs.append((Array(bytes.prefix(length)), UInt64(length)))
            }
            for _ in 0..<300 {
                var mutated = bytes
                for _ in 0..<Int.random(in: 1...4, using: &generator) {
                    mutated[Int.random(in: 0..<min(mutated.count, 80), using: &generator)] = UInt8.random(in: 0...255,
                                                                                                      using: &generator)
                }
                inputs.append((mutated, UInt64(mutated.count)))
            }
            inputs.append((Array(bytes.prefix(300)), UInt64.max))
        }
        for input in inputs {
            let log = ReadLog()
            let verdict = Self.sniff(input.bytes, size: input.size, log: log)
            if case .corrupt(_, let reason) = verdict { #expect(!reason.isEmpty) }
            #expect(log.calls <= 16 && log.bytesRequested <= 4096, "\(input.bytes.prefix(16)) of size \(input.size)")
        }
    }
}

/// The bytes of a record file, a journal or a snapshot: a fixed header, then
/// records each framed with its length and checksum, so that a reader can
/// tell a whole record from a torn or damaged one.
///
/// Header, 20 bytes:
///
///     offset  size  field
///          0     4  magic, "TDJ1" for a journal, "TDS1" for a snapshot
///          4     4  format version, UInt32 little-endian, 1
///          8     8  generation, UInt64 little-endian
///         16     4  CRC-32 of bytes 0..<16, UInt32 little-endian
///
/// Record, 8 bytes and the payload:
///
///          0     4  payload length n, UInt32 little-endian
///          4     4  CRC-32 of bytes 0..<4 (the length) then the payload
///          8     n  payload
///
/// The checksum covers the length as well as the payload, so a damaged length
/// is caught, and a run of zero bytes (what a file system can leave after a
/// power cut) is never a valid empty record: the CRC-32 of four zero bytes is
/// 0x2144DF1C, not 0.
///
/// A journal is the header and any number of records. A snapshot is the
/// header and exactly one record, and ends there.
package enum RecordFraming {
    /// Which kind of file a header begins.
    package enum Kind: Sendable {
        /// An append-only journal, magic "TDJ1".
        case journal
        /// A whole-state snapshot, magic "TDS1".
        case snapshot

        /// The four bytes a file of this kind begins with.
        package var magic: [UInt8] {
            switch self {
            case .journal: Array("TDJ1".utf8)
            case .snapshot: Array("TDS1".utf8)
            }
        }
    }

    /// The format version this code writes and reads.
    package static let formatVersion: UInt32 = 1
    /// The size of a file header in bytes.
    package static let headerSize = 20
    /// The size of a record's length and checksum in bytes.
    package static let frameHeaderSize = 8
    /// The largest payload a record may carry: 1 GiB, so that a record is
    /// always written with one `write` call (Linux moves at most 2 GiB in one).
    package static let maximumPayloadSize = 1 << 30

    /// Why bytes are not a valid header or record.
    package enum Problem: Error, Equatable, Sendable, CustomStringConvertible {
        /// The file is shorter than a header.
        case shortHeader
        /// The file does not begin with the expected magic.
        case wrongMagic
        /// The header's checksum does not match its bytes.
        case headerChecksumMismatch
        /// The header is intact but from a format version this code does not read.
        case unsupportedVersion(UInt32)
        /// Fewer than 8 bytes are left where a record begins.
        case shortFrameHeader(available: Int)
        /// The record says it is longer than what is left of the file.
        case lengthBeyondEnd(length: Int, available: Int)
        /// The record says it is longer than any record can be.
        case lengthTooLarge(Int)
        /// The record's checksum does not match its length and payload.
        case checksumMismatch
        /// A snapshot has no record after its header.
        case missingRecord
        /// A snapshot has bytes after its record.
        case trailingBytes(Int)

        /// True when the bytes look like a write cut short (the end of the file
        /// came too soon) rather than bytes that are there but wrong.
        package var isTorn: Bool {
            switch self {
            case .shortHeader, .shortFrameHeader, .lengthBeyondEnd, .missingRecord: true
            default: false
            }
        }

        /// A phrase for a diagnostic: "the checksum does not match".
        package var description: String {
            switch self {
            case .shortHeader: "the file is shorter than its \(RecordFraming.headerSize)-byte header"
            case .wrongMagic: "the file does not begin with the expected magic"
            case .headerChecksumMismatch: "the header's checksum does not match"
            case .unsupportedVersion(let version): "the format version is \(version), this build reads \(RecordFraming.formatVersion)"
            case .shortFrameHeader(let available): "a record header is cut short (\(available) of 8 bytes)"
            case .lengthBeyondEnd(let length, let available):
                "a record of \(length) bytes has only \(available) bytes left in the file"
            case .lengthTooLarge(let length): "a record claims \(length) bytes, more than any record can hold"
            case .checksumMismatch: "a record's checksum does not match"
            case .missingRecord: "the snapshot has no record after its header"
            case .trailingBytes(let count): "the snapshot has \(count) unexpected bytes after its record"
            }
        }
    }

    /// The header of a file of `kind` whose generation is `generation`.
    package static func header(_ kind: Kind, generation: UInt64) -> [UInt8] {
        var bytes = kind.magic
        bytes.reserveCapacity(headerSize)
        appendLittleEndian(formatVersion, to: &bytes)
        appendLittleEndian(generation, to: &bytes)
        appendLittleEndian(CRC32.checksum(bytes), to: &bytes)
        return bytes
    }

    /// The generation in the header at the start of `bytes`, or why there is
    /// no valid header of `kind` there. The magic and the checksum are checked
    /// before the version, so a damaged version reads as damage, not as a
    /// newer format.
    package static func generation(inHeaderOf bytes: [UInt8], _ kind: Kind) -> Result<UInt64, Problem> {
        guard bytes.count >= headerSize else { return .failure(.shortHeader) }
        guard bytes[0..<4].elementsEqual(kind.magic) else { return .failure(.wrongMagic) }
        guard CRC32.checksum(bytes[0..<16]) == littleEndianUInt32(bytes, at: 16) else {
            return .failure(.headerChecksumMismatch)
        }
        let version = littleEndianUInt32(bytes, at: 4)
        guard version == formatVersion else { return .failure(.unsupportedVersion(version)) }
        return .success(UInt64(littleEndianUInt32(bytes, at: 8)) | UInt64(littleEndianUInt32(bytes, at: 12)) << 32)
    }

    /// `payload` framed as one record, in one buffer so that it can be
    /// written with one `write` call. `payload` must be at most
    /// `maximumPayloadSize` bytes.
    package static func frame(_ payload: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(frameHeaderSize + payload.count)
        appendFrame(payload, to: &bytes)
        return bytes
    }

    /// Appends `payload` framed as one record to `bytes`.
    package static func appendFrame(_ payload: [UInt8], to bytes: inout [UInt8]) {
        precondition(payload.count <= maximumPayloadSize, "a record payload is larger than \(maximumPayloadSize) bytes")
        let length = UInt32(payload.count)
        var checksum = CRC32()
        withUnsafeBytes(of: length.littleEndian) { checksum.update($0) }
        checksum.update(payload)
        appendLittleEndian(length, to: &bytes)
        appendLittleEndian(checksum.value, to: &bytes)
        bytes.append(contentsOf: payload)
    }

    /// What `scan` found in a journal.
    package struct Scan: Sendable, Equatable {
        /// The payloads of the whole records, in order.
        package var payloads: [[UInt8]]
        /// The offset just after the last whole record: where the journal
        /// must be cut when `problem` is set.
        package var end: Int
        /// Why the bytes from `end` on are not a record; nil when every byte
        /// up to the end of the file belongs to a whole record.
        package var problem: Problem?
    }

    /// The records in `bytes` from offset `start`, up to the end or to the
    /// first record that is torn or damaged. Nothing after a bad record is
    /// read: once one length or checksum is wrong, where the next record
    /// begins is a guess, and a guess could turn payload bytes into records.
    package static func scan(_ bytes: [UInt8], from start: Int) -> Scan {
        var payloads: [[UInt8]] = []
        var offset = start
        while offset < bytes.count {
            switch record(in: bytes, at: offset) {
            case .success(let range):
                payloads.append(Array(bytes[range]))
                offset = range.upperBound
            case .failure(let problem):
                return Scan(payloads: payloads, end: offset, problem: problem)
            }
        }
        return Scan(payloads: payloads, end: offset, problem: nil)
    }

    /// `generation` and `payload` as the bytes of a snapshot file.
    package static func snapshot(generation: UInt64, payload: [UInt8]) -> [UInt8] {
        var bytes = header(.snapshot, generation: generation)
        bytes.reserveCapacity(headerSize + frameHeaderSize + payload.count)
        appendFrame(payload, to: &bytes)
        return bytes
    }

    /// The generation and payload of the snapshot file `bytes`, or why they
    /// are not a whole, intact snapshot.
    package static func decodeSnapshot(_ bytes: [UInt8]) -> Result<(generation: UInt64, payload: [UInt8]), Problem> {
        let generation: UInt64
        switch self.generation(inHeaderOf: bytes, .snapshot) {
        case .success(let value): generation = value
        case .failure(let problem): return .failure(problem)
        }
        guard bytes.count > headerSize else { return .failure(.missingRecord) }
        switch record(in: bytes, at: headerSize) {
        case .failure(let problem):
            return .failure(problem)
        case .success(let range):
            guard range.upperBound == bytes.count else { return .failure(.trailingBytes(bytes.count - range.upperBound)) }
            return .success((generation, Array(bytes[range])))
        }
    }

    /// The range of the payload of the record at `offset`, once its length
    /// and checksum are checked.
    private static func record(in bytes: [UInt8], at offset: Int) -> Result<Range<Int>, Problem> {
        let available = bytes.count - offset
        guard available >= frameHeaderSize else { return .failure(.shortFrameHeader(available: available)) }
        let length = Int(littleEndianUInt32(bytes, at: offset))
        guard length <= maximumPayloadSize else { return .failure(.lengthTooLarge(length)) }
        let payload = offset + frameHeaderSize..<offset + frameHeaderSize + length
        guard payload.upperBound <= bytes.count else {
            return .failure(.lengthBeyondEnd(length: length, available: available - frameHeaderSize))
        }
        var checksum = CRC32()
        checksum.update(bytes[offset..<offset + 4])
        checksum.update(bytes[payload])
        guard checksum.value == littleEndianUInt32(bytes, at: offset + 4) else { return .failure(.checksumMismatch) }
        return .success(payload)
    }

    /// Appends the bytes of `value`, least significant first.
    private static func appendLittleEndian(_ value: some FixedWidthInteger, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// The UInt32 stored least significant byte first at `offset`.
    private static func littleEndianUInt32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        (0..<4).reduce(0) { value, index in value | UInt32(bytes[offset + index]) << (8 * index) }
    }
}

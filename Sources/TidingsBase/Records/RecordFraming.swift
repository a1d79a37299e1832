/// The bytes of a record file, a journal or a snapshot: a fixed header, then
/// records each framed with its length and checksum, so that a reader can
/// tell a whole record from a torn or damaged one, and find the next whole
/// record past a damaged one.
///
/// Header, 20 bytes:
///
///     offset  size  field
///          0     4  magic, "TDJ1" for a journal, "TDS1" for a snapshot
///          4     4  format version, UInt32 little-endian: 1 for a journal, 2 for a snapshot
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
/// A journal is the header and any number of records. A snapshot of version
/// 2 is the header, a record holding the number of records that follow
/// (UInt64 little-endian), then those records; one of version 1, which this
/// code still reads, is the header and exactly one record.
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

        /// The format version this code writes for this kind.
        package var formatVersion: UInt32 {
            switch self {
            case .journal: 1
            case .snapshot: 2
            }
        }

        /// The format versions this code reads for this kind.
        package var readableVersions: ClosedRange<UInt32> {
            switch self {
            case .journal: 1...1
            case .snapshot: 1...2
            }
        }
    }

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

        /// True when the bytes look like a write cut short (the end of the file
        /// came too soon) rather than bytes that are there but wrong.
        package var isTorn: Bool {
            switch self {
            case .shortHeader, .shortFrameHeader, .lengthBeyondEnd: true
            default: false
            }
        }

        /// A phrase for a diagnostic: "the checksum does not match".
        package var description: String {
            switch self {
            case .shortHeader: "the file is shorter than its \(RecordFraming.headerSize)-byte header"
            case .wrongMagic: "the file does not begin with the expected magic"
            case .headerChecksumMismatch: "the header's checksum does not match"
            case .unsupportedVersion(let version): "the format version is \(version), which this build does not read"
            case .shortFrameHeader(let available): "a record header is cut short (\(available) of 8 bytes)"
            case .lengthBeyondEnd(let length, let available):
                "a record of \(length) bytes has only \(available) bytes left in the file"
            case .lengthTooLarge(let length): "a record claims \(length) bytes, more than any record can hold"
            case .checksumMismatch: "a record's checksum does not match"
            }
        }
    }

    /// What a valid header says.
    package struct Header: Equatable, Sendable {
        /// The format version.
        package var version: UInt32
        /// The generation.
        package var generation: UInt64
    }

    /// The header of a file of `kind` whose generation is `generation`, in
    /// the format version this code writes.
    package static func header(_ kind: Kind, generation: UInt64) -> [UInt8] {
        var bytes = kind.magic
        bytes.reserveCapacity(headerSize)
        appendLittleEndian(kind.formatVersion, to: &bytes)
        appendLittleEndian(generation, to: &bytes)
        appendLittleEndian(CRC32.checksum(bytes), to: &bytes)
        return bytes
    }

    /// The header at the start of `bytes`, or why there is no valid header of
    /// `kind` there. The magic and the checksum are checked before the
    /// version, so a damaged version reads as damage, not as a newer format.
    package static func readHeader(_ bytes: [UInt8], _ kind: Kind) -> Result<Header, Problem> {
        guard bytes.count >= headerSize else { return .failure(.shortHeader) }
        guard bytes[0..<4].elementsEqual(kind.magic) else { return .failure(.wrongMagic) }
        guard CRC32.checksum(bytes[0..<16]) == littleEndianUInt32(bytes, at: 16) else {
            return .failure(.headerChecksumMismatch)
        }
        let version = littleEndianUInt32(bytes, at: 4)
        guard kind.readableVersions.contains(version) else { return .failure(.unsupportedVersion(version)) }
        let generation = UInt64(littleEndianUInt32(bytes, at: 8)) | UInt64(littleEndianUInt32(bytes, at: 12)) << 32
        return .success(Header(version: version, generation: generation))
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
        /// Bytes that hold no whole record, and why.
        package struct Damage: Sendable, Equatable {
            /// Where they are in the file.
            package var bytes: Range<Int>
            /// What is wrong with the record that should begin there.
            package var problem: Problem
        }

        /// The payloads of the whole records, in order.
        package var payloads: [[UInt8]]
        /// Damaged bytes skipped because a whole record follows them.
        package var skipped: [Damage]
        /// The offset just after the last whole record: where the file must
        /// be cut when `problem` is set.
        package var end: Int
        /// Why the bytes from `end` on are not a record, when no whole record
        /// follows them (a torn or damaged end); nil when every byte up to the
        /// end of the file belongs to a whole record or to `skipped`.
        package var problem: Problem?
    }

    /// The records in `bytes` from offset `start` to the end.
    ///
    /// Past a torn or damaged record, the scan looks for the next offset at
    /// which a whole record begins, its length in bounds and its checksum
    /// matching, and goes on from there; the bytes between are `skipped`.
    /// When no whole record follows, the rest is the `problem` at `end`. A
    /// chance match in damaged bytes would need their 32-bit checksum to
    /// match; the search does a bounded amount of checksum work, so that
    /// planted bytes cannot make a load take quadratic time.
    package static func scan(_ bytes: [UInt8], from start: Int) -> Scan {
        var result = Scan(payloads: [], skipped: [], end: start, problem: nil)
        var offset = start
        var searchBudget = 16 * bytes.count + (1 << 20)
        while offset < bytes.count {
            switch record(in: bytes, at: offset) {
            case .success(let range):
                result.payloads.append(Array(bytes[range]))
                offset = range.upperBound
                result.end = offset
            case .failure(let problem):
                guard let next = nextRecord(in: bytes, after: offset, budget: &searchBudget) else {
                    result.problem = problem
                    return result
                }
                result.skipped.append(Scan.Damage(bytes: offset..<next, problem: problem))
                offset = next
            }
        }
        return result
    }

    /// What a snapshot file holds, as far as it could be read.
    package struct SnapshotReading: Sendable, Equatable {
        /// The generation in the header; nil when the header is damaged.
        package var generation: UInt64?
        /// Why the header is not valid; nil when it is. The records after a
        /// damaged header are read all the same.
        package var headerProblem: Problem?
        /// The payloads of the whole records, in order.
        package var records: [[UInt8]]
        /// How many records the snapshot says it holds; nil when that is unknown.
        package var expectedCount: Int?
        /// Damaged bytes skipped, and a torn or damaged end.
        package var damaged: [Scan.Damage]

        /// True when the header, every record and the count are intact.
        package var isWhole: Bool {
            headerProblem == nil && damaged.isEmpty && expectedCount == records.count
        }
    }

    /// The bytes of a snapshot file of `generation` holding `records`, to be
    /// written in one piece; `RecordStore` writes large ones in chunks with
    /// `snapshotPrefix` and `appendFrame`.
    package static func snapshot(generation: UInt64, records: [[UInt8]]) -> [UInt8] {
        var bytes = snapshotPrefix(generation: generation, count: records.count)
        for record in records { appendFrame(record, to: &bytes) }
        return bytes
    }

    /// The header of a snapshot of `generation` and the record saying it holds `count` records.
    package static func snapshotPrefix(generation: UInt64, count: Int) -> [UInt8] {
        var bytes = header(.snapshot, generation: generation)
        var counted: [UInt8] = []
        appendLittleEndian(UInt64(count), to: &counted)
        appendFrame(counted, to: &bytes)
        return bytes
    }

    /// What the snapshot file `bytes` holds: every whole record, even past
    /// a damaged header or a damaged record, and what was wrong. Fails only
    /// for an intact header of a format version this code does not read.
    package static func readSnapshot(_ bytes: [UInt8]) -> Result<SnapshotReading, Problem> {
        var reading = SnapshotReading(generation: nil, headerProblem: nil, records: [], expectedCount: nil, damaged: [])
        var version = Kind.snapshot.formatVersion
        switch readHeader(bytes, .snapshot) {
        case .success(let header):
            reading.generation = header.generation
            version = header.version
        case .failure(.unsupportedVersion(let found)):
            return .failure(.unsupportedVersion(found))
        case .failure(let problem):
            reading.headerProblem = problem
            guard bytes.count > headerSize else { return .success(reading) }
        }
        var start = headerSize
        if version == 1 {
            reading.expectedCount = 1
        } else if case .success(let range) = record(in: bytes, at: headerSize), range.count == 8 {
            // The count, where version 2 puts it; a damaged header is read as version 2.
            reading.expectedCount = Int(clamping: UInt64(littleEndianUInt32(bytes, at: range.lowerBound))
                                        | UInt64(littleEndianUInt32(bytes, at: range.lowerBound + 4)) << 32)
            start = range.upperBound
        }
        let scan = scan(bytes, from: start)
        reading.records = scan.payloads
        reading.damaged = scan.skipped
        if let problem = scan.problem {
            reading.damaged.append(Scan.Damage(bytes: scan.end..<bytes.count, problem: problem))
        }
        return .success(reading)
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

    /// The first offset after `offset` at which a whole record begins, or nil
    /// when there is none, or when finding it would take more than `budget`
    /// bytes of checksum work (which it then spends).
    private static func nextRecord(in bytes: [UInt8], after offset: Int, budget: inout Int) -> Int? {
        var candidate = offset + 1
        while candidate + frameHeaderSize <= bytes.count {
            let length = Int(littleEndianUInt32(bytes, at: candidate))
            // Most offsets fail on the length alone; only plausible ones cost a checksum.
            if length <= bytes.count - candidate - frameHeaderSize {
                budget -= 4 + length
                guard budget >= 0 else { return nil }
                if case .success = record(in: bytes, at: candidate) { return candidate }
            }
            candidate += 1
        }
        return nil
    }

    /// Appends the bytes of `value`, least significant first.
    private static func appendLittleEndian(_ value: some FixedWidthInteger, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// The UInt32 stored least significant byte first at `offset`.
    private static func littleEndianUInt32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16
            | UInt32(bytes[offset + 3]) << 24
    }
}

import Glibc
import TidingsBase

/// The record framing of journal segments and snapshots, and `RecordStore.load`
/// of a store whose only segment holds the input: every record read is a
/// whole, intact one, in the order written, and the bytes between records
/// are accounted for as skipped or as the damaged end; a snapshot read whole
/// is the bytes it was read from; a store loads whatever its segment holds
/// (or refuses a newer format), keeps the records the scan finds, and after
/// its repair a second load finds the same records and no damage.
enum JournalChecks {
    static func check(_ bytes: [UInt8]) {
        checkSnapshot(bytes)
        let scan = checkScan(bytes)
        checkLoad(bytes, scan: scan)
    }

    /// Checks the snapshot reading of `bytes`.
    private static func checkSnapshot(_ bytes: [UInt8]) {
        guard case .success(let reading) = RecordFraming.readSnapshot(bytes), reading.isWhole,
              case .success(let header) = RecordFraming.readHeader(bytes, .snapshot),
              header.version == RecordFraming.Kind.snapshot.formatVersion else { return }
        precondition(RecordFraming.snapshot(generation: header.generation, records: reading.records) == bytes,
                     "a whole snapshot read is not the bytes it was read from")
    }

    /// Checks the header and the records after it; returns the scan.
    private static func checkScan(_ bytes: [UInt8]) -> RecordFraming.Scan {
        if case .success(let header) = RecordFraming.readHeader(bytes, .journal) {
            precondition(RecordFraming.header(.journal, generation: header.generation)[...] == bytes.prefix(RecordFraming.headerSize),
                         "a journal header read is not the bytes it was read from")
        }
        let start = min(bytes.count, RecordFraming.headerSize)
        let scan = RecordFraming.scan(bytes, from: start)
        precondition(start <= scan.end && scan.end <= bytes.count, "a scan ends outside the bytes")
        precondition((scan.problem == nil) == (scan.end == bytes.count), "a scan stops early without a problem")
        // Walked from the start, the records and the skipped bytes cover everything up to the end, in order.
        var offset = start
        var payloads = scan.payloads[...]
        var skipped = scan.skipped[...]
        while offset < scan.end {
            if let damage = skipped.first, damage.bytes.lowerBound == offset {
                precondition(!damage.bytes.isEmpty && damage.bytes.upperBound <= scan.end, "a skipped range is empty or past the end")
                offset = damage.bytes.upperBound
                skipped.removeFirst()
            } else {
                guard let payload = payloads.popFirst() else { preconditionFailure("bytes before the end are neither a record nor skipped") }
                let frame = RecordFraming.frame(payload)
                precondition(offset + frame.count <= scan.end && bytes[offset..<offset + frame.count].elementsEqual(frame),
                             "a record read is not the bytes it was read from")
                offset += frame.count
            }
        }
        precondition(offset == scan.end && payloads.isEmpty && skipped.isEmpty, "the records and skipped bytes do not end at the scan's end")
        return scan
    }

    /// The directory the stores are loaded from: in memory when the machine has /dev/shm.
    private static let directory: String = {
        let base = FileSystem.isDirectory("/dev/shm") ? "/dev/shm" : "/tmp"
        var template = Array("\(base)/tidings-fuzz-XXXXXX".utf8CString)
        guard mkdtemp(&template) != nil else { fatalError("cannot make a directory in \(base)") }
        atexit { try? FileSystem.removeTree(JournalChecks.directory) }
        return String(cString: template)
    }()

    /// Loads, twice, a store whose only segment (generation 0) is `bytes`, and checks what it kept.
    private static func checkLoad(_ bytes: [UInt8], scan: RecordFraming.Scan) {
        let folder = Path.join(directory, "store")
        try? FileSystem.removeTree(folder)
        guard mkdir(folder, 0o700) == 0 else { fatalError("cannot make \(folder)") }
        let store = RecordStore(directory: folder, name: "fuzz")
        do {
            let descriptor = try FileDescriptor(opening: store.journalPath(generation: 0), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
                                                mode: 0o600)
            try descriptor.write(bytes)
        } catch {
            fatalError("cannot write \(store.journalPath(generation: 0)): \(error)")
        }
        let header = RecordFraming.readHeader(bytes, .journal)
        let first: RecordStore.Loaded
        do {
            first = try store.load()
        } catch {
            guard case .failure(.unsupportedVersion) = header else { preconditionFailure("a segment did not load: \(error.message)") }
            return
        }
        let kept = (first.snapshot ?? []) + first.entries
        if case .success(let read) = header, read.generation == 0 {
            precondition(kept == scan.payloads, "a store kept other records than its segment holds")
        }
        let second: RecordStore.Loaded
        do {
            second = try store.load()
        } catch {
            preconditionFailure("a store did not load again after its repair: \(error.message)")
        }
        precondition((second.snapshot ?? []) + second.entries == kept, "a store loaded again keeps other records")
        precondition(second.losses.isEmpty, "a store loaded again finds damage its repair left")
    }
}

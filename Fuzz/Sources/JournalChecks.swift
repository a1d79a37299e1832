import Glibc
import TidingsBase

/// The record framing of journals and snapshots, and `RecordStore.load` of a
/// journal holding the input: every record read is a whole, intact one, in
/// the order written; whatever follows the last one is reported; a store
/// loads whatever its journal holds (or refuses a newer format) and keeps
/// exactly the records it read.
enum JournalChecks {
    static func check(_ bytes: [UInt8]) {
        let scan = checkFraming(bytes)
        checkLoad(bytes, scan: scan)
    }

    /// Checks the header, the records after it and the snapshot reading of
    /// `bytes`; returns the records found after a valid journal header.
    private static func checkFraming(_ bytes: [UInt8]) -> RecordFraming.Scan? {
        if case .success(let snapshot) = RecordFraming.decodeSnapshot(bytes) {
            precondition(RecordFraming.snapshot(generation: snapshot.generation, payload: snapshot.payload) == bytes,
                         "a snapshot read is not the bytes it was read from")
        }
        let header = RecordFraming.generation(inHeaderOf: bytes, .journal)
        if case .success(let generation) = header {
            precondition(RecordFraming.header(.journal, generation: generation)[...] == bytes.prefix(RecordFraming.headerSize),
                         "a journal header read is not the bytes it was read from")
        }
        let start = min(bytes.count, RecordFraming.headerSize)
        let scan = RecordFraming.scan(bytes, from: start)
        precondition(start <= scan.end && scan.end <= bytes.count, "a scan ends outside the bytes")
        precondition((scan.problem == nil) == (scan.end == bytes.count), "a scan stops early without a problem")
        var framed: [UInt8] = []
        for payload in scan.payloads { RecordFraming.appendFrame(payload, to: &framed) }
        precondition(framed[...] == bytes[start..<scan.end], "the records read are not the bytes they were read from")
        return if case .success = header { scan } else { nil }
    }

    /// The directory the journals are loaded from: in memory when the machine has /dev/shm.
    private static let directory: String = {
        let base = FileSystem.isDirectory("/dev/shm") ? "/dev/shm" : "/tmp"
        var template = Array("\(base)/tidings-fuzz-XXXXXX".utf8CString)
        guard mkdtemp(&template) != nil else { fatalError("cannot make a directory in \(base)") }
        atexit { try? FileSystem.removeTree(JournalChecks.directory) }
        return String(cString: template)
    }()

    /// Loads a store whose journal is `bytes` and checks what it kept.
    private static func checkLoad(_ bytes: [UInt8], scan: RecordFraming.Scan?) {
        let store = RecordStore(directory: directory, name: "fuzz")
        unlink(store.journalPath + ".corrupt")
        do {
            let descriptor = try FileDescriptor(opening: store.journalPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode: 0o600)
            try descriptor.write(bytes)
        } catch {
            fatalError("cannot write \(store.journalPath): \(error)")
        }
        let loaded: RecordStore.Loaded
        do {
            loaded = try store.load()
        } catch {
            guard case .failure(.unsupportedVersion) = RecordFraming.generation(inHeaderOf: bytes, .journal) else {
                preconditionFailure("a journal did not load: \(error.message)")
            }
            return
        }
        precondition(loaded.snapshot == nil, "a snapshot was loaded where there is none")
        precondition(loaded.entries == scan?.payloads ?? [], "a store loaded other records than its journal holds")
        let kept = RecordFraming.headerSize + loaded.entries.reduce(0) { $0 + RecordFraming.frameHeaderSize + $1.count }
        precondition(store.journalSize == kept, "a store kept other bytes than the records it loaded")
    }
}

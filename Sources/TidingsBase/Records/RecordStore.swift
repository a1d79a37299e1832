import Glibc
import Synchronization

/// A crash-safe store of records on disk: a snapshot of a whole state and
/// journal segments of the records appended since, for state that must
/// outlive the process, `kill -9` included.
///
/// The store named `NAME` in `directory` is these files (format in
/// `RecordFraming`):
///
/// - `NAME.snapshot`: the state as of a fold, replaced atomically (written
///   beside, flushed, renamed over, directory flushed).
/// - `NAME.snapshot.previous`: the snapshot before that one, the fallback
///   when `NAME.snapshot` cannot be read at all.
/// - `NAME.journal.G`: the journal segment of generation G. Records are
///   appended to the newest segment, each with one `write` call.
///   (`NAME.journal`, without a generation, is a segment an older version
///   wrote; it is read like the others and folded away.)
/// - `*.corrupt`: what recovery set aside (a damaged file, or the bytes cut
///   off a segment's end), kept for inspection and never read back.
/// - `*.tmp`: a replacement being written; overwritten by the next one.
///
/// Durability. A record `append` returned for is in the kernel's page cache,
/// so it survives the process being killed (`kill -9`, a crash), though not
/// the machine losing power; `synchronize()` flushes the newest segment
/// (and, the first time, its name in the directory) to disk, and
/// `writeSnapshot` flushes the snapshot. A write a crash cuts short leaves a
/// torn last record, which `load()` detects by its length or checksum and
/// cuts off.
///
/// Folding without stopping appends. `startSegment()` seals the newest
/// segment and starts the next generation's, at once: the segment
/// `prepareSegment()` made ahead of time (else a file created and a header
/// written). The caller then builds the state as of the end of the
/// sealed segments — on another thread, while records go on being appended
/// to the new segment — and hands it to `writeSnapshot(generation:records:)`,
/// which writes the snapshot of that generation and removes the segments it
/// holds. The snapshot of generation G holds everything in the segments
/// older than G; `load()` replays the segments of generation G and newer
/// after it, so a crash at any step loses nothing: before the rename the old
/// snapshot and every segment are there, after it the segments the new
/// snapshot holds are stale and dropped.
///
/// Damage. A damaged record is skipped and reading goes on at the next whole
/// record; a segment or snapshot whose header is damaged is read all the
/// same. What was lost is reported (`Loaded.losses`), and when anything was
/// skipped `load()` writes what it kept to a new snapshot so that the damage
/// is reported once.
///
/// Threads may share a store: `append`, `synchronize` and `startSegment` are
/// serialized by one lock, `writeSnapshot` by another, so that appends go on
/// while a snapshot is written. One store object must own the files: two
/// stores on the same directory and name, in one process or two, are not
/// coordinated.
package final class RecordStore: Sendable {
    /// What `load()` read: the snapshot, the records appended after it, and
    /// what was repaired and lost on the way.
    package struct Loaded: Sendable, Equatable {
        /// The records of the snapshot loaded, nil when there is none.
        package var snapshot: [[UInt8]]?
        /// The payloads appended after that snapshot, in the order they were appended.
        package var entries: [[UInt8]]
        /// Each repair or fallback `load()` made, empty when the files were
        /// whole: torn or damaged records cut off or skipped, a damaged
        /// snapshot set aside, a stale segment dropped.
        package var recovered: [Diagnostic]
        /// What damage took: the bytes that held no whole record, file by file.
        package var losses: [Loss]

        /// A result with these parts.
        package init(snapshot: [[UInt8]]?, entries: [[UInt8]], recovered: [Diagnostic], losses: [Loss] = []) {
            self.snapshot = snapshot
            self.entries = entries
            self.recovered = recovered
            self.losses = losses
        }
    }

    /// Damage found in one file: where, and how many records it took.
    package struct Loss: Sendable, Equatable {
        /// The file, as it was named when it was read.
        package var file: String
        /// The byte ranges that held no whole record.
        package var ranges: [Range<Int>]
        /// How many records were lost, when the file says how many it held (a
        /// snapshot); nil when that is unknown (a journal: at least one per range).
        package var records: Int?
        /// What was wrong, in words.
        package var problem: String

        /// The loss as JSON: `{"file", "ranges": [[start, end]], "recordsLost", "problem"}`.
        package var json: JSON {
            .object([
                ("file", .string(file)),
                ("ranges", .array(ranges.map { .array([.integer(Int64($0.lowerBound)), .integer(Int64($0.upperBound))]) })),
                ("recordsLost", records.map { .integer(Int64($0)) } ?? .null),
                ("problem", .string(problem)),
            ])
        }
    }

    /// The directory holding the files, created by `load()` when missing.
    package let directory: String
    /// The name the files begin with.
    package let name: String
    /// `directory/NAME.snapshot`.
    package let snapshotPath: String
    /// `directory/NAME.snapshot.previous`.
    package let previousSnapshotPath: String

    /// The segments, nil until `load()` succeeds.
    private let segments = Mutex<Segments?>(nil)
    /// Whether `NAME.snapshot` holds a valid snapshot (to keep as the
    /// previous one); held while a snapshot is written.
    private let snapshots = Mutex<Bool>(false)

    /// A store for the files named `name` in `directory`. Nothing is touched
    /// until `load()`. `name` is a file name: not empty, without a slash.
    package init(directory: String, name: String) {
        precondition(!name.isEmpty && !name.contains("/"), "a record store's name is a file name")
        self.directory = directory
        self.name = name
        snapshotPath = Path.join(directory, "\(name).snapshot")
        previousSnapshotPath = snapshotPath + ".previous"
    }

    /// `directory/NAME.journal.G`, the segment of generation `generation`.
    package func journalPath(generation: UInt64) -> String {
        Path.join(directory, "\(name).journal.\(generation)")
    }

    /// The path of the segment records are appended to; that of generation 0 before `load()`.
    package var journalPath: String {
        segments.withLock { $0?.live.path } ?? journalPath(generation: 0)
    }

    /// The size in bytes of the segment records are appended to, header
    /// included: what the next fold would take in. 0 before `load()`.
    package var journalSize: Int {
        segments.withLock { $0?.live.size ?? 0 }
    }

    // MARK: Loading

    /// Reads the store, repairing what a crash or damage left, and opens the
    /// newest segment for `append`. Creates the directory (mode 0700) and a
    /// segment (mode 0600) when missing. Calling it again reads the files afresh.
    ///
    /// Recovery, each step reported in `Loaded.recovered`, each loss in `Loaded.losses`:
    /// - a damaged record, in a segment or the snapshot, is skipped: reading
    ///   goes on at the next whole record. A header that is damaged does not
    ///   stop the records after it being read (a segment's generation then
    ///   comes from its name; the snapshot's is taken as older than every segment).
    /// - a snapshot of which nothing can be read is moved to
    ///   `NAME.snapshot.corrupt` and `NAME.snapshot.previous` is loaded in its
    ///   place; when that cannot be read either, the store loads with no snapshot.
    /// - a segment older than the snapshot is dropped: its records are in the
    ///   snapshot already.
    /// - a segment ending in a torn or damaged record is cut just before it;
    ///   the bytes cut off go to `SEGMENT.corrupt`.
    /// - when records were skipped or a header was damaged, everything kept
    ///   is written to a new snapshot and the damaged files are renamed
    ///   `*.corrupt`, so that the next load finds whole files.
    ///
    /// The directory and every file are opened as what they must be (see
    /// `FileDescriptor(openingPrivateDirectory:)` and
    /// `FileDescriptor(openingOwn:as:)`): a link, a FIFO, a directory in a
    /// file's place, or another user's file is an error, never followed or
    /// waited on.
    ///
    /// Throws when a file is from a newer format version (nothing is changed
    /// then), is not what it must be, or cannot be read or repaired.
    package func load() throws(Diagnostic) -> Loaded {
        try snapshots.withLock { (hasSnapshot: inout Bool) throws(Diagnostic) -> Loaded in
            try segments.withLock { (segments: inout Segments?) throws(Diagnostic) -> Loaded in
                segments = nil
                _ = try FileDescriptor(openingPrivateDirectory: directory)
                var report = Report()
                let base = try loadSnapshot(&report)
                var files = try readSegments(after: base, &report)
                let needsRewrite = base.isDamaged || files.contains { $0.isDamaged }
                var entries: [[UInt8]] = []
                for index in files.indices {
                    entries += files[index].scan.payloads
                    // A file about to be set aside whole keeps its end.
                    try repairEnd(of: &files[index], cutting: !needsRewrite, &report)
                }
                hasSnapshot = base.isCurrent
                let newest = files.map(\.generation).max() ?? base.generation ?? 0
                let generation = max(newest, base.generation ?? 0) + 1
                if needsRewrite && rewrite(generation: generation, (base.records ?? []) + entries,
                                           damagedSnapshot: base.damagedPath, files, &report) {
                    hasSnapshot = true
                    files = []
                    segments = Segments(live: try createSegment(generation: generation))
                } else if let newest = files.last {
                    // Appended to even when damaged and not rewritten (a full
                    // disk): what follows the damage is read past it.
                    segments = Segments(live: try openSegment(newest))
                    files.removeLast()
                } else {
                    segments = Segments(live: try createSegment(generation: base.generation ?? 0))
                }
                for file in files { segments!.sealed[file.generation, default: []].append(file.path) }
                return Loaded(snapshot: base.records, entries: entries, recovered: report.recovered, losses: report.losses)
            }
        }
    }

    /// What a load builds on: the snapshot it found, if any.
    private struct Base {
        /// The snapshot's records; nil when none was loaded.
        var records: [[UInt8]]?
        /// The snapshot's generation; nil when none was loaded or its header is damaged.
        var generation: UInt64?
        /// True when the records came whole from `NAME.snapshot` itself,
        /// which the next snapshot then keeps as the previous one.
        var isCurrent: Bool
        /// True when the records were salvaged from a damaged file.
        var isDamaged = false
        /// The damaged file they were salvaged from, when it is `NAME.snapshot`
        /// (which a new snapshot would replace).
        var damagedPath: String?
    }

    /// What a load reports.
    private struct Report {
        /// Each repair or fallback.
        var recovered: [Diagnostic] = []
        /// What damage took.
        var losses: [Loss] = []
    }

    /// What a snapshot file holds.
    private enum SnapshotFile {
        /// There is no file at the path.
        case missing
        /// The file, as far as it could be read.
        case read(RecordFraming.SnapshotReading)
    }

    /// The snapshot to load: `NAME.snapshot` (whole or salvaged), else
    /// `NAME.snapshot.previous`, else none.
    private func loadSnapshot(_ report: inout Report) throws(Diagnostic) -> Base {
        switch try readSnapshot(snapshotPath) {
        case .read(let reading) where reading.isWhole:
            return Base(records: reading.records, generation: reading.generation, isCurrent: true)
        case .read(let reading) where !reading.records.isEmpty:
            salvaged(reading, from: snapshotPath, &report)
            return Base(records: reading.records, generation: reading.generation, isCurrent: false, isDamaged: true,
                        damagedPath: snapshotPath)
        case .read(let reading):
            try setAside(snapshotPath, reading, &report)
        case .missing:
            guard FileSystem.status(of: previousSnapshotPath) != nil else {
                return Base(records: nil, generation: nil, isCurrent: false)
            }
            report.recovered.append(.warning(.stateMissingSnapshot,
                                             "\(snapshotPath) is missing, though a previous snapshot is there.",
                                             at: .init(file: snapshotPath)))
        }
        switch try readSnapshot(previousSnapshotPath) {
        case .read(let reading) where !reading.records.isEmpty || reading.isWhole:
            if !reading.isWhole { salvaged(reading, from: previousSnapshotPath, &report) }
            let generation = reading.generation.map { "of generation \($0)" } ?? "whose header is damaged"
            report.recovered.append(.warning(.statePreviousSnapshot,
                                             "Loaded the previous snapshot, \(generation), in place of \(snapshotPath).",
                                             at: .init(file: previousSnapshotPath)))
            return Base(records: reading.records, generation: reading.generation, isCurrent: false,
                        isDamaged: !reading.isWhole)
        case .read(let reading):
            try setAside(previousSnapshotPath, reading, &report)
        case .missing:
            break
        }
        report.recovered.append(.error(.stateSnapshotLost,
                                       "No snapshot could be loaded: the store holds only what its journal holds.",
                                       at: .init(file: snapshotPath)))
        return Base(records: nil, generation: nil, isCurrent: false)
    }

    /// The snapshot file at `path`, read as far as it can be.
    private func readSnapshot(_ path: String) throws(Diagnostic) -> SnapshotFile {
        let bytes: [UInt8]
        do throws(Diagnostic) {
            bytes = try FileSystem.readFile(path, limit: .max, own: true)
        } catch where error.code == .fileNotFound {
            return .missing
        }
        switch RecordFraming.readSnapshot(bytes) {
        case .success(let reading): return .read(reading)
        case .failure(let problem): throw unsupported(path, problem)
        }
    }

    /// Reports the records salvaged from the damaged snapshot `reading` of `path`.
    private func salvaged(_ reading: RecordFraming.SnapshotReading, from path: String, _ report: inout Report) {
        var problems = reading.damaged.map(\.problem.description)
        var ranges = reading.damaged.map(\.bytes)
        if let problem = reading.headerProblem {
            problems.insert("its header is damaged (\(problem))", at: 0)
            ranges.insert(0..<RecordFraming.headerSize, at: 0)
        }
        let lost = reading.expectedCount.map { max(0, $0 - reading.records.count) }
        let counted = reading.expectedCount.map { "\(reading.records.count) of its \($0) records" }
            ?? "\(reading.records.count) records (how many it held is unknown)"
        let missing = lost.map { $0 == 0 ? "none was lost" : "\($0) were lost" } ?? "some may be lost"
        report.recovered.append(.error(.stateCorruptSnapshot,
                                       "\(path) is damaged (\(problems.joined(separator: "; "))): \(counted) were kept and \(missing).",
                                       at: .init(file: path)))
        report.losses.append(Loss(file: path, ranges: ranges, records: lost, problem: problems.joined(separator: "; ")))
    }

    /// Moves the snapshot at `path`, of which nothing could be read, to
    /// `path.corrupt`, so that it is neither loaded nor kept as the previous
    /// snapshot by the next fold.
    private func setAside(_ path: String, _ reading: RecordFraming.SnapshotReading, _ report: inout Report) throws(Diagnostic) {
        try DurableFile.move(path, to: path + ".corrupt")
        let problem = (reading.headerProblem ?? reading.damaged.first?.problem).map(\.description) ?? "it holds no record"
        report.recovered.append(.error(.stateCorruptSnapshot,
                                       "\(path) is damaged (\(problem)) and no record of it could be read; it was moved to \(Path.lastComponent(of: path)).corrupt.",
                                       at: .init(file: path)))
        report.losses.append(Loss(file: path, ranges: reading.damaged.map(\.bytes), records: reading.expectedCount,
                                  problem: problem))
    }

    /// A segment file as a load read it.
    private struct SegmentFile {
        /// Its path.
        var path: String
        /// Its generation: from its header, else from its name.
        var generation: UInt64
        /// Why its header is not valid, when it is not.
        var headerProblem: RecordFraming.Problem?
        /// Its records, and what is wrong after them.
        var scan: RecordFraming.Scan
        /// Its bytes, less any end cut off.
        var bytes: [UInt8]

        /// True when records were skipped or the header is damaged: the file
        /// is to be replaced, not appended to.
        var isDamaged: Bool { headerProblem != nil || !scan.skipped.isEmpty }
    }

    /// The segments that follow `base`, oldest first, with each stale one
    /// dropped and each gap reported.
    private func readSegments(after base: Base, _ report: inout Report) throws(Diagnostic) -> [SegmentFile] {
        var files: [SegmentFile] = []
        for (path, named) in try segmentPaths() {
            let bytes = try FileSystem.readFile(path, limit: .max, own: true)
            var file = SegmentFile(path: path, generation: 0, headerProblem: nil,
                                   scan: RecordFraming.Scan(payloads: [], skipped: [], end: RecordFraming.headerSize, problem: nil),
                                   bytes: bytes)
            switch RecordFraming.readHeader(bytes, .journal) {
            case .success(let header):
                file.generation = header.generation
            case .failure(.unsupportedVersion(let version)):
                throw unsupported(path, .unsupportedVersion(version))
            case .failure(.shortHeader):
                // Created, and a crash came before its header was written: it holds nothing.
                report.recovered.append(.warning(.stateTornJournal,
                                                 "\(path) is shorter than a header, as a crash while it was started leaves it: it was removed.",
                                                 at: .init(file: path)))
                unlink(path)
                continue
            case .failure(let problem):
                file.headerProblem = problem
                file.generation = named ?? base.generation ?? 0
                report.recovered.append(.error(.stateCorruptJournal,
                                               "The header of \(path) is damaged (\(problem)); the records after it were read all the same, as generation \(file.generation).",
                                               at: .init(file: path)))
                report.losses.append(Loss(file: path, ranges: [0..<RecordFraming.headerSize], records: 0,
                                          problem: "the header is damaged (\(problem))"))
            }
            if bytes.count > RecordFraming.headerSize { file.scan = RecordFraming.scan(bytes, from: RecordFraming.headerSize) }
            files.append(file)
        }
        files.sort { $0.generation < $1.generation }

        if let snapshot = base.generation {
            let stale = files.filter { $0.generation < snapshot }
            files.removeAll { $0.generation < snapshot }
            for file in stale {
                report.recovered.append(.note(.stateStaleJournal,
                                              "\(file.path) is of generation \(file.generation), older than the snapshot's \(snapshot): its \(file.scan.payloads.count) records are in the snapshot already (a crash came before it was removed), so they were not replayed and it was removed.",
                                              at: .init(file: file.path)))
                unlink(file.path)
            }
            if files.isEmpty && base.records != nil {
                report.recovered.append(.warning(.stateMissingJournal,
                                                 "No journal follows the snapshot of generation \(snapshot): records appended after it are lost.",
                                                 at: .init(file: journalPath(generation: snapshot))))
            }
        }
        // Each segment must follow the one before, the first the snapshot
        // (when its generation is known, or when none could be loaded).
        var expected = base.generation ?? (base.records == nil ? 0 : nil)
        for file in files {
            if let expected, file.generation > expected {
                let loaded = base.records == nil ? "no snapshot was loaded" : "the generation before it is \(expected)"
                report.recovered.append(.warning(.stateJournalGap,
                                                 "\(file.path) is of generation \(file.generation), but \(loaded): what was recorded in between is lost. Its records are loaded all the same.",
                                                 at: .init(file: file.path)))
            }
            expected = file.generation + 1
        }
        for file in files {
            for damage in file.scan.skipped {
                report.recovered.append(.error(.stateCorruptJournal,
                                               "Bytes \(damage.bytes.lowerBound)..<\(damage.bytes.upperBound) of \(file.path) hold no whole record (\(damage.problem)): they were skipped and reading went on at the next whole record.",
                                               at: .init(file: file.path)))
            }
            if !file.scan.skipped.isEmpty {
                report.losses.append(Loss(file: file.path, ranges: file.scan.skipped.map(\.bytes), records: nil,
                                          problem: file.scan.skipped.map(\.problem.description).joined(separator: "; ")))
            }
        }
        return files
    }

    /// The segment files in the directory, with the generation each one's
    /// name gives (nil for `NAME.journal`), in no particular order. A
    /// segment made ahead and never taken (`*.prepared`, left by a crash)
    /// holds nothing and is removed.
    private func segmentPaths() throws(Diagnostic) -> [(String, UInt64?)] {
        let prefix = "\(name).journal"
        return try FileSystem.contentsOfDirectory(directory).compactMap { entry -> (String, UInt64?)? in
            if entry == prefix { return (Path.join(directory, entry), nil) }
            if entry.hasPrefix(prefix + "."), entry.hasSuffix(Self.preparedSuffix) {
                unlink(Path.join(directory, entry))
                return nil
            }
            guard entry.hasPrefix(prefix + "."), let generation = UInt64(entry.dropFirst(prefix.count + 1)),
                  entry == "\(prefix).\(generation)"
            else { return nil }
            return (Path.join(directory, entry), generation)
        }
    }

    /// Reports a torn or damaged end of `file` and, when `cutting`, cuts it
    /// off, setting the bytes aside in `PATH.corrupt` when the disk has room.
    private func repairEnd(of file: inout SegmentFile, cutting: Bool, _ report: inout Report) throws(Diagnostic) {
        guard let problem = file.scan.problem else { return }
        let dropped = file.bytes.count - file.scan.end
        let outcome: String
        if cutting {
            // Kept for inspection when the disk has room; cut off either way,
            // so that a full disk cannot keep the store from loading.
            let kept: String
            do throws(Diagnostic) {
                try DurableFile.replace(file.path + ".corrupt", with: Array(file.bytes[file.scan.end...]))
                kept = "are in \(Path.lastComponent(of: file.path)).corrupt"
            } catch {
                kept = "could not be kept (\(error.message))"
            }
            let descriptor = try FileDescriptor(openingOwn: file.path, as: .regularFile, O_WRONLY)
            do throws(SystemError) {
                try descriptor.truncate(to: file.scan.end)
                try descriptor.synchronize()
            } catch {
                throw DurableFile.failure(error, "cannot cut the damaged end off", file.path)
            }
            file.bytes.removeSubrange(file.scan.end...)
            outcome = "it was cut off; the \(dropped) bytes cut off \(kept)."
        } else {
            outcome = "the \(dropped) bytes after the last whole record were not read."
        }
        if problem.isTorn {
            report.recovered.append(.warning(.stateTornJournal,
                                             "\(file.path) ends with a record cut short (\(problem)), as a crash during a write leaves it: \(outcome)",
                                             at: .init(file: file.path)))
        } else {
            report.recovered.append(.error(.stateCorruptJournal,
                                           "The last record of \(file.path) is damaged (\(problem)) and no whole record follows it: \(outcome)",
                                           at: .init(file: file.path)))
            report.losses.append(Loss(file: file.path, ranges: [file.scan.end..<file.bytes.count], records: nil,
                                      problem: problem.description))
        }
    }

    /// Writes `records`, everything a damaged load kept, as the snapshot of
    /// `generation`, then renames each damaged file (`files` that are
    /// damaged, and `damagedSnapshot`, the snapshot it replaces) to `*.corrupt` and
    /// removes the other segments, all of which the snapshot holds. True
    /// when it was written; when it could not be, nothing changed but the report.
    private func rewrite(generation: UInt64, _ records: [[UInt8]], damagedSnapshot: String?, _ files: [SegmentFile],
                         _ report: inout Report) -> Bool {
        do throws(Diagnostic) {
            if let damagedSnapshot { try DurableFile.link(damagedSnapshot, as: damagedSnapshot + ".corrupt") }
            try writeSnapshotFile(generation: generation, records: records, keepingCurrentAs: nil)
        } catch {
            report.recovered.append(.warning(.stateRewriteFailed,
                                             "What was kept could not be written to a new snapshot (\(error.message)); the damage will be found again at the next load.",
                                             at: error.location))
            return false
        }
        for file in files {
            if file.isDamaged { _ = try? DurableFile.move(file.path, to: file.path + ".corrupt") } else { unlink(file.path) }
        }
        report.recovered.append(.note(.stateRewritten,
                                      "The \(records.count) records kept were written to a new snapshot, of generation \(generation); the damaged files were renamed *.corrupt.",
                                      at: .init(file: snapshotPath)))
        return true
    }

    // MARK: Appending

    /// Appends `payload` as one record to the newest segment, with one
    /// `write` call (more only when the kernel writes less than asked). Once
    /// this returns the record survives the process being killed.
    ///
    /// When the write fails part way (the disk is full), the part written is
    /// cut off again, so the segment still ends with a whole record. When
    /// even that fails, or after `synchronize()` failed, the segment takes no
    /// more records: the next `append` starts a new segment first.
    package func append(_ payload: [UInt8]) throws(Diagnostic) {
        guard payload.count <= RecordFraming.maximumPayloadSize else {
            throw .error(.stateRecordTooLarge,
                         "A record of \(payload.count) bytes is larger than the \(RecordFraming.maximumPayloadSize) a journal holds.",
                         at: .init(file: journalPath))
        }
        let frame = RecordFraming.frame(payload)
        try segments.withLock { (segments: inout Segments?) throws(Diagnostic) in
            guard segments != nil else { throw notLoaded }
            if segments!.live.failure != nil { try startSegment(&segments!) }
            try segments!.live.append(frame)
        }
    }

    /// Flushes the newest segment to disk, and the first time its name in
    /// the directory: every record appended before this call then survives
    /// the machine losing power. Appends from other threads go on while the
    /// disk works.
    ///
    /// A failed flush may have lost records the kernel had (Linux reports
    /// the loss once, then forgets it), so after one the segment takes no
    /// more records, and only a snapshot written since holds them for sure.
    package func synchronize() throws(Diagnostic) {
        let (descriptor, generation, path, directoryKnown) = try segments.withLock {
            (segments: inout Segments?) throws(Diagnostic) -> (Int32, UInt64, String, Bool) in
            guard segments != nil else { throw notLoaded }
            if let failure = segments!.live.failure { throw failure }
            // A second descriptor of the same open file, so that the flush
            // needs no lock and a new segment meanwhile cannot close it.
            let duplicate = segments!.live.duplicateDescriptor()
            guard duplicate >= 0 else {
                throw DurableFile.failure(.current(), "cannot duplicate the descriptor of", segments!.live.path)
            }
            return (duplicate, segments!.live.generation, segments!.live.path, segments!.live.isInDirectory)
        }
        do throws(Diagnostic) {
            do throws(SystemError) {
                try FileDescriptor(adopting: descriptor).synchronize()
            } catch {
                throw DurableFile.failure(error, "cannot flush", path)
            }
            if !directoryKnown { try DurableFile.synchronizeDirectory(of: path) }
        } catch {
            segments.withLock { segments in
                if segments?.live.generation == generation { segments!.live.failure = error }
            }
            throw error
        }
        if !directoryKnown {
            segments.withLock { segments in
                if segments?.live.generation == generation { segments!.live.isInDirectory = true }
            }
        }
    }

    // MARK: Folding

    /// Seals the newest segment and starts the next generation's, which
    /// takes every later `append`; returns its generation G. A snapshot of
    /// generation G (`writeSnapshot`) must then hold every record appended
    /// before this call. Quick: the segment `prepareSegment()` made is taken,
    /// else a file is created and its header written.
    package func startSegment() throws(Diagnostic) -> UInt64 {
        try segments.withLock { (segments: inout Segments?) throws(Diagnostic) -> UInt64 in
            guard segments != nil else { throw notLoaded }
            try startSegment(&segments!)
            return segments!.live.generation
        }
    }

    /// Makes the next generation's segment ahead of time — created under a
    /// name of its own (`NAME.journal.G.prepared`), its header written and
    /// flushed — for `startSegment()` to take without touching the disk.
    /// It gets its real name only under the lock, and only while it is
    /// still the next generation's: a seal that could not wait for it made
    /// that segment itself, and the two never share a file. Its name reaches
    /// the disk with the first `synchronize()` after it is taken. Does
    /// nothing when one is made already.
    package func prepareSegment() throws(Diagnostic) {
        guard let next = segments.withLock({ segments -> UInt64? in
            guard segments != nil, segments!.prepared == nil else { return nil }
            return segments!.live.generation + 1
        }) else { return }
        let final = journalPath(generation: next)
        let preparing = final + Self.preparedSuffix
        let created = try createSegment(generation: next, at: preparing)
        do throws(SystemError) {
            try created.descriptor.synchronize()
        } catch {
            unlink(preparing)
            throw DurableFile.failure(error, "cannot flush", preparing)
        }
        var made: OpenSegment? = consume created
        let kept = segments.withLock { segments -> Bool in
            guard segments != nil, segments!.prepared == nil, segments!.live.generation + 1 == next,
                  rename(preparing, final) == 0
            else { return false }
            made!.path = final
            segments!.prepared = made.take()
            return true
        }
        if !kept { unlink(preparing) }
    }

    /// What the name of a segment made ahead ends with until it is taken.
    private static let preparedSuffix = ".prepared"

    /// Makes `records` the snapshot of `generation` — the state as of the
    /// end of every segment older than `generation` — and removes those
    /// segments. The current snapshot becomes `NAME.snapshot.previous`; the
    /// new one is written beside, flushed, renamed into place and its
    /// directory flushed. Appends go on meanwhile.
    ///
    /// After a crash at any point `load()` returns the same records: before
    /// the rename, the old snapshot and every segment; after it, the new
    /// snapshot and the segments that follow it. When this throws, nothing
    /// changed (but for a `.tmp` file removed again).
    package func writeSnapshot(generation: UInt64, records: [[UInt8]]) throws(Diagnostic) {
        try snapshots.withLock { (hasSnapshot: inout Bool) throws(Diagnostic) in
            guard segments.withLock({ $0 != nil }) else { throw notLoaded }
            try writeSnapshotFile(generation: generation, records: records,
                                  keepingCurrentAs: hasSnapshot ? previousSnapshotPath : nil)
            hasSnapshot = true
        }
        let folded = segments.withLock { segments -> [String] in
            guard segments != nil else { return [] }
            let older = segments!.sealed.filter { $0.key < generation }
            for key in older.keys { segments!.sealed[key] = nil }
            return older.values.flatMap { $0 }
        }
        // Left behind by a crash, a segment the snapshot holds is dropped by the next load.
        for path in folded { unlink(path) }
    }

    /// Writes the snapshot file of `generation` holding `records` in chunks,
    /// keeping the current one as `keepingCurrentAs` when given.
    private func writeSnapshotFile(generation: UInt64, records: [[UInt8]], keepingCurrentAs kept: String?) throws(Diagnostic) {
        let chunk = 1 << 20
        let temporary = try DurableFile.prepare(snapshotPath, mode: 0o600) {
            (file: borrowing FileDescriptor) throws(SystemError) in
            var buffer = RecordFraming.snapshotPrefix(generation: generation, count: records.count)
            buffer.reserveCapacity(chunk + RecordFraming.frameHeaderSize + (records.lazy.map(\.count).max() ?? 0))
            for record in records {
                RecordFraming.appendFrame(record, to: &buffer)
                if buffer.count >= chunk {
                    try file.write(buffer)
                    buffer.removeAll(keepingCapacity: true)
                }
            }
            try file.write(buffer)
        }
        do throws(Diagnostic) {
            if let kept { try DurableFile.link(snapshotPath, as: kept) }
            try DurableFile.move(temporary, to: snapshotPath)
        } catch {
            unlink(temporary)
            throw error
        }
        try DurableFile.synchronizeDirectory(of: snapshotPath)
    }

    // MARK: Segments

    /// The newest segment and the sealed ones not yet folded into a snapshot.
    private struct Segments: ~Copyable {
        /// The segment records are appended to.
        var live: OpenSegment
        /// The next generation's segment, made ahead of time by `prepareSegment()`.
        var prepared: OpenSegment?
        /// The paths of the sealed segments, by generation.
        var sealed: [UInt64: [String]] = [:]
    }

    /// Seals `segments.live` and makes a new segment of the next generation the live one.
    private func startSegment(_ segments: inout Segments) throws(Diagnostic) {
        let next: OpenSegment
        if let prepared = segments.prepared.take() {
            next = prepared
        } else {
            next = try createSegment(generation: segments.live.generation + 1)
        }
        segments.sealed[segments.live.generation, default: []].append(segments.live.path)
        segments.live = next
    }

    /// A new, empty segment of `generation`, open for appending, at `path`
    /// (by default the generation's own).
    private func createSegment(generation: UInt64, at path: String? = nil) throws(Diagnostic) -> OpenSegment {
        let path = path ?? journalPath(generation: generation)
        let descriptor = try FileDescriptor(openingOwn: path, as: .regularFile, O_RDWR | O_APPEND | O_CREAT | O_TRUNC)
        do throws(SystemError) {
            try descriptor.write(RecordFraming.header(.journal, generation: generation))
            return OpenSegment(descriptor: descriptor, path: path, size: RecordFraming.headerSize, generation: generation,
                               isInDirectory: false)
        } catch {
            unlink(path)
            throw DurableFile.failure(error, "cannot start the journal segment", path)
        }
    }

    /// `file`, its end repaired or left as it is, open for appending after its last byte.
    private func openSegment(_ file: SegmentFile) throws(Diagnostic) -> OpenSegment {
        let descriptor = try FileDescriptor(openingOwn: file.path, as: .regularFile, O_RDWR | O_APPEND)
        return OpenSegment(descriptor: descriptor, path: file.path, size: file.bytes.count, generation: file.generation,
                           isInDirectory: true)
    }

    /// The error of a store used before `load()`.
    private var notLoaded: Diagnostic {
        .error(.stateNotLoaded, "The store \(name) in \(directory) is used before load().", at: .init(file: snapshotPath))
    }

    /// The error of a file from a newer format version.
    private func unsupported(_ path: String, _ problem: RecordFraming.Problem) -> Diagnostic {
        .error(.stateUnsupportedFormat, "\(path) cannot be read: \(problem); the file was left as it is.", at: .init(file: path))
    }
}

/// The segment a loaded store appends to, and what the store knows about it.
private struct OpenSegment: ~Copyable {
    /// Opened with `O_APPEND`, so that every write lands at the end.
    let descriptor: FileDescriptor
    /// Its path.
    var path: String
    /// The file's size: where the next record begins.
    var size: Int
    /// Its generation.
    let generation: UInt64
    /// True once its name is known to be on disk (the directory was flushed since it was made).
    var isInDirectory: Bool
    /// Why the segment takes no more records, when it does not.
    var failure: Diagnostic?

    /// An open segment that takes records.
    init(descriptor: consuming FileDescriptor, path: String, size: Int, generation: UInt64, isInDirectory: Bool) {
        self.descriptor = descriptor
        self.path = path
        self.size = size
        self.generation = generation
        self.isInDirectory = isInDirectory
        failure = nil
    }

    /// A new descriptor of the same open file, or -1 with `errno` set.
    /// The corresponding C function is `fcntl(F_DUPFD_CLOEXEC)`.
    func duplicateDescriptor() -> Int32 {
        fcntl(descriptor.rawValue, F_DUPFD_CLOEXEC, 0)
    }

    /// Writes `frame` at the end; on failure cuts off what was written of it.
    mutating func append(_ frame: [UInt8]) throws(Diagnostic) {
        if let failure { throw failure }
        do throws(SystemError) {
            try descriptor.write(frame)
        } catch {
            let diagnostic = DurableFile.failure(error, "cannot append a record to", path)
            do throws(SystemError) {
                try descriptor.truncate(to: size)
            } catch {
                failure = .error(
                    diagnostic.code,
                    "\(path) may end with part of a record: after a failed append (\(diagnostic.message)) it could not be cut back to \(size) bytes (\(error)). The next record starts a new segment.",
                    at: .init(file: path))
                throw failure!
            }
            throw diagnostic
        }
        size += frame.count
    }
}

extension Diagnostic.Code {
    /// A journal segment ended with a record cut short, as a crash during a
    /// write leaves it; the record was cut off.
    package static let stateTornJournal = Self("state.torn-journal")
    /// A journal record or header is damaged; what could be read around it was kept.
    package static let stateCorruptJournal = Self("state.corrupt-journal")
    /// A journal segment is older than the snapshot, which holds its records; it was dropped.
    package static let stateStaleJournal = Self("state.stale-journal")
    /// A journal segment follows a newer snapshot or segment than the one
    /// before it; records in between are lost.
    package static let stateJournalGap = Self("state.journal-gap")
    /// A snapshot exists but no journal segment follows it.
    package static let stateMissingJournal = Self("state.missing-journal")
    /// A snapshot file is damaged; what could be read of it was kept, or it was set aside.
    package static let stateCorruptSnapshot = Self("state.corrupt-snapshot")
    /// The snapshot is missing, though other files show there was one.
    package static let stateMissingSnapshot = Self("state.missing-snapshot")
    /// The previous snapshot was loaded in place of the current one.
    package static let statePreviousSnapshot = Self("state.previous-snapshot")
    /// No snapshot could be loaded where there had been one.
    package static let stateSnapshotLost = Self("state.snapshot-lost")
    /// What a damaged load kept was written to a new snapshot.
    package static let stateRewritten = Self("state.rewritten")
    /// What a damaged load kept could not be written to a new snapshot.
    package static let stateRewriteFailed = Self("state.rewrite-failed")
    /// A store file is from a newer format version.
    package static let stateUnsupportedFormat = Self("state.unsupported-format")
    /// A store was used before `load()`.
    package static let stateNotLoaded = Self("state.not-loaded")
    /// A record is larger than a store holds.
    package static let stateRecordTooLarge = Self("state.record-too-large")
}

import Glibc
import Synchronization

/// Loading: reading the files back, salvaging what damage left and repairing it.
extension RecordStore {
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
    struct SegmentFile {
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
}

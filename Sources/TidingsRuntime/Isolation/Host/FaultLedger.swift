import Glibc
import Synchronization
import TidingsBase
import TidingsRegistry

/// The faults of isolated extensions and the bundles quarantined for them,
/// kept in a JSON file (`$XDG_STATE_HOME/tidings/faults.json`), so that
/// `tidings list` can show them and a host started later keeps a bundle
/// quarantined until its files change.
///
/// Each bundle keeps its last 20 faults. The file is replaced whole on each
/// change (written beside it and renamed); two hosts writing at the same
/// moment may lose one of their records, never the file.
package struct FaultLedger: Sendable {
    /// The file.
    package let path: String

    /// How many faults a bundle keeps.
    package static let kept = 20

    /// One fault, as recorded.
    package struct Record: Sendable, Equatable {
        /// Seconds since 1970, UTC.
        package var time: Double
        /// `WorkerFault.Kind`'s name: "crash", "cpu-time", ….
        package var kind: String
        /// The diagnostic's sentence.
        package var message: String
    }

    /// What identifies a bundle's files: a change to any of them lifts a quarantine.
    package struct FileStamp: Sendable, Equatable {
        package var path: String
        package var modificationTime: Int64
        package var size: Int64
    }

    /// What is known of one bundle.
    package struct Entry: Sendable, Equatable {
        /// The bundle's identifier.
        package var identifier: String
        /// Its last faults, oldest first.
        package var faults: [Record] = []
        /// Set while the bundle is quarantined: since when, and its files then.
        package var quarantinedSince: Double?
        package var quarantinedFiles: [FileStamp] = []

        /// True when the bundle is quarantined and its files are still those it was quarantined with.
        package var isQuarantined: Bool {
            quarantinedSince != nil && FaultLedger.stamps(of: quarantinedFiles.map(\.path)) == quarantinedFiles
        }
    }

    /// The ledger in `path`.
    package init(path: String) {
        self.path = path
    }

    /// The usual ledger, below the user's state directory; nil without one.
    package static func standard(in environment: [String: String]) -> FaultLedger? {
        BaseDirectory.state.path(in: environment).map { FaultLedger(path: Path.join($0, "tidings/faults.json")) }
    }

    /// Every bundle's entry, by bundle path; empty when the file is missing or unreadable.
    package func entries() -> [String: Entry] {
        guard let bytes = try? FileSystem.readFile(path, limit: 16 << 20),
              let json = try? JSON.parse(bytes, file: path),
              let bundles = json["bundles"]?.objectMembers
        else { return [:] }
        var entries: [String: Entry] = [:]
        for (bundle, value) in bundles {
            var entry = Entry(identifier: value["identifier"]?.stringValue ?? "")
            entry.faults = (value["faults"]?.arrayValue ?? []).compactMap { record in
                guard let time = record["time"]?.doubleValue, let kind = record["class"]?.stringValue else { return nil }
                return Record(time: time, kind: kind, message: record["message"]?.stringValue ?? "")
            }
            if let quarantine = value["quarantine"], let since = quarantine["since"]?.doubleValue {
                entry.quarantinedSince = since
                entry.quarantinedFiles = (quarantine["files"]?.arrayValue ?? []).compactMap { file in
                    guard let path = file["path"]?.stringValue, let time = file["modified"]?.integerValue,
                          let size = file["size"]?.integerValue else { return nil }
                    return FileStamp(path: path, modificationTime: time, size: size)
                }
            }
            entries[bundle] = entry
        }
        return entries
    }

    /// Records `fault` of `bundle`; with `quarantineFiles`, quarantines it too.
    package func record(_ fault: WorkerFault, bundle: String, identifier: String, quarantineFiles: [FileStamp]?) {
        change(bundle, identifier: identifier) { entry in
            entry.faults.append(Record(time: Self.now, kind: fault.kind.rawValue, message: fault.diagnostic.message))
            if entry.faults.count > Self.kept { entry.faults.removeFirst(entry.faults.count - Self.kept) }
            if let quarantineFiles {
                entry.quarantinedSince = Self.now
                entry.quarantinedFiles = quarantineFiles
            }
        }
    }

    /// Lifts `bundle`'s quarantine (its files changed).
    package func lift(_ bundle: String, identifier: String) {
        change(bundle, identifier: identifier) { entry in
            entry.quarantinedSince = nil
            entry.quarantinedFiles = []
        }
    }

    /// The stamps of the files at `paths` now (a missing file has size -1).
    package static func stamps(of paths: [String]) -> [FileStamp] {
        paths.map { path in
            let status = FileSystem.status(of: path)
            return FileStamp(path: path, modificationTime: status?.modificationTime ?? -1, size: status?.size ?? -1)
        }
    }

    /// The files whose change lifts a quarantine of `bundle`: its library and its manifest.
    package static func files(of bundle: ExtensionBundle) -> [String] {
        [bundle.libraryPath, Path.join(bundle.path, BundleReader.manifestName)].compactMap { $0 }
    }

    /// Serialises changes within this process.
    private static let writing = Mutex(())

    /// Reads the file, changes `bundle`'s entry with `body` and writes it back.
    private func change(_ bundle: String, identifier: String, _ body: (inout Entry) -> Void) {
        Self.writing.withLock { _ in
            var all = entries()
            var entry = all[bundle] ?? Entry(identifier: identifier)
            entry.identifier = identifier
            body(&entry)
            all[bundle] = entry
            let json = JSON.object([("bundles", .object(all.sorted { $0.key < $1.key }.map { ($0.key, Self.json($0.value)) }))])
            try? FileSystem.createDirectory(Path.directory(of: path), mode: 0o700)
            try? FileSystem.writeFileAtomically(path, Array((json.serialized(pretty: true) + "\n").utf8), mode: 0o600)
        }
    }

    private static func json(_ entry: Entry) -> JSON {
        var members: [(String, JSON)] = [
            ("identifier", .string(entry.identifier)),
            ("faults", .array(entry.faults.map { record in
                .object([("time", .double(record.time)), ("date", .string(ISO8601.format(record.time))),
                         ("class", .string(record.kind)), ("message", .string(record.message))])
            })),
        ]
        if let since = entry.quarantinedSince {
            members.append(("quarantine", .object([
                ("since", .double(since)),
                ("files", .array(entry.quarantinedFiles.map { file in
                    .object([("path", .string(file.path)), ("modified", .integer(file.modificationTime)),
                             ("size", .integer(file.size))])
                })),
            ])))
        }
        return .object(members)
    }

    /// Seconds since 1970 now.
    static var now: Double {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}

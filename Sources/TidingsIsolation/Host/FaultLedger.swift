import Glibc
import Synchronization
import TidingsBase
import TidingsCrypto
import TidingsRegistry

/// The faults of isolated extensions and the bundles quarantined for them,
/// kept in a JSON file (`$XDG_STATE_HOME/tidings/faults.json`), so that
/// `tidings list` can show them and a host started later keeps a bundle
/// quarantined until its files change.
///
/// A quarantine is keyed by the SHA-256 of the bundle's library and
/// manifest, not by their timestamps: touching a file lifts nothing; only
/// new content does. Workers never reach the file (their sandbox has no
/// view of the host's state directory). The ledger fails closed: a file
/// that is there but cannot be read as a ledger (damaged, not a regular
/// file, a link, another user's, writable by others) keeps every bundle
/// quarantined, says so, and is never written over, until someone repairs
/// or removes it; commands refuse to start with it (`check()`).
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

    /// What identifies a bundle's file: its content. A change to any of them lifts a quarantine.
    package struct FileDigest: Sendable, Equatable {
        package var path: String
        /// SHA-256 of the content, in hexadecimal; "missing" when there is no such file.
        package var sha256: String
    }

    /// What is known of one bundle.
    package struct Entry: Sendable, Equatable {
        /// The bundle's identifier.
        package var identifier: String
        /// Its last faults, oldest first.
        package var faults: [Record] = []
        /// Set while the bundle is quarantined: since when, and its files then.
        package var quarantinedSince: Double?
        package var quarantinedFiles: [FileDigest] = []

        /// True when the bundle is quarantined and its files are still those it was quarantined with.
        package var isQuarantined: Bool {
            quarantinedSince != nil && FaultLedger.digests(of: quarantinedFiles.map(\.path)) == quarantinedFiles
        }
    }

    /// What reading the file gave.
    package enum Reading: Sendable {
        /// Every bundle's entry, by bundle path (none when there is no file).
        case entries([String: Entry])
        /// The file is there but is no ledger: why, in one sentence.
        case damaged(String)
    }

    /// The ledger in `path`.
    package init(path: String) {
        self.path = path
    }

    /// The usual ledger, below the user's state directory; nil without one.
    package static func standard(in environment: [String: String]) -> FaultLedger? {
        BaseDirectory.state.path(in: environment).map { FaultLedger(path: Path.join($0, "tidings/faults.json")) }
    }

    /// Checks that the ledger's directory and file are what they must be
    /// (`FileSystem.checkPrivateFile`), making the directory when it is missing.
    /// Commands check this before they begin; a ledger spoilt later fails
    /// closed (see `read()`).
    package func check() throws(Diagnostic) {
        try FileSystem.checkPrivateFile(path)
    }

    /// Reads the file as `check()` wants it: never through a link, never
    /// waiting on a FIFO, only when it is the user's own.
    package func read() -> Reading {
        let bytes: [UInt8]
        do throws(Diagnostic) {
            bytes = try FileSystem.readFile(path, limit: 16 << 20, own: true)
        } catch where error.code == .fileNotFound {
            return .entries([:])
        } catch {
            return .damaged(error.message)
        }
        guard let json = try? JSON.parse(bytes, file: path), let bundles = json["bundles"]?.objectMembers else {
            return .damaged("\(path) is not a fault ledger (not JSON with a \"bundles\" object)")
        }
        var entries: [String: Entry] = [:]
        for (bundle, value) in bundles {
            var entry = Entry(identifier: value["identifier"]?.stringValue ?? "")
            entry.faults = (value["faults"]?.arrayValue ?? []).compactMap { record in
                guard let time = record["time"]?.doubleValue, let kind = record["class"]?.stringValue else { return nil }
                return Record(time: time, kind: kind, message: record["message"]?.stringValue ?? "")
            }
            if let quarantine = value["quarantine"] {
                guard let since = quarantine["since"]?.doubleValue, let files = quarantine["files"]?.arrayValue else {
                    return .damaged("\(path) has a quarantine of \(bundle) without its time or files")
                }
                entry.quarantinedSince = since
                for file in files {
                    guard let path = file["path"]?.stringValue, let digest = file["sha256"]?.stringValue else {
                        return .damaged("\(self.path) has a quarantined file of \(bundle) without its path or SHA-256")
                    }
                    entry.quarantinedFiles.append(FileDigest(path: path, sha256: digest))
                }
            }
            entries[bundle] = entry
        }
        return .entries(entries)
    }

    /// Every bundle's entry, by bundle path; none when the file is damaged (see `read()`).
    package func entries() -> [String: Entry] {
        if case .entries(let entries) = read() { return entries }
        return [:]
    }

    /// Records `fault` of `bundle`; with `quarantineFiles`, quarantines it too.
    /// A damaged ledger is left as it is.
    package func record(_ fault: WorkerFault, bundle: String, identifier: String, quarantineFiles: [FileDigest]?) {
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

    /// The digests of the files at `paths` now ("missing" for a file that is
    /// not there), each read whole: for one look (`tidings list`). A host that
    /// looks again and again keeps a `ContentDigests` of its own.
    package static func digests(of paths: [String]) -> [FileDigest] {
        ContentDigests().digests(of: paths)
    }

    /// The files whose change lifts a quarantine of `bundle`: its library and its manifest.
    package static func files(of bundle: ExtensionBundle) -> [String] {
        [bundle.libraryPath, Path.join(bundle.path, BundleReader.manifestName)].compactMap { $0 }
    }

    /// Serialises changes within this process.
    private static let writing = Mutex(())

    /// Reads the file, changes `bundle`'s entry with `body` and writes it back, unless the file is damaged.
    private func change(_ bundle: String, identifier: String, _ body: (inout Entry) -> Void) {
        Self.writing.withLock { _ in
            guard case .entries(var all) = read() else { return }
            var entry = all[bundle] ?? Entry(identifier: identifier)
            entry.identifier = identifier
            body(&entry)
            all[bundle] = entry
            let json = JSON.object([("bundles", .object(all.sorted { $0.key < $1.key }.map { ($0.key, Self.json($0.value)) }))])
            do throws(Diagnostic) {
                _ = try FileDescriptor(openingPrivateDirectory: Path.directory(of: path))
                try FileSystem.writeFileAtomically(path, Array((json.serialized(pretty: true) + "\n").utf8), mode: 0o600)
            } catch {
                // Not recorded; `check()` tells the next command why.
            }
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
                    .object([("path", .string(file.path)), ("sha256", .string(file.sha256))])
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

/// SHA-256 digests of files, remembered while the file's identity and
/// change time stay the same: a quarantined bundle is checked at every
/// delivery, and its library is hashed again only when something changed it
/// (the change time cannot be set back by anyone but the kernel).
///
/// Owned by whoever looks again and again: each bundle's `WorkerProvider`
/// keeps one for its own files, so what it remembers goes with the provider.
final class ContentDigests: Sendable {
    private struct Identity: Equatable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var changed: Int64
        var changedNanoseconds: Int
    }

    private let known = Mutex<[String: (Identity, String)]>([:])

    /// The digests of the files at `paths` now ("missing" for a file that is not there).
    func digests(of paths: [String]) -> [FaultLedger.FileDigest] {
        paths.map { FaultLedger.FileDigest(path: $0, sha256: digest(of: $0)) }
    }

    /// The digest of the file at `path` now, in hexadecimal; "missing" when
    /// it cannot be read as a regular file.
    func digest(of path: String) -> String {
        let missing = "missing"
        // A link at `path` is refused, never followed; `fstat` of what was opened must say a regular file.
        guard let file = try? FileDescriptor(openingUnlinked: path, as: .regularFile),
              let status = try? file.status()
        else { return missing }
        let identity = Identity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino), size: Int64(status.st_size),
                                changed: Int64(status.st_ctim.tv_sec), changedNanoseconds: status.st_ctim.tv_nsec)
        if let (seen, digest) = known.withLock({ $0[path] }), seen == identity { return digest }
        let digest: String
        do throws(CryptoError) {
            var hash = try SHA256()
            var offset: UInt64 = 0
            while true {
                guard let chunk = try? file.read(at: offset, count: 1 << 16) else { return missing }
                if chunk.isEmpty { break }
                try hash.update(chunk)
                offset += UInt64(chunk.count)
            }
            digest = SHA256.hexadecimal(try hash.finish())
        } catch {
            // Not kept: the next look may find the library.
            return "unavailable (\(error.message))"
        }
        known.withLock { $0[path] = (identity, digest) }
        return digest
    }
}

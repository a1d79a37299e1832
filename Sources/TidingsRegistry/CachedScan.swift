import Glibc
import TidingsBase

/// One scan's use of the index cache: the entries loaded before it, each
/// bundle taken from its entry while its files are unchanged and read
/// otherwise, and the cache written back after it when anything changed.
struct CachedScan {
    /// The cache.
    let cache: IndexCache
    /// The time on the file systems' clock before the scan looked at any file.
    private let start: Int64
    /// The entries, updated directory by directory.
    private var contents: IndexCacheContents
    /// The directories scanned so far.
    private var scanned: Set<IndexCacheContents.DirectoryKey> = []
    /// True when the file must be written: its entries changed, or it was missing or unusable.
    private var changed: Bool
    /// Notes about the cache for the index.
    private var notes: [Diagnostic] = []

    /// Loads `cache` for a scan starting now.
    init(_ cache: IndexCache) {
        self.cache = cache
        start = Self.fileClock()
        let (contents, problem) = cache.load()
        self.contents = contents ?? IndexCacheContents()
        changed = contents == nil
        notes += problem.map { [$0] } ?? []
    }

    /// The bundles `names` in `directory`, at `searchRank`, each from its
    /// entry when its files are unchanged and read otherwise; `counts` says how many of each.
    mutating func bundles(named names: [String], in directory: String, searchRank: Int,
                          counts: inout DiscoveryCounts) -> [ExtensionBundle] {
        let key = IndexCacheContents.DirectoryKey(directory)
        scanned.insert(key)
        let handle: FileDescriptor
        do throws(SystemError) {
            handle = try FileDescriptor(opening: directory, O_RDONLY | O_DIRECTORY)
        } catch {
            counts.read += names.count
            return names.map { BundleReader.read(Path.join(directory, $0), searchRank: searchRank) }
        }
        let old: [String: IndexCacheEntry]
        do {
            old = Dictionary(try contents.entries(of: key).lazy.map { ($0.name, $0.entry) }, uniquingKeysWith: { first, _ in first })
        } catch {
            notes.append(.note(.cacheInvalid, "The index cache's entries for \(directory) were not used: \(error). They are read and written anew.",
                               at: .init(file: cache.path)))
            old = [:]
        }
        var new: [IndexCacheContents.NamedEntry] = []
        new.reserveCapacity(names.count)
        var added = false
        var bundles: [ExtensionBundle] = []
        bundles.reserveCapacity(names.count)
        for name in names {
            let path = Path.join(directory, name)
            if let entry = old[name], entry.isCurrent(bundle: name, in: handle) {
                bundles.append(entry.bundle(at: path, searchRank: searchRank))
                new.append((name, entry))
                counts.fromCache += 1
                continue
            }
            let bundle = BundleReader.read(path, searchRank: searchRank)
            bundles.append(bundle)
            counts.read += 1
            if let entry = IndexCacheEntry(bundle, name: name, in: handle, scanStart: start) {
                new.append((name, entry))
                added = true
            }
        }
        // Without an addition, the new entries are some of the old: fewer means some were dropped.
        if added || new.count != old.count {
            changed = true
            contents.setEntries(new, of: key)
        }
        return bundles
    }

    /// Writes the cache when anything changed, first forgetting directories
    /// that no longer exist; returns the notes about the cache.
    mutating func finish() -> [Diagnostic] {
        if contents.removeVanishedDirectories(except: scanned) { changed = true }
        if changed, let problem = cache.save(contents) { notes.append(problem) }
        return notes
    }

    /// Now on the clock file systems stamp files with (the coarse real-time
    /// clock), in nanoseconds since 1970.
    /// The corresponding C function is `clock_gettime(CLOCK_REALTIME_COARSE)`.
    private static func fileClock() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME_COARSE, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }
}

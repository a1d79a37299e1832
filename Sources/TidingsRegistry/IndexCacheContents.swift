import TidingsBase

/// What an index cache file holds: for each search directory, an entry for
/// each bundle in it, in the order discovery lists them (by name).
///
/// Directories are decoded only when a scan asks for them; the others are
/// kept as the bytes they were read as, and written back as they are.
package struct IndexCacheContents: Sendable {
    /// A search directory as the search path spells it and as an absolute
    /// path: a relative directory is a different one in each working
    /// directory, and the paths in its entries are spelled as it is.
    package struct DirectoryKey: Hashable, Sendable {
        /// The directory as the search path gives it.
        package var spelled: String
        /// The directory made absolute against the working directory.
        package var absolute: String

        /// The key of `directory`, relative to the current working directory.
        package init(_ directory: String) {
            spelled = directory
            absolute = FileSystem.absolutePath(directory)
        }
    }

    /// A bundle directory's name and its entry.
    package typealias NamedEntry = (name: String, entry: IndexCacheEntry)

    /// A directory's entries, or where in the file's payload they are encoded, until someone asks.
    private enum Section: Sendable {
        /// Not decoded yet: the bytes of `payload` in `range`.
        case encoded(payload: [UInt8], range: Range<Int>)
        /// Decoded, or set by a scan.
        case decoded([NamedEntry])
    }

    /// Each directory's entries.
    private var sections: [DirectoryKey: Section] = [:]

    /// No entries.
    package init() {}

    /// The entries of the bundles in `directory`, in the order they were
    /// set; empty when there are none.
    package mutating func entries(of directory: DirectoryKey) throws(ByteReader.Malformed) -> [NamedEntry] {
        switch sections[directory] {
        case nil: return []
        case .decoded(let entries): return entries
        case .encoded(let payload, let range):
            var reader = ByteReader(payload, range: range)
            var entries: [NamedEntry] = []
            let count = try reader.readCount()
            entries.reserveCapacity(count)
            for _ in 0..<count {
                let name = try reader.readString()
                entries.append((name, try IndexCacheEntry(from: &reader)))
            }
            guard reader.isAtEnd else { throw ByteReader.Malformed(description: "a directory has bytes after its entries") }
            sections[directory] = .decoded(entries)
            return entries
        }
    }

    /// Replaces the entries of `directory`, kept in the order given; none removes it.
    package mutating func setEntries(_ entries: [NamedEntry], of directory: DirectoryKey) {
        sections[directory] = entries.isEmpty ? nil : .decoded(entries)
    }

    /// Removes every directory except `kept` that no longer exists, and says whether there was one.
    package mutating func removeVanishedDirectories(except kept: Set<DirectoryKey>) -> Bool {
        let vanished = sections.keys.filter { !kept.contains($0) && !FileSystem.isDirectory($0.absolute) }
        for key in vanished { sections[key] = nil }
        return !vanished.isEmpty
    }

    /// The payload of a cache file: `producer`, the number of directories,
    /// then for each its spelled and absolute paths, the byte length of its
    /// section and the section: the number of entries, then each bundle name
    /// and entry. Directories are sorted by path, entries kept in their order.
    package func encoded(producer: String) -> [UInt8] {
        var writer = ByteWriter()
        writer.write(string: producer)
        writer.write(count: sections.count)
        for (key, section) in sections.sorted(by: { ($0.key.absolute, $0.key.spelled) < ($1.key.absolute, $1.key.spelled) }) {
            writer.write(string: key.spelled)
            writer.write(string: key.absolute)
            switch section {
            case .encoded(let payload, let range):
                writer.write(count: range.count)
                writer.append(raw: payload[range])
            case .decoded(let entries):
                var entryWriter = ByteWriter()
                entryWriter.write(count: entries.count)
                for (name, entry) in entries {
                    entryWriter.write(string: name)
                    entry.encode(into: &entryWriter)
                }
                writer.write(count: entryWriter.bytes.count)
                writer.append(raw: entryWriter.bytes)
            }
        }
        return writer.bytes
    }

    /// The producer and contents of a payload `encoded(producer:)` made. The
    /// sections are only delimited here; each is decoded when asked for.
    package static func decode(_ payload: [UInt8]) throws(ByteReader.Malformed) -> (producer: String, contents: Self) {
        var reader = ByteReader(payload)
        let producer = try reader.readString()
        var contents = Self()
        for _ in 0..<(try reader.readCount()) {
            let key = DirectoryKey(spelled: try reader.readString(), absolute: try reader.readString())
            contents.sections[key] = .encoded(payload: payload, range: try reader.skip(try reader.readCount()))
        }
        guard reader.isAtEnd else { throw ByteReader.Malformed(description: "the cache has bytes after its directories") }
        return (producer, contents)
    }
}

extension IndexCacheContents.DirectoryKey {
    /// A key of given paths, as read from a cache file.
    fileprivate init(spelled: String, absolute: String) {
        self.spelled = spelled
        self.absolute = absolute
    }
}

import TidingsBase

/// The index cache: what discovery read of each bundle, kept in one file so
/// that the next discovery reads again only the bundles whose files changed.
///
/// The file is `$XDG_CACHE_HOME/tidings/index.v2` (`~/.cache/…`), mode 0600
/// in a directory made with mode 0700:
///
///     offset  size  field
///          0     4  magic, "TDXC"
///          4     4  format version, UInt32 little-endian, `formatVersion`
///          8     8  payload length n, UInt64 little-endian
///         16     4  CRC-32 of bytes 0..<16 then the payload, UInt32 little-endian
///         20     n  payload (`IndexCacheContents.encoded(producer:)`)
///
/// A file that is short, long, damaged, of another format version or written
/// by another producer is never trusted: discovery reads every bundle, says
/// why in a note, and writes a new file. The file is replaced whole and
/// atomically (written, flushed, renamed), and only when its contents change.
package struct IndexCache: Sendable {
    /// The version of the file's layout and of what its entries hold. Raise
    /// it whenever either changes, including `Manifest`, `Interface` or
    /// `Diagnostic` gaining a field.
    package static let formatVersion: UInt32 = 2
    /// The file name in the cache directory.
    package static let fileName = "index.v\(formatVersion)"

    /// The cache file's path.
    package var path: String
    /// Who writes the entries, such as "tidings 0.4.0": entries another
    /// version wrote may have been validated by other rules, so they are not used.
    package var producer: String

    /// The cache kept at `path` by `producer`.
    package init(path: String, producer: String) {
        self.path = path
        self.producer = producer
    }

    /// The user's cache for Tidings `version`: `tidings/index.v2` under the
    /// XDG cache directory of `environment`, written by "tidings VERSION";
    /// nil when the environment names no home for it.
    package static func standard(in environment: [String: String], version: String) -> IndexCache? {
        BaseDirectory.cache.path(in: environment).map {
            IndexCache(path: Path.join($0, "tidings/" + fileName), producer: "tidings \(version)")
        }
    }

    /// The four bytes a cache file begins with.
    private static let magic = Array("TDXC".utf8)
    /// The size of the header before the payload.
    private static let headerSize = 20

    /// Checks that the cache's directory and file are what they must be
    /// (`FileSystem.checkPrivateFile`), making the directory when it is missing.
    /// Commands check this before they begin, so that a cache someone
    /// tampered with stops them with its reason instead of being worked around.
    package func check() throws(Diagnostic) {
        try FileSystem.checkPrivateFile(path)
    }

    /// What the file holds; nil when there is no file or it cannot be used,
    /// and then `problem` is a note saying why a file that is there was not
    /// used. The file is opened as `check()` wants it: never through a link,
    /// never waiting on a FIFO.
    package func load() -> (contents: IndexCacheContents?, problem: Diagnostic?) {
        let bytes: [UInt8]
        do {
            bytes = try FileSystem.readFile(path, limit: Int(Int32.max), own: true)
        } catch {
            // No file (or no directory to hold one) is a cache not yet written.
            return (nil, error.code == .fileNotFound ? nil : invalid(error.message))
        }
        guard bytes.count >= Self.headerSize, bytes[0..<4].elementsEqual(Self.magic) else {
            return (nil, invalid("\(path) is not an index cache"))
        }
        let version = UInt32(truncatingIfNeeded: Self.littleEndian(bytes, at: 4, count: 4))
        guard version == Self.formatVersion else {
            return (nil, invalid("\(path) is in format version \(version), not \(Self.formatVersion)"))
        }
        let length = Self.littleEndian(bytes, at: 8, count: 8)
        guard length == UInt64(bytes.count - Self.headerSize) else {
            return (nil, invalid("\(path) should have \(length) bytes after its header, and has \(bytes.count - Self.headerSize)"))
        }
        let payload = Array(bytes[Self.headerSize...])
        guard Self.checksum(header: bytes[0..<16], payload: payload) == Self.littleEndian(bytes, at: 16, count: 4) else {
            return (nil, invalid("\(path) does not match its checksum"))
        }
        do {
            let (producer, contents) = try IndexCacheContents.decode(payload)
            guard producer == self.producer else {
                return (nil, invalid("\(path) was written by \(producer), not \(self.producer)"))
            }
            return (contents, nil)
        } catch {
            return (nil, invalid("\(path) cannot be read: \(error)"))
        }
    }

    /// Replaces the file with `contents`, making its directory if need be;
    /// returns a note saying why it could not.
    package func save(_ contents: IndexCacheContents) -> Diagnostic? {
        let payload = contents.encoded(producer: producer)
        var bytes = Self.magic
        bytes.reserveCapacity(Self.headerSize + payload.count)
        withUnsafeBytes(of: Self.formatVersion.littleEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt64(payload.count).littleEndian) { bytes.append(contentsOf: $0) }
        let checksum = Self.checksum(header: bytes[0..<16], payload: payload)
        withUnsafeBytes(of: checksum.littleEndian) { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: payload)
        do {
            _ = try FileDescriptor(openingPrivateDirectory: Path.directory(of: path))
            try FileSystem.writeFileAtomically(path, bytes, mode: 0o600)
            return nil
        } catch {
            return .note(.cacheUnwritable, "The index cache cannot be written (\(error.message)); every bundle is read each time until it can.",
                         at: .init(file: path))
        }
    }

    /// A note that the file was not used because of `reason`.
    private func invalid(_ reason: String) -> Diagnostic {
        .note(.cacheInvalid, "The index cache was not used: \(reason). Every bundle was read, and the cache is written anew.",
              at: .init(file: path))
    }

    /// The CRC-32 of the header's first 16 bytes, then the payload.
    private static func checksum(header: ArraySlice<UInt8>, payload: [UInt8]) -> UInt32 {
        var crc = CRC32()
        crc.update(header)
        crc.update(payload)
        return crc.value
    }

    /// The `count`-byte unsigned number stored least significant byte first at `offset`.
    private static func littleEndian(_ bytes: [UInt8], at offset: Int, count: Int) -> UInt64 {
        (0..<count).reduce(0) { value, index in value | UInt64(bytes[offset + index]) << (8 * index) }
    }
}

extension Diagnostic.Code {
    /// The index cache file was damaged, of another version, or unreadable, and was rebuilt.
    package static let cacheInvalid = Self("registry.cache-invalid")
    /// The index cache file could not be written.
    package static let cacheUnwritable = Self("registry.cache-unwritable")
}

import TidingsBase
import TidingsManifest

/// What the index cache keeps of one bundle: what `BundleReader.read` made
/// of it, and the size and modification time of each file it was made from.
/// The entry stands for the bundle only while every one of those files still
/// has them (GStreamer's rule for its registry).
package struct IndexCacheEntry: Sendable, Equatable {
    /// A file an entry was read from, as it was when it was read.
    package struct Dependency: Sendable, Equatable {
        /// The file's path relative to the bundle directory; "." for the directory itself.
        package var name: String
        /// Its stamp then; nil when it did not exist.
        package var stamp: Stamp?
    }

    /// What tells one version of a file from another without reading it.
    package struct Stamp: Sendable, Equatable {
        /// Modification time in nanoseconds since 1970.
        package var modificationTime: Int64
        /// Size in bytes.
        package var size: Int64
    }

    /// The files the entry was read from.
    package var dependencies: [Dependency]
    /// The manifest `BundleReader.read` validated, if any.
    package var manifest: Manifest?
    /// The interface it read, if any.
    package var interface: Interface?
    /// What it found wrong.
    package var diagnostics: [Diagnostic]

    /// The entry for `bundle`, read from the bundle directory `name` in
    /// `directory`, with its files stamped now; nil when the entry could not
    /// be trusted later:
    /// - a file was changed at or after `scanStart`, the time on the file
    ///   systems' clock just before the scan began: the change may have come
    ///   after the read, and a second change in the same clock tick would
    ///   leave the same stamp (git's "racily clean" files); the next scan
    ///   reads the bundle again and keeps it then;
    /// - a file could not be read, which says nothing about its contents.
    init?(_ bundle: ExtensionBundle, name: String, in directory: borrowing FileDescriptor, scanStart: Int64) {
        guard !bundle.diagnostics.contains(where: { $0.code == .fileUnreadable }) else { return nil }
        var dependencies: [Dependency] = []
        for file in BundleReader.dependencies(of: bundle) {
            let stamp = Self.stamp(of: file, inBundle: name, in: directory)
            if let stamp, !Self.isSettled(stamp.modificationTime, before: scanStart) { return nil }
            dependencies.append(Dependency(name: file, stamp: stamp))
        }
        self.init(dependencies: dependencies, manifest: bundle.manifest, interface: bundle.interface,
                  diagnostics: bundle.diagnostics)
    }

    /// An entry of these parts.
    package init(dependencies: [Dependency], manifest: Manifest?, interface: Interface?, diagnostics: [Diagnostic]) {
        self.dependencies = dependencies
        self.manifest = manifest
        self.interface = interface
        self.diagnostics = diagnostics
    }

    /// True when every file of the bundle directory `name` in `directory`
    /// still has the stamp it had when the entry was made.
    func isCurrent(bundle name: String, in directory: borrowing FileDescriptor) -> Bool {
        dependencies.allSatisfy { Self.stamp(of: $0.name, inBundle: name, in: directory) == $0.stamp }
    }

    /// The bundle the entry stands for, at `path` and `searchRank`.
    func bundle(at path: String, searchRank: Int) -> ExtensionBundle {
        ExtensionBundle(path: path, searchRank: searchRank, manifest: manifest, interface: interface,
                        diagnostics: diagnostics)
    }

    /// The stamp of `file` in the bundle directory `bundle` in `directory`; nil when it is not there.
    private static func stamp(of file: String, inBundle bundle: String, in directory: borrowing FileDescriptor) -> Stamp? {
        FileSystem.status(of: file == "." ? bundle : bundle + "/" + file, in: directory)
            .map { Stamp(modificationTime: $0.modificationTime, size: $0.size) }
    }

    /// True when a file last changed at `time` must have a new stamp if it
    /// changes after `start`. File systems that keep whole seconds (FAT two
    /// of them) or hundredths stamp a later change with the same rounded
    /// time, so a time so rounded must be two seconds older than the start.
    package static func isSettled(_ time: Int64, before start: Int64) -> Bool {
        time % 10_000_000 == 0 ? time < start - 2_000_000_000 : time < start
    }
}

extension IndexCacheEntry {
    /// Writes the entry for `init(from:)`: its dependencies, then the bundle's manifest, interface and diagnostics.
    func encode(into writer: inout ByteWriter) {
        writer.write(array: dependencies) { writer, dependency in
            writer.write(string: dependency.name)
            writer.write(optional: dependency.stamp) { writer, stamp in
                writer.write(int64: stamp.modificationTime)
                writer.write(int64: stamp.size)
            }
        }
        writer.write(optional: manifest) { $1.encode(into: &$0) }
        writer.write(optional: interface) { $1.encode(into: &$0) }
        writer.write(array: diagnostics) { $1.encode(into: &$0) }
    }

    /// Reads an entry `encode(into:)` wrote.
    init(from reader: inout ByteReader) throws(ByteReader.Malformed) {
        var dependencies: [Dependency] = []
        for _ in 0..<(try reader.readCount()) {
            let name = try reader.readString()
            let stamp = try reader.readBool() ? Stamp(modificationTime: try reader.readInt64(), size: try reader.readInt64()) : nil
            dependencies.append(Dependency(name: name, stamp: stamp))
        }
        let manifest = try reader.readBool() ? try Manifest(from: &reader) : nil
        let interface = try reader.readBool() ? try Interface(from: &reader) : nil
        var diagnostics: [Diagnostic] = []
        for _ in 0..<(try reader.readCount()) { diagnostics.append(try Diagnostic(from: &reader)) }
        self.init(dependencies: dependencies, manifest: manifest, interface: interface, diagnostics: diagnostics)
    }
}

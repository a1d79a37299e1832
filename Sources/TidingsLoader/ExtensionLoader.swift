import TidingsABI
import TidingsBase

/// Loads extension libraries and negotiates the ABI with them.
///
/// Each way a library can fail to load has its own diagnostic code, so that
/// a user (and `tidings list`) can tell a missing file from a library built
/// for another machine from one that declines this host.
package enum ExtensionLoader {
    /// Checks what can be checked without running any of the library's code:
    /// that the file exists and is a shared object for this machine.
    package static func inspect(_ path: String) throws(Diagnostic) {
        let location = Diagnostic.Location(file: path)
        guard let status = FileSystem.status(of: path) else {
            throw .error(.libraryMissing, "The library \(Path.lastComponent(of: path)) named by CFBundleExecutable is not in the bundle: build it (make, in a C project of tidings new), or name the library built in CFBundleExecutable.",
                         at: location)
        }
        guard status.kind == .regular else {
            throw .error(.libraryNotELF, "\(path) is not a regular file.", at: location)
        }
        let head: [UInt8]
        do {
            // 64 bytes hold the ELF identification and the fields checked here.
            head = try FileSystem.readPrefix(path, count: 64)
        } catch {
            throw .error(.libraryUnreadable, error.message, at: location)
        }
        guard let identity = ELFIdentity(head) else {
            throw .error(.libraryNotELF, "\(Path.lastComponent(of: path)) is not an ELF shared library.", at: location)
        }
        if let host = ELFIdentity.host,
           identity.wordSize != host.wordSize || identity.byteOrder != host.byteOrder || identity.machine != host.machine {
            throw .error(.libraryWrongArchitecture,
                         "\(Path.lastComponent(of: path)) is built for \(identity.description); this host is \(host.description).",
                         at: location)
        }
        guard identity.isSharedObject else {
            throw .error(.libraryNotShared,
                         "\(Path.lastComponent(of: path)) is an ELF file but not a shared library; build it with -shared.",
                         at: location)
        }
    }

    /// Loads the library at `path` of the bundle at `bundle`, calls its
    /// entry function with `host`, and checks the descriptor it returns.
    /// A host of version 3 or later calls `tidings_extension_entry_v3`,
    /// which learns the bundle's directory, when the library exports it,
    /// else `tidings_extension_entry`.
    ///
    /// The library's initialisers and entry function run in this process:
    /// call this only when a notification needs the extension.
    /// - Parameter bundle: the bundle's directory as the extension is to
    ///   know it (in a worker, its path inside the sandbox).
    package static func load(_ path: String, bundle: String, host: UnsafePointer<tidings_host>) throws(Diagnostic)
        -> LoadedExtension
    {
        try inspect(path)
        let location = Diagnostic.Location(file: path)
        let name = Path.lastComponent(of: path)
        let library: DynamicLibrary
        do {
            library = try DynamicLibrary(opening: path)
        } catch {
            if let symbol = error.unresolvedSymbol {
                throw .error(.libraryUnresolvedSymbol,
                             "\(name) needs the symbol \(symbol), which nothing loaded provides.", at: location)
            }
            throw .error(.libraryLoadFailed, "\(name) could not be loaded: \(error.message).", at: location)
        }
        let hostVersion = tidings_host.read(from: host)?.abi_version ?? 1
        let returned: UnsafePointer<tidings_extension>?
        if hostVersion >= 3, let address = library.address(of: TIDINGS_ENTRY_V3_SYMBOL) {
            let entry = unsafeBitCast(address, to: tidings_extension_entry_v3_function.self)
            let info = tidings_entry_info(
                struct_size: UInt32(MemoryLayout<tidings_entry_info>.size), host_abi_version: hostVersion, host: host,
                bundle_path: PermanentStrings.cString(Path.trimmingTrailingSlashes(FileSystem.absolutePath(bundle))))
            returned = withUnsafePointer(to: info) { entry($0) }
        } else if let address = library.address(of: TIDINGS_ENTRY_SYMBOL) {
            returned = unsafeBitCast(address, to: tidings_extension_entry_function.self)(hostVersion, host)
        } else {
            throw .error(.entryMissing,
                         "\(name) does not export \(TIDINGS_ENTRY_SYMBOL), the entry function every extension must have.",
                         at: location)
        }
        guard let returned else {
            throw .error(.descriptorNull,
                         "\(name) returned no descriptor: it declined this host, which speaks ABI version \(hostVersion).",
                         at: location)
        }
        guard let descriptor = tidings_extension.read(from: returned) else {
            let size = UnsafeRawPointer(returned).loadUnaligned(as: UInt32.self)
            throw .error(.descriptorUndersized,
                         "\(name)'s descriptor is \(size) bytes; version 1 needs at least \(tidings_extension.introducedSize).",
                         at: location)
        }
        let version = descriptor.abi_version
        guard version >= 1, version <= hostVersion else {
            throw .error(.abiIncompatible,
                         "\(name) implements ABI version \(version); this host speaks versions 1 to \(hostVersion).",
                         at: location)
        }
        guard let create = descriptor.create, let destroy = descriptor.destroy else {
            throw .error(.descriptorIncomplete,
                         "\(name)'s descriptor lacks create or destroy, which every extension must provide.",
                         at: location)
        }
        // Which of did_receive_notification and did_receive_request must be
        // there depends on the extension point, which the launcher checks.
        return LoadedExtension(path: path, library: library, descriptor: descriptor, create: create, destroy: destroy)
    }
}

extension Diagnostic.Code {
    /// The library named by `CFBundleExecutable` is not in the bundle.
    package static let libraryMissing = Self("load.library-missing")
    /// The library file cannot be read.
    package static let libraryUnreadable = Self("load.library-unreadable")
    /// The file is not an ELF file.
    package static let libraryNotELF = Self("load.not-elf")
    /// The ELF file is for another machine, word size or byte order.
    package static let libraryWrongArchitecture = Self("load.wrong-architecture")
    /// The ELF file is an executable or object file, not a shared library.
    package static let libraryNotShared = Self("load.not-shared-library")
    /// `dlopen` failed because a symbol the library needs is nowhere.
    package static let libraryUnresolvedSymbol = Self("load.unresolved-symbol")
    /// `dlopen` failed for another reason.
    package static let libraryLoadFailed = Self("load.failed")
    /// The library does not export `tidings_extension_entry`.
    package static let entryMissing = Self("load.entry-missing")
    /// The entry function returned NULL: the extension declined this host.
    package static let descriptorNull = Self("load.descriptor-null")
    /// The descriptor's `struct_size` is below the version 1 minimum.
    package static let descriptorUndersized = Self("load.descriptor-undersized")
    /// The descriptor's `abi_version` is 0 or newer than this host's.
    package static let abiIncompatible = Self("load.abi-incompatible")
    /// A function the extension must provide is NULL: create or destroy, or
    /// the one its extension point needs (did_receive_notification for a
    /// content extension, did_receive_request for a service extension).
    package static let descriptorIncomplete = Self("load.descriptor-incomplete")
}

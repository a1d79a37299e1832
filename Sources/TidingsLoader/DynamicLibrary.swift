import Glibc
import TidingsBase

/// A shared library opened with `dlopen(RTLD_NOW | RTLD_LOCAL)`.
///
/// It is never closed: unloading Swift code is unsupported, and an extension
/// may have left threads or callbacks behind. Replacing an extension means a
/// new process. The value is the handle's only owner; it cannot be copied.
package struct DynamicLibrary: ~Copyable {
    private let handle: UnsafeMutableRawPointer

    /// Opens the library at `path`, resolving every symbol now.
    /// The corresponding C function is `dlopen`.
    /// - Throws: the `dlerror()` text as the diagnostic's message.
    package init(opening path: String) throws(DynamicLibraryError) {
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
            throw DynamicLibraryError(message: dlerror().map { String(cString: $0) } ?? "dlopen failed")
        }
        self.handle = handle
    }

    /// The address of the symbol `name`, or nil when the library does not export it.
    /// The corresponding C function is `dlsym`.
    package func address(of name: String) -> UnsafeMutableRawPointer? {
        dlsym(handle, name)
    }

    /// The function `name` as the C function pointer type `Function` (the
    /// caller's declaration of it), or nil when the library does not export it.
    package func function<Function>(named name: String, as type: Function.Type = Function.self) -> Function? {
        address(of: name).map { unsafeBitCast($0, to: type) }
    }
}

/// Why `dlopen` failed, in the C library's words.
package struct DynamicLibraryError: Error {
    package var message: String

    /// The symbol `dlopen` could not resolve, when that is the reason.
    package var unresolvedSymbol: String? {
        let marker = "undefined symbol: "
        guard let start = message.firstRange(of: marker)?.upperBound else { return nil }
        return String(message[start...].prefix { $0 != " " && $0 != "," && $0 != "\n" })
    }
}

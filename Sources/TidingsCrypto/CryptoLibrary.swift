import TidingsCryptoShims
import TidingsLoader

/// OpenSSL 3's libcrypto, opened with `dlopen` at run time: the package
/// does not link it, and no digest or cipher is written by hand. The
/// functions are resolved once, by name, into typed C function pointers.
///
/// The library is opened once per process (``shared``) and never closed
/// (`DynamicLibrary` never calls `dlclose`). The value is immutable after
/// `init`, so it is shared between threads; libcrypto's functions are safe
/// from any thread on objects that thread owns.
package final class CryptoLibrary: @unchecked Sendable {
    /// Where the library is looked up: its soname, through the loader's search path.
    package static let defaultPath = "libcrypto.so.3"

    /// The process's library, opened on first use; the reason when it cannot be.
    package static let shared: Result<CryptoLibrary, CryptoError> = Result { () throws(CryptoError) in
        try CryptoLibrary(path: defaultPath)
    }

    private let library: DynamicLibrary

    let sha256: tidings_evp_sha256
    let digestContextNew: tidings_evp_md_ctx_new
    let digestContextFree: tidings_evp_md_ctx_free
    let digestInit: tidings_evp_digest_init_ex
    let digestUpdate: tidings_evp_digest_update
    let digestFinal: tidings_evp_digest_final_ex
    let errorGet: tidings_err_get_error
    let errorString: tidings_err_error_string_n
    let versionText: tidings_openssl_version

    /// Opens the library at `path` and resolves every function the wrapper calls.
    /// - Throws: `crypto.no-library` when it cannot be opened or lacks one of them.
    package init(path: String) throws(CryptoError) {
        let opened: DynamicLibrary
        do {
            opened = try DynamicLibrary(opening: path)
        } catch {
            throw CryptoError(.noLibrary, "cannot open \(path) (Debian's libssl3 package): \(error.message)")
        }
        sha256 = try Self.resolve("EVP_sha256", in: opened, at: path)
        digestContextNew = try Self.resolve("EVP_MD_CTX_new", in: opened, at: path)
        digestContextFree = try Self.resolve("EVP_MD_CTX_free", in: opened, at: path)
        digestInit = try Self.resolve("EVP_DigestInit_ex", in: opened, at: path)
        digestUpdate = try Self.resolve("EVP_DigestUpdate", in: opened, at: path)
        digestFinal = try Self.resolve("EVP_DigestFinal_ex", in: opened, at: path)
        errorGet = try Self.resolve("ERR_get_error", in: opened, at: path)
        errorString = try Self.resolve("ERR_error_string_n", in: opened, at: path)
        versionText = try Self.resolve("OpenSSL_version", in: opened, at: path)
        library = opened
    }

    /// The library's own version line ("OpenSSL 3.0.17 1 Jul 2025").
    package var version: String {
        versionText(0).map { String(cString: $0) } ?? "unknown"
    }

    /// A `crypto.failed` error for `operation`, with the reason libcrypto
    /// queued on this thread (the queue is emptied).
    func failure(_ operation: String) -> CryptoError {
        var reasons: [String] = []
        while case let code = errorGet(), code != 0 {
            var buffer = [CChar](repeating: 0, count: 256)
            buffer.withUnsafeMutableBufferPointer { errorString(code, $0.baseAddress, $0.count) }
            if reasons.count < 4 { reasons.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)) }
        }
        let reason = reasons.isEmpty ? "" : ": " + reasons.joined(separator: "; ")
        return CryptoError(.failed, "libcrypto refused \(operation)\(reason)")
    }

    private static func resolve<Function>(_ name: String, in library: borrowing DynamicLibrary,
                                          at path: String) throws(CryptoError) -> Function {
        guard let function = library.function(named: name, as: Function.self) else {
            throw CryptoError(.noLibrary, "\(path) has no function \(name) (OpenSSL 3 is needed)")
        }
        return function
    }
}

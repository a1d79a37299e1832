import TidingsCryptoShims
import TidingsLoader

/// OpenSSL 3's libcrypto, opened with `dlopen` at run time: the package
/// does not link it, and no digest, cipher, key derivation or curve
/// arithmetic is written by hand. The functions are resolved once, by name,
/// into typed C function pointers.
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
    let randomBytes: tidings_rand_bytes
    let keyContextNewFromName: tidings_evp_pkey_ctx_new_from_name
    let keyContextNewFromKey: tidings_evp_pkey_ctx_new_from_pkey
    let keyContextFree: tidings_evp_pkey_ctx_free
    let keyFromDataInit: tidings_evp_pkey_fromdata_init
    let keyFromData: tidings_evp_pkey_fromdata
    let keyFree: tidings_evp_pkey_free
    let keyCheck: tidings_evp_pkey_check
    let keyPublicCheck: tidings_evp_pkey_check
    let deriveInit: tidings_evp_pkey_derive_init
    let deriveSetPeer: tidings_evp_pkey_derive_set_peer
    let derive: tidings_evp_pkey_derive
    let curveGroupNew: tidings_ec_group_new_by_curve_name
    let curveGroupFree: tidings_ec_group_free
    let curvePointNew: tidings_ec_point_new
    let curvePointFree: tidings_ec_point_free
    let curvePointMultiply: tidings_ec_point_mul
    let curvePointEncode: tidings_ec_point_point2oct
    let numberFromBytes: tidings_bn_bin2bn
    let numberClearFree: tidings_bn_clear_free
    let kdfFetch: tidings_evp_kdf_fetch
    let kdfFree: tidings_evp_kdf_free
    let kdfContextNew: tidings_evp_kdf_ctx_new
    let kdfContextFree: tidings_evp_kdf_ctx_free
    let kdfDerive: tidings_evp_kdf_derive
    let aes128GCM: tidings_evp_aes_128_gcm
    let cipherContextNew: tidings_evp_cipher_ctx_new
    let cipherContextFree: tidings_evp_cipher_ctx_free
    let encryptInit: tidings_evp_cipher_init_ex
    let encryptUpdate: tidings_evp_cipher_update
    let encryptFinal: tidings_evp_cipher_final_ex
    let decryptInit: tidings_evp_cipher_init_ex
    let decryptUpdate: tidings_evp_cipher_update
    let decryptFinal: tidings_evp_cipher_final_ex
    let cipherControl: tidings_evp_cipher_ctx_ctrl
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
        randomBytes = try Self.resolve("RAND_bytes", in: opened, at: path)
        keyContextNewFromName = try Self.resolve("EVP_PKEY_CTX_new_from_name", in: opened, at: path)
        keyContextNewFromKey = try Self.resolve("EVP_PKEY_CTX_new_from_pkey", in: opened, at: path)
        keyContextFree = try Self.resolve("EVP_PKEY_CTX_free", in: opened, at: path)
        keyFromDataInit = try Self.resolve("EVP_PKEY_fromdata_init", in: opened, at: path)
        keyFromData = try Self.resolve("EVP_PKEY_fromdata", in: opened, at: path)
        keyFree = try Self.resolve("EVP_PKEY_free", in: opened, at: path)
        keyCheck = try Self.resolve("EVP_PKEY_check", in: opened, at: path)
        keyPublicCheck = try Self.resolve("EVP_PKEY_public_check", in: opened, at: path)
        deriveInit = try Self.resolve("EVP_PKEY_derive_init", in: opened, at: path)
        deriveSetPeer = try Self.resolve("EVP_PKEY_derive_set_peer", in: opened, at: path)
        derive = try Self.resolve("EVP_PKEY_derive", in: opened, at: path)
        curveGroupNew = try Self.resolve("EC_GROUP_new_by_curve_name", in: opened, at: path)
        curveGroupFree = try Self.resolve("EC_GROUP_free", in: opened, at: path)
        curvePointNew = try Self.resolve("EC_POINT_new", in: opened, at: path)
        curvePointFree = try Self.resolve("EC_POINT_free", in: opened, at: path)
        curvePointMultiply = try Self.resolve("EC_POINT_mul", in: opened, at: path)
        curvePointEncode = try Self.resolve("EC_POINT_point2oct", in: opened, at: path)
        numberFromBytes = try Self.resolve("BN_bin2bn", in: opened, at: path)
        numberClearFree = try Self.resolve("BN_clear_free", in: opened, at: path)
        kdfFetch = try Self.resolve("EVP_KDF_fetch", in: opened, at: path)
        kdfFree = try Self.resolve("EVP_KDF_free", in: opened, at: path)
        kdfContextNew = try Self.resolve("EVP_KDF_CTX_new", in: opened, at: path)
        kdfContextFree = try Self.resolve("EVP_KDF_CTX_free", in: opened, at: path)
        kdfDerive = try Self.resolve("EVP_KDF_derive", in: opened, at: path)
        aes128GCM = try Self.resolve("EVP_aes_128_gcm", in: opened, at: path)
        cipherContextNew = try Self.resolve("EVP_CIPHER_CTX_new", in: opened, at: path)
        cipherContextFree = try Self.resolve("EVP_CIPHER_CTX_free", in: opened, at: path)
        encryptInit = try Self.resolve("EVP_EncryptInit_ex", in: opened, at: path)
        encryptUpdate = try Self.resolve("EVP_EncryptUpdate", in: opened, at: path)
        encryptFinal = try Self.resolve("EVP_EncryptFinal_ex", in: opened, at: path)
        decryptInit = try Self.resolve("EVP_DecryptInit_ex", in: opened, at: path)
        decryptUpdate = try Self.resolve("EVP_DecryptUpdate", in: opened, at: path)
        decryptFinal = try Self.resolve("EVP_DecryptFinal_ex", in: opened, at: path)
        cipherControl = try Self.resolve("EVP_CIPHER_CTX_ctrl", in: opened, at: path)
        errorGet = try Self.resolve("ERR_get_error", in: opened, at: path)
        errorString = try Self.resolve("ERR_error_string_n", in: opened, at: path)
        versionText = try Self.resolve("OpenSSL_version", in: opened, at: path)
        library = opened
    }

    /// The library's own version line ("OpenSSL 3.0.17 1 Jul 2025").
    package var version: String {
        versionText(0).map { String(cString: $0) } ?? "unknown"
    }

    /// A `crypto.failed` error (or `code`) for `operation`, with the reason
    /// libcrypto queued on this thread (the queue is emptied).
    func failure(_ operation: String, code: CryptoError.Code = .failed) -> CryptoError {
        var reasons: [String] = []
        while case let code = errorGet(), code != 0 {
            var buffer = [CChar](repeating: 0, count: 256)
            buffer.withUnsafeMutableBufferPointer { errorString(code, $0.baseAddress, $0.count) }
            if reasons.count < 4 { reasons.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)) }
        }
        let reason = reasons.isEmpty ? "" : ": " + reasons.joined(separator: "; ")
        return CryptoError(code, "libcrypto refused \(operation)\(reason)")
    }

    private static func resolve<Function>(_ name: String, in library: borrowing DynamicLibrary,
                                          at path: String) throws(CryptoError) -> Function {
        guard let function = library.function(named: name, as: Function.self) else {
            throw CryptoError(.noLibrary, "\(path) has no function \(name) (OpenSSL 3 is needed)")
        }
        return function
    }
}

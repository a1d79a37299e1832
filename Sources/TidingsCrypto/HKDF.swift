import TidingsCryptoShims

/// HKDF (RFC 5869) with HMAC-SHA-256, libcrypto's `EVP_KDF` "HKDF":
/// extract, then expand.
package enum HKDF {
    /// `count` bytes of output keying material from `key` (the input keying
    /// material), `salt` (empty: HashLen zero bytes, as RFC 5869 says) and `info`.
    /// - Throws: `crypto.invalid` for no input keying material or a count
    ///   outside 1...8160 (255 × 32); `crypto.no-library`; `crypto.failed`.
    package static func sha256(salt: [UInt8], key: [UInt8], info: [UInt8], count: Int) throws(CryptoError) -> [UInt8] {
        guard count > 0, count <= 255 * 32 else {
            throw CryptoError(.invalid, "HKDF-SHA-256 makes 1 to 8160 bytes, not \(count)")
        }
        guard !key.isEmpty else { throw CryptoError(.invalid, "HKDF-SHA-256 needs input keying material") }
        let library = try CryptoLibrary.shared.get()
        guard let kdf = library.kdfFetch(nil, "HKDF", nil) else { throw library.failure("the HKDF algorithm") }
        defer { library.kdfFree(kdf) }
        guard let context = library.kdfContextNew(kdf) else { throw library.failure("an HKDF context") }
        defer { library.kdfContextFree(context) }
        var parameters = CryptoParameters()
        parameters.text("digest", "SHA256")
        parameters.octets("key", key)
        // An absent salt is the same as an empty one (HMAC pads its key with zeros).
        if !salt.isEmpty { parameters.octets("salt", salt) }
        if !info.isEmpty { parameters.octets("info", info) }
        var output = [UInt8](repeating: 0, count: count)
        let derived = output.withUnsafeMutableBufferPointer { output in
            parameters.withParameters { library.kdfDerive(context, output.baseAddress, output.count, $0) }
        }
        guard derived == 1 else { throw library.failure("HKDF-SHA-256") }
        return output
    }
}

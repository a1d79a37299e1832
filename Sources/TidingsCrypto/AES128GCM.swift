import TidingsCryptoShims

/// AES-128 in Galois/Counter Mode (NIST SP 800-38D), libcrypto's
/// `EVP_aes_128_gcm`: a 16-byte key, a 12-byte nonce, no associated data,
/// and a 16-byte tag after the ciphertext.
package enum AES128GCM {
    /// The key's length.
    package static let keyCount = 16
    /// The nonce's length.
    package static let nonceCount = 12
    /// The authentication tag's length.
    package static let tagCount = 16

    /// `EVP_CTRL_GCM_GET_TAG`: the tag after encryption.
    private static let getTag: Int32 = 0x10
    /// `EVP_CTRL_GCM_SET_TAG`: the tag to check before decryption's end.
    private static let setTag: Int32 = 0x11

    /// `plaintext` encrypted under `key` and `nonce`: the ciphertext, then the tag.
    /// - Throws: `crypto.invalid` for a key or nonce of another length or a
    ///   plaintext of 2 GiB or more; `crypto.no-library`; `crypto.failed`.
    package static func seal(_ plaintext: [UInt8], key: [UInt8], nonce: [UInt8]) throws(CryptoError) -> [UInt8] {
        try checkSizes(key: key, nonce: nonce, count: plaintext.count)
        let library = try CryptoLibrary.shared.get()
        guard let context = library.cipherContextNew() else { throw library.failure("a cipher context") }
        defer { library.cipherContextFree(context) }
        let started = key.withUnsafeBufferPointer { key in
            nonce.withUnsafeBufferPointer { nonce in
                library.encryptInit(context, library.aes128GCM(), nil, key.baseAddress, nonce.baseAddress)
            }
        }
        guard started == 1 else { throw library.failure("AES-128-GCM encryption") }
        var sealed = [UInt8](repeating: 0, count: plaintext.count + tagCount)
        let done = sealed.withUnsafeMutableBufferPointer { output -> Bool in
            guard let base = output.baseAddress else { return false }
            var written: Int32 = 0
            if !plaintext.isEmpty {
                let updated = plaintext.withUnsafeBufferPointer {
                    library.encryptUpdate(context, base, &written, $0.baseAddress, Int32($0.count))
                }
                guard updated == 1, Int(written) == plaintext.count else { return false }
            }
            var last: Int32 = 0
            guard library.encryptFinal(context, base + plaintext.count, &last) == 1, last == 0 else { return false }
            return library.cipherControl(context, getTag, Int32(tagCount), base + plaintext.count) == 1
        }
        guard done else { throw library.failure("AES-128-GCM encryption") }
        return sealed
    }

    /// The plaintext of `sealed` (ciphertext, then tag) under `key` and
    /// `nonce`; nothing of it when the tag does not match.
    /// - Throws: `crypto.failed` when the tag does not match (the data or
    ///   the key is not what was sealed); `crypto.invalid` for a key or nonce
    ///   of another length or fewer bytes than a tag; `crypto.no-library`.
    package static func open(_ sealed: [UInt8], key: [UInt8], nonce: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard sealed.count >= tagCount else {
            throw CryptoError(.invalid, "an AES-128-GCM ciphertext has at least its \(tagCount)-byte tag, not \(sealed.count) bytes")
        }
        let count = sealed.count - tagCount
        try checkSizes(key: key, nonce: nonce, count: count)
        let library = try CryptoLibrary.shared.get()
        guard let context = library.cipherContextNew() else { throw library.failure("a cipher context") }
        defer { library.cipherContextFree(context) }
        let started = key.withUnsafeBufferPointer { key in
            nonce.withUnsafeBufferPointer { nonce in
                library.decryptInit(context, library.aes128GCM(), nil, key.baseAddress, nonce.baseAddress)
            }
        }
        guard started == 1 else { throw library.failure("AES-128-GCM decryption") }
        var tag = Array(sealed[count...])
        // One byte more than the plaintext, so that an empty one has an address too.
        var plaintext = [UInt8](repeating: 0, count: count + 1)
        /// How the decryption ended: opened, refused by libcrypto, or a tag that does not match.
        enum Outcome { case opened, refused, mismatch }
        let outcome = plaintext.withUnsafeMutableBufferPointer { output -> Outcome in
            guard let base = output.baseAddress else { return .refused }
            var written: Int32 = 0
            if count > 0 {
                let updated = sealed.withUnsafeBufferPointer {
                    library.decryptUpdate(context, base, &written, $0.baseAddress, Int32(count))
                }
                guard updated == 1, Int(written) == count else { return .refused }
            }
            let tagged = tag.withUnsafeMutableBytes { library.cipherControl(context, setTag, Int32(tagCount), $0.baseAddress) }
            guard tagged == 1 else { return .refused }
            var last: Int32 = 0
            guard library.decryptFinal(context, base + count, &last) > 0 else {
                output.update(repeating: 0)
                return .mismatch
            }
            return .opened
        }
        switch outcome {
        case .opened:
            plaintext.removeLast()
            return plaintext
        case .mismatch:
            throw library.failure("AES-128-GCM decryption: the authentication tag does not match")
        case .refused:
            throw library.failure("AES-128-GCM decryption")
        }
    }

    /// Checks the key's and nonce's lengths and that `count` bytes fit libcrypto's `int` counts.
    private static func checkSizes(key: [UInt8], nonce: [UInt8], count: Int) throws(CryptoError) {
        guard key.count == keyCount else {
            throw CryptoError(.invalid, "an AES-128-GCM key is \(keyCount) bytes, not \(key.count)")
        }
        guard nonce.count == nonceCount else {
            throw CryptoError(.invalid, "an AES-128-GCM nonce is \(nonceCount) bytes, not \(nonce.count)")
        }
        guard count <= Int(Int32.max) - tagCount else {
            throw CryptoError(.invalid, "\(count) bytes are too many for one AES-128-GCM call")
        }
    }
}

import TidingsCryptoShims

/// Cryptographically secure random bytes, from libcrypto's `RAND_bytes`
/// (its DRBG, seeded by the kernel): for keys, authentication secrets,
/// salts and tokens.
package enum SecureRandom {
    /// `count` random bytes.
    /// - Throws: `crypto.invalid` for a negative or too large count,
    ///   `crypto.no-library` without libcrypto, `crypto.failed` when it refuses.
    package static func bytes(_ count: Int) throws(CryptoError) -> [UInt8] {
        guard count >= 0, count <= Int(Int32.max) else {
            throw CryptoError(.invalid, "cannot make \(count) random bytes")
        }
        let library = try CryptoLibrary.shared.get()
        guard count > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: count)
        let made = bytes.withUnsafeMutableBufferPointer { library.randomBytes($0.baseAddress, Int32($0.count)) }
        guard made == 1 else { throw library.failure("\(count) random bytes") }
        return bytes
    }
}

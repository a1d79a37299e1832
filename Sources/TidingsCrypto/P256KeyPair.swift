import TidingsCryptoShims

/// A key pair on NIST P-256 (secp256r1), kept as its bytes: the 32-byte
/// private scalar and the 65-byte uncompressed public point. libcrypto's
/// key objects are made from them for each operation and freed after it,
/// so the value is plain data (`Sendable`, comparable, storable).
package struct P256KeyPair: Sendable, Equatable {
    /// The private scalar, 32 bytes big-endian, in [1, n - 1].
    package let privateKey: [UInt8]
    /// The public point, 65 bytes uncompressed (SEC 1: `0x04 || x || y`).
    package let publicKey: [UInt8]

    /// `EVP_PKEY_PUBLIC_KEY`, as `EVP_PKEY_fromdata` takes it.
    private static let publicKeySelection: Int32 = 0x86
    /// `EVP_PKEY_KEYPAIR`, as `EVP_PKEY_fromdata` takes it.
    private static let keyPairSelection: Int32 = 0x87
    /// `NID_X9_62_prime256v1`.
    private static let curve: Int32 = 415
    /// `POINT_CONVERSION_UNCOMPRESSED`.
    private static let uncompressed: Int32 = 4

    /// A new key pair, from a private scalar of `SecureRandom`'s bytes (a
    /// candidate outside [1, n - 1], of probability about 2^-32, is drawn again).
    /// - Throws: `crypto.no-library` without libcrypto, `crypto.failed` when it refuses.
    package static func generate() throws(CryptoError) -> P256KeyPair {
        for _ in 0..<8 {
            let candidate = try SecureRandom.bytes(32)
            do throws(CryptoError) {
                return try P256KeyPair(privateKey: candidate)
            } catch where error.code == .invalid {
                continue
            }
        }
        throw CryptoError(.failed, "no valid P-256 private key among 8 random candidates")
    }

    /// The key pair of `privateKey`, a 32-byte big-endian scalar: the public
    /// point is derived from it, and libcrypto checks the pair.
    /// - Throws: `crypto.invalid` for a scalar of another length, zero, or
    ///   not below the curve's order; `crypto.no-library`; `crypto.failed`.
    package init(privateKey: [UInt8]) throws(CryptoError) {
        guard privateKey.count == 32 else {
            throw CryptoError(.invalid, "a P-256 private key is 32 bytes, not \(privateKey.count)")
        }
        let library = try CryptoLibrary.shared.get()
        let publicKey = try Self.publicPoint(of: privateKey, library: library)
        let key = try Self.key(privateKey: privateKey, publicKey: publicKey, library: library)
        defer { library.keyFree(key) }
        try Self.check(key, publicOnly: false, library: library)
        self.privateKey = privateKey
        self.publicKey = publicKey
    }

    /// The ECDH shared secret with `peerPublicKey` (65 bytes uncompressed):
    /// the x coordinate of the product, 32 bytes.
    /// - Throws: `crypto.invalid` when the peer's key is not an uncompressed
    ///   point on P-256; `crypto.no-library`; `crypto.failed`.
    package func sharedSecret(with peerPublicKey: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard peerPublicKey.count == 65, peerPublicKey[0] == 0x04 else {
            throw CryptoError(.invalid, "a P-256 public key is 65 bytes starting with 0x04 (uncompressed), not \(peerPublicKey.count) bytes")
        }
        let library = try CryptoLibrary.shared.get()
        let own = try Self.key(privateKey: privateKey, publicKey: publicKey, library: library)
        defer { library.keyFree(own) }
        let peer = try Self.key(privateKey: nil, publicKey: peerPublicKey, library: library)
        defer { library.keyFree(peer) }
        try Self.check(peer, publicOnly: true, library: library)
        guard let context = library.keyContextNewFromKey(nil, own, nil) else { throw library.failure("an ECDH context") }
        defer { library.keyContextFree(context) }
        guard library.deriveInit(context) == 1 else { throw library.failure("ECDH") }
        guard library.deriveSetPeer(context, peer) == 1 else { throw library.failure("the ECDH peer", code: .invalid) }
        var secret = [UInt8](repeating: 0, count: 32)
        var length = secret.count
        let derived = secret.withUnsafeMutableBufferPointer { library.derive(context, $0.baseAddress, &length) }
        guard derived == 1, length == 32 else { throw library.failure("the ECDH shared secret") }
        return secret
    }

    /// The uncompressed public point `scalar × G`.
    /// - Throws: `crypto.invalid` for a scalar whose product is the point at infinity.
    private static func publicPoint(of scalar: [UInt8], library: CryptoLibrary) throws(CryptoError) -> [UInt8] {
        guard let group = library.curveGroupNew(curve) else { throw library.failure("the P-256 curve") }
        defer { library.curveGroupFree(group) }
        let number = scalar.withUnsafeBufferPointer { library.numberFromBytes($0.baseAddress, Int32($0.count), nil) }
        guard let number else { throw library.failure("a private scalar") }
        defer { library.numberClearFree(number) }
        guard let point = library.curvePointNew(group) else { throw library.failure("a P-256 point") }
        defer { library.curvePointFree(point) }
        guard library.curvePointMultiply(group, point, number, nil, nil, nil) == 1 else {
            throw library.failure("the public point of a private key")
        }
        var encoded = [UInt8](repeating: 0, count: 65)
        let written = encoded.withUnsafeMutableBufferPointer {
            library.curvePointEncode(group, point, uncompressed, $0.baseAddress, $0.count, nil)
        }
        guard written == 65 else { throw library.failure("a private scalar of a finite public point", code: .invalid) }
        return encoded
    }

    /// A P-256 `EVP_PKEY` of these bytes (a key pair, or with no private key
    /// a public key), which the caller frees with `keyFree`.
    /// - Throws: `crypto.invalid` when libcrypto does not take them (a point
    ///   not on the curve).
    private static func key(privateKey: [UInt8]?, publicKey: [UInt8],
                            library: CryptoLibrary) throws(CryptoError) -> OpaquePointer {
        guard let context = library.keyContextNewFromName(nil, "EC", nil) else { throw library.failure("an EC key context") }
        defer { library.keyContextFree(context) }
        guard library.keyFromDataInit(context) == 1 else { throw library.failure("an EC key's import") }
        var parameters = CryptoParameters()
        parameters.text("group", "P-256")
        parameters.octets("pub", publicKey)
        if let privateKey { parameters.unsignedInteger("priv", bigEndian: privateKey) }
        let selection = privateKey == nil ? publicKeySelection : keyPairSelection
        var key: OpaquePointer?
        let made = parameters.withParameters { library.keyFromData(context, &key, selection, $0) }
        guard made == 1, let key else {
            if let key { library.keyFree(key) }
            throw library.failure("a P-256 key of these bytes", code: .invalid)
        }
        return key
    }

    /// Has libcrypto check `key`: a public key is a point on the curve (not
    /// infinity); a key pair also has a private scalar in [1, n - 1] whose
    /// product is its public point.
    /// - Throws: `crypto.invalid` when it is not.
    private static func check(_ key: OpaquePointer, publicOnly: Bool, library: CryptoLibrary) throws(CryptoError) {
        guard let context = library.keyContextNewFromKey(nil, key, nil) else { throw library.failure("a key check context") }
        defer { library.keyContextFree(context) }
        let checked = publicOnly ? library.keyPublicCheck(context) : library.keyCheck(context)
        guard checked == 1 else {
            throw library.failure(publicOnly ? "a P-256 public key (not a point on the curve)" : "a P-256 key pair",
                                  code: .invalid)
        }
    }
}

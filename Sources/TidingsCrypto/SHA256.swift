import TidingsCryptoShims

/// SHA-256 (FIPS 180-4) from the system's libcrypto, for content that must
/// be recognised again: a library whose bytes are the same is the same
/// library, whatever its timestamps say.
///
/// The value owns one digest context of libcrypto's and frees it when it
/// ends; it cannot be copied. Use it from one thread at a time.
package struct SHA256: ~Copyable {
    private let library: CryptoLibrary
    private let context: OpaquePointer

    /// A hash of nothing yet.
    /// - Throws: `crypto.no-library` without libcrypto, `crypto.failed` when it refuses.
    package init() throws(CryptoError) {
        let library = try CryptoLibrary.shared.get()
        guard let context = library.digestContextNew() else { throw library.failure("a digest context") }
        guard library.digestInit(context, library.sha256(), nil) == 1 else {
            library.digestContextFree(context)
            throw library.failure("SHA-256")
        }
        self.library = library
        self.context = context
    }

    deinit {
        library.digestContextFree(context)
    }

    /// Takes in `bytes`.
    /// - Throws: `crypto.failed` when libcrypto refuses them.
    package mutating func update(_ bytes: some Collection<UInt8>) throws(CryptoError) {
        let taken = bytes.withContiguousStorageIfAvailable { library.digestUpdate(context, $0.baseAddress, $0.count) }
            ?? Array(bytes).withUnsafeBufferPointer { library.digestUpdate(context, $0.baseAddress, $0.count) }
        guard taken == 1 else { throw library.failure("SHA-256 input") }
    }

    /// The 32-byte digest of what was taken in.
    /// - Throws: `crypto.failed` when libcrypto refuses.
    package consuming func finish() throws(CryptoError) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var size: UInt32 = 0
        let finished = digest.withUnsafeMutableBufferPointer { library.digestFinal(context, $0.baseAddress, &size) }
        guard finished == 1, size == 32 else { throw library.failure("the SHA-256 digest") }
        return digest
    }

    /// The digest of `bytes`, as 64 lowercase hexadecimal digits.
    /// - Throws: `crypto.no-library` without libcrypto, `crypto.failed` when it refuses.
    package static func hex(of bytes: some Collection<UInt8>) throws(CryptoError) -> String {
        var hash = try SHA256()
        try hash.update(bytes)
        return hexadecimal(try hash.finish())
    }

    /// `digest` as lowercase hexadecimal digits.
    package static func hexadecimal(_ digest: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(digest.count * 2)
        for byte in digest {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}

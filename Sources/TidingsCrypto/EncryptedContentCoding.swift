/// RFC 8188's "aes128gcm" content coding (Encrypted Content-Encoding for
/// HTTP), given its input keying material: a header (salt, record size,
/// key id), then records of AES-128-GCM, each plaintext followed by a
/// padding delimiter (0x01; 0x02 in the last record) and zero or more zeros.
///
/// RFC 8291 (Web Push) derives the input keying material on top, from ECDH
/// and an authentication secret (``WebPushSubscriber``, ``WebPushSender``);
/// this type does not know where the key comes from.
package enum EncryptedContentCoding {
    /// The smallest record size RFC 8188 allows: a tag, a delimiter and one byte.
    package static let minimumRecordSize: UInt32 = 18

    /// The coding's header: `salt (16) | rs (uint32, big-endian) | idlen (1) | keyid (idlen)`.
    package struct Header: Sendable, Equatable {
        /// The salt, 16 bytes.
        package let salt: [UInt8]
        /// The record size `rs`: the length of every record but the last, tag included.
        package let recordSize: UInt32
        /// The key id (for RFC 8291, the sender's public key).
        package let keyID: [UInt8]

        /// The header's length in the body: where the records begin.
        package var count: Int { 21 + keyID.count }

        /// The header at the start of `body`.
        /// - Throws: `crypto.invalid` when the body is shorter than its header,
        ///   or the record size is below 18.
        package init(parsing body: [UInt8]) throws(CryptoError) {
            guard body.count >= 21 else {
                throw CryptoError(.invalid, "an aes128gcm body starts with a header of at least 21 bytes, not \(body.count) bytes")
            }
            let recordSize = body[16..<20].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            guard recordSize >= minimumRecordSize else {
                throw CryptoError(.invalid, "an aes128gcm record size is at least \(minimumRecordSize), not \(recordSize)")
            }
            let keyIDCount = Int(body[20])
            guard body.count >= 21 + keyIDCount else {
                throw CryptoError(.invalid, "an aes128gcm header with a \(keyIDCount)-byte key id is cut short at \(body.count) bytes")
            }
            self.salt = Array(body[0..<16])
            self.recordSize = recordSize
            self.keyID = Array(body[21..<(21 + keyIDCount)])
        }

        /// A header of these fields.
        /// - Throws: `crypto.invalid` for a salt that is not 16 bytes, a key id
        ///   longer than 255 bytes or a record size below 18.
        package init(salt: [UInt8], recordSize: UInt32, keyID: [UInt8]) throws(CryptoError) {
            guard salt.count == 16 else { throw CryptoError(.invalid, "an aes128gcm salt is 16 bytes, not \(salt.count)") }
            guard keyID.count <= 255 else { throw CryptoError(.invalid, "an aes128gcm key id is at most 255 bytes, not \(keyID.count)") }
            guard recordSize >= minimumRecordSize else {
                throw CryptoError(.invalid, "an aes128gcm record size is at least \(minimumRecordSize), not \(recordSize)")
            }
            self.salt = salt
            self.recordSize = recordSize
            self.keyID = keyID
        }

        /// The header's bytes.
        package var bytes: [UInt8] {
            salt + [UInt8(recordSize >> 24), UInt8(recordSize >> 16 & 0xff), UInt8(recordSize >> 8 & 0xff),
                    UInt8(recordSize & 0xff), UInt8(keyID.count)] + keyID
        }
    }

    /// The plaintext of `body` under the input keying material `ikm`: every
    /// record decrypted, its padding removed.
    /// - Throws: `crypto.invalid` for a malformed header, no records, a
    ///   record too short to hold a tag and a delimiter, a record with no
    ///   delimiter or the wrong one (0x02 ends the last record, 0x01 every
    ///   other: a body cut at a record boundary ends in 0x01);
    ///   `crypto.failed` when a record's tag does not match; `crypto.no-library`.
    package static func decrypt(_ body: [UInt8], ikm: [UInt8]) throws(CryptoError) -> [UInt8] {
        let header = try Header(parsing: body)
        let (key, baseNonce) = try keyAndNonce(ikm: ikm, salt: header.salt)
        let recordSize = Int(header.recordSize)
        guard body.count > header.count else { throw CryptoError(.invalid, "an aes128gcm body has no record") }
        var plaintext: [UInt8] = []
        var start = header.count
        var sequence: UInt64 = 0
        while start < body.count {
            let end = body.count - start > recordSize ? start + recordSize : body.count
            let isLast = end == body.count
            guard end - start > AES128GCM.tagCount else {
                throw CryptoError(.invalid, "aes128gcm record \(sequence) is truncated: \(end - start) bytes cannot hold a tag and a delimiter")
            }
            let padded = try AES128GCM.open(Array(body[start..<end]), key: key, nonce: nonce(baseNonce, sequence))
            guard let delimiter = padded.lastIndex(where: { $0 != 0 }) else {
                throw CryptoError(.invalid, "aes128gcm record \(sequence) has no padding delimiter")
            }
            let expected: UInt8 = isLast ? 0x02 : 0x01
            guard padded[delimiter] == expected else {
                throw CryptoError(.invalid, isLast && padded[delimiter] == 0x01
                    ? "the aes128gcm body ends in record \(sequence), which is not the last (delimiter 0x01): it is truncated"
                    : "aes128gcm record \(sequence) has the padding delimiter \(padded[delimiter]), not \(expected)")
            }
            plaintext.append(contentsOf: padded[..<delimiter])
            start = end
            sequence += 1
        }
        return plaintext
    }

    /// `plaintext` encoded under the input keying material `ikm`, with
    /// `salt` and `keyID` in the header: records of `recordSize` bytes (the
    /// last shorter or equal), each with its delimiter and no further padding.
    /// - Throws: `crypto.invalid` for a salt that is not 16 bytes, a key id
    ///   longer than 255 bytes or a record size below 18; `crypto.no-library`; `crypto.failed`.
    package static func encrypt(_ plaintext: [UInt8], ikm: [UInt8], salt: [UInt8], keyID: [UInt8],
                                recordSize: UInt32) throws(CryptoError) -> [UInt8] {
        let header = try Header(salt: salt, recordSize: recordSize, keyID: keyID)
        let (key, baseNonce) = try keyAndNonce(ikm: ikm, salt: salt)
        let chunk = Int(recordSize) - AES128GCM.tagCount - 1
        var body = header.bytes
        var start = 0
        var sequence: UInt64 = 0
        repeat {
            let end = plaintext.count - start > chunk ? start + chunk : plaintext.count
            let isLast = end == plaintext.count
            let record = Array(plaintext[start..<end]) + [isLast ? 0x02 : 0x01]
            body.append(contentsOf: try AES128GCM.seal(record, key: key, nonce: nonce(baseNonce, sequence)))
            start = end
            sequence += 1
        } while start < plaintext.count
        return body
    }

    /// The content-encryption key and the base nonce (RFC 8188 sections 2.2 and 2.3).
    private static func keyAndNonce(ikm: [UInt8], salt: [UInt8]) throws(CryptoError) -> (key: [UInt8], nonce: [UInt8]) {
        let key = try HKDF.sha256(salt: salt, key: ikm, info: Array("Content-Encoding: aes128gcm\0".utf8),
                                  count: AES128GCM.keyCount)
        let nonce = try HKDF.sha256(salt: salt, key: ikm, info: Array("Content-Encoding: nonce\0".utf8),
                                    count: AES128GCM.nonceCount)
        return (key, nonce)
    }

    /// The nonce of record `sequence`: the base nonce XOR the sequence
    /// number as a 96-bit big-endian integer.
    private static func nonce(_ base: [UInt8], _ sequence: UInt64) -> [UInt8] {
        var nonce = base
        for index in 0..<8 {
            nonce[nonce.count - 1 - index] ^= UInt8(truncatingIfNeeded: sequence >> (8 * UInt64(index)))
        }
        return nonce
    }
}

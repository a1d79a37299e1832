/// Why a cryptographic operation could not be made: the system's crypto
/// library is missing, it refused the operation, or the input is malformed.
package struct CryptoError: Error, Equatable, CustomStringConvertible {
    /// What went wrong, as a stable code (`crypto.…`).
    package struct Code: RawRepresentable, Hashable, Sendable {
        package let rawValue: String
        package init(rawValue: String) { self.rawValue = rawValue }

        /// `libcrypto.so.3` cannot be opened, or lacks a function the wrapper calls.
        package static let noLibrary = Code(rawValue: "crypto.no-library")
        /// The library refused or failed an operation (its own reason in the
        /// message), a ciphertext whose authentication tag does not match included.
        package static let failed = Code(rawValue: "crypto.failed")
        /// The input is malformed: a key, nonce or secret of the wrong length,
        /// a point not on the curve, an encrypted body whose header, records
        /// or padding are not what RFC 8188 and RFC 8291 say.
        package static let invalid = Code(rawValue: "crypto.invalid")
    }

    /// The stable code.
    package let code: Code
    /// One plain sentence.
    package let message: String

    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    package var description: String { "\(code.rawValue): \(message)" }
}

/// Why a cryptographic operation could not be made: the system's crypto
/// library is missing, or it refused the operation.
package struct CryptoError: Error, Equatable, CustomStringConvertible {
    /// What went wrong, as a stable code (`crypto.…`).
    package struct Code: RawRepresentable, Hashable, Sendable {
        package let rawValue: String
        package init(rawValue: String) { self.rawValue = rawValue }

        /// `libcrypto.so.3` cannot be opened, or lacks a function the wrapper calls.
        package static let noLibrary = Code(rawValue: "crypto.no-library")
        /// The library refused or failed an operation (its own reason in the message).
        package static let failed = Code(rawValue: "crypto.failed")
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

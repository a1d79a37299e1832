import TidingsCryptoShims

/// An `OSSL_PARAM` array, the way OpenSSL 3 takes named arguments (a key's
/// curve and bytes, a key derivation's digest, salt and input): names and
/// values are collected here, and laid out in one buffer only for the call.
///
/// Values are copied in; the buffer is zeroed after the call, since it
/// holds secrets (private scalars, keying material).
struct CryptoParameters {
    /// `OSSL_PARAM_UNSIGNED_INTEGER`, `OSSL_PARAM_UTF8_STRING`, `OSSL_PARAM_OCTET_STRING`.
    private enum DataType: UInt32 {
        /// An unsigned integer in the machine's byte order.
        case unsignedInteger = 2
        /// A UTF-8 string (its size without the NUL).
        case utf8String = 4
        /// Bytes.
        case octetString = 5
    }

    /// One named value: its name, type and bytes (a string's without its NUL).
    private struct Entry {
        /// The parameter's name ("group", "pub", "digest"…).
        let name: String
        /// How OpenSSL reads the bytes.
        let type: DataType
        /// The value.
        let bytes: [UInt8]
    }

    /// The parameters, in order.
    private var entries: [Entry] = []

    /// No parameters yet.
    init() {}

    /// Adds a UTF-8 string parameter (a curve's name, a digest's).
    mutating func text(_ name: String, _ value: String) {
        entries.append(Entry(name: name, type: .utf8String, bytes: Array(value.utf8)))
    }

    /// Adds an octet string parameter (a public point, a salt).
    mutating func octets(_ name: String, _ value: [UInt8]) {
        entries.append(Entry(name: name, type: .octetString, bytes: value))
    }

    /// Adds an unsigned integer parameter given big-endian (a private scalar):
    /// OpenSSL reads it in the machine's byte order.
    mutating func unsignedInteger(_ name: String, bigEndian value: [UInt8]) {
        #if _endian(little)
        entries.append(Entry(name: name, type: .unsignedInteger, bytes: value.reversed()))
        #else
        entries.append(Entry(name: name, type: .unsignedInteger, bytes: value))
        #endif
    }

    /// Calls `body` with the parameters as a terminated `OSSL_PARAM` array,
    /// valid only during the call.
    func withParameters<Result>(_ body: (UnsafeMutablePointer<tidings_ossl_param>) -> Result) -> Result {
        // Each name NUL-terminated, then its value (NUL-terminated too, and
        // never empty, so that every value has an address).
        var storage: [UInt8] = []
        var layout: [(name: Int, value: Int)] = []
        for entry in entries {
            let name = storage.count
            storage.append(contentsOf: entry.name.utf8)
            storage.append(0)
            let value = storage.count
            storage.append(contentsOf: entry.bytes)
            storage.append(0)
            layout.append((name, value))
        }
        return storage.withUnsafeMutableBytes { buffer in
            defer { buffer.initializeMemory(as: UInt8.self, repeating: 0) }
            var parameters: [tidings_ossl_param] = []
            if let base = buffer.baseAddress {
                for (entry, place) in zip(entries, layout) {
                    parameters.append(tidings_ossl_param(
                        key: UnsafePointer(base.advanced(by: place.name).assumingMemoryBound(to: CChar.self)),
                        data_type: entry.type.rawValue,
                        data: base.advanced(by: place.value),
                        data_size: entry.bytes.count,
                        return_size: Int(bitPattern: UInt.max)))
                }
            }
            parameters.append(tidings_ossl_param(key: nil, data_type: 0, data: nil, data_size: 0, return_size: 0))
            return parameters.withUnsafeMutableBufferPointer { body($0.baseAddress!) }
        }
    }
}

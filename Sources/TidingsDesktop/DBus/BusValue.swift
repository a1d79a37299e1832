/// A value inside a D-Bus variant (`v`): the basic types, arrays and
/// dictionaries the notification and application interfaces carry in hints
/// and parameters.
package indirect enum BusValue: Hashable, Sendable {
    /// `s`.
    case string(String)
    /// `b`.
    case bool(Bool)
    /// `y`, such as the `urgency` hint.
    case byte(UInt8)
    /// `i`.
    case int32(Int32)
    /// `u`.
    case uint32(UInt32)
    /// `x`.
    case int64(Int64)
    /// `d`.
    case double(Double)
    /// `ay`, such as a hint's raw bytes.
    case bytes([UInt8])
    /// `as`.
    case strings([String])
    /// `a{sv}`, such as the parameter of Tidings' `tidings.response` action.
    case dictionary([String: BusValue])

    /// The value's D-Bus type signature.
    package var signature: String {
        switch self {
        case .string: "s"
        case .bool: "b"
        case .byte: "y"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .double: "d"
        case .bytes: "ay"
        case .strings: "as"
        case .dictionary: "a{sv}"
        }
    }
}

/// A D-Bus type code as sd-bus takes it: one ASCII character.
func typeCode(_ character: Unicode.Scalar) -> CChar {
    CChar(bitPattern: UInt8(ascii: character))
}

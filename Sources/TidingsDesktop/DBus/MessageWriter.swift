import TidingsDesktopShims

/// Appends arguments to a message being built, one value or container at a
/// time (sd-bus's non-variadic functions). Handed to a closure, valid only
/// inside it, on the connection's thread.
package struct MessageWriter: ~Copyable {
    let message: OpaquePointer
    let sd: SDBusLibrary

    /// Appends a string (`s`).
    package func append(_ value: String) throws(BusError) {
        try check(value.withCString { sd.appendBasic(message, typeCode("s"), $0) }, "append a string")
    }

    /// Appends an object path (`o`).
    package func append(objectPath value: String) throws(BusError) {
        try check(value.withCString { sd.appendBasic(message, typeCode("o"), $0) }, "append an object path")
    }

    /// Appends a boolean (`b`, an int on the C side).
    package func append(_ value: Bool) throws(BusError) {
        try appendBasic("b", Int32(value ? 1 : 0))
    }

    /// Appends a byte (`y`).
    package func append(_ value: UInt8) throws(BusError) { try appendBasic("y", value) }
    /// Appends a signed 32-bit integer (`i`).
    package func append(_ value: Int32) throws(BusError) { try appendBasic("i", value) }
    /// Appends an unsigned 32-bit integer (`u`).
    package func append(_ value: UInt32) throws(BusError) { try appendBasic("u", value) }
    /// Appends a signed 64-bit integer (`x`).
    package func append(_ value: Int64) throws(BusError) { try appendBasic("x", value) }
    /// Appends a double (`d`).
    package func append(_ value: Double) throws(BusError) { try appendBasic("d", value) }

    /// Appends an array of strings (`as`).
    package func append(_ values: [String]) throws(BusError) {
        try container("a", "s") { (writer: borrowing MessageWriter) throws(BusError) in
            for value in values { try writer.append(value) }
        }
    }

    /// Appends an array of bytes (`ay`).
    package func append(_ values: [UInt8]) throws(BusError) {
        try container("a", "y") { (writer: borrowing MessageWriter) throws(BusError) in
            for value in values { try writer.append(value) }
        }
    }

    /// Appends a variant (`v`) holding `value`.
    package func append(variant value: BusValue) throws(BusError) {
        try container("v", value.signature) { (writer: borrowing MessageWriter) throws(BusError) in
            switch value {
            case .string(let v): try writer.append(v)
            case .bool(let v): try writer.append(v)
            case .byte(let v): try writer.append(v)
            case .int32(let v): try writer.append(v)
            case .uint32(let v): try writer.append(v)
            case .int64(let v): try writer.append(v)
            case .double(let v): try writer.append(v)
            case .bytes(let v): try writer.append(v)
            case .strings(let v): try writer.append(v)
            case .dictionary(let v): try writer.append(dictionary: v)
            }
        }
    }

    /// Appends an array of variants (`av`).
    package func append(variants values: [BusValue]) throws(BusError) {
        try container("a", "v") { (writer: borrowing MessageWriter) throws(BusError) in
            for value in values { try writer.append(variant: value) }
        }
    }

    /// Appends a dictionary of variants (`a{sv}`), its keys in order.
    package func append(dictionary: [String: BusValue]) throws(BusError) {
        try container("a", "{sv}") { (writer: borrowing MessageWriter) throws(BusError) in
            for (key, value) in dictionary.sorted(by: { $0.key < $1.key }) {
                try writer.container("e", "sv") { (entry: borrowing MessageWriter) throws(BusError) in
                    try entry.append(key)
                    try entry.append(variant: value)
                }
            }
        }
    }

    /// Opens a container of `type` (`a`, `v`, `r`, `e`) with the signature
    /// `contents`, lets `body` append its contents, and closes it.
    package func container(_ type: Unicode.Scalar, _ contents: String,
                           _ body: (borrowing MessageWriter) throws(BusError) -> Void) throws(BusError) {
        try check(contents.withCString { sd.openContainer(message, typeCode(type), $0) }, "open a container")
        try body(self)
        try check(sd.closeContainer(message), "close a container")
    }

    @_semantics("optimize.sil.specialize.generic.never")  // see BusConnection.callAsync
    private func appendBasic<Value>(_ type: Unicode.Scalar, _ value: Value) throws(BusError) {
        var value = value
        try check(withUnsafePointer(to: &value) { sd.appendBasic(message, typeCode(type), $0) }, "append a value")
    }

    private func check(_ result: Int32, _ what: String) throws(BusError) {
        if result < 0 { throw BusError(BusError.operationFailed, errno: result, "cannot \(what)") }
    }
}

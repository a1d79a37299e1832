import TidingsDesktopShims

/// Reads a message's arguments in order, one value or container at a time
/// (sd-bus's non-variadic functions). Handed to a closure, valid only inside
/// it, on the connection's thread.
package struct MessageReader: ~Copyable {
    let message: OpaquePointer
    let sd: SDBusLibrary

    /// The member (method or signal name) of the message.
    package var member: String? { sd.getMember(message).map { String(cString: $0) } }
    /// The interface of the message.
    package var interface: String? { sd.getInterface(message).map { String(cString: $0) } }
    /// The object path of the message.
    package var path: String? { sd.getPath(message).map { String(cString: $0) } }
    /// The sender's unique bus name.
    package var sender: String? { sd.getSender(message).map { String(cString: $0) } }

    /// Reads a string (`s`) or object path (`o`).
    package func readString(_ type: Unicode.Scalar = "s") throws(BusError) -> String {
        var pointer: UnsafePointer<CChar>?
        try expect(sd.readBasic(message, typeCode(type), &pointer), type)
        guard let pointer else { throw mismatch(type) }
        return String(cString: pointer)
    }

    /// Reads a boolean (`b`).
    package func readBool() throws(BusError) -> Bool { try readBasic("b", Int32(0)) != 0 }
    /// Reads a byte (`y`).
    package func readByte() throws(BusError) -> UInt8 { try readBasic("y", UInt8(0)) }
    /// Reads a signed 32-bit integer (`i`).
    package func readInt32() throws(BusError) -> Int32 { try readBasic("i", Int32(0)) }
    /// Reads an unsigned 32-bit integer (`u`).
    package func readUInt32() throws(BusError) -> UInt32 { try readBasic("u", UInt32(0)) }
    /// Reads a signed 64-bit integer (`x`).
    package func readInt64() throws(BusError) -> Int64 { try readBasic("x", Int64(0)) }
    /// Reads a double (`d`).
    package func readDouble() throws(BusError) -> Double { try readBasic("d", Double(0)) }

    /// Reads an array of strings (`as`).
    package func readStrings() throws(BusError) -> [String] {
        try readArray("s") { (reader: borrowing MessageReader) throws(BusError) in try reader.readString() }
    }

    /// Reads an array of bytes (`ay`), copied from the message at once.
    package func readBytes() throws(BusError) -> [UInt8] {
        try readBytes(atMost: .max)
    }

    /// Reads an array of bytes (`ay`) of at most `limit` bytes: a longer one
    /// is refused before anything is copied (the bytes stay in the message).
    /// - Throws: `dbus.unexpected-reply` when the value is no `ay`, or is longer than `limit`.
    package func readBytes(atMost limit: Int) throws(BusError) -> [UInt8] {
        var start: UnsafeRawPointer?
        var size = 0
        try expect(sd.readArray(message, typeCode("y"), &start, &size), "a")
        guard size <= limit else {
            throw BusError(BusError.unexpectedReply, "an array of \(size) bytes is longer than the \(limit) taken")
        }
        guard size > 0, let start else { return [] }
        // `start` points into the message, which outlives this call: copied before it returns.
        return Array(UnsafeRawBufferPointer(start: start, count: size))
    }

    /// Reads an array of variants (`av`); variants of other types than
    /// `BusValue`'s are skipped.
    package func readVariants() throws(BusError) -> [BusValue] {
        try readArray("v") { (reader: borrowing MessageReader) throws(BusError) in try reader.readVariant() }
            .compactMap { $0 }
    }

    /// Reads a dictionary of variants (`a{sv}`); entries whose variant holds
    /// another type than `BusValue`'s are left out.
    package func readDictionary() throws(BusError) -> [String: BusValue] {
        let entries = try readArray("{sv}") { (reader: borrowing MessageReader) throws(BusError) in
            try reader.inContainer("e", "sv") { (entry: borrowing MessageReader) throws(BusError) in
                (try entry.readString(), try entry.readVariant())
            }
        }
        var dictionary: [String: BusValue] = [:]
        for (key, value) in entries { dictionary[key] = value }
        return dictionary
    }

    /// Reads a variant (`v`); nil (the variant skipped) when it holds another type than `BusValue`'s.
    package func readVariant() throws(BusError) -> BusValue? {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>?
        try expect(sd.peekType(message, &type, &contents), "v")
        guard type == typeCode("v"), let contents else { throw mismatch("v") }
        let signature = String(cString: contents)
        let known = ["s", "b", "y", "i", "u", "x", "d", "ay", "as", "a{sv}"]
        guard known.contains(signature) else {
            try expect(sd.skip(message, "v"), "v")
            return nil
        }
        return try inContainer("v", signature) { (reader: borrowing MessageReader) throws(BusError) -> BusValue in
            switch signature {
            case "s": .string(try reader.readString())
            case "b": .bool(try reader.readBool())
            case "y": .byte(try reader.readByte())
            case "i": .int32(try reader.readInt32())
            case "u": .uint32(try reader.readUInt32())
            case "x": .int64(try reader.readInt64())
            case "d": .double(try reader.readDouble())
            case "ay": .bytes(try reader.readBytes())
            case "as": .strings(try reader.readStrings())
            default: .dictionary(try reader.readDictionary())
            }
        }
    }

    /// The signature of the variant (`v`) at the reader's position, without reading it.
    package func variantSignature() throws(BusError) -> String {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>?
        try expect(sd.peekType(message, &type, &contents), "v")
        guard type == typeCode("v"), let contents else { throw mismatch("v") }
        return String(cString: contents)
    }

    /// Skips the value at the reader's position, whose complete type is `signature`.
    package func skip(_ signature: String) throws(BusError) {
        let result = signature.withCString { sd.skip(message, $0) }
        if result < 0 { throw BusError(BusError.unexpectedReply, errno: result, "cannot skip a value of type \(signature)") }
    }

    /// Reads an array whose elements have the signature `element`, each with `readElement`.
    @_semantics("optimize.sil.specialize.generic.never")  // see BusConnection.callAsync
    package func readArray<Element>(_ element: String,
                                    _ readElement: (borrowing MessageReader) throws(BusError) -> Element)
        throws(BusError) -> [Element] {
        try inContainer("a", element) { (reader: borrowing MessageReader) throws(BusError) -> [Element] in
            var elements: [Element] = []
            while try reader.hasMore() { elements.append(try readElement(reader)) }
            return elements
        }
    }

    /// Enters a container of `type` with the signature `contents`, reads it with `body`, and leaves it.
    @_semantics("optimize.sil.specialize.generic.never")  // see BusConnection.callAsync
    package func inContainer<Result>(_ type: Unicode.Scalar, _ contents: String,
                                     _ body: (borrowing MessageReader) throws(BusError) -> Result)
        throws(BusError) -> Result {
        try expect(contents.withCString { sd.enterContainer(message, typeCode(type), $0) }, type)
        let result = try body(self)
        let exited = sd.exitContainer(message)
        if exited < 0 { throw BusError(BusError.unexpectedReply, errno: exited, "cannot leave a container") }
        return result
    }

    /// True when the current container has another value to read.
    private func hasMore() throws(BusError) -> Bool {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>?
        let result = sd.peekType(message, &type, &contents)
        if result < 0 { throw BusError(BusError.unexpectedReply, errno: result, "cannot read the message") }
        return result > 0
    }

    @_semantics("optimize.sil.specialize.generic.never")  // see BusConnection.callAsync
    private func readBasic<Value>(_ type: Unicode.Scalar, _ initial: Value) throws(BusError) -> Value {
        var value = initial
        try expect(withUnsafeMutablePointer(to: &value) { sd.readBasic(message, typeCode(type), $0) }, type)
        return value
    }

    /// Checks the result of a read: negative is an error, zero means the value was not there.
    private func expect(_ result: Int32, _ type: Unicode.Scalar) throws(BusError) {
        if result < 0 { throw BusError(BusError.unexpectedReply, errno: result, "cannot read a value of type \(type)") }
        if result == 0 { throw mismatch(type) }
    }

    private func mismatch(_ type: Unicode.Scalar) -> BusError {
        BusError(BusError.unexpectedReply, "expected a value of type \(type) in the message")
    }
}
